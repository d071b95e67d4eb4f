#include "model/replay.h"

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "recording/capture_json.h"
#include "util/json_text.h"

namespace iolens::model {

namespace {

Result<nlohmann::json> parse_json_chunk(const recording::Chunk& chunk, const char* what) {
    auto text = std::string_view(reinterpret_cast<const char*>(chunk.payload.data()), chunk.payload.size());
    auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object())
        return make_error(std::string("the ") + what + " chunk is not valid JSON");
    return j;
}

}  // namespace

Result<void> Replay::apply_records(std::span<const std::byte> records) {
    auto r = builder_.add_records(records);
    if (!r && problem_.empty()) problem_ = r.error().message;
    return r;
}

Result<void> Replay::apply(const recording::Chunk& chunk) {
    switch (chunk.type) {
        case recording::ChunkType::Meta:
        case recording::ChunkType::End: {
            const bool end = chunk.type == recording::ChunkType::End;
            auto j = parse_json_chunk(chunk, end ? "END" : "META");
            if (!j) return j.error();
            // META describes the start; END adds what is known at the end on top
            // of it (keys it lacks keep their META values).
            if (auto r = recording::update_capture_from_json(*j, capture_); !r) return r.error();
            builder_.set_capture(capture_);
            (end ? saw_end_ : saw_meta_) = true;
            return {};
        }
        case recording::ChunkType::Process: {
            auto j = parse_json_chunk(chunk, "PROCESS");
            if (!j) return j.error();
            auto info = recording::process_from_json(*j);
            if (!info) return info.error();
            builder_.add_process(*info);
            return {};
        }
        case recording::ChunkType::Records:
            return apply_records(chunk.payload);
        case recording::ChunkType::Env: {
            auto j = parse_json_chunk(chunk, "ENV");
            if (!j) return j.error();
            const auto pid = j->find("pid");
            const auto vars = j->find("vars");
            if (pid == j->end() || !pid->is_number_unsigned() || vars == j->end() || !vars->is_object())
                return make_error("the ENV chunk lacks an unsigned \"pid\" or a \"vars\" object");
            std::map<std::string, std::string> env;
            for (const auto& [name, value] : vars->items())
                if (auto text = text_from_json(value))  // anything else is ignored, like a non-integer rank
                    env[name] = std::move(*text);
            builder_.add_process_env(pid->get<uint32_t>(), env);
            return {};
        }
        case recording::ChunkType::Stacks:
        case recording::ChunkType::Symbols:
            return {};  // record --stacks: model/call_site_builder.h reads them
    }
    return {};  // a chunk type from a newer iolens: skip it
}

Report Replay::finish(const std::string& partial_reason) const {
    return mark_partial(builder_.finish(), partial_reason);
}

Report Replay::take(const std::string& partial_reason) {
    return mark_partial(builder_.take(), partial_reason);
}

Report Replay::mark_partial(Report report, const std::string& partial_reason) const {
    std::string reason = partial_reason;
    if (reason.empty() && !problem_.empty()) reason = problem_;
    if (reason.empty() && !saw_end_)
        reason = "the recording has no end marker: the recorder was killed or is still running";
    if (!reason.empty()) {
        report.capture.partial = true;
        report.capture.partial_reason = reason;
    }
    return report;
}

Result<Report> load_recording(const std::string& path, BuilderOptions options,
                              const std::function<void(const recording::Chunk&)>& observe) {
    Replay replay(options);
    std::string chunk_problem;
    // Half of the records' walk (files and streams) on the reader's thread,
    // as each chunk is read; the rest here. The sink never stops early, so
    // every chunk prepared is applied.
    // BuilderOptions::threads 1: the whole walk here.
    const bool ahead = builder_threads(options.threads) > 1;
    if (ahead) replay.prepare_ahead();
    auto outcome = recording::read_file_streaming(
        path,
        [&](const recording::Chunk& chunk) {
            if (auto r = replay.apply(chunk); !r && chunk_problem.empty()) chunk_problem = r.error().message;
            if (observe) observe(chunk);
            return true;
        },
        [&](const recording::Chunk& chunk) {
            if (ahead) replay.prepare(chunk);
        });
    if (!outcome) return outcome.error();
    if (!replay.saw_meta())
        return make_error(path + " has no readable capture description (META chunk): " +
                          (outcome->problem.empty() ? chunk_problem : outcome->problem));
    std::string reason = outcome->problem;
    if (reason.empty()) reason = chunk_problem;
    return replay.take(reason);
}

}  // namespace iolens::model
