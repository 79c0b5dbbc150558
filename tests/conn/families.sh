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
#   gend      the same in double precision (w's slots double, not float), w a truncated
#             normal draw (its stream a slot too), every fifth projection procedural (a
#             family of their own), adding into the same rings between the stored families'
#             members
#   proc      families_proc.neuro: procedural families of fixed_prob, all_to_all, one_to_one
#   mc        the microcircuit at 1 % for 30 ms: 55 projections, two families, 8 merged rings
#   cuba      examples/cuba.neuro, 100 ms (fixed_prob, one weight per family member, no delay)
# gen and gend also on OpenCL (PoCL, block schedule), and gen with procedural members and
# whole-number weights in the launch schedule (NEUROC_NO_OPENCL=1 skips them): families' construction and delivery
# kernels on the GPU back ends (codegen/gpu/simt_family.c), the same bytes.
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
sed -E -e 's/^sim \{ dt = 0.1 ms; seed = 42 \}$/sim { dt = 0.1 ms; seed = 42; precision = double }/' \
    -e 's/^  w        = max\((.*) \+ (0\.1 \* .*) \* normal\(\), 0 pA\)$/  w        = normal(\1, \2, lo = 0 pA)/' \
    -e 's/^  w        = min\((.*) - (0\.1 \* .*) \* normal\(\), 0 pA\)$/  w        = normal(\1, -(\2), hi = 0 pA)/' \
    "$WORK/genp.neuro" >"$WORK/gend.neuro" || exit 2
grep -q 'precision = double' "$WORK/gend.neuro" && [ "$(grep -c '^  w        = normal(.*, \(lo\|hi\) = 0 pA)$' "$WORK/gend.neuro")" -eq 36 ] ||
    { echo "$tag: bench/conn/families.py changed: edit $0" >&2; exit 2; }
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

# OpenCL (PoCL): the families' construction kernels (simt_family.c) build the same synapses
# as the kernels per projection, and in the launch schedule one delivery per family adds the
# same values, so both programs write the same bytes, which are the C program's (but for the
# manifest's timings): gen and gend in the block schedule, geni (gen with every fifth
# projection procedural, a family of procedural fixed_total members, and one whole-number
# weight per projection, so that the launch schedule's atomic adds give one sum in any
# order) in the launch schedule
if [ -z "${NEUROC_NO_OPENCL:-}" ]; then
    sed -E -e 's/^  w        = max\((.*) \+ 0\.1 \* .*$/  w        = \1/' \
        -e 's/^  w        = min\((.*) - 0\.1 \* .*$/  w        = \1/' "$WORK/genp.neuro" >"$WORK/geni.neuro" || exit 2
    [ "$(grep -c '^  w        = [0-9.]* \* \(g \* \)\?wE$' "$WORK/geni.neuro")" -eq 36 ] ||
        { echo "$tag: bench/conn/families.py's weights changed: edit $0" >&2; exit 2; }
    "$NEUROC" "$WORK/geni.neuro" --backend c -o "$WORK/sim_geni_on" >/dev/null 2>&1 &&
        "$WORK/sim_geni_on" --quiet --save-connectivity --out "$WORK/out_geni_on" ||
        { echo "$tag: FAILED: geni on the C back end" >&2; exit 4; }
    # on a GPU, stored projections form families only in a model of more than 128 projections
    # (a stored member's delivery from the table is slower) or with --proj-tables=on
    "$NEUROC" "$WORK/geni.neuro" --backend opencl --explain >"$WORK/explain_cl.txt" 2>&1 ||
        { echo "$tag: FAILED: neuroc --backend opencl --explain" >&2; exit 3; }
    grep -q '^projection families (opencl): 0 of 29 stored and 7 of 7 procedural projections in 1 family (7 like P4_P0)' "$WORK/explain_cl.txt" ||
        { echo "$tag: FAILED: --explain (OpenCL): $(grep families "$WORK/explain_cl.txt")" >&2; exit 1; }
    "$NEUROC" "$WORK/geni.neuro" --backend opencl --explain --proj-tables=on >"$WORK/explain_cl.txt" 2>&1 ||
        { echo "$tag: FAILED: neuroc --backend opencl --explain --proj-tables=on" >&2; exit 3; }
    grep -q '^projection families (opencl): 29 of 29 stored and 7 of 7 procedural projections in 2 families (29 like P0_P0, 7 like P4_P0)' "$WORK/explain_cl.txt" ||
        { echo "$tag: FAILED: --explain --proj-tables=on (OpenCL): $(grep families "$WORK/explain_cl.txt")" >&2; exit 1; }
    for mm in gen:block gend:block geni:launch; do
        m=${mm%:*}; sched=${mm#*:}
        for v in on off; do
            "$NEUROC" "$WORK/$m.neuro" --backend opencl --gpu-mode $sched --proj-tables=$v -o "$WORK/cl_${m}_$v" >/dev/null 2>&1 ||
                { echo "$tag: FAILED: neuroc --backend opencl ($m, $v)" >&2; exit 3; }
            "$WORK/cl_${m}_$v" --quiet --save-connectivity --out "$WORK/clout_${m}_$v" ||
                { echo "$tag: FAILED: OpenCL run ($m, $v)" >&2; exit 4; }
            "$WORK/cl_${m}_$v" --dry-run 2>&1 | grep -v 'free space:' >"$WORK/cldry_$v.txt"
        done
        cmp "$WORK/cldry_off.txt" "$WORK/cldry_on.txt" || { echo "$tag: FAILED: OpenCL $m: --dry-run differs" >&2; exit 1; }
        "$NEUROC" "$WORK/$m.neuro" --backend opencl --proj-tables=on --emit-only "$WORK/clsrc_$m" >/dev/null ||
            { echo "$tag: FAILED: neuroc --emit-only (OpenCL, $m)" >&2; exit 3; }
        grep -q '^NC_KERNEL nc_k_synf0(' "$WORK/clsrc_$m/$m.cl" && grep -q '^NC_DEV void nc_deliver_fam0_grid(' "$WORK/clsrc_$m/$m.cl" ||
            { echo "$tag: FAILED: $m: no family construction kernel or delivery in the OpenCL program" >&2; exit 1; }
        n=0
        for f in "$WORK/clout_${m}_off"/*; do
            b=$(basename "$f")
            n=$((n + 1))
            if [ "$b" = manifest.json ]; then
                strip "$f" >"$WORK/m_off.json"
                strip "$WORK/clout_${m}_on/$b" >"$WORK/m_on.json"
                cmp "$WORK/m_off.json" "$WORK/m_on.json" || { echo "$tag: FAILED: OpenCL $m: manifest.json differs" >&2; exit 1; }
            else
                cmp "$f" "$WORK/clout_${m}_on/$b" || { echo "$tag: FAILED: OpenCL $m: $b differs" >&2; exit 1; }
                cmp "$f" "$WORK/out_${m}_on/$b" || { echo "$tag: FAILED: OpenCL $m: $b differs from C" >&2; exit 1; }
            fi
        done
        [ "$(ls "$WORK/clout_${m}_on" | wc -l)" -eq "$n" ] || { echo "$tag: FAILED: OpenCL $m: other files" >&2; exit 1; }
        echo "$tag: $m: the same $n files from OpenCL ($sched) with and without families, and from C"
    done
    # geni's deliveries by family take a (spike, slot) pair per sub-group, slot l the members
    # l, l + S, ... of a segment: S below the most members (4 of 5 stored, 1 of 2 procedural),
    # so the launch schedule above ran slots of several members
    grep -q '^NC_DEV void nc_deliver_fam0_grid(' "$WORK/clsrc_geni/geni.cl" &&
        grep -q 'slot l < 4:$' "$WORK/clsrc_geni/geni.cl" && grep -q 'slot l < 1:$' "$WORK/clsrc_geni/geni.cl" &&
        grep -q 'for (int64_t l = T\[.*; l < le; l += 4)' "$WORK/clsrc_geni/geni.cl" ||
        { echo "$tag: FAILED: geni: the family deliveries are not by (spike, slot) of several members" >&2; exit 1; }
fi

# CUDA (emitted only: no GPU here): with the families delivered by nc_fdt<f> and no block or
# cluster schedule compiled (geni has procedural projections), the members' own buffers
# (row pointers, columns, weights, delays) are no kernel arguments (simt_fam_args): NC_ARGS
# names the row pointers of no member, and of the 29 stored projections where they are no
# family (a GPU program of 36 projections groups only procedural ones by default)
if [ -f "$WORK/geni.neuro" ]; then
    for v in on off; do
        "$NEUROC" "$WORK/geni.neuro" --backend cuda --proj-tables=$v --emit-only "$WORK/cusrc_$v" >/dev/null ||
            { echo "$tag: FAILED: neuroc --backend cuda --emit-only (geni, $v)" >&2; exit 3; }
    done
    non=$(grep '^#define NC_ARGS ' "$WORK/cusrc_on/geni.cu" | grep -o '_rp,' | wc -l)
    noff=$(grep '^#define NC_ARGS ' "$WORK/cusrc_off/geni.cu" | grep -o '_rp,' | wc -l)
    [ "$non" -eq 0 ] && [ "$noff" -eq 36 ] && grep -q '^#define NC_ARGS .*_ring, .*nc_fdt1$' "$WORK/cusrc_on/geni.cu" ||
        { echo "$tag: FAILED: CUDA geni: NC_ARGS names $non members' row pointers ($noff without families)" >&2; exit 1; }
    "$NEUROC" "$WORK/geni.neuro" --backend cuda --emit-only "$WORK/cusrc_def" >/dev/null ||
        { echo "$tag: FAILED: neuroc --backend cuda --emit-only (geni)" >&2; exit 3; }
    [ "$(grep '^#define NC_ARGS ' "$WORK/cusrc_def/geni.cu" | grep -o '_rp,' | wc -l)" -eq 29 ] ||
        { echo "$tag: FAILED: CUDA geni: NC_ARGS names other row pointers than the 29 stored projections'" >&2; exit 1; }
    echo "$tag: geni: CUDA's kernels take no family member's own buffers"
fi

# --explain names the families, and none with --proj-tables=off
"$NEUROC" "$WORK/gen.neuro" --backend c --explain >"$WORK/explain_on.txt" 2>&1 &&
    "$NEUROC" "$WORK/gen.neuro" --backend c --explain --proj-tables=off >"$WORK/explain_off.txt" 2>&1 ||
    { echo "$tag: FAILED: neuroc --explain" >&2; exit 3; }
grep -q '^projection families (c): 36 of 36 stored projections in 2 families (30 like P0_P0, 6 like P3_P0)' "$WORK/explain_on.txt" &&
    ! grep -q '^projection families' "$WORK/explain_off.txt" ||
    { echo "$tag: FAILED: --explain: $(grep families "$WORK/explain_on.txt")" >&2; exit 1; }
# truncated normal draws (gend's w) are slots of the table like the others: the same families
"$NEUROC" "$WORK/gend.neuro" --backend c --explain >"$WORK/explain_d.txt" 2>&1 ||
    { echo "$tag: FAILED: neuroc --explain (gend)" >&2; exit 3; }
grep -q '^projection families (c): 29 of 29 stored and 6 of 7 procedural projections in 3 families (24 like P0_P0, 5 like P3_P0, 6 like P4_P0)' "$WORK/explain_d.txt" ||
    { echo "$tag: FAILED: --explain (gend): $(grep families "$WORK/explain_d.txt")" >&2; exit 1; }

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
