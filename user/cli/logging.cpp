#include "cli/logging.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <string>

#include "util/text.h"

namespace iolens::cli {

namespace {

class PrintableStderrSink : public spdlog::sinks::stderr_color_sink_mt {
public:
    void log(const spdlog::details::log_msg& msg) override {
        const std::string safe = printable(std::string_view(msg.payload.data(), msg.payload.size()));
        spdlog::details::log_msg copy = msg;
        copy.payload = spdlog::string_view_t(safe.data(), safe.size());
        spdlog::sinks::stderr_color_sink_mt::log(copy);
    }
};

}  // namespace

void setup_logging() {
    auto logger = std::make_shared<spdlog::logger>("iolens", std::make_shared<PrintableStderrSink>());
    logger->set_pattern("iolens: %^%l%$: %v");
    spdlog::set_default_logger(logger);
    spdlog::set_level(spdlog::level::info);
}

}  // namespace iolens::cli
