// The terminal view's formatting helpers: units, safe text, column fitting.
#include <gtest/gtest.h>

#include "report/text_format.h"

using namespace iolens::report;

TEST(TextFormat, HumanBytes) {
    EXPECT_EQ(human_bytes(0), "0 B");
    EXPECT_EQ(human_bytes(1023), "1023 B");
    EXPECT_EQ(human_bytes(1024), "1.00 KiB");
    EXPECT_EQ(human_bytes(1536), "1.50 KiB");
    EXPECT_EQ(human_bytes(10ull << 20), "10.0 MiB");
    EXPECT_EQ(human_bytes(200ull << 30), "200 GiB");
    EXPECT_EQ(human_bytes(UINT64_MAX), "16.0 EiB");
}

TEST(TextFormat, PlainNumberIsNeverScientific) {
    EXPECT_EQ(plain_number(3490.4), "3,490");  // was "3.49e+03" in evidence
    EXPECT_EQ(plain_number(1.5e12), "1,500,000,000,000");
    EXPECT_EQ(plain_number(-2500), "-2,500");
    EXPECT_EQ(plain_number(100), "100");
    EXPECT_EQ(plain_number(34.94), "34.9");
    EXPECT_EQ(plain_number(3.0), "3");
    EXPECT_EQ(plain_number(0.5), "0.5");
    EXPECT_EQ(plain_number(0.0000349), "0.0000349");
    EXPECT_EQ(plain_number(1e-12), "0");
    EXPECT_EQ(plain_number(0), "0");
    for (double v : {1e300, 1e-300, 123456789.0, 0.000123})
        EXPECT_EQ(plain_number(v).find('e'), std::string::npos) << v;
}

TEST(TextFormat, HumanNs) {
    EXPECT_EQ(human_ns(0), "0 ns");
    EXPECT_EQ(human_ns(999), "999 ns");
    EXPECT_EQ(human_ns(1000), "1.00 us");
    EXPECT_EQ(human_ns(12345), "12.3 us");
    EXPECT_EQ(human_ns(2'500'000), "2.50 ms");
    EXPECT_EQ(human_ns(1'500'000'000), "1.50 s");
    EXPECT_EQ(human_ns(999'000'000'000ull), "999 s");
    EXPECT_EQ(human_ns(3600'000'000'000ull), "1.00 h");
    EXPECT_EQ(human_ns(UINT64_MAX), "213504 d");
}

TEST(TextFormat, Counts) {
    EXPECT_EQ(human_count(0), "0");
    EXPECT_EQ(human_count(999), "999");
    EXPECT_EQ(human_count(1000), "1,000");
    EXPECT_EQ(human_count(1234567), "1,234,567");
    EXPECT_EQ(count_fit(1234567, 10), "1,234,567");
    EXPECT_EQ(count_fit(12345678901ull, 10), "12.3G");
    EXPECT_LE(count_fit(UINT64_MAX, 8).size(), 8u);
}

TEST(TextFormat, PrintableEscapesWhatATerminalWouldObey) {
    EXPECT_EQ(printable("plain/path.bin"), "plain/path.bin");
    EXPECT_EQ(printable("a\x1b[31mb"), "a\\x1b[31mb");
    EXPECT_EQ(printable("new\nline\t"), "new\\x0aline\\x09");
    EXPECT_EQ(printable("bad\xff utf8"), "bad\\xff utf8");
    EXPECT_EQ(printable("caf\xc3\xa9"), "caf\xc3\xa9");  // é kept
    EXPECT_EQ(printable("\xc2\x9b"
                        "2J"),
              "\\xc2\\x9b2J");  // C1 CSI
    EXPECT_EQ(printable("\xe2\x80\xae"
                        "txt"),
              "\\xe2\\x80\\xaetxt");                          // RTL override
    EXPECT_EQ(printable("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");  // overlong '/'
}

TEST(TextFormat, WidthsAndElision) {
    EXPECT_EQ(display_width("abc"), 3u);
    EXPECT_EQ(display_width("caf\xc3\xa9"), 4u);
    EXPECT_EQ(display_width("\xe6\x95\xb0\xe6\x8d\xae"), 4u);  // two CJK characters
    EXPECT_EQ(elide_middle("abcdefghij", 10), "abcdefghij");
    EXPECT_EQ(elide_middle("abcdefghij", 7), "ab...ij");
    EXPECT_EQ(elide_middle("abcdefghij", 8), "ab...hij");
    EXPECT_EQ(elide_end("abcdefghij", 7), "abcd...");
    const std::string e = elide_middle("/d/\xe6\x95\xb0\xe6\x8d\xae\xe6\x95\xb0\xe6\x8d\xae/f", 8);
    EXPECT_LE(display_width(e), 8u) << e;
    EXPECT_EQ(pad_left("ab", 4), "  ab");
    EXPECT_EQ(pad_right("ab", 4), "ab  ");
    EXPECT_EQ(pad_right("abcdef", 4), "abcdef");
}

TEST(TextFormat, WrapKeepsEveryLineWithinWidth) {
    const auto lines = wrap("the quick brown fox jumps over the lazy dog " + std::string(50, 'x'), 20,
                            "warning: ", "         ");
    ASSERT_GE(lines.size(), 3u);
    EXPECT_EQ(lines[0], "warning: the quick");
    for (const auto& l : lines) EXPECT_LE(display_width(l), 20u) << l;
    for (size_t i = 1; i < lines.size(); ++i) EXPECT_EQ(lines[i].rfind("         ", 0), 0u);
    EXPECT_EQ(wrap("", 20, "> ", "  "), std::vector<std::string>{"> "});
}

TEST(TextFormat, ShellJoinQuotesWhatNeedsIt) {
    EXPECT_EQ(shell_join({"python3", "train.py", "--lr", "0.1"}), "python3 train.py --lr 0.1");
    EXPECT_EQ(shell_join({"sh", "-c", "echo hi", ""}), "sh -c 'echo hi' ''");
    EXPECT_EQ(shell_join({"it's"}), "'it'\\''s'");
}
