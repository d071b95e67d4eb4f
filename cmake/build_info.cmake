# Script mode (cmake -P), run at every build: writes OUTPUT, a header with the
# git commit the sources are at, only when it changed (so an unchanged commit
# rebuilds nothing). Inputs: SOURCE_DIR, OUTPUT, GIT_COMMIT (an override, for
# builds from a tarball that know their commit; empty: ask git).
# Without git or outside a checkout the commit is "unknown".
set(commit "${GIT_COMMIT}")
set(dirty "")
if(commit STREQUAL "")
  set(commit unknown)
  find_program(GIT git)
  if(GIT)
    execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} rev-parse --verify HEAD
      OUTPUT_VARIABLE head OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc ERROR_QUIET)
    # Only the sources' own repository: a tarball unpacked inside another
    # checkout must not take that checkout's commit.
    execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} rev-parse --show-toplevel
      OUTPUT_VARIABLE top OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(rc EQUAL 0 AND top)
      file(REAL_PATH "${top}" top)
      file(REAL_PATH "${SOURCE_DIR}" src)
      if(top STREQUAL src)
        set(commit ${head})
        execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} status --porcelain --untracked-files=no
          OUTPUT_VARIABLE changes ERROR_QUIET)
        if(NOT changes STREQUAL "")
          set(dirty 1)
        endif()
      endif()
    endif()
  endif()
endif()
if(dirty)
  set(dirty_value true)
else()
  set(dirty_value false)
endif()
set(content "/* Generated at build time by cmake/build_info.cmake: do not edit. */
#pragma once
#define IOLENS_GIT_COMMIT \"${commit}\"
#define IOLENS_GIT_DIRTY ${dirty_value}
")
file(WRITE ${OUTPUT}.tmp "${content}")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)
