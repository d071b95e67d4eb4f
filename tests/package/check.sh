#!/bin/sh
# Package.Deb: builds the Debian package of a built tree with cpack, unpacks
# it into a fresh root (dpkg -x: the system is not modified) and checks what
# a user gets from it:
#   - the file name iolens_<version>_<arch>.deb and the expected files;
#   - the installed iolens runs: --version (version, commit, BPF builds) and
#     check (exit 0 as root: this node can record);
#   - one man page per subcommand that --help lists, and iolens(8), each
#     rendered by man -l without a warning;
#   - the bash completion loads and completes subcommands and options;
#   - the Python module imports and the C header compiles;
#   - Depends names the package of every shared library ldd lists;
#   - lintian: its tags are printed; an error (E:) fails.
# Usage: check.sh BUILD_DIR CPACK   (ctest passes them)
set -eu
build=$(cd "$1" && pwd)
cpack=$2
tmp=$(mktemp -d /tmp/iolens-package.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/out" >"$tmp/cpack.log" 2>&1 ||
    { cat "$tmp/cpack.log" >&2; fail "cpack -G DEB"; }
version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")
arch=$(dpkg --print-architecture)
deb=$tmp/out/iolens_${version}_${arch}.deb
[ -f "$deb" ] || { ls "$tmp/out" >&2; fail "no $deb"; }
echo "package: $(basename "$deb"), $(wc -c <"$deb") bytes"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"

root=$tmp/root
dpkg -x "$deb" "$root"
for f in usr/bin/iolens usr/include/iolens_markers.h usr/lib/python3/dist-packages/iolens_markers.py \
    usr/share/bash-completion/completions/iolens usr/share/doc/iolens/copyright \
    usr/share/doc/iolens/changelog.gz usr/share/doc/iolens/README.md usr/share/man/man8/iolens.8.gz; do
    [ -f "$root/$f" ] || fail "the package has no /$f"
done
bin=$root/usr/bin/iolens

# --version: the version, the commit of this build, every BPF family.
"$bin" --version >"$tmp/version" || fail "iolens --version exited $?"
cat "$tmp/version"
head -1 "$tmp/version" | grep -qx "iolens $version" || fail "--version's first line is not 'iolens $version'"
grep -q '^commit ' "$tmp/version" || fail "--version names no commit"
for family in process syscalls pagecache blocking block io_uring; do
    grep -q "^  $family  *[a-z]" "$tmp/version" || fail "--version lists no build of $family"
done
[ "$("$build/iolens" --version)" = "$(cat "$tmp/version")" ] || fail "the packaged --version differs from the built one"

# check: as root this node can record.
if "$bin" check >"$tmp/check" 2>&1; then status=0; else status=$?; fi
tail -1 "$tmp/check"
if [ "$(id -u)" = 0 ]; then
    [ $status = 0 ] || { cat "$tmp/check" >&2; fail "installed iolens check exited $status"; }
else
    [ $status = 0 ] || [ $status = 1 ] || fail "installed iolens check exited $status"
fi

# Man pages: iolens(8) and one per subcommand --help lists, no more.
subs=$("$bin" --help | awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ -n "$subs" ] || fail "no subcommands in iolens --help"
expected="iolens.8.gz"
for s in $subs; do expected="$expected iolens-$s.8.gz"; done
actual=$(cd "$root/usr/share/man/man8" && ls | tr '\n' ' ')
[ "$(echo $expected | tr ' ' '\n' | sort)" = "$(echo $actual | tr ' ' '\n' | sort)" ] ||
    fail "man pages: expected $expected, got $actual"
for page in "$root"/usr/share/man/man8/*.8.gz; do
    MANWIDTH=80 man --warnings -l -P cat "$page" >"$tmp/page" 2>"$tmp/page.err" || fail "man -l $page"
    [ ! -s "$tmp/page.err" ] || { cat "$tmp/page.err" >&2; fail "man -l $(basename "$page") warns"; }
    grep -q '^NAME' "$tmp/page" && grep -q '^SYNOPSIS' "$tmp/page" || fail "$(basename "$page"): no NAME/SYNOPSIS"
    echo "man -l $(basename "$page"): $(wc -l <"$tmp/page") lines"
done
# Each subcommand's page documents each option its --help lists.
for s in $subs; do
    MANWIDTH=200 man -l -P cat "$root/usr/share/man/man8/iolens-$s.8.gz" 2>/dev/null >"$tmp/page"
    for opt in $("$bin" "$s" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        grep -q -- "$opt" "$tmp/page" || fail "iolens-$s(8) does not mention $opt"
    done
done

# Bash completion: subcommands, and a subcommand's options.
complete_words() {
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _iolens; echo "${COMPREPLY[*]}"' \
        sh "$root/usr/share/bash-completion/completions/iolens" "$@"
}
[ "$(complete_words iolens rec)" = record ] || fail "completion of 'iolens rec': '$(complete_words iolens rec)'"
complete_words iolens record --ring | grep -qx -- --ringbuf-mib || fail "completion of 'iolens record --ring'"
[ "$(complete_words iolens report --color al)" = always ] || fail "completion of 'iolens report --color al'"

# The marker helpers, where Python and a C compiler find them.
PYTHONPATH=$root/usr/lib/python3/dist-packages python3 -c 'import iolens_markers; iolens_markers.epoch(0)' ||
    fail "python3 cannot import the installed iolens_markers"
printf '#include <iolens_markers.h>\nint main(void) { return 0; }\n' >"$tmp/m.c"
cc -I"$root/usr/include" -c "$tmp/m.c" -o "$tmp/m.o" || fail "the installed iolens_markers.h does not compile"

# Depends covers every shared library the binary loads.
package_of() {  # the package owning a library path, trying the merged-/usr aliases
    for p in "$1" "$(readlink -f "$1")" "/usr$1" "${1#/usr}"; do
        owner=$(dpkg -S "$p" 2>/dev/null | head -1 | cut -d: -f1) && [ -n "$owner" ] && { echo "$owner"; return; }
    done
}
# Package names of a Depends field (alternatives, versions and :arch dropped).
names() { echo "$1" | tr ',|' '\n\n' | sed 's/^ *//; s/[ (:].*//' | grep -v '^$' || true; }
direct=$(names "$depends")
# A library that ldd lists because a dependency needs it (libelf1 for
# libbpf1) may come through that dependency's own Depends.
through=$(for p in $direct; do names "$(dpkg-query -W -f='${Depends}' "$p" 2>/dev/null)" | sed "s/\$/ $p/"; done)
for lib in $(ldd "$bin" | awk '/=>/ { print $3 } !/=>/ && /^\t\// { print $1 }'); do
    pkg=$(package_of "$lib")
    [ -n "$pkg" ] || fail "no package owns $lib"
    # It satisfies a Depends by its name or by a virtual package it provides
    # (libspdlog1.10 provides libspdlog1.10-fmt9, what its shlibs name).
    provided=$(names "$(dpkg-query -W -f='${Provides}' "$pkg" 2>/dev/null)")
    if as=$(printf '%s\n' $pkg $provided | grep -x -F "$direct" | head -1) && [ -n "$as" ]; then
        [ "$as" = "$pkg" ] && echo "ldd: $lib -> $pkg: in Depends" || echo "ldd: $lib -> $pkg: in Depends as $as"
    elif via=$(echo "$through" | awk -v p="$pkg" '$1 == p { print $2; exit }') && [ -n "$via" ]; then
        echo "ldd: $lib -> $pkg: through $via's Depends"
    else
        fail "$lib ($pkg) is not in Depends: $depends"
    fi
done

# lintian: report every tag; fail on errors.
if command -v lintian >/dev/null; then
    lintian --display-info --tag-display-limit 0 "$deb" >"$tmp/lintian" 2>&1 || true
    echo "lintian: $(grep -c '^[EWIPX]:' "$tmp/lintian" || true) tags"
    cat "$tmp/lintian"
    ! grep -q '^E:' "$tmp/lintian" || fail "lintian reports errors"
else
    echo "lintian: not installed (tools/install-deps.sh installs it), skipped"
fi
echo "Package.Deb: OK"
