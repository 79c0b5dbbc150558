#!/usr/bin/env bash
# tests/gpu/mpi_scale.sh -- issue 31's scale runs: distributed CUDA simulators (neuroc --mpi
# --backend cuda, one GPU per rank, NCCL between them) of the bench/scale models, on a machine
# with several GPUs, and their strong- (and weak-) scaling tables:
#   lattice   bench/scale/lattice4d.neuro: LAT_SIDE^4 LIF neurons on a periodic 4-D lattice
#             (default 56: 9,834,496 neurons, 1.1 x 10^8 STDP synapses), LAT_RUN (1 s) of
#             biological time: the normal CUDA simulator on one GPU, then --mpi on every N of
#             RANKS; the spikes of the recorded line compared with one GPU's (float atomics:
#             equal only where the sums keep their order, so "differs" is no failure);
#   assembly  bench/scale/assembly.neuro: an area of ASM_N neurons (10^7), k = ASM_K (3,162),
#             p = 10^-3, 30 rounds, likewise; the check is the convergence of the cap: the
#             overlap of the last two rounds' winners (near 1: a stable assembly; at 10^4 on
#             PoCL 0.44 in round 2, 0.99 from round 17 on; informative, no failure);
#   weak      (WEAK=1) the lattice with about LAT_SIDE^4 / 4 neurons per GPU: sides
#             WEAK_SIDES ("1:40 2:48 4:56": 2.6 M, 5.3 M, 9.8 M neurons) on 1, 2, 4 GPUs.
# Each run's --dry-run memory plan is kept (OUT/mpi_scale/plan_*.txt) and each distributed
# run's exchange interval (the "every D steps" line). The table: OUT/mpi_scale/scale.txt
# (and .json): construct and simulate seconds, spikes, the simulate speed-up against the
# distributed simulator on one GPU, and the check. BUILD (build-dev), RANKS (the GPUs' 1, 2,
# 4, 8), CASES ("lattice assembly"). NCCL_NVLS_ENABLE=0 stays set (mpi_env.sh). Exit 77
# without a GPU or without MPI; 1 when a build or a run fails.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build-dev}
OUT=${OUT:-$ROOT/gpu-out}/mpi_scale
LAT_SIDE=${LAT_SIDE:-56}
LAT_RUN=${LAT_RUN:-1 s}
ASM_N=${ASM_N:-10000000}
ASM_K=${ASM_K:-3162}
CASES=${CASES:-lattice assembly}
WEAK=${WEAK:-0}
WEAK_SIDES=${WEAK_SIDES:-1:40 2:48 4:56}
mkdir -p "$OUT"
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[ "${NGPU:-0}" -ge 1 ] || { echo "mpi_scale.sh: skipped: no CUDA device"; exit 77; }
RANKS=${RANKS:-$(for n in 1 2 4 8; do [ "$n" -le "$NGPU" ] && printf '%s ' "$n"; done)}
work=$(mktemp -d)
. "$ROOT/tests/gpu/mpi_env.sh"
rc=$?
[ "$rc" = 0 ] || { echo "mpi_scale.sh: see above"; exit $rc; }
export PATH=/usr/local/cuda/bin:$PATH
{ nvidia-smi -L; mpirun --version | head -1; echo "NEUROC_NCCL=${NEUROC_NCCL:-}"; } >"$OUT/machine.txt" 2>&1
status=0
PY=${PYTHON:-python3}
cd "$work" || exit 1

# the models, with absolute imports and the sizes asked for
abs() { sed "s|^import \"stdlib/|import \"$ROOT/stdlib/|" "$1"; }
lattice() {   # SIDE NAME
    abs "$ROOT/bench/scale/lattice4d.neuro" | sed -e "s/^const side *= *56$/const side = $1/" -e "s/^run 1 s$/run $LAT_RUN/" >"$2.neuro"
}
lattice "$LAT_SIDE" lat
abs "$ROOT/bench/scale/assembly.neuro" | sed -e "s/^const n    = 10000000 /const n    = $ASM_N /" \
    -e "s/^const k    = 3162 /const k    = $ASM_K /" >asm.neuro
if [ "$WEAK" = 1 ]; then
    for e in $WEAK_SIDES; do lattice "${e#*:}" "weak${e%%:*}"; done
fi

build() {   # NAME FLAGS... MODEL
    local name=$1; shift
    "$NEUROC" "$@" -o "$name" >"$OUT/build_$name.log" 2>&1 || { echo "mpi_scale.sh: $name does not build"; cat "$OUT/build_$name.log"; return 1; }
}
pids=()
case " $CASES " in *" lattice "*)
    build lat_gpu --backend cuda --gpu-mode graph lat.neuro & pids+=($!)
    build lat_dist --backend cuda --mpi lat.neuro & pids+=($!) ;;
esac
case " $CASES " in *" assembly "*)
    build asm_gpu --backend cuda --gpu-mode graph asm.neuro & pids+=($!)
    build asm_dist --backend cuda --mpi asm.neuro & pids+=($!) ;;
esac
if [ "$WEAK" = 1 ]; then
    for e in $WEAK_SIDES; do build "weak${e%%:*}_dist" --backend cuda --mpi "weak${e%%:*}.neuro" & pids+=($!); done
fi
for p in "${pids[@]}"; do wait "$p" || status=1; done

timing() {   # construct simulate spikes of a manifest
    $PY -c 'import json,sys; m=json.load(open(sys.argv[1])); t=m["timing_s"]; print("%.3f %.3f %d" % (t["construct"], t["simulate"], sum(p["spikes"] for p in m["populations"])))' "$1"
}
printf "%-9s %-9s %5s %10s %12s %12s %12s %8s %s\n" case run gpus neurons construct_s simulate_s spikes speedup check >"$OUT/scale.txt"
echo '[' >"$OUT/scale.json"
sep=""
base=""
row() {   # CASE RUN GPUS NEURONS OUTDIR CHECK: base (the simulate time of 1 distributed GPU) set by the caller
    local c s n up
    read -r c s n <<<"$(timing "$5/manifest.json")"
    up=$($PY -c 'import sys; b, s = sys.argv[1], float(sys.argv[2]); print("%.2f" % (float(b) / s) if b and s > 0 else "-")' "$base" "$s")
    printf "%-9s %-9s %5s %10s %12s %12s %12s %8s %s\n" "$1" "$2" "$3" "$4" "$c" "$s" "$n" "$up" "$6" | tee -a "$OUT/scale.txt"
    printf '%s{"case": "%s", "run": "%s", "gpus": %s, "neurons": %s, "construct_s": %s, "simulate_s": %s, "spikes": %s, "speedup": "%s", "check": "%s"}\n' \
        "$sep" "$1" "$2" "$3" "$4" "$c" "$s" "$n" "$up" "$6" >>"$OUT/scale.json"
    sep=","
    LAST_SIM=$s
}
dist() {   # SIM OUTDIR N LOG: the distributed simulator on N GPUs (its exchange line in LOG)
    if [ "$3" = 1 ]; then "./$1" --out "$2" >"$4" 2>&1
    else mpirun --bind-to none -np "$3" "./$1" --out "$2" >"$4" 2>&1; fi
}
every() { grep -o 'every [0-9]* step' "$1" | tr ' ' _ | head -1; }
plan() {   # SIM N: the --dry-run memory plan with N ranks
    if [ "$2" = 1 ]; then "./$1" --dry-run; else mpirun --bind-to none -np "$2" "./$1" --dry-run; fi >"$OUT/plan_$1_$2.txt" 2>&1 ||
        { status=1; echo "$1: --dry-run with $2 ranks failed"; cat "$OUT/plan_$1_$2.txt"; }
}
converged() {   # OUTDIR: the overlap of the last two rounds' caps of A
    $PY - "$1/A_caps.npy" <<'PYEOF'
import sys, numpy as np
a = np.load(sys.argv[1])
steps = np.unique(a["t"])
last, prev = (set(a["i"][a["t"] == s].tolist()) for s in (steps[-1], steps[-2]))
print("overlap=%.3f" % (len(last & prev) / max(len(last), 1)))
PYEOF
}
spikes_same() {   # FILE_A FILE_B
    if cmp -s "$1" "$2"; then echo same; else echo differs; fi
}

case " $CASES " in *" lattice "*)
    nl=$((LAT_SIDE * LAT_SIDE * LAT_SIDE * LAT_SIDE))
    echo "== lattice: ${LAT_SIDE}^4 = $nl LIF neurons with STDP, $LAT_RUN: one GPU, then --mpi on $RANKS GPUs"
    if [ -x lat_gpu ] && [ -x lat_dist ]; then
        for n in $RANKS; do plan lat_dist "$n"; done
        ./lat_gpu --quiet --out lat_1g >"$OUT/run_lat_1g.log" 2>&1 || { status=1; cat "$OUT/run_lat_1g.log"; }
        base=""
        row lattice one_gpu 1 "$nl" lat_1g -
        for n in $RANKS; do
            dist lat_dist "lat_$n" "$n" "$OUT/run_lat_$n.log" || { status=1; echo "lattice on $n GPUs failed"; cat "$OUT/run_lat_$n.log"; continue; }
            row lattice mpi "$n" "$nl" "lat_$n" "spikes_$(spikes_same lat_1g/l4d_spikes.npy "lat_$n/l4d_spikes.npy"),$(every "$OUT/run_lat_$n.log")"
            [ "$n" = 1 ] && base=$LAST_SIM
        done
    fi ;;
esac

case " $CASES " in *" assembly "*)
    echo "== assembly: an area of $ASM_N, k = $ASM_K, 30 rounds: one GPU, then --mpi on $RANKS GPUs"
    if [ -x asm_gpu ] && [ -x asm_dist ]; then
        for n in $RANKS; do plan asm_dist "$n"; done
        ./asm_gpu --quiet --out asm_1g >"$OUT/run_asm_1g.log" 2>&1 || { status=1; cat "$OUT/run_asm_1g.log"; }
        base=""
        row assembly one_gpu 1 "$ASM_N" asm_1g "$(converged asm_1g)"
        for n in $RANKS; do
            dist asm_dist "asm_$n" "$n" "$OUT/run_asm_$n.log" || { status=1; echo "assembly on $n GPUs failed"; cat "$OUT/run_asm_$n.log"; continue; }
            row assembly mpi "$n" "$ASM_N" "asm_$n" "$(converged "asm_$n"),caps_$(spikes_same asm_1g/A_caps.npy "asm_$n/A_caps.npy"),$(every "$OUT/run_asm_$n.log")"
            [ "$n" = 1 ] && base=$LAST_SIM
        done
    fi ;;
esac

if [ "$WEAK" = 1 ]; then
    echo "== weak: the lattice with about the same neurons per GPU ($WEAK_SIDES)"
    base=""
    for e in $WEAK_SIDES; do
        n=${e%%:*} side=${e#*:}
        [ "$n" -le "$NGPU" ] || continue
        [ -x "weak${n}_dist" ] || continue
        dist "weak${n}_dist" "weak_$n" "$n" "$OUT/run_weak_$n.log" || { status=1; echo "weak on $n GPUs failed"; cat "$OUT/run_weak_$n.log"; continue; }
        row weak mpi "$n" $((side * side * side * side)) "weak_$n" "side=$side,$(every "$OUT/run_weak_$n.log")"
        [ -z "$base" ] && base=$LAST_SIM   # weak scaling: the ratio to the smallest run (1.00: perfect)
    done
fi
echo ']' >>"$OUT/scale.json"
cat "$OUT/scale.txt"
cd / && rm -rf "$work"
exit $status
