#!/bin/sh
# Set-up, build, and profile the bundled DL-like demo workload: a dataset of
# sample files read in shuffled order by forked workers, over 3 epochs, while
# the main process "computes". Prints iolens's summary.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install-deps.sh"
"$root/tools/build.sh"
build=${IOLENS_BUILD_DIR:-$root/build}
data=${IOLENS_DEMO_DIR:-/tmp/iolens-demo}
files=512 size=131072
mkdir -p "$data"
"$build/iolens-workload" make-dataset --dir "$data/dataset" --files $files --size $size
# Start cold: evict the dataset's pages (only these files) so epoch 1 reads
# from the disk and the later epochs show what the page cache then serves.
for f in "$data"/dataset/*.bin; do
    "$build/iolens-workload" evict --file "$f"
done
"$build/iolens" record -f -o "$data/demo.iolens" --json "$data/demo.json" -- \
    "$build/iolens-workload" dl --dir "$data/dataset" --files $files --size $size \
    --epochs 3 --workers 4 --compute-us 100
echo
echo "recording: $data/demo.iolens (re-read it with: $build/iolens report $data/demo.iolens)"
echo "JSON report: $data/demo.json"
