#pragma once
// iolens logs to stderr ("iolens: warning: ..."), and every message passes
// through printable() (util/text.h) on its way: messages carry paths, command
// lines and text read from recordings, which must never reach the terminal
// raw (a crafted recording's partial reason could otherwise move the cursor
// or recolour the user's terminal).
namespace iolens::cli {

void setup_logging();

}  // namespace iolens::cli
