#pragma once
// Man pages in roff (man(7)), generated from the CLI11 definitions through
// cli_doc.h: iolens(8) for the command and its subcommands, and one
// iolens-<subcommand>(8) per visible subcommand with its description,
// synopsis, options (defaults and accepted values as --help shows them) and
// footer. A footer is sections separated by blank lines, each opened by
// "Heading:" (EXAMPLES, EXIT STATUS, ...); its lines indented by two spaces
// are shown verbatim.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace iolens::cli {

struct ManPage {
    std::string name;  // "iolens", "iolens-record"
    std::string roff;
};

// iolens(8) first, then one page per visible subcommand.
std::vector<ManPage> man_pages(const CLI::App& root);

// Text for roff: backslashes escaped, a leading '.' or '\'' neutralized, and
// a '-' that starts a word (an option) made a minus sign.
std::string roff_escape(const std::string& text);

}  // namespace iolens::cli
