// record --stacks on the report side (docs/call-sites.md): stack records
// matched to their calls, calls without a stack charged to their thread's
// last one on the file, addresses mapped through the recorded mappings (a
// forked child through its parent's), the syscall wrapper's caller put back
// from the stack words, names from the SYMBOLS chunk; and the parsers.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/record_command.h"
#include "model/call_site_builder.h"
#include "recording/record_buffer.h"
#include "report/html_renderer.h"
#include "report/json_renderer.h"
#include "report/terminal_renderer.h"
#include "symbols/bcc_symbols.h"
#include "symbols/proc_maps.h"

namespace iolens::model {
namespace {

using nlohmann::json;

recording::Chunk json_chunk(recording::ChunkType type, const json& j) {
    const std::string text = j.dump();
    recording::Chunk c{type, {}};
    c.payload.resize(text.size());
    std::memcpy(c.payload.data(), text.data(), text.size());
    return c;
}

recording::Chunk records_chunk(const recording::RecordBuffer& b) {
    recording::Chunk c{recording::ChunkType::Records, {}};
    c.payload.assign(b.bytes().begin(), b.bytes().end());
    return c;
}

iolens_syscall_rec read_call(uint32_t pid, uint32_t tid, uint64_t start, uint64_t bytes, uint32_t dev,
                             uint64_t ino) {
    iolens_syscall_rec r{};
    r.op = IOLENS_OP_READ;
    r.flags = IOLENS_SC_HAS_FILE | IOLENS_SC_REGULAR;
    r.pid = pid;
    r.tid = tid;
    r.start_ns = start;
    r.duration_ns = 1000;
    r.ret = static_cast<int64_t>(bytes);
    r.requested = bytes;
    r.offset = 0;
    r.dev = dev;
    r.ino = ino;
    r.fd = 3;
    return r;
}

// pid 100 maps app at 0x1000 and libc at 0x10000 (file offset 0x1000); its
// pread wrapper at libc offset 0x1100 keeps the return address at sp + 0x28.
std::vector<recording::Chunk> fixture() {
    std::vector<recording::Chunk> chunks;
    chunks.push_back(json_chunk(recording::ChunkType::Meta, {{"stacks", "first,1/64"}}));
    json maps = json::array(
        {{{"start", 0x1000}, {"end", 0x5000}, {"pgoff", 0}, {"path", "/nonexistent/app"}, {"build_id", "ab"}},
         {{"start", 0x10000},
          {"end", 0x20000},
          {"pgoff", 0x1000},
          {"path", "/nonexistent/libc.so.6"},
          {"build_id", "cd"}}});
    json cfa = json::array(
        {{{"path", "/nonexistent/libc.so.6"}, {"build_id", "cd"}, {"offset", 0x1100}, {"cfa", 0x30}}});
    chunks.push_back(json_chunk(recording::ChunkType::Stacks, {{"pid", 100}, {"maps", maps}, {"cfa", cfa}}));
    recording::RecordBuffer b;
    iolens_file_rec f{};
    f.pid = 100;
    f.dev = 1;
    f.ino = 7;
    b.file(f, recording::path_components("/data/a.bin"));
    b.proc(IOLENS_REC_FORK, 200, 100, 10, "worker");
    iolens_stack_rec s{};
    s.pid = 100;
    s.tid = 101;
    s.start_ns = 1000;
    // 16 words from sp, the wrapper's return address (into read_a) at sp + 0x28;
    // then the frame-pointer walk: wrapper, main, garbage.
    std::vector<uint64_t> data(16, 0);
    data[5] = 0x1200;
    s.nwords = 16;
    for (uint64_t ip : {0x10100, 0x1300, 0x9}) data.push_back(ip);
    b.stack(s, data);
    b.syscall(read_call(100, 101, 1000, 4096, 1, 7), true);
    for (uint64_t t = 2000; t < 5000; t += 1000) b.syscall(read_call(100, 101, t, 4096, 1, 7), true);
    b.syscall(read_call(100, 102, 6000, 100, 1, 8), true);  // another thread, no stack: not charged
    // The forked child runs the parent's image: same addresses, same call site.
    s.pid = 200;
    s.tid = 200;
    s.start_ns = 7000;
    b.stack(s, data);
    b.syscall(read_call(200, 200, 7000, 8192, 1, 7), true);
    chunks.push_back(records_chunk(b));
    json fns_app = json::array({json::array({0x1ff, "read_a"}), json::array({0x2ff, "main"})});
    json fns_libc = json::array({json::array({0x1100, "__pread64"})});
    chunks.push_back(json_chunk(
        recording::ChunkType::Symbols,
        {{"modules",
          json::array(
              {{{"path", "/nonexistent/app"}, {"build_id", "ab"}, {"functions", fns_app}},
               {{"path", "/nonexistent/libc.so.6"}, {"build_id", "cd"}, {"functions", fns_libc}}})}}));
    return chunks;
}

TEST(CallSites, StacksChargedToTheirCallsAndInheritedOnTheFile) {
    CallSiteBuilder b(/*local_files=*/false);
    for (const auto& c : fixture()) b.on_chunk(c);
    auto cs = b.finish();
    ASSERT_TRUE(cs);
    EXPECT_EQ(cs->spec, "first,1/64");
    EXPECT_EQ(cs->stacks, 2u);
    EXPECT_EQ(cs->calls, 5u);
    EXPECT_EQ(cs->calls_without, 1u);
    ASSERT_EQ(cs->sites.size(), 1u);  // parent and child: one call site
    const auto& s = cs->sites[0];
    EXPECT_EQ(s.calls, 5u);
    EXPECT_EQ(s.stacks, 2u);
    EXPECT_EQ(s.read_bytes, 4 * 4096u + 8192u);
    EXPECT_EQ(s.time_ns, 5000u);
    EXPECT_EQ(s.top_file, "/data/a.bin");
    ASSERT_EQ(s.frames.size(), 3u);  // the garbage frame is dropped
    EXPECT_EQ(s.frames[0].function, "__pread64");
    EXPECT_EQ(s.frames[1].function, "read_a");  // put back from the stack words
    EXPECT_EQ(s.frames[1].offset, 0x1ffu);      // 0x1200 - 1 - 0x1000
    EXPECT_EQ(s.frames[2].function, "main");
    EXPECT_EQ(folded_stacks(*cs, "bytes"), "main;read_a;__pread64 24576\n");
    EXPECT_EQ(folded_stacks(*cs, "calls"), "main;read_a;__pread64 5\n");
}

TEST(CallSites, UnnamedFramesFallBackToFileAndOffset) {
    auto chunks = fixture();
    chunks.pop_back();  // no SYMBOLS chunk, and the files are not on this machine
    CallSiteBuilder b(/*local_files=*/false);
    for (const auto& c : chunks) b.on_chunk(c);
    auto cs = b.finish();
    ASSERT_TRUE(cs);
    ASSERT_EQ(cs->sites.size(), 1u);
    ASSERT_EQ(cs->sites[0].frames.size(), 3u);
    EXPECT_EQ(frame_text(cs->sites[0].frames[1]), "app+0x1ff");
    EXPECT_EQ(folded_stacks(*cs, "bytes"), "[app+0x2ff];[app+0x1ff];[libc.so.6+0x1100] 24576\n");
}

TEST(CallSites, EveryViewShowsThem) {
    CallSiteBuilder b(/*local_files=*/false);
    for (const auto& c : fixture()) b.on_chunk(c);
    Report r;
    r.call_sites = b.finish();
    const auto j = report::report_to_json(r);
    ASSERT_TRUE(j.contains("call_sites"));
    EXPECT_EQ(j["call_sites"]["sites"][0]["frames"][1]["function"], "read_a");
    EXPECT_EQ(j["call_sites"]["sites"][0]["read_bytes"], 24576);
    EXPECT_EQ(j["call_sites"]["calls_without"], 1);
    r.totals[IOLENS_OP_READ].calls = 6;  // the terminal view shows sections only for a report with calls
    std::ostringstream text;
    report::render_terminal(r, text);
    EXPECT_NE(text.str().find("Call sites (--stacks=first,1/64: 2 stacks; 5 of 6 calls charged to one)"),
              std::string::npos)
        << text.str();
    EXPECT_NE(text.str().find("< read_a (app)"), std::string::npos) << text.str();
    EXPECT_NE(report::report_to_html(r).find("id=\"call-sites\""), std::string::npos);
    Report none;
    EXPECT_FALSE(report::report_to_json(none).contains("call_sites"));
}

TEST(CallSites, DamagedChunksAndRecordsAreSkipped) {
    CallSiteBuilder b(/*local_files=*/true);
    b.on_chunk(json_chunk(recording::ChunkType::Meta, {{"stacks", "all"}}));
    // Wrong types everywhere, a FIFO-like path (never opened: not a regular
    // file), floats where integers go.
    b.on_chunk(json_chunk(recording::ChunkType::Stacks,
                          {{"pid", "x"},
                           {"maps", json::array({1, {{"start", 1e30}, {"end", -1}, {"path", "/dev/zero"}}})},
                           {"cfa", 3}}));
    b.on_chunk(
        json_chunk(recording::ChunkType::Symbols,
                   {{"modules", json::array({{{"functions", json::array({json::array({1.5, "x"}), 7})}}})}}));
    recording::Chunk garbage{recording::ChunkType::Stacks, {std::byte{'{'}, std::byte{'x'}}};
    b.on_chunk(garbage);
    // A stack record that claims more frames than it carries, then a good
    // one whose addresses no mapping covers.
    recording::RecordBuffer r;
    iolens_stack_rec s{};
    s.hdr = {IOLENS_REC_STACK, static_cast<uint16_t>(offsetof(iolens_stack_rec, data) + 8)};
    s.nframes = 5;
    r.raw(&s, s.hdr.size);
    b.on_chunk(records_chunk(r));
    recording::RecordBuffer good;
    s = {};
    s.pid = 1;
    s.tid = 1;
    s.start_ns = 10;
    s.ip = 0xdead;
    good.stack(s, std::vector<uint64_t>{0xdead, 0xbeef});
    good.syscall(read_call(1, 1, 10, 100, 0, 0), true);
    b.on_chunk(records_chunk(good));
    auto cs = b.finish();
    ASSERT_TRUE(cs);
    ASSERT_EQ(cs->sites.size(), 1u);
    ASSERT_EQ(cs->sites[0].frames.size(), 1u);  // the innermost, as a bare address
    EXPECT_EQ(frame_text(cs->sites[0].frames[0]), "0xdead");
}

TEST(CallSites, NoneWithoutStacks) {
    CallSiteBuilder b(false);
    b.on_chunk(json_chunk(recording::ChunkType::Meta, {{"command", json::array({"x"})}}));
    EXPECT_FALSE(b.finish());
}

TEST(CallSites, StacksSpecParses) {
    auto d = cli::parse_stacks_spec("first,1/64");
    ASSERT_TRUE(d);
    EXPECT_TRUE(d->enabled);
    EXPECT_TRUE(d->first);
    EXPECT_EQ(d->period, 64u);
    auto all = cli::parse_stacks_spec("all");
    ASSERT_TRUE(all);
    EXPECT_FALSE(all->first);
    EXPECT_EQ(all->period, 1u);
    auto first = cli::parse_stacks_spec("first");
    ASSERT_TRUE(first);
    EXPECT_EQ(first->period, 0u);
    EXPECT_FALSE(cli::parse_stacks_spec("1/0"));
    EXPECT_FALSE(cli::parse_stacks_spec("1/x"));
    EXPECT_FALSE(cli::parse_stacks_spec("sometimes"));
    EXPECT_FALSE(cli::parse_stacks_spec("first,"));
}

TEST(CallSites, ExecutableMappingsParse) {
    const auto maps = symbols::parse_exec_maps(
        "55d0c0000000-55d0c0001000 r--p 00000000 fe:01 123 /usr/bin/app\n"
        "55d0c0001000-55d0c0005000 r-xp 00001000 fe:01 123 /usr/bin/app\n"
        "7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n"
        "7f0000010000-7f0000020000 r-xp 00002000 fe:01 9 /usr/lib/my lib.so (deleted)\n"
        "7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0 [vdso]\n"
        "7f0000030000-7f0000031000 r-xp 00000000 00:00 0 \n");
    ASSERT_EQ(maps.size(), 3u);
    EXPECT_EQ(maps[0].start, 0x55d0c0001000u);
    EXPECT_EQ(maps[0].end, 0x55d0c0005000u);
    EXPECT_EQ(maps[0].pgoff, 0x1000u);
    EXPECT_EQ(maps[0].path, "/usr/bin/app");
    EXPECT_EQ(maps[1].path, "/usr/lib/my lib.so (deleted)");
    EXPECT_EQ(maps[2].path, "[vdso]");
}

TEST(CallSites, SymbolTableFindsTheEnclosingFunction) {
    symbols::SymbolTable t;
    t.add(0x200, 0x10, "b");
    t.add(0x100, 0x50, "a");
    t.add(0x100, 0, "a_alias");
    t.add(0x300, 0, "c");
    t.seal();
    EXPECT_EQ(t.find(0x99), nullptr);
    ASSERT_NE(t.find(0x100), nullptr);
    EXPECT_EQ(t.find(0x100)->name, "a");
    EXPECT_EQ(t.find(0x14f)->name, "a");
    EXPECT_EQ(t.find(0x150), nullptr);  // past a's size
    EXPECT_EQ(t.find(0x20f)->name, "b");
    EXPECT_EQ(t.find(0x1234)->name, "c");  // size 0: up to the next
    EXPECT_EQ(symbols::demangle("_ZN4demo10read_alphaEv"), "demo::read_alpha()");
    EXPECT_EQ(symbols::demangle("pread64"), "pread64");
}

}  // namespace
}  // namespace iolens::model
