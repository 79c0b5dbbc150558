#!/bin/sh
# tests/mpi: a model built as a normal simulator and with `neuroc --mpi`, the latter run with
# one rank (no mpirun) and under `mpirun -np N` for every N given: every output file must
# be byte-identical to the normal simulator's, manifest.json equal but for its timings.
#   run_mpi.sh NEUROC MODEL WORKDIR MIN_SPIKES N...
# MIN_SPIKES: the spike files together must hold at least this many rows (not vacuous).
# DIST_BACKEND=opencl|cuda builds the distributed simulator for that back end (one device per
# rank; the normal simulator stays the C back end's, and the manifests may differ in
# "backend" too). MODEL_RUN=DURATION runs the model for DURATION only (its `run` lines
# replaced by one: a model without set statements between runs). EXPECT_EVERY=D: every
# distributed run must say that it exchanged spikes every D steps; EXPECT_LISTS=1 (with it):
# that some ranks' messages went as lists of spikes and some as bits. RUN_ARGS: options of
# every run (--save-connectivity: the connectivity files compared too). MODEL_SED=EXPR: the
# model edited by sed first (a scale model at a small size: 's/^const side = 56/.../').
# DRY_RUN=1: `--dry-run` of every N ranks must print the memory plan once and end (the
# quiet ranks leave only after the collective device choice). Exit 77 (skipped) without
# mpirun or without MPI support in this neuroc.
set -eu
neuroc=$1 model=$2 work=$3 minspk=$4
shift 4
command -v mpirun >/dev/null 2>&1 || { echo "skipped: mpirun not found (Debian: openmpi-bin)"; exit 77; }
rm -rf "$work" && mkdir -p "$work"
if [ -n "${MODEL_SED:-}" ]; then   # the model edited first (a scale model made small)
    sed -e "$MODEL_SED" "$model" >"$work/model_sed.neuro"
    model=$work/model_sed.neuro
fi
if [ -n "${MODEL_RUN:-}" ]; then   # a shorter run of the model: its `run` lines replaced by one
    grep -v '^run ' "$model" >"$work/model.neuro" && echo "run $MODEL_RUN" >>"$work/model.neuro"
    model=$work/model.neuro
fi
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
"$neuroc" --backend c "$model" -o ref
if ! "$neuroc" --mpi --backend "${DIST_BACKEND:-c}" "$model" -o dist 2>err.txt; then
    cat err.txt
    if grep -q "built without MPI" err.txt; then echo "skipped: neuroc was built without MPI"; exit 77; fi
    exit 1
fi
if [ -n "${DIST_BACKEND:-}" ] && ! ./dist --list-devices >devices.txt 2>&1; then
    cat devices.txt; echo "skipped: no $DIST_BACKEND device"; exit 77
fi
./ref --quiet ${RUN_ARGS:-} --out out_ref
PY=${PYTHON:-python3}
compare() {   # compare out_ref with $1
    for f in out_ref/*; do
        b=$(basename "$f")
        [ "$b" = manifest.json ] && continue
        cmp "$f" "$1/$b" || { echo "FAIL: $1/$b differs from the single-process run"; exit 1; }
    done
    [ "$(ls out_ref | wc -l)" = "$(ls "$1" | wc -l)" ] || { echo "FAIL: $1 holds other files"; ls out_ref "$1"; exit 1; }
    "$PY" - out_ref/manifest.json "$1/manifest.json" <<'PYEOF'
import json, sys
def strip(d):
    if isinstance(d, dict):
        return {k: strip(v) for k, v in d.items() if k not in ("timing_s", "backend")}
    if isinstance(d, list):
        return [strip(v) for v in d]
    return d
a, b = (strip(json.load(open(p))) for p in sys.argv[1:3])
if a != b:
    print("FAIL: manifests differ:\n", a, "\n", b)
    sys.exit(1)
PYEOF
    echo "ok: $1 = single-process run"
}
# not vacuous: the spike recordings (.npy rows of (t, i)) hold enough spikes
"$PY" - "$minspk" out_ref <<'PYEOF'
import sys, os
n = 0
for f in sorted(os.listdir(sys.argv[2])):
    if f.endswith(".npy"):
        with open(os.path.join(sys.argv[2], f), "rb") as fh:
            fh.read(8)
            h = fh.read(int.from_bytes(fh.read(2), "little")).decode()
        if "[('t', '<f8'), ('i', '<i4')]" in h:
            n += int(h.split("'shape': (")[1].split(",")[0])
if n < int(sys.argv[1]):
    print("FAIL: only %d spikes recorded, need %s" % (n, sys.argv[1]))
    sys.exit(1)
print("spikes recorded:", n)
PYEOF
./dist --quiet ${RUN_ARGS:-} --out out_1
compare out_1
for np in "$@"; do
    if [ -n "${DRY_RUN:-}" ]; then   # one memory plan, and every rank ends
        timeout 60 mpirun --oversubscribe -np "$np" ./dist --dry-run >"dry_np$np.txt" 2>&1 ||
            { cat "dry_np$np.txt"; echo "FAIL: --dry-run of $np ranks did not end (or failed)"; exit 1; }
        [ "$(grep -c '^memory plan of' "dry_np$np.txt")" = 1 ] ||
            { cat "dry_np$np.txt"; echo "FAIL: --dry-run of $np ranks did not print one memory plan"; exit 1; }
    fi
    if [ -n "${EXPECT_EVERY:-}" ]; then   # the exchange interval the distributed GPU program chose
        mpirun --oversubscribe -np "$np" ./dist ${RUN_ARGS:-} --out "out_np$np" >"log_np$np.txt" 2>&1 || { cat "log_np$np.txt"; exit 1; }
        grep -q "$np ranks, spikes exchanged every $EXPECT_EVERY step" "log_np$np.txt" ||
            { cat "log_np$np.txt"; echo "FAIL: $np ranks did not exchange every $EXPECT_EVERY steps"; exit 1; }
        if [ -n "${EXPECT_LISTS:-}" ]; then   # some messages went as lists, some as bits
            grep -q "exchange through MPI: [1-9][0-9]* messages as lists, [1-9][0-9]* as bits" "log_np$np.txt" ||
                { cat "log_np$np.txt"; echo "FAIL: $np ranks did not send both lists and bits"; exit 1; }
        fi
    else
        mpirun --oversubscribe -np "$np" ./dist --quiet ${RUN_ARGS:-} --out "out_np$np"
    fi
    compare "out_np$np"
done
