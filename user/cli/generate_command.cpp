// Hidden subcommands that print documents generated from the command line
// itself, for the build (CMakeLists.txt: the installed man pages and bash
// completion): `iolens __man-pages DIR` writes DIR/<page>.8 for each man page
// (man_page.h) and lists them; `iolens __bash-completion` prints the
// completion script (completion.h).
#include <spdlog/spdlog.h>

#include <cstdio>
#include <fstream>
#include <memory>

#include "cli/commands.h"
#include "cli/completion.h"
#include "cli/man_page.h"

namespace iolens::cli {

namespace {

int write_man_pages(const CLI::App& root, const std::string& dir) {
    for (const auto& page : man_pages(root)) {
        const std::string path = dir + "/" + page.name + ".8";
        std::ofstream out(path, std::ios::trunc);
        out << page.roff;
        if (!out.flush()) {
            spdlog::error("cannot write {}", path);
            return 1;
        }
        std::printf("%s\n", path.c_str());
    }
    return 0;
}

}  // namespace

void register_generators(CLI::App& app, Action& action) {
    auto dir = std::make_shared<std::string>();
    auto* man = app.add_subcommand("__man-pages", "internal: write the man pages into DIR");
    man->group("");
    man->add_option("dir", *dir)->required();
    man->callback([&app, dir, &action]() { action = [&app, dir]() { return write_man_pages(app, *dir); }; });

    auto* completion = app.add_subcommand("__bash-completion", "internal: print the bash completion script");
    completion->group("");
    completion->callback([&app, &action]() {
        action = [&app]() {
            std::fputs(bash_completion(app).c_str(), stdout);
            return std::fflush(stdout) == 0 ? 0 : 1;
        };
    });
}

}  // namespace iolens::cli
