#!/usr/bin/env bash
# Many independent COBA networks (examples/coba.neuro: 4,000 neurons, 1 s) in one call of the
# simulator: `./sim --instances B --jobs J` (docs/cli.md §2.4). Prints, per back end, the
# batch's wall time, the per-instance RTF (each instance's simulate time / 1 s: median and
# max over the B instances), the batch RTF per instance (batch wall time / (B x 1 s)), and
# whether the issue-9 goal (>= 100 instances at once, each at RTF <= 0.02) is met. Writes
# ${OUT:-.}/instances.json.
# Usage: bench/gpu/instances.sh [NEUROC] [B] [J]   (default build/bin/neuroc, 100, 1)
#   BACKENDS="cuda:block opencl:block c:-" overrides the list (default cuda:block).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
NEUROC=${1:-$ROOT/build/bin/neuroc}
B=${2:-100}
J=${3:-1}
OUTDIR=${OUT:-.}
mkdir -p "$OUTDIR"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
BACKENDS=${BACKENDS:-"cuda:block"}
json="$OUTDIR/instances.json"
echo "[" >"$json"
first=1
printf "%-8s %-8s %6s %4s %10s %12s %12s %14s %6s\n" backend schedule B J wall_s rtf_median rtf_max batch_rtf/inst goal
for bs in $BACKENDS; do
    b=${bs%%:*}; s=${bs#*:}
    opts="--backend $b"
    [ "$s" != "-" ] && opts="$opts --gpu-mode $s"
    if ! "$NEUROC" "$ROOT/examples/coba.neuro" $opts -o "$WORK/coba-$b-$s" 2>"$WORK/err"; then
        echo "$b $s: compile failed: $(head -3 "$WORK/err")"; continue
    fi
    rm -rf "$WORK/out"
    t0=$(date +%s.%N)
    "$WORK/coba-$b-$s" --instances "$B" --jobs "$J" --quiet --out "$WORK/out" 2>"$WORK/err"
    rc=$?
    t1=$(date +%s.%N)
    if [ $rc -ne 0 ]; then echo "$b $s: the batch exited with $rc: $(head -3 "$WORK/err")"; continue; fi
    line=$(python3 - "$WORK/out/manifest.json" "$t0" "$t1" "$B" "$J" "$b" "$s" <<'PY'
import json, statistics, sys
m = json.load(open(sys.argv[1]))
t0, t1, B, J = float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
sim_s = m["total_steps"] * m["dt_ms"] * 1e-3
rtf = [i["rtf"] for i in m["instances"]]
wall = t1 - t0
batch = wall / (B * sim_s)
# the goal: at least 100 instances running at once, each at RTF <= 0.02
goal = "met" if (min(B, J) >= 100 and max(rtf) <= 0.02) else "missed"
print(f"{wall:.3f} {statistics.median(rtf):.5f} {max(rtf):.5f} {batch:.5f} {goal}")
print(json.dumps({"model": "coba", "backend": sys.argv[6], "schedule": sys.argv[7], "instances": B,
                  "jobs": J, "wall_s": wall, "rtf_per_instance": rtf,
                  "rtf_median": statistics.median(rtf), "rtf_max": max(rtf),
                  "batch_rtf_per_instance": batch, "goal": goal}))
PY
)
    read -r wall med mx batch goal <<<"$(echo "$line" | head -1)"
    printf "%-8s %-8s %6s %4s %10s %12s %12s %14s %6s\n" "$b" "$s" "$B" "$J" "$wall" "$med" "$mx" "$batch" "$goal"
    [ $first = 1 ] || echo "," >>"$json"
    first=0
    echo "$line" | tail -1 >>"$json"
done
echo "]" >>"$json"
