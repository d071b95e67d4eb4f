#include "cli/man_page.h"

#include <cctype>
#include <sstream>

#include "cli/cli_doc.h"

namespace iolens::cli {

namespace {

std::string upper(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

std::string chop_period(std::string s) {
    while (!s.empty() && (s.back() == '.' || s.back() == '\n')) s.pop_back();
    return s;
}

// Text ending as a sentence does ("." added unless it ends in . ? or !).
std::string sentence(std::string s) {
    if (!s.empty() && s.back() != '.' && s.back() != '?' && s.back() != '!') s += '.';
    return s;
}

// Lines joined into one paragraph.
std::string paragraph(const std::string& text) {
    std::string out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) out += (out.empty() ? "" : " ") + line;
    return out;
}

std::string bold(const std::string& s) { return "\\fB" + roff_escape(s) + "\\fR"; }
std::string italic(const std::string& s) { return "\\fI" + roff_escape(s) + "\\fR"; }

std::string value_text(const std::string& value) {
    auto choices = value_choices(value);
    if (choices.empty()) return italic(value);
    std::string s;
    for (const auto& c : choices) s += (s.empty() ? "" : "|") + bold(c);
    return s;
}

std::string option_entry(const OptionDoc& o) {
    std::string head;
    for (const auto& n : o.names) head += (head.empty() ? "" : ", ") + (o.positional ? italic(n) : bold(n));
    if (!o.positional && !o.value.empty()) head += " " + value_text(o.value);
    if (o.many) head += " ...";
    std::string body = roff_escape(o.description);
    if (!o.default_value.empty()) body += " (default: " + roff_escape(o.default_value) + ")";
    if (o.positional && !o.value.empty() && !value_choices(o.value).empty())
        body += " (" + value_text(o.value) + ")";
    return ".TP\n" + head + "\n" + body + "\n";
}

std::string options_section(const std::string& title, const std::vector<OptionDoc>& options) {
    if (options.empty()) return "";
    std::string out = ".SH " + title + "\n";
    for (const auto& o : options) out += option_entry(o);
    return out;
}

// The footer's "Heading:" sections as man sections.
std::string footer_sections(const std::string& footer) {
    std::string out;
    bool verbatim = false;
    std::istringstream in(footer);
    for (std::string line; std::getline(in, line);) {
        const bool indented = line.rfind("  ", 0) == 0;
        if (verbatim && !indented) out += ".fi\n.RE\n", verbatim = false;
        const auto colon = line.find(':');
        if (line.empty()) continue;
        if (!indented && colon != std::string::npos && std::isupper(static_cast<unsigned char>(line[0])) &&
            line.substr(0, colon).find_first_not_of(
                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ ") == std::string::npos) {
            out += ".SH " + upper(line.substr(0, colon)) + "\n";
            line = line.substr(colon + 1);
            while (!line.empty() && line[0] == ' ') line.erase(0, 1);
            if (line.empty()) continue;
        }
        if (indented && !verbatim) out += ".RS 4\n.nf\n", verbatim = true;
        out += roff_escape(indented ? line.substr(2) : line) + "\n";
    }
    if (verbatim) out += ".fi\n.RE\n";
    return out;
}

std::string title(const std::string& name) {
    return ".TH " + roff_escape(upper(name)) +
           " 8 \"\" \"iolens " IOLENS_VERSION_STRING "\" \"iolens manual\"\n.nh\n";
}

std::string see_also(const CLI::App& root, const std::string& self) {
    std::string out = ".SH SEE ALSO\n";
    std::string refs = self == "iolens" ? "" : bold("iolens") + "(8)";
    for (const auto* s : visible_subcommands(root))
        if ("iolens-" + s->get_name() != self)
            refs += (refs.empty() ? "" : ", ") + bold("iolens-" + s->get_name()) + "(8)";
    return out + refs + "\n";
}

ManPage root_page(const CLI::App& root) {
    std::string description = root.get_description();
    const auto first_end = description.find('\n');
    std::string summary = description.substr(0, first_end);
    if (summary.rfind("iolens: ", 0) == 0) summary = summary.substr(8);
    std::string rest = first_end == std::string::npos ? "" : description.substr(first_end + 1);
    std::string out = title("iolens") + ".SH NAME\niolens \\- " + roff_escape(chop_period(summary)) + "\n";
    out += ".SH SYNOPSIS\n.B iolens\n[\\fIglobal options\\fR] \\fIcommand\\fR [\\fIoptions\\fR]\n";
    out += ".br\n.B iolens \\-\\-help\n.br\n.B iolens \\-\\-version\n";
    out += ".SH DESCRIPTION\n" + roff_escape(paragraph(rest)) + "\n";
    out += ".SH COMMANDS\n";
    for (const auto* s : visible_subcommands(root))
        out += ".TP\n" + bold(s->get_name()) + "\n" + roff_escape(sentence(s->get_description())) + " See " +
               bold("iolens-" + s->get_name()) + "(8).\n";
    out += options_section("OPTIONS", visible_options(root));
    out += footer_sections(root.get_footer());
    return {"iolens", out + see_also(root, "iolens")};
}

std::string synopsis(const CLI::App& sub) {
    std::string out = ".SH SYNOPSIS\n.B iolens " + roff_escape(sub.get_name()) + "\n[\\fIoptions\\fR]";
    for (const auto& o : visible_options(sub)) {
        if (!o.positional) continue;
        out += o.many ? " [\\fB\\-\\-\\fR] " + italic(o.names[0]) + " ..." : " [" + italic(o.names[0]) + "]";
    }
    return out + "\n";
}

ManPage sub_page(const CLI::App& root, const CLI::App& sub) {
    const std::string name = "iolens-" + sub.get_name();
    std::string out = title(name) + ".SH NAME\n" + roff_escape(name) + " \\- " +
                      roff_escape(chop_period(sub.get_description())) + "\n";
    out += synopsis(sub);
    out += ".SH DESCRIPTION\n" + roff_escape(paragraph(sub.get_description())) + "\n";
    out += options_section("OPTIONS", visible_options(sub));
    out += options_section("GLOBAL OPTIONS", global_options(root));
    out += footer_sections(sub.get_footer());
    return {name, out + see_also(root, name)};
}

}  // namespace

std::string roff_escape(const std::string& text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\\') {
            out += "\\e";
        } else if (c == '-' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '(' || text[i - 1] == '-' ||
                                text[i - 1] == '[' || text[i - 1] == '/')) {
            out += "\\-";
        } else {
            out += c;
        }
    }
    if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
    return out;
}

std::vector<ManPage> man_pages(const CLI::App& root) {
    std::vector<ManPage> pages{root_page(root)};
    for (const auto* s : visible_subcommands(root)) pages.push_back(sub_page(root, *s));
    return pages;
}

}  // namespace iolens::cli
