#!/usr/bin/env bash
# tests/gpu/mpi.sh -- distributed runs on the device machine (many cores, OpenMPI):
# CUBA and the full-scale microcircuit (examples/microcircuit.neuro, shortened to $MC_MS ms)
# built as a normal C simulator and with `neuroc --mpi`, the latter run under
# `mpirun -np N` for N in $RANKS; each run's spike file must be byte-identical to the normal
# simulator's; the construct and simulate times (manifest.json) of every run are tabled in
# $OUT/mpi/mpi.txt and mpi.json (MODELS, RANKS and MC_MS choose what runs). The ranks are
# CPU ranks; distributed CUDA simulators, one GPU per rank, are tests/gpu/mpi_gpu.sh's.
#
# The build comes from the development machine as for run.sh (BUILD, default build-dev).
# libneurort_mpi.a is rebuilt here with this machine's mpicc (else cc with the include and
# lib folders beside mpirun), so the simulators match its MPI (mpi_env.sh).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build-dev}
OUT=${OUT:-$ROOT/gpu-out}/mpi
RANKS=${RANKS:-1 2 4 8}
MC_MS=${MC_MS:-200}
MODELS=${MODELS:-cuba microcircuit}
mkdir -p "$OUT"
work=$(mktemp -d)
. "$ROOT/tests/gpu/mpi_env.sh"
rc=$?
[ "$rc" = 0 ] || { echo "mpi.sh: see above"; exit $rc; }
sed "s/^run 1 s/run $MC_MS ms/" "$ROOT/examples/microcircuit.neuro" >"$work/microcircuit.neuro"
sed -i "s|^import \"stdlib/|import \"$ROOT/stdlib/|" "$work/microcircuit.neuro"
cp "$ROOT/examples/cuba.neuro" "$work/cuba.neuro"
{ lscpu | grep -E "Model name|^CPU\(s\)"; mpirun --version | head -1; } >"$OUT/machine.txt" 2>&1
status=0
echo '[' >"$OUT/mpi.json"
sep=""
printf "%-13s %5s %12s %12s %8s %s\n" model ranks construct_s simulate_s spikes same >"$OUT/mpi.txt"
timing() {   # construct simulate spikes of a manifest
    python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); t=m["timing_s"]; print(t["construct"], t["simulate"], sum(p["spikes"] for p in m["populations"]))' "$1"
}
for model in $MODELS; do
    (cd "$work" && "$NEUROC" "$model.neuro" -o "ref_$model" && "$NEUROC" --mpi "$model.neuro" -o "dist_$model") \
        >"$OUT/build_$model.log" 2>&1 || { echo "mpi.sh: $model does not build"; status=1; continue; }
    "$work/ref_$model" --quiet --out "$work/out_${model}_ref" || status=1
    read -r c s n <<<"$(timing "$work/out_${model}_ref/manifest.json")"
    printf "%-13s %5s %12.3f %12.3f %8s %s\n" "$model" single "$c" "$s" "$n" ref | tee -a "$OUT/mpi.txt"
    for np in $RANKS; do
        mpirun --oversubscribe --bind-to core -np "$np" "$work/dist_$model" --quiet --out "$work/out_${model}_$np" \
            >"$OUT/run_${model}_$np.log" 2>&1 || { echo "mpi.sh: $model at $np ranks failed"; status=1; continue; }
        same=yes
        for f in "$work/out_${model}_ref"/*.npy; do
            cmp -s "$f" "$work/out_${model}_$np/$(basename "$f")" || same=NO
        done
        [ "$same" = yes ] || status=1
        read -r c s n <<<"$(timing "$work/out_${model}_$np/manifest.json")"
        printf "%-13s %5s %12.3f %12.3f %8s %s\n" "$model" "$np" "$c" "$s" "$n" "$same" | tee -a "$OUT/mpi.txt"
        printf '%s{"model": "%s", "ranks": %s, "construct_s": %s, "simulate_s": %s, "spikes": %s, "identical": %s}\n' \
            "$sep" "$model" "$np" "$c" "$s" "$n" "$([ $same = yes ] && echo true || echo false)" >>"$OUT/mpi.json"
        sep=","
    done
done
echo ']' >>"$OUT/mpi.json"
rm -rf "$work"
exit $status
