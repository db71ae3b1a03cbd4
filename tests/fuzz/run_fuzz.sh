#!/bin/bash
# Runs the fuzz target for a bounded time, as a meson test of a fuzzing build (tests/fuzz):
# seeded with the recorded fixtures, every earlier crash (tests/fuzz/regressions) and the
# inputs the fixtures lack (tests/fuzz/seeds: format 2.0's compact records), new
# inputs kept in the build folder's corpus, a crashing input saved there under crashes/.
# Exit status: 0 when nothing crashed, hung or leaked.
#
#   run_fuzz.sh FUZZER SOURCE_ROOT WORK_DIR SECONDS
set -uo pipefail
fuzzer=$1 source=$2 work=$3 seconds=$4
mkdir -p "$work/corpus" "$work/crashes"
# -close_fd_mask=3: the report tool's own output (its messages for every refused input) is
# silenced; libFuzzer's crash report still comes out. Inputs up to the size of the largest
# fixture; one over 10 s or 2 GB is a finding too.
"$fuzzer" -max_total_time="$seconds" -close_fd_mask=3 -max_len=262144 -timeout=10 \
    -rss_limit_mb=2048 -artifact_prefix="$work/crashes/" -print_final_stats=1 \
    "$work/corpus" "$source/tests/fixtures" "$source/tests/fuzz/regressions" \
    "$source/tests/fuzz/seeds"
rc=$?
for f in "$work"/crashes/*; do
    [ -e "$f" ] || continue
    echo "fuzz: $f made it fail: copy it into tests/fuzz/regressions/ with the fix"
done
exit $rc
