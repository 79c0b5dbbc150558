#!/usr/bin/env bash
# tests/gpu/mpi_gpu.sh -- distributed CUDA simulators (neuroc --mpi --backend cuda), one GPU
# per rank, spikes between the GPUs through NCCL, on a machine with several GPUs:
#   exact   tests/mpi/models/gpu_exact.neuro under mpirun -np N, N in RANKS: every file
#           bit-identical to the C back end's normal simulator (tests/mpi/run_mpi.sh);
#   plastic tests/mpi/models/gpu_plastic.neuro likewise (STDP, pre and post handlers, weight
#           recordings);
#   stdp    tests/mpi/models/gpu_stdp.neuro likewise (plastic projections exchanging every
#           6 steps: their shortest delay, 7 steps, less one);
#   topk    tests/mpi/models/gpu_topk.neuro likewise (top-k split across the ranks, `set`);
#   rates   tests/mpi/models/gpu_rates.neuro likewise (Oja's rule: a replicated population);
#   ckpt    tests/mpi/ckpt_gpu.sh with CUDA: 2 ranks stopped at a checkpoint and resumed;
#   mc_int  the full-scale microcircuit with whole-pA weights (atomic sums exact in any
#           order), MC_INT_MS ms: the C back end, one GPU (the normal CUDA simulator) and
#           --mpi on N GPUs must write the same spike file, byte for byte;
#   mc      the microcircuit as published, 1 s: one GPU (twice: whether its float atomics make
#           two runs differ), then N GPUs; tests/validation/check_microcircuit.py on every
#           run; construct and simulate times and spike counts tabled in OUT/mpi_gpu/mpi_gpu.txt
#           (and .json);
#   cuba    examples/cuba.neuro (4,000 neurons, 1 s): one GPU, then N GPUs, timed: a network
#           this small measures the exchange's cost per step;
#   mc_d10  mc_int with every delay at least 1 ms (the published ones reach down to 0.1 ms),
#           so that the ranks exchange every D = 10 steps: one GPU, then N GPUs, the same
#           spike file, timed, and N > 1 GPUs again with NEUROC_MPI_EVERY_STEP=1 (what the
#           exchange every D steps gains).
# exact, plastic and stdp also check the exchange interval each run reports (15, 1 and 6 steps).
# The build comes from the development machine (BUILD, default build-dev); the MPI layer is
# rebuilt for this machine's MPI (mpi_env.sh). NCCL_NVLS_ENABLE=0 stays set (NVLink multicast
# off, as the device notes require). Exit 77 without a GPU or without MPI.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build-dev}
OUT=${OUT:-$ROOT/gpu-out}/mpi_gpu
MC_INT_MS=${MC_INT_MS:-200}
CASES=${CASES:-exact plastic stdp topk rates ckpt mc_int mc cuba mc_d10}
mkdir -p "$OUT"
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[ "${NGPU:-0}" -ge 1 ] || { echo "mpi_gpu.sh: skipped: no CUDA device"; exit 77; }
RANKS=${RANKS:-$(for n in 1 2 4 8; do [ "$n" -le "$NGPU" ] && printf '%s ' "$n"; done)}
work=$(mktemp -d)
. "$ROOT/tests/gpu/mpi_env.sh"
rc=$?
[ "$rc" = 0 ] || { echo "mpi_gpu.sh: see above"; exit $rc; }
export PATH=/usr/local/cuda/bin:$PATH
{ nvidia-smi -L; nvidia-smi topo -m; mpirun --version | head -1; echo "NEUROC_NCCL=${NEUROC_NCCL:-}"; } >"$OUT/machine.txt" 2>&1
status=0
PY=${PYTHON:-python3}
cd "$work"

# the models: the microcircuit with absolute imports, run lengths, whole-pA weights
sed "s|^import \"stdlib/|import \"$ROOT/stdlib/|" "$ROOT/examples/microcircuit.neuro" >mc.neuro
sed -e "s/^run 1 s/run $MC_INT_MS ms/" \
    -e 's/^  w        = \(.*\)$/  w        = round((\1) \/ 1 pA) * 1 pA/' mc.neuro >mc_int.neuro
grep -c "round((max\|round((min" mc_int.neuro >"$OUT/mc_int_weights.txt"
sed -e 's/, 0\.1 ms)$/, 1 ms)/' mc_int.neuro >mc_d10.neuro
grep -c ", 1 ms)$" mc_d10.neuro >"$OUT/mc_d10_delays.txt"

# builds, in parallel (nvcc takes about a minute per microcircuit)
build() {   # NAME FLAGS... MODEL
    local name=$1; shift
    "$NEUROC" "$@" -o "$name" >"$OUT/build_$name.log" 2>&1 || { echo "mpi_gpu.sh: $name does not build"; cat "$OUT/build_$name.log"; return 1; }
}
pids=()
case " $CASES " in *" mc_int "*)
    build mc_int_c --backend c mc_int.neuro & pids+=($!)
    build mc_int_gpu --backend cuda --gpu-mode graph mc_int.neuro & pids+=($!)
    build mc_int_dist --backend cuda --mpi mc_int.neuro & pids+=($!) ;;
esac
case " $CASES " in *" mc "*)
    build mc_gpu --backend cuda --gpu-mode graph mc.neuro & pids+=($!)
    build mc_dist --backend cuda --mpi mc.neuro & pids+=($!) ;;
esac
case " $CASES " in *" mc_d10 "*)
    build mc_d10_gpu --backend cuda --gpu-mode graph mc_d10.neuro & pids+=($!)
    build mc_d10_dist --backend cuda --mpi mc_d10.neuro & pids+=($!) ;;
esac
case " $CASES " in *" cuba "*)
    build cuba_gpu --backend cuda --gpu-mode graph "$ROOT/examples/cuba.neuro" & pids+=($!)
    build cuba_dist --backend cuda --mpi "$ROOT/examples/cuba.neuro" & pids+=($!) ;;
esac
for p in "${pids[@]}"; do wait "$p" || status=1; done

timing() {   # construct simulate spikes of a manifest
    $PY -c 'import json,sys; m=json.load(open(sys.argv[1])); t=m["timing_s"]; print("%.3f %.3f %d" % (t["construct"], t["simulate"], sum(p["spikes"] for p in m["populations"])))' "$1"
}
printf "%-8s %-10s %5s %12s %12s %9s %s\n" case run gpus construct_s simulate_s spikes check >"$OUT/mpi_gpu.txt"
echo '[' >"$OUT/mpi_gpu.json"
sep=""
row() {   # CASE RUN GPUS OUTDIR CHECK (local: the callers loop over n)
    local c s n
    read -r c s n <<<"$(timing "$4/manifest.json")"
    printf "%-8s %-10s %5s %12s %12s %9s %s\n" "$1" "$2" "$3" "$c" "$s" "$n" "$5" | tee -a "$OUT/mpi_gpu.txt"
    printf '%s{"case": "%s", "run": "%s", "gpus": %s, "construct_s": %s, "simulate_s": %s, "spikes": %s, "check": "%s"}\n' \
        "$sep" "$1" "$2" "$3" "$c" "$s" "$n" "$5" >>"$OUT/mpi_gpu.json"
    sep=","
}
dist() {   # SIM OUTDIR N: the distributed simulator on N GPUs
    if [ "$3" = 1 ]; then
        "./$1" --quiet --out "$2"
    else
        mpirun --bind-to none -np "$3" "./$1" --quiet --out "$2"
    fi
}

case " $CASES " in *" exact "*)
    echo "== exact: tests/mpi/models/gpu_exact.neuro, C = CUDA on $RANKS GPUs"
    ranks_gt1=$(for n in $RANKS; do [ "$n" -gt 1 ] && printf '%s ' "$n"; done)
    EXPECT_EVERY=15 DIST_BACKEND=cuda PYTHON=$PY sh "$ROOT/tests/mpi/run_mpi.sh" "$NEUROC" "$ROOT/tests/mpi/models/gpu_exact.neuro" \
        "$work/exact" 2000 $ranks_gt1 >"$OUT/exact.log" 2>&1 || { status=1; echo "exact: FAILED"; }
    tail -5 "$OUT/exact.log" ;;
esac

case " $CASES " in *" plastic "*)
    echo "== plastic: tests/mpi/models/gpu_plastic.neuro, C = CUDA on $RANKS GPUs (spikes and weights)"
    ranks_gt1=$(for n in $RANKS; do [ "$n" -gt 1 ] && printf '%s ' "$n"; done)
    EXPECT_EVERY=1 DIST_BACKEND=cuda PYTHON=$PY sh "$ROOT/tests/mpi/run_mpi.sh" "$NEUROC" "$ROOT/tests/mpi/models/gpu_plastic.neuro" \
        "$work/plastic" 1500 $ranks_gt1 >"$OUT/plastic.log" 2>&1 || { status=1; echo "plastic: FAILED"; }
    tail -5 "$OUT/plastic.log" ;;
esac

case " $CASES " in *" stdp "*)
    echo "== stdp: tests/mpi/models/gpu_stdp.neuro, C = CUDA on $RANKS GPUs (plastic, an exchange every 6 steps)"
    ranks_gt1=$(for n in $RANKS; do [ "$n" -gt 1 ] && printf '%s ' "$n"; done)
    EXPECT_EVERY=6 DIST_BACKEND=cuda PYTHON=$PY sh "$ROOT/tests/mpi/run_mpi.sh" "$NEUROC" "$ROOT/tests/mpi/models/gpu_stdp.neuro" \
        "$work/stdp" 1500 $ranks_gt1 >"$OUT/stdp.log" 2>&1 || { status=1; echo "stdp: FAILED"; }
    tail -5 "$OUT/stdp.log" ;;
esac

case " $CASES " in *" rates "*)
    echo "== rates: tests/mpi/models/gpu_rates.neuro, C = CUDA on $RANKS GPUs (a replicated population)"
    ranks_gt1=$(for n in $RANKS; do [ "$n" -gt 1 ] && printf '%s ' "$n"; done)
    DIST_BACKEND=cuda PYTHON=$PY sh "$ROOT/tests/mpi/run_mpi.sh" "$NEUROC" "$ROOT/tests/mpi/models/gpu_rates.neuro" \
        "$work/rates" 400 $ranks_gt1 >"$OUT/rates.log" 2>&1 || { status=1; echo "rates: FAILED"; }
    tail -5 "$OUT/rates.log" ;;
esac

case " $CASES " in *" ckpt "*)
    echo "== ckpt: tests/mpi/ckpt_gpu.sh on CUDA: 2 ranks stopped at a checkpoint and resumed = uninterrupted"
    DIST_BACKEND=cuda PYTHON=$PY sh "$ROOT/tests/mpi/ckpt_gpu.sh" "$NEUROC" "$ROOT/tests/mpi/models/gpu_topk.neuro" \
        "$work/ckpt" >"$OUT/ckpt.log" 2>&1 || { status=1; echo "ckpt: FAILED"; }
    tail -3 "$OUT/ckpt.log" ;;
esac

case " $CASES " in *" topk "*)
    echo "== topk: tests/mpi/models/gpu_topk.neuro, C = CUDA on $RANKS GPUs (top-k split across the ranks)"
    ranks_gt1=$(for n in $RANKS; do [ "$n" -gt 1 ] && printf '%s ' "$n"; done)
    DIST_BACKEND=cuda PYTHON=$PY sh "$ROOT/tests/mpi/run_mpi.sh" "$NEUROC" "$ROOT/tests/mpi/models/gpu_topk.neuro" \
        "$work/topk" 1500 $ranks_gt1 >"$OUT/topk.log" 2>&1 || { status=1; echo "topk: FAILED"; }
    tail -5 "$OUT/topk.log" ;;
esac

case " $CASES " in *" mc_int "*)
    echo "== mc_int: microcircuit with whole-pA weights, $MC_INT_MS ms: C = one GPU = --mpi on $RANKS GPUs"
    if [ -x mc_int_c ] && [ -x mc_int_gpu ] && [ -x mc_int_dist ]; then
        ./mc_int_c --quiet --out int_c || status=1
        row mc_int c 0 int_c reference
        ./mc_int_gpu --quiet --out int_gpu || status=1
        same=yes; cmp -s int_c/microcircuit_spikes.npy int_gpu/microcircuit_spikes.npy || { same=NO; status=1; }
        row mc_int one_gpu 1 int_gpu "same_as_c=$same"
        for n in $RANKS; do
            dist mc_int_dist "int_$n" "$n" >"$OUT/run_int_$n.log" 2>&1 || { status=1; echo "mc_int on $n GPUs failed"; cat "$OUT/run_int_$n.log"; continue; }
            same=yes; cmp -s int_c/microcircuit_spikes.npy "int_$n/microcircuit_spikes.npy" || { same=NO; status=1; }
            row mc_int mpi "$n" "int_$n" "same_as_c=$same"
        done
    fi ;;
esac

case " $CASES " in *" mc "*)
    echo "== mc: the microcircuit, 1 s: one GPU, then --mpi on $RANKS GPUs (check_microcircuit.py)"
    check() {   # OUTDIR: the validation checker, its verdict
        if $PY "$ROOT/tests/validation/check_microcircuit.py" "$1" >"$OUT/check_$(basename "$1").log" 2>&1; then echo valid; else status=1; echo INVALID; fi
    }
    if [ -x mc_gpu ] && [ -x mc_dist ]; then
        ./mc_gpu --quiet --out mc_1a || status=1
        row mc one_gpu 1 mc_1a "$(check mc_1a)"
        ./mc_gpu --quiet --out mc_1b || status=1
        rep=identical; cmp -s mc_1a/microcircuit_spikes.npy mc_1b/microcircuit_spikes.npy || rep=differs
        row mc one_gpu_again 1 mc_1b "$(check mc_1b),$rep"
        for n in $RANKS; do
            dist mc_dist "mc_$n" "$n" >"$OUT/run_mc_$n.log" 2>&1 || { status=1; echo "mc on $n GPUs failed"; cat "$OUT/run_mc_$n.log"; continue; }
            same=yes; cmp -s mc_1a/microcircuit_spikes.npy "mc_$n/microcircuit_spikes.npy" || same=no
            row mc mpi "$n" "mc_$n" "$(check "mc_$n"),same_as_one_gpu=$same"
        done
        # the layer rates of every run side by side
        $PY - mc_1a mc_1b $(for n in $RANKS; do printf 'mc_%s ' "$n"; done) >"$OUT/mc_rates.txt" 2>&1 <<'PYEOF'
import sys, numpy as np
N = [20683, 5834, 21915, 5479, 4850, 1065, 14395, 2948]
edges = np.cumsum([0] + N)
print("%-8s" % "run", " ".join("%7s" % k for k in ["L23E", "L23I", "L4E", "L4I", "L5E", "L5I", "L6E", "L6I"]))
for d in sys.argv[1:]:
    a = np.load(d + "/microcircuit_spikes.npy")
    a = a[(a["t"] >= 200) & (a["t"] < 1000)]
    c = np.histogram(a["i"], bins=edges)[0]
    print("%-8s" % d, " ".join("%7.3f" % (c[k] / N[k] / 0.8) for k in range(8)))
PYEOF
        cat "$OUT/mc_rates.txt"
    fi ;;
esac
case " $CASES " in *" cuba "*)
    echo "== cuba: 4,000 neurons, 1 s, one GPU, then --mpi on $RANKS GPUs"
    if [ -x cuba_gpu ] && [ -x cuba_dist ]; then
        ./cuba_gpu --quiet --out cuba_1g || status=1
        row cuba one_gpu 1 cuba_1g -
        for n in $RANKS; do
            dist cuba_dist "cuba_$n" "$n" >"$OUT/run_cuba_$n.log" 2>&1 || { status=1; echo "cuba on $n GPUs failed"; cat "$OUT/run_cuba_$n.log"; continue; }
            same=yes; cmp -s cuba_1g/cuba_spikes.npy "cuba_$n/cuba_spikes.npy" || same=no
            row cuba mpi "$n" "cuba_$n" "same_as_one_gpu=$same"
        done
    fi ;;
esac
case " $CASES " in *" mc_d10 "*)
    echo "== mc_d10: microcircuit, whole-pA weights, delays of at least 1 ms, $MC_INT_MS ms: one GPU = --mpi on $RANKS GPUs"
    if [ -x mc_d10_gpu ] && [ -x mc_d10_dist ]; then
        ./mc_d10_gpu --quiet --out d10_1g || status=1
        row mc_d10 one_gpu 1 d10_1g -
        for n in $RANKS; do
            if [ "$n" = 1 ]; then ./mc_d10_dist --out "d10_$n" >"$OUT/run_d10_$n.log" 2>&1
            else mpirun --bind-to none -np "$n" ./mc_d10_dist --out "d10_$n" >"$OUT/run_d10_$n.log" 2>&1; fi ||
                { status=1; echo "mc_d10 on $n GPUs failed"; cat "$OUT/run_d10_$n.log"; continue; }
            same=yes; cmp -s d10_1g/microcircuit_spikes.npy "d10_$n/microcircuit_spikes.npy" || { same=NO; status=1; }
            row mc_d10 mpi "$n" "d10_$n" "same_as_one_gpu=$same,$(grep -o 'every [0-9]* step' "$OUT/run_d10_$n.log" | tr ' ' _)"
            [ "$n" = 1 ] && continue   # the same binary exchanging every step: what the interval gains
            NEUROC_MPI_EVERY_STEP=1 mpirun --bind-to none -x NEUROC_MPI_EVERY_STEP -np "$n" ./mc_d10_dist --quiet --out "d10e_$n" ||
                { status=1; echo "mc_d10 every step on $n GPUs failed"; continue; }
            same=yes; cmp -s d10_1g/microcircuit_spikes.npy "d10e_$n/microcircuit_spikes.npy" || { same=NO; status=1; }
            row mc_d10 every_step "$n" "d10e_$n" "same_as_one_gpu=$same"
        done
    fi ;;
esac
echo ']' >>"$OUT/mpi_gpu.json"
cd / && rm -rf "$work"
exit $status
