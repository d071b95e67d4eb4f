#include "cli/cli_doc.h"

namespace iolens::cli {

namespace {

OptionDoc option_doc(const CLI::Option& o) {
    OptionDoc d;
    d.positional = !o.nonpositional();
    if (d.positional) {
        d.names.push_back(o.get_name(true));
    } else {
        for (const auto& s : o.get_snames()) d.names.push_back("-" + s);
        for (const auto& l : o.get_lnames()) d.names.push_back("--" + l);
    }
    if (o.get_type_size() != 0) d.value = o.get_type_name();
    d.description = o.get_description();
    d.default_value = o.get_default_str();
    d.many = o.get_expected_max() >= CLI::detail::expected_max_vector_size;
    return d;
}

}  // namespace

std::vector<const CLI::App*> visible_subcommands(const CLI::App& app) {
    return app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); });
}

std::vector<OptionDoc> visible_options(const CLI::App& app) {
    std::vector<OptionDoc> named, positionals;
    for (const auto* o : app.get_options([](const CLI::Option* o) { return !o->get_group().empty(); }))
        (o->nonpositional() ? named : positionals).push_back(option_doc(*o));
    named.insert(named.end(), positionals.begin(), positionals.end());
    return named;
}

std::vector<OptionDoc> global_options(const CLI::App& root) {
    std::vector<OptionDoc> out;
    for (const auto* o : root.get_options([&](const CLI::Option* o) {
             return !o->get_group().empty() && o->nonpositional() && o != root.get_help_ptr() &&
                    o != root.get_help_all_ptr() && o != root.get_version_ptr();
         }))
        out.push_back(option_doc(*o));
    return out;
}

std::vector<std::string> value_choices(const std::string& value) {
    const auto open = value.find(":{");
    const auto close = value.rfind('}');
    if (open == std::string::npos || close == std::string::npos || close < open) return {};
    std::vector<std::string> choices;
    std::string item;
    for (char c : value.substr(open + 2, close - open - 2)) {
        if (c == ',') {
            choices.push_back(item);
            item.clear();
        } else {
            item += c;
        }
    }
    choices.push_back(item);
    return choices;
}

std::string value_kind(const std::string& value) { return value.substr(0, value.find(':')); }

}  // namespace iolens::cli
