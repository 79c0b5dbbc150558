#!/bin/sh
# long_names.sh NEUROC WORKDIR c|opencl -- populations, a view and projections (one with
# delays, one plastic, one visited pair by pair) named with 300 characters compile and run:
# the C program; with opencl, the OpenCL program too, whose recordings must equal the C
# program's byte for byte.
# Exit: 0 pass; 77 skipped (no OpenCL device); 3 compile failed; 4 run failed; 1 outputs.
set -u
if [ $# -ne 3 ]; then
    echo "usage: $0 NEUROC WORKDIR c|opencl" >&2
    exit 2
fi
NEUROC=$1; WORK=$2; BACKEND=$3
tag="long_names[$BACKEND]"
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
rep() { i=0; s=; while [ $i -lt "$2" ]; do s="$s$1"; i=$((i + 1)); done; printf '%s' "$s"; }
P=P$(rep a 299); Q=Q$(rep b_ 149)c; J=J$(rep x 299)
cat >"$WORK/long.neuro" <<MODEL
import "stdlib/neurons.neuro"
import "stdlib/receptors.neuro"
import "stdlib/synapses.neuro"
population $P = LIF[20] { I_e = 400 pA }
population $Q = LIF[10]
population ${Q}v = $Q[2:8]
projection $J = $P -> ${Q}v { receptor = Exp -> I_syn; connect = fixed_prob(0.5); w = 50 pA; delay = 1 ms + 0.1 ms * i }
projection ${J}2 = $P -> $P { synapse = STDP(w_max = 10 pA); receptor = Exp -> I_syn; connect = fixed_prob(0.2); w = 1 pA; delay = 2 ms }
projection ${J}3 = $P -> $Q { receptor = Exp -> I_syn; connect = fixed_prob(0.3) where i != j; w = 20 pA }
record spikes of $P to "a.csv"
record V of $Q to "b.csv"
record w of ${J}2 every 1 ms to "w.csv"
run 20 ms
MODEL
"$NEUROC" "$WORK/long.neuro" --backend c -o "$WORK/sim_c" || { echo "$tag: FAILED: neuroc" >&2; exit 3; }
"$WORK/sim_c" --quiet --out "$WORK/c" || { echo "$tag: FAILED: run" >&2; exit 4; }
for f in a.csv b.csv w.csv; do
    if [ "$(wc -l <"$WORK/c/$f")" -lt 3 ]; then
        echo "$tag: FAILED: $f has fewer than 2 rows" >&2
        exit 1
    fi
done
# a checkpoint at 10 ms (one file per array, named after these names) and its resume: the
# same recordings as the run above
"$WORK/sim_c" --quiet --out "$WORK/ck1" --checkpoint "$WORK/ck" --checkpoint-at 10ms || { echo "$tag: FAILED: checkpoint" >&2; exit 4; }
"$WORK/sim_c" --quiet --out "$WORK/ck2" --resume "$WORK/ck" || { echo "$tag: FAILED: resume" >&2; exit 4; }
for f in a.csv b.csv w.csv; do
    tail -n +2 "$WORK/ck2/$f" >"$WORK/ck_$f"
    n=$(wc -l <"$WORK/ck_$f")
    tail -n "$n" "$WORK/c/$f" >"$WORK/c_$f"
    if [ "$n" -lt 1 ] || ! cmp "$WORK/c/$f" "$WORK/ck1/$f" || ! cmp "$WORK/c_$f" "$WORK/ck_$f"; then
        echo "$tag: FAILED: $f with a checkpoint, or after resuming, differs from the run without" >&2
        exit 1
    fi
done
[ "$BACKEND" = c ] && { echo "$tag: ok"; exit 0; }
"$NEUROC" "$WORK/long.neuro" --backend "$BACKEND" -o "$WORK/sim_gpu" || { echo "$tag: FAILED: neuroc --backend $BACKEND" >&2; exit 3; }
if ! "$WORK/sim_gpu" --list-devices >"$WORK/devices.txt" 2>&1 || [ ! -s "$WORK/devices.txt" ]; then
    echo "$tag: skipped: no $BACKEND device ($(head -n 1 "$WORK/devices.txt"))"
    exit 77
fi
"$WORK/sim_gpu" --quiet --out "$WORK/gpu" || { echo "$tag: FAILED: the $BACKEND run" >&2; exit 4; }
for f in a.csv b.csv w.csv; do
    cmp "$WORK/c/$f" "$WORK/gpu/$f" || { echo "$tag: FAILED: $f differs from the C program's" >&2; exit 1; }
done
echo "$tag: ok"
