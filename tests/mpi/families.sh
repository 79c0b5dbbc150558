#!/bin/sh
# families.sh NEUROC DATA_DIR WORKDIR PYTHON [cuda] -- projection families in distributed GPU
# simulators (neuroc --mpi --backend opencl|cuda; codegen/gpu/simt_family.c, simt_mpi.c): the
# multi-area model (examples/multiarea) at 1 % scale, areas V1 and V2, 50 ms, from the data
# set in DATA_DIR (skipped, 77, without it), its 137 projections made two families: the 109
# within an area stored (cut to each rank's columns before their values are drawn), the 28
# between the areas procedural (whole rows regenerated, added into the rank's neurons only).
# Every weight is the whole number of pA of its mean (no draw), so the atomic sums into a
# ring slot are exact in any order; the delays are drawn (truncated normals), keyed by each
# synapse's rank in its whole row.
#   opencl (default): models/fam_replicated.neuro's projections onto a replicated population
#             form a family on one GPU and none under --mpi (they stay single: fam_ok);
#             `--explain` of the distributed OpenCL program names both families, and
#             run_mpi.sh compares its runs on 1, 2 and 3 ranks (PoCL) with the C back end's
#             normal simulator byte for byte: spikes, --save-connectivity files (each member's
#             synapses gathered on rank 0) and the manifest; --dry-run of 2 and 3 ranks ends.
#   cuda:     the distributed CUDA program builds with nvcc (tests/gpu/cuda_compile.sh).
#   c:        the C back end's ranks (codegen/c/c_family.c: stored members cut to the rank's
#             slice, procedural members adding into it only, their shortest delays the
#             exchange interval): `--explain` names both families, run_mpi.sh compares 1, 2
#             and 3 ranks with the normal simulator, and 2 ranks x 2 threads the same; a
#             procedural family whose delays alone set the interval (families_proc.neuro's
#             one_to_one members) on 1 and 2 ranks; the model with every projection procedural
#             (--procedural) on 1, 2, 3 threads and 2 ranks x 2 threads, its members'
#             delivery on the threads (tests/threads/run_threads.sh +mpi+allthreads).
# Exit: 0 pass; 77 skipped; 1 a check failed; 2 setup; 3 neuroc failed.
set -u
NEUROC=$1; DATA=$2; WORK=$3; PY=$4; WHAT=${5:-opencl}
HERE=$(cd "$(dirname "$0")" && pwd)
tag=mpi_families
# a projection onto a replicated population stays single under --mpi (models/fam_replicated.neuro)
if [ "$WHAT" = opencl ]; then
    "$NEUROC" --backend opencl "$HERE/models/fam_replicated.neuro" --explain 2>&1 |
        grep -q '^projection families (opencl): 0 of 0 stored and 2 of 2 procedural projections in 1 family (2 like a)' ||
        { echo "$tag: FAILED: fam_replicated.neuro: no family on one GPU" >&2; exit 1; }
    if "$NEUROC" --mpi --backend opencl "$HERE/models/fam_replicated.neuro" --explain 2>&1 | grep 'projection famil'; then
        echo "$tag: FAILED: fam_replicated.neuro: a family onto a replicated population under --mpi" >&2
        exit 1
    fi
fi
if [ ! -f "$DATA/params.json" ] || [ ! -f "$DATA/synapses.csv" ]; then
    echo "$tag: skipped: the multi-area data set is not at $DATA (examples/multiarea/README.md)"
    exit 77
fi
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
"$PY" "$HERE/../../examples/multiarea/generate.py" "$DATA" "$WORK/gen.neuro" --scale 0.01 --areas V1,V2 --t-sim 50 ||
    { echo "$tag: FAILED: generate.py" >&2; exit 2; }
# whole-number weights; the projections between the areas procedural
sed -E -e 's/^  w        = normal\(([^,]*), .*\)$/  w        = floor(\1 \/ 1 pA) * 1 pA/' "$WORK/gen.neuro" |
    awk '/^projection /{ p = $2 ~ /^V1_.*_to_V2_/ || $2 ~ /^V2_.*_to_V1_/ } { print } /^  connect /{ if (p) print "  storage  = procedural" }' \
        >"$WORK/multiarea.neuro" || exit 2
[ "$(grep -c '^  w        = floor(.* / 1 pA) \* 1 pA$' "$WORK/multiarea.neuro")" -eq 137 ] &&
    [ "$(grep -c '^  storage  = procedural$' "$WORK/multiarea.neuro")" -eq 28 ] ||
    { echo "$tag: examples/multiarea/generate.py's projections changed: edit $0" >&2; exit 2; }
if [ "$WHAT" = cuda ]; then
    sh "$HERE/../gpu/cuda_compile.sh" "$NEUROC" "$WORK/multiarea.neuro" "$WORK/cuda" --mpi || exit $?
    grep -q '^NC_KERNEL nc_k_synf0(' "$WORK/cuda/src/multiarea.cu" && grep -q '^NC_DEV void nc_deliver_fam1_grid(' "$WORK/cuda/src/multiarea.cu" ||
        { echo "$tag: FAILED: no family construction kernel or delivery in the distributed CUDA program" >&2; exit 1; }
    exit 0
fi
if [ "$WHAT" = c ]; then
    "$NEUROC" --mpi --backend c "$WORK/multiarea.neuro" --explain >"$WORK/explain.txt" 2>&1 ||
        { cat "$WORK/explain.txt"; echo "$tag: FAILED: neuroc --mpi --explain" >&2; exit 3; }
    grep -q '^projection families (c): 109 of 109 stored and 28 of 28 procedural projections in 2 families (109 like V1_23E_to_V1_23E, 28 like V2_23E_to_V1_23E)' "$WORK/explain.txt" ||
        { echo "$tag: FAILED: --mpi --explain (C): $(grep -i famil "$WORK/explain.txt")" >&2; exit 1; }
    PYTHON=$PY sh "$HERE/run_mpi.sh" "$NEUROC" "$WORK/multiarea.neuro" "$WORK/run" 300 2 3 || exit 1
    # the exchange interval from a procedural family alone: tests/conn/families_proc.neuro's
    # one_to_one members (delays 2 and 3 ms: 20 steps between exchanges), the rest removed
    MODEL_SED='/^projection p1 /,/^projection o1 /{/^projection o1 /!d}' PYTHON=$PY \
        sh "$HERE/run_mpi.sh" "$NEUROC" "$HERE/../conn/families_proc.neuro" "$WORK/run_o" 100 2 || exit 1
    # ranks x threads: 2 ranks of 2 threads each, the same files but the manifest
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    cd "$WORK/run" && mpirun --oversubscribe -np 2 ./dist --quiet --threads 2 --out out_2x2 || exit 1
    for f in out_ref/*; do
        case $f in */manifest.json) continue ;; esac
        cmp "$f" "out_2x2/${f#out_ref/}" || { echo "$tag: FAILED: 2 ranks x 2 threads: $f differs" >&2; exit 1; }
    done
    echo "$tag: 2 ranks x 2 threads = the normal simulator"
    # every projection procedural (generate.py --procedural): two procedural families into one
    # ring, delivered on the threads by (member, spike) pairs (c_famthr.c, pf_deliver): 1, 2
    # and 3 threads, 1 rank x 3 threads and 2 ranks x 2 threads the same bytes
    "$PY" "$HERE/../../examples/multiarea/generate.py" "$DATA" "$WORK/ma_proc.neuro" --procedural --scale 0.01 \
        --areas V1,V2 --t-sim 50 || { echo "$tag: FAILED: generate.py --procedural" >&2; exit 2; }
    sh "$HERE/../threads/run_threads.sh" "$NEUROC" "$WORK/threads" "$WORK/ma_proc.neuro+mpi+allthreads" || exit 1
    exit 0
fi
"$NEUROC" --mpi --backend opencl "$WORK/multiarea.neuro" --explain >"$WORK/explain.txt" 2>&1 ||
    { cat "$WORK/explain.txt"; echo "$tag: FAILED: neuroc --mpi --explain" >&2; exit 3; }
grep -q '^projection families (opencl): 109 of 109 stored and 28 of 28 procedural projections in 2 families (109 like V1_23E_to_V1_23E, 28 like V2_23E_to_V1_23E)' "$WORK/explain.txt" ||
    { echo "$tag: FAILED: --mpi --explain: $(grep -i famil "$WORK/explain.txt")" >&2; exit 1; }
DIST_BACKEND=opencl RUN_ARGS=--save-connectivity DRY_RUN=1 PYTHON=$PY \
    exec sh "$HERE/run_mpi.sh" "$NEUROC" "$WORK/multiarea.neuro" "$WORK/run" 300 2 3
