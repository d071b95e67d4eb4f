#pragma once
// The command line as data, for the documents generated from it: the man
// pages (man_page.h) and the bash completion (completion.h). Read from the
// same CLI11 definitions `--help` prints, so none of them can drift from the
// options iolens really takes. Hidden subcommands and options (an empty
// group) are left out, as `--help` leaves them out.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace iolens::cli {

struct OptionDoc {
    std::vector<std::string> names;  // "-p", "--pid"; a positional: its name
    // What the value is, as --help shows it ("N", "FILE", "DIR", "COMMAND",
    // "TEXT:{auto,always,never}"); empty for a flag.
    std::string value;
    std::string description;
    std::string default_value;  // "" when none is shown
    bool positional = false;
    bool many = false;  // takes every remaining argument
};

// The visible subcommands of the root, in the order they were added.
std::vector<const CLI::App*> visible_subcommands(const CLI::App& app);
// The visible options of app (help included, --version for the root), then
// its positionals.
std::vector<OptionDoc> visible_options(const CLI::App& app);
// The root's options that a subcommand accepts too (fallthrough), without
// --help and --version: `-v`.
std::vector<OptionDoc> global_options(const CLI::App& root);
// The values a "TEXT:{a,b,c}" option accepts; empty if it takes any.
std::vector<std::string> value_choices(const std::string& value);
// The value's kind without the choices: "FILE" for "FILE", "TEXT" for
// "TEXT:{a,b}".
std::string value_kind(const std::string& value);

}  // namespace iolens::cli
