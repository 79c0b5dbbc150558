#!/bin/sh
# run_threads.sh NEUROC WORKDIR MODEL[+mpi][+procedural][+double][+refuse][+owners][+opencl][+allthreads][+rounds]...
# Each MODEL compiled with the C back end and run with --threads 1, 2 and 3 (and
# --save-connectivity): every file of the output folder but manifest.json (its timings) must
# be byte for byte the same (docs/cli.md, --threads). MODEL+owners: also with --threads 3 and
# the delivery owners moved after $OWN_STEPS steps ($NEUROC_THREADS_WARMUP, nrt_own_balance),
# which its --bench report must say. MODEL+allthreads: neuroc --explain's kernel plan must
# deliver every projection on the threads (none on "one thread"). MODEL+rounds: also built
# with procedural family members' rows delivered in rounds of at most 97 (cost: synapses, about;
# c_family.c, NC_PF_ROUND) and run with --threads 2 and 3, the same files. MODEL+procedural: its word STORAGE
# replaced by `procedural` (tests/proc/proc.neuro). MODEL+double: `precision = double` added
# to its sim block, as NAME_double. MODEL+mpi: also built with --mpi and run
# with one rank and --threads 3, and under `mpirun -np 2` with --threads 2 (ranks x threads),
# the same files again (skipped without mpirun or MPI). MODEL+refuse: bad thread counts are a
# bad command line (status 2, the message names --threads), for an OpenCL simulator of MODEL
# too. MODEL+opencl: also built for OpenCL in the block schedule (the C back end's bits) and
# run with --threads 1, 2 and 3 (the drains' state rows of 2,048 values or more written on
# the host's threads): the same files as the C program's, and --bench says the threads ran
# parts (parallel_regions: none on one thread, the same number on 2 and 3; skipped without an
# OpenCL device). $THREADS_REUSE: a folder whose NAME/sim (tests/e2e's work folder) is the
# simulator of NAME.neuro, used where it is newer than neuroc, its runtime and the model (the
# same command builds it), so that CI compiles each e2e model once. Exit status: 0 pass; 1 a
# difference or a failed run; 2 usage.
set -u
if [ $# -lt 3 ]; then
    echo "usage: $0 NEUROC WORKDIR MODEL[+mpi][+procedural]..." >&2
    exit 2
fi
NEUROC=$1; WORK=$2
shift 2
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
fail=0
OWN_STEPS=50   # +owners: the warm-up, long enough for the models' first spikes
# mark, then said MESSAGE: MESSAGE only where nothing failed since the mark
mark() { failed_before=$fail; }
said() { [ "$fail" = "$failed_before" ] && echo "$1"; }   # fail: the failures so far

# refused SIM WHAT BAD...: each --threads=BAD refused with status 2, naming the option
refused() {
    sim=$1 what=$2
    shift 2
    for bad in "$@"; do
        "$sim" --quiet --threads="$bad" --out "$dir/bad" >"$dir/bad.log" 2>&1
        rc=$?
        if [ $rc -ne 2 ] || ! grep -q "'--threads'" "$dir/bad.log"; then
            echo "threads[$name]: FAILED: $what--threads=$bad: status $rc, $(cat "$dir/bad.log")"
            fail=$((fail + 1))
        fi
    done
}

# same DIR TAG: every file of DIR/out1 but manifest.json is in DIR/TAG, the same bytes
# (under mpirun -np 2 but the connectivity files, which need one rank)
same() {
    n=0
    for f in "$1/out1"/*; do
        b=$(basename "$f")
        [ "$b" = manifest.json ] && continue
        case "$2:$b" in mpi2x2:connectivity_*) continue ;; esac
        n=$((n + 1))
        if ! cmp -s "$f" "$1/$2/$b"; then
            echo "threads[$name]: FAILED: $b differs between --threads 1 and $2"
            fail=$((fail + 1))
        fi
    done
    [ "$(ls "$1/out1" | grep -v "^connectivity_")" = "$(ls "$1/$2" | grep -v "^connectivity_")" ] || { echo "threads[$name]: FAILED: the files of $2 differ"; fail=$((fail + 1)); }
    [ $n -gt 0 ] || { echo "threads[$name]: FAILED: no output files"; fail=$((fail + 1)); }
}

# run DIR TAG COMMAND...: the simulator's run into DIR/TAG, its failure reported
run() {
    d=$1; tag=$2
    shift 2
    save=--save-connectivity
    [ "$tag" = mpi2x2 ] && save=
    if ! "$@" --quiet $save --out "$d/$tag" >"$d/$tag.log" 2>&1; then
        echo "threads[$name]: FAILED: $tag: $(tail -n 3 "$d/$tag.log")"
        fail=$((fail + 1))
    fi
}

for arg in "$@"; do
    model=${arg%%+*}
    name=$(basename "$model" .neuro)
    dir=$WORK/$name
    mkdir -p "$dir"
    case "$arg" in
    *+procedural*) sed "s/STORAGE/procedural/" "$model" >"$dir/$name.neuro"; model=$dir/$name.neuro ;;
    *+double*) name=${name}_double; dir=$WORK/$name; mkdir -p "$dir"
               sed "s/^sim {/sim { precision = double;/" "$model" >"$dir/$name.neuro"; model=$dir/$name.neuro ;;
    esac
    old=${THREADS_REUSE:-/nonexistent}/$name/sim
    lib=$(dirname "$NEUROC")/../lib/libneurort.a
    if [ -x "$old" ] && [ "$old" -nt "$NEUROC" ] && [ "$old" -nt "$lib" ] && [ "$old" -nt "$model" ]; then
        cp "$old" "$dir/sim" || exit 2
    elif ! "$NEUROC" "$model" --backend c -o "$dir/sim" >"$dir/compile.log" 2>&1; then
        echo "threads[$name]: FAILED: neuroc: $(tail -n 3 "$dir/compile.log")"
        fail=$((fail + 1))
        continue
    fi
    mark
    for t in 1 2 3; do
        run "$dir" out$t "$dir/sim" --threads $t
    done
    same "$dir" out2
    same "$dir" out3
    said "threads[$name]: --threads 1, 2, 3 the same"
    case "$arg" in *+owners*)
        mark
        run "$dir" out3w env NEUROC_THREADS_WARMUP=$OWN_STEPS "$dir/sim" --threads 3 --bench="$dir/out3w.json"
        same "$dir" out3w
        if ! grep -q "\"delivery_owners\": {\"after_step\": $OWN_STEPS,.*\"rings_moved\": [1-9]" "$dir/out3w.json"; then
            echo "threads[$name]: FAILED: the delivery owners did not move: $(grep -o '"delivery_owners[^}]*' "$dir/out3w.json")"
            fail=$((fail + 1))
        fi
        said "threads[$name]: --threads 3 with the owners moved after $OWN_STEPS steps the same" ;;
    esac
    case "$arg" in *+allthreads*)
        mark
        "$NEUROC" "$model" --backend c --explain >"$dir/explain.txt" 2>&1
        if ! grep -q '^kernel plan (c)' "$dir/explain.txt" ||
           grep '^kernel plan (c)' "$dir/explain.txt" | grep -Eq '(propagate|learn)_[A-Za-z0-9_]+ \([^)]*one thread\)'; then
            echo "threads[$name]: FAILED: a projection delivered on one thread: $(grep '^kernel plan (c)' "$dir/explain.txt")"
            fail=$((fail + 1))
        fi
        said "threads[$name]: every projection delivered on the threads (--explain)" ;;
    esac
    case "$arg" in *+rounds*)
        mark
        if ! "$NEUROC" "$model" --backend c --cflags -DNC_PF_ROUND=97 -o "$dir/sim_r" >"$dir/compile_r.log" 2>&1; then
            echo "threads[$name]: FAILED: neuroc --cflags -DNC_PF_ROUND=97: $(tail -n 3 "$dir/compile_r.log")"
            fail=$((fail + 1))
        else
            for t in 2 3; do
                run "$dir" rounds$t "$dir/sim_r" --threads $t
                same "$dir" rounds$t
            done
        fi
        said "threads[$name]: --threads 2 and 3 in rounds of 97 the same" ;;
    esac
    case "$arg" in *+refuse*)
        mark
        refused "$dir/sim" "" 0 257 x 2x ""
        if "$NEUROC" "$model" --backend opencl -o "$dir/sim_cl" >"$dir/cl.log" 2>&1; then
            refused "$dir/sim_cl" "the OpenCL simulator with " 0 257 x
        fi
        said "threads[$name]: bad thread counts refused, by the OpenCL simulator too" ;;
    esac
    case "$arg" in *+opencl*)
        mark
        if ! "$NEUROC" "$model" --backend opencl --gpu-mode block -o "$dir/sim_cl" >"$dir/cl.log" 2>&1; then
            echo "threads[$name]: FAILED: neuroc --backend opencl: $(tail -n 3 "$dir/cl.log")"
            fail=$((fail + 1))
        elif "$dir/sim_cl" --list-devices 2>/dev/null | grep -q "^ *0"; then
            for t in 1 2 3; do
                run "$dir" cl$t "$dir/sim_cl" --threads $t --bench="$dir/cl$t.json"
                same "$dir" cl$t
            done
            r1=$(grep -o '"threads": 1, "parallel_regions": [0-9]*' "$dir/cl1.json")
            r2=$(grep -o '"threads": 2, "parallel_regions": [0-9]*' "$dir/cl2.json")
            r3=$(grep -o '"threads": 3, "parallel_regions": [0-9]*' "$dir/cl3.json")
            if [ "${r1##* }" != 0 ] || [ -z "$r2" ] || [ "${r2##* }" = 0 ] || [ "${r2##* }" != "${r3##* }" ]; then
                echo "threads[$name]: FAILED: the OpenCL simulator's --bench: '$r1', '$r2', '$r3'"
                fail=$((fail + 1))
            fi
            said "threads[$name]: OpenCL with --threads 1, 2, 3 the same as C, ${r3##* } regions on the threads"
            mark   # a disk full after 3 MB (docs/robustness.md): the same failure and files on 1 and 3 threads
            for t in 1 3; do
                NEUROC_FAULT_WRITE_AFTER=3000000 "$dir/sim_cl" --quiet --threads $t --out "$dir/full$t" >"$dir/full$t.log" 2>&1
                echo "status $?" >>"$dir/full$t.log"
            done
            if ! grep -q "No space left on device" "$dir/full1.log" || ! grep -q "status 1" "$dir/full1.log" ||
               [ "$(sed 's/ --threads [0-9]//' "$dir/full1.log")" != "$(sed 's/ --threads [0-9]//' "$dir/full3.log")" ]; then
                echo "threads[$name]: FAILED: a full disk on 1 and 3 threads: $(cat "$dir/full1.log") / $(cat "$dir/full3.log")"
                fail=$((fail + 1))
            fi
            mv "$dir/out1" "$dir/out1.c" && mv "$dir/full1" "$dir/out1" && same "$dir" full3
            mv "$dir/out1" "$dir/full1" && mv "$dir/out1.c" "$dir/out1"
            said "threads[$name]: OpenCL with a full disk: the same error and files on 1 and 3 threads"
        else
            echo "threads[$name]: OpenCL skipped (no OpenCL device)"
        fi ;;
    esac
    case "$arg" in *+mpi*) ;; *) continue ;; esac
    if ! command -v mpirun >/dev/null 2>&1 || ! "$NEUROC" "$model" --mpi --backend c -o "$dir/dist" >"$dir/mpi.log" 2>&1; then
        echo "threads[$name]: --mpi skipped (no mpirun, or no MPI in this neuroc)"
        continue
    fi
    mark
    run "$dir" mpi1x3 "$dir/dist" --threads 3
    same "$dir" mpi1x3
    run "$dir" mpi2x2 mpirun -np 2 "$dir/dist" --threads 2
    same "$dir" mpi2x2
    said "threads[$name]: --mpi, 1 rank x 3 threads and 2 ranks x 2 threads the same"
done
[ "$fail" -eq 0 ]
