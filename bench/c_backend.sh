#!/usr/bin/env bash
# Compile and simulate CUBA and COBA (1 s each) on the C back end; prints the median of
# N runs of each. Usage: bench/c_backend.sh [NEUROC] [N]   (default build/bin/neuroc, 5)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NEUROC=${1:-$ROOT/build/bin/neuroc}
N=${2:-5}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf "%-6s %12s %12s %12s %10s %10s\n" model compile_s construct_s simulate_s RTF spikes
for m in cuba coba; do
    comp=$(for r in $(seq "$N"); do
        s=$(date +%s.%N); "$NEUROC" "$ROOT/examples/$m.neuro" -o "$WORK/$m" 2>/dev/null; e=$(date +%s.%N)
        awk -v a="$s" -v b="$e" 'BEGIN {print b - a}'; done | median)
    res=$(for r in $(seq "$N"); do
        "$WORK/$m" --quiet --out "$WORK/${m}_out"
        python3 -c "import json,sys;d=json.load(open('$WORK/${m}_out/manifest.json'));t=d['timing_s'];print(t['simulate'],t['construct'],sum(p['spikes'] for p in d['populations']))"
        done | sort -g)
    sim=$(echo "$res" | awk '{print $1}' | median)
    con=$(echo "$res" | awk '{print $2}' | median)
    spk=$(echo "$res" | awk '{print $3}' | head -1)
    printf "%-6s %12.3f %12.4f %12.3f %10.3f %10s\n" "$m" "$comp" "$con" "$sim" "$sim" "$spk"
done
