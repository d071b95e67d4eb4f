#include "cli/completion.h"

#include "cli/cli_doc.h"

namespace iolens::cli {

namespace {

std::string join(const std::vector<std::string>& words) {
    std::string s;
    for (const auto& w : words) s += (s.empty() ? "" : " ") + w;
    return s;
}

// The compgen words that complete a value of this kind, or "" for none.
std::string value_completion(const std::string& value) {
    if (auto choices = value_choices(value); !choices.empty())
        return "COMPREPLY=($(compgen -W '" + join(choices) + "' -- \"$cur\"))";
    const auto kind = value_kind(value);
    if (kind == "FILE") return "_iolens_files";
    if (kind == "DIR") return "COMPREPLY=($(compgen -d -- \"$cur\"))";
    if (kind == "VAR") return "COMPREPLY=($(compgen -e -- \"$cur\"))";
    return "COMPREPLY=()";
}

// One subcommand's case: an option's value, then its options, then its
// positional (a command: the rest of the line is that command's).
std::string subcommand_case(const CLI::App& sub, const std::vector<OptionDoc>& globals) {
    std::vector<std::string> names;
    std::string values, positional = "COMPREPLY=()";
    bool takes_command = false;
    auto options = visible_options(sub);
    options.insert(options.end(), globals.begin(), globals.end());
    for (const auto& o : options) {
        if (o.positional) {
            takes_command = value_kind(o.value) == "COMMAND";
            positional = takes_command ? "_iolens_command" : value_completion(o.value);
            continue;
        }
        names.insert(names.end(), o.names.begin(), o.names.end());
        if (!o.value.empty()) {
            std::string pattern;
            for (const auto& n : o.names) pattern += (pattern.empty() ? "" : "|") + n;
            values += "            " + pattern + ") " + value_completion(o.value) + "; return ;;\n";
        }
    }
    std::string out = "        " + sub.get_name() + ")\n";
    if (takes_command)
        out += "            if [ \"$command_at\" -gt 0 ]; then _iolens_command_words; return; fi\n";
    out += "            case $prev in\n" + values + "            esac\n";
    out += "            if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W '" + join(names) +
           "' -- \"$cur\")); else " + positional + "; fi ;;\n";
    return out;
}

constexpr const char* kHelpers = R"(_iolens_files() {
    local IFS=$'\n'
    COMPREPLY=($(compgen -f -- "$cur"))
    compopt -o filenames 2>/dev/null
}
_iolens_command() {
    COMPREPLY=($(compgen -c -- "$cur"))
}
# After the traced command's name: file names (its own arguments).
_iolens_command_words() {
    if [ "$cword" -eq "$command_at" ]; then _iolens_command; else _iolens_files; fi
}
)";

}  // namespace

std::string bash_completion(const CLI::App& root) {
    const auto globals = global_options(root);
    std::vector<std::string> subs, root_options;
    for (const auto* s : visible_subcommands(root)) subs.push_back(s->get_name());
    for (const auto& o : visible_options(root))
        if (!o.positional) root_options.insert(root_options.end(), o.names.begin(), o.names.end());
    std::string out =
        "# bash completion for iolens(8). Generated from iolens's own command line\n"
        "# (`iolens __bash-completion`): do not edit.\n";
    out += kHelpers;
    out += "_iolens() {\n    local cur prev words cword\n";
    out += "    if declare -F _init_completion >/dev/null; then\n        _init_completion || return\n";
    out += "    else\n        words=(\"${COMP_WORDS[@]}\"); cword=$COMP_CWORD\n";
    out += "        cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}\n    fi\n";
    // The subcommand, and where a traced command starts (after "--").
    out += "    local sub= command_at=0 i\n    for ((i = 1; i < cword; i++)); do\n";
    out += "        if [ -z \"$sub\" ]; then\n";
    out += "            case \" " + join(subs) + " \" in *\" ${words[i]} \"*) sub=${words[i]} ;; esac\n";
    out +=
        "        elif [ \"${words[i]}\" = -- ]; then\n            command_at=$((i + 1)); break\n        fi\n";
    out += "    done\n    case $sub in\n";
    out += "        '')\n            COMPREPLY=($(compgen -W '" + join(subs) + " " + join(root_options) +
           "' -- \"$cur\")) ;;\n";
    for (const auto* s : visible_subcommands(root)) out += subcommand_case(*s, globals);
    out += "    esac\n}\ncomplete -F _iolens iolens\n";
    return out;
}

}  // namespace iolens::cli
