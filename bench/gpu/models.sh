#!/usr/bin/env bash
# CUBA and COBA (1 s of biological time, spikes and three voltages recorded, as in
# examples/) on every GPU back end and schedule: compile time, construction time and
# simulation RTF, median of N runs. Prints a table; writes ${OUT:-.}/models.json.
# Usage: bench/gpu/models.sh [NEUROC] [N]     (default build/bin/neuroc, 5)
#   BACKENDS="cuda:block cuda:graph ..." overrides the list.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
NEUROC=${1:-$ROOT/build/bin/neuroc}
N=${2:-5}
OUTDIR=${OUT:-.}
mkdir -p "$OUTDIR"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
BACKENDS=${BACKENDS:-"c:- cuda:block cuda:graph cuda:persistent cuda:launch opencl:block opencl:launch"}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
json="$OUTDIR/models.json"
echo "[" >"$json"
first=1
printf "%-5s %-8s %-11s %10s %12s %12s %10s %8s\n" model backend schedule compile_s construct_s simulate_s RTF spikes
for m in cuba coba; do
    for bs in $BACKENDS; do
        b=${bs%%:*}; s=${bs#*:}
        opts="--backend $b"
        [ "$s" != "-" ] && opts="$opts --gpu-mode $s"
        t0=$(date +%s.%N)
        if ! "$NEUROC" "$ROOT/examples/$m.neuro" $opts -o "$WORK/$m-$b-$s" 2>"$WORK/err"; then
            echo "$m $b $s: compile failed: $(head -3 "$WORK/err")"; continue
        fi
        t1=$(date +%s.%N)
        comp=$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')
        res=$(for r in $(seq "$N"); do
            "$WORK/$m-$b-$s" --quiet --out "$WORK/out" 2>"$WORK/err" || { echo "FAIL"; continue; }
            python3 -c "import json;d=json.load(open('$WORK/out/manifest.json'));t=d['timing_s'];print(t['simulate'],t['construct'],sum(p['spikes'] for p in d['populations']))"
        done)
        if echo "$res" | grep -q FAIL; then echo "$m $b $s: run failed: $(head -3 "$WORK/err")"; continue; fi
        sim=$(echo "$res" | awk '{print $1}' | median)
        con=$(echo "$res" | awk '{print $2}' | median)
        spk=$(echo "$res" | awk '{print $3}' | head -1)
        printf "%-5s %-8s %-11s %10.2f %12.4f %12.4f %10.4f %8s\n" "$m" "$b" "$s" "$comp" "$con" "$sim" "$sim" "$spk"
        [ $first = 1 ] || echo "," >>"$json"
        first=0
        printf '{"model": "%s", "backend": "%s", "schedule": "%s", "compile_s": %s, "construct_s": %s, "simulate_s": %s, "rtf": %s, "spikes": %s, "runs": %s}' \
            "$m" "$b" "$s" "$comp" "$con" "$sim" "$sim" "$spk" "$N" >>"$json"
    done
done
echo "]" >>"$json"
