#!/bin/sh
# Golden-output test: `iolens report` of fixed recordings must print exactly
# the committed terminal summary and JSON report (and exit status). Protects
# refactorings of the model, the analysis and the renderers: any change in
# what a report says shows up as a diff here.
#
#   check.sh IOLENS SYNTH        compare against expected/
#   IOLENS_GOLDEN_UPDATE=1 check.sh IOLENS SYNTH   rewrite expected/ (then
#                                review the diff before committing it)
#
# recordings/: small real recordings made with `iolens record` on the
# workload generator (dl, ranks with markers and a straggler, known, stall
# on a cold file, checkpoint). Synthetic ones are written here by
# iolens-synth-recording (deterministic from its options), and a truncated
# copy of one checks the partial-recording path.
set -eu
iolens=$1
synth=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here"/recordings/*.iolens "$work"/
"$synth" -o "$work/synth-markers.iolens" --events 40k --files 300 --ranks 2 --epochs 3 --workers 3 --markers >/dev/null
"$synth" -o "$work/synth-inferred.iolens" --events 40k --files 300 --ranks 1 --epochs 3 --workers 2 --seed 7 >/dev/null
head -c 40000 "$work/dl.iolens" >"$work/dl-truncated.iolens"
mkdir -p "$work/out"
for rec in "$work"/*.iolens; do
    name=$(basename "$rec" .iolens)
    status=0
    "$iolens" report --color never --json "$work/out/$name.json" "$rec" >"$work/out/$name.txt" 2>"$work/out/$name.err" || status=$?
    echo "$status" >"$work/out/$name.status"
done
if [ "${IOLENS_GOLDEN_UPDATE:-0}" = 1 ]; then
    rm -rf "$here/expected"
    cp -r "$work/out" "$here/expected"
    echo "golden outputs rewritten in $here/expected: review them with git diff"
    exit 0
fi
if diff -ru "$here/expected" "$work/out"; then
    echo "golden outputs: all $(ls "$here/expected" | grep -c '\.txt$') reports identical"
else
    echo "golden outputs differ (above). If the change is intended, rerun with IOLENS_GOLDEN_UPDATE=1 and review." >&2
    exit 1
fi
