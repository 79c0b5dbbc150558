#!/bin/sh
# families.sh NEUROC EXAMPLES WORKDIR -- projection families (codegen/c/c_family.c) change the
# C program, never a result: each model below, built with families (the default) and with
# --proj-tables=off, writes the same bytes (spikes, --save-connectivity files, the manifest
# but for its timings, --dry-run's memory plan with --threads 3 and its synapse index, a
# checkpoint), and a checkpoint of the
# program without families resumes in the one with them as in itself.
#   gen       bench/conn/families.py 6 x 6 = 36 fixed_total projections in two families,
#             target-major, at about 100 Hz with about 1,000 synapses onto each neuron, so a
#             ring slot takes several additions (their order shows in the recorded V)
#   gend      the same in double precision (w's slots double, not float), every fifth
#             projection procedural (a family of their own), adding into the same rings
#             between the stored families' members
#   proc      families_proc.neuro: procedural families of fixed_prob, all_to_all, one_to_one
#   mc        the microcircuit at 1 % for 30 ms: 55 projections, two families, 8 merged rings
#   cuba      examples/cuba.neuro, 100 ms (fixed_prob, one weight per family member, no delay)
# Exit: 0 pass; 1 outputs differ or no family was made; 2 setup; 3 neuroc failed; 4 a run failed.
set -u
if [ $# -ne 3 ]; then
    echo "usage: $0 NEUROC EXAMPLES WORKDIR" >&2
    exit 2
fi
NEUROC=$1; EX=$2; WORK=$3
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-python3}
tag=families
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2

"$PY" "$HERE/../../bench/conn/families.py" 6 12 "$WORK/gen.neuro" --run 60 --k 1000 || exit 2
"$PY" "$HERE/../../bench/conn/families.py" 6 12 "$WORK/genp.neuro" --run 60 --k 1000 --proc 5 || exit 2
sed -e 's/^sim { dt = 0.1 ms; seed = 42 }$/sim { dt = 0.1 ms; seed = 42; precision = double }/' "$WORK/genp.neuro" >"$WORK/gend.neuro" || exit 2
grep -q 'precision = double' "$WORK/gend.neuro" || { echo "$tag: bench/conn/families.py changed: edit $0" >&2; exit 2; }
sed -e 's/^const scale = 1$/const scale = 0.01/' -e 's/^run 1 s$/run 30 ms/' "$EX/microcircuit.neuro" >"$WORK/mc.neuro" || exit 2
grep -q '^const scale = 0.01$' "$WORK/mc.neuro" && grep -q '^run 30 ms$' "$WORK/mc.neuro" ||
    { echo "$tag: the microcircuit changed: edit $0" >&2; exit 2; }
sed -e 's/^run 1 s$/run 100 ms/' "$EX/cuba.neuro" >"$WORK/cuba.neuro" || exit 2
cp "$HERE/families_proc.neuro" "$WORK/proc.neuro" || exit 2
grep -q '^run 100 ms$' "$WORK/cuba.neuro" || { echo "$tag: examples/cuba.neuro changed: edit $0" >&2; exit 2; }

# the manifest without its timings (wall-clock seconds)
strip() { grep -v -e '"timing_s"' -e '"construct_stages"' "$1"; }

for m in gen gend proc mc cuba; do
    for v in on off; do
        "$NEUROC" "$WORK/$m.neuro" --backend c --proj-tables=$v --emit-only "$WORK/src_${m}_$v" >/dev/null ||
            { echo "$tag: FAILED: neuroc --emit-only ($m, $v)" >&2; exit 3; }
        "$NEUROC" "$WORK/$m.neuro" --backend c --proj-tables=$v -o "$WORK/sim_${m}_$v" >/dev/null 2>&1 ||
            { echo "$tag: FAILED: neuroc ($m, $v)" >&2; exit 3; }
        "$WORK/sim_${m}_$v" --quiet --save-connectivity --out "$WORK/out_${m}_$v" ||
            { echo "$tag: FAILED: run ($m, $v)" >&2; exit 4; }
        "$WORK/sim_${m}_$v" --dry-run --threads 3 >"$WORK/dry_${m}_$v.txt" 2>&1 ||
            { echo "$tag: FAILED: --dry-run ($m, $v)" >&2; exit 4; }
    done
    grep -q '^static int build_fam0(int a, int b)' "$WORK/src_${m}_on/$m.c" ||
        { echo "$tag: FAILED: $m: no projection family in the C program" >&2; exit 1; }
    if grep -q 'build_fam' "$WORK/src_${m}_off/$m.c"; then
        echo "$tag: FAILED: $m: --proj-tables=off made a family" >&2
        exit 1
    fi
    n=0
    for f in "$WORK/out_${m}_off"/*; do
        b=$(basename "$f")
        n=$((n + 1))
        if [ "$b" = manifest.json ]; then
            strip "$f" >"$WORK/m_off.json"
            strip "$WORK/out_${m}_on/$b" >"$WORK/m_on.json"
            cmp "$WORK/m_off.json" "$WORK/m_on.json" || { echo "$tag: FAILED: $m: manifest.json differs" >&2; exit 1; }
        else
            cmp "$f" "$WORK/out_${m}_on/$b" || { echo "$tag: FAILED: $m: $b differs" >&2; exit 1; }
        fi
    done
    [ "$(ls "$WORK/out_${m}_on" | wc -l)" -eq "$n" ] || { echo "$tag: FAILED: $m: other files" >&2; exit 1; }
    grep -v 'free space:' "$WORK/dry_${m}_off.txt" >"$WORK/d_off.txt"   # the disk's, now
    grep -v 'free space:' "$WORK/dry_${m}_on.txt" >"$WORK/d_on.txt"
    cmp "$WORK/d_off.txt" "$WORK/d_on.txt" || { echo "$tag: FAILED: $m: --dry-run differs" >&2; exit 1; }
    case $m in gen|mc|cuba)   # stored static projections on the threads (gend's share rings with procedural ones)
        grep -q '^  threads: synapse index  *[1-9][0-9]* bytes' "$WORK/d_on.txt" ||
            { echo "$tag: FAILED: $m: --dry-run --threads 3 counts no synapse index" >&2; exit 1; } ;;
    esac
    big=$(ls -S "$WORK/out_${m}_on"/*spikes*.npy | head -1)
    [ "$(wc -c <"$big")" -gt 1000 ] || { echo "$tag: FAILED: $m: too few spikes to compare" >&2; exit 1; }
    echo "$tag: $m: the same $n files with and without families"
done

# --explain names the families, and none with --proj-tables=off
"$NEUROC" "$WORK/gen.neuro" --backend c --explain >"$WORK/explain_on.txt" 2>&1 &&
    "$NEUROC" "$WORK/gen.neuro" --backend c --explain --proj-tables=off >"$WORK/explain_off.txt" 2>&1 ||
    { echo "$tag: FAILED: neuroc --explain" >&2; exit 3; }
grep -q '^projection families (c): 36 of 36 stored projections in 2 families (30 like P0_P0, 6 like P3_P0)' "$WORK/explain_on.txt" &&
    ! grep -q '^projection families' "$WORK/explain_off.txt" ||
    { echo "$tag: FAILED: --explain: $(grep families "$WORK/explain_on.txt")" >&2; exit 1; }

# the checkpoints of both programs are the same files (the same items, nc_model_hash), and
# the one without families, resumed by the one with them, goes on as in itself
m=gen
for v in on off; do
    "$WORK/sim_${m}_$v" --quiet --out "$WORK/ck_run_$v" --checkpoint "$WORK/ck_$v" --checkpoint-at 30ms ||
        { echo "$tag: FAILED: the checkpointed run ($v)" >&2; exit 4; }
done
for f in "$WORK/ck_off"/*; do
    cmp "$f" "$WORK/ck_on/$(basename "$f")" || { echo "$tag: FAILED: checkpoint file $(basename "$f") differs" >&2; exit 1; }
done
[ "$(ls "$WORK/ck_on" | wc -l)" -eq "$(ls "$WORK/ck_off" | wc -l)" ] ||
    { echo "$tag: FAILED: the checkpoints hold other files" >&2; exit 1; }
for v in on off; do
    "$WORK/sim_${m}_$v" --quiet --resume "$WORK/ck_off" --out "$WORK/res_$v" ||
        { echo "$tag: FAILED: resume ($v)" >&2; exit 4; }
done
for f in spikes.npy V.npy; do
    cmp "$WORK/res_off/$f" "$WORK/res_on/$f" ||
        { echo "$tag: FAILED: resumed from the same checkpoint, $f differs" >&2; exit 1; }
done
echo "$tag: ok"
