#!/usr/bin/env bash
# A fuzz campaign (docs/robustness.md, "Fuzzing"): each libFuzzer target of a NEUROC_FUZZ
# build runs for its share of time, niced, one at a time, starting from the committed
# corpus (tests/fuzz/corpus/<target>, copied: the work corpus grows in WORK only).
#   CC=clang cmake -S . -B build-fuzz -DNEUROC_FUZZ=ON && cmake --build build-fuzz
#   tests/fuzz/campaign.sh build-fuzz WORK FRONT_SECONDS READER_SECONDS [TARGET...]
# Crashes, leaks, timeouts and UB reports go to WORK/crash-<target>-*, logs to
# WORK/<target>.log (libFuzzer stops at the first finding). Exit status 1 if any target
# found something. Add each finding, once fixed, to tests/fuzz/corpus/<target>/.
# Two campaigns need no fuzzing build, only a neuroc:
#   tests/fuzz/campaign.sh --large NEUROC WORK SEEDS   every gen_large.py kind, seeds 1..SEEDS
#       (run_large.py: 4 GiB of address space and 120 s each), niced
#   tests/fuzz/campaign.sh --dims NEUROC WORK          every dimension mutant (mutate_dims.py)
#       of examples/, stdlib/ and tests/, niced
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ge 3 ] && [ "$1" = --large ]; then
    exec nice -n 19 python3 "$here/run_large.py" "$2" "$3" --all "${4:-3}"
fi
if [ $# -ge 3 ] && [ "$1" = --dims ]; then
    root=$(cd "$here/../.." && pwd)
    models=$(find "$root/examples" "$root/stdlib" "$root/tests" -name '*.neuro' \
             ! -path '*/fuzz/corpus/*' ! -path '*/golden/diag/*' | sort)
    # shellcheck disable=SC2086
    exec nice -n 19 python3 "$here/mutate_dims.py" "$2" "$3" $models
fi
if [ $# -lt 4 ]; then
    sed -n '2,16p' "$0"
    exit 2
fi
build=$(cd "$1" && pwd)
work=$2
front_s=$3
reader_s=$4
shift 4
targets=${*:-front edges_csv edges_npy spikes_csv spikes_npy}
mkdir -p "$work"
work=$(cd "$work" && pwd)
rc=0
for t in $targets; do
    secs=$reader_s
    opts=()
    if [ "$t" = front ]; then
        secs=$front_s
        opts=(-dict="$here/neuro.dict" -max_len=8192)
    else
        opts=(-max_len=4096)
    fi
    mkdir -p "$work/corpus/$t"
    cp -n "$here/corpus/$t"/* "$work/corpus/$t/"
    echo "== $t: $secs s"
    (cd "$work" && nice -n 19 "$build/bin/fuzz_$t" "${opts[@]}" -max_total_time="$secs" -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/crash-$t-" \
        "$work/corpus/$t" >"$work/$t.log" 2>&1)
    r=$?
    grep -E "^#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb|SUMMARY|ERROR" "$work/$t.log"
    if [ $r -ne 0 ]; then
        echo "$t: finding (exit $r), see $work/$t.log"
        rc=1
    fi
done
exit $rc
