#!/bin/sh
# reject.sh NEUROC MODEL WORKDIR -- bad checkpoints and bad checkpoint options are refused
# with a clear message: a checkpoint of the same model name compiled from changed source,
# of another model, a truncated array, a header-less folder, a seed that differs; and bad
# --checkpoint-at values (status 2).
set -u
NEUROC=$1; MODEL=$2; WORK=$3
fails=0
rm -rf "$WORK" && mkdir -p "$WORK/changed" || exit 2
name=$(basename "$MODEL" .neuro)
"$NEUROC" "$MODEL" --backend c -o "$WORK/sim" || exit 3
# the same model name, one weight changed: another program
sed 's/w        = 30 pA/w        = 31 pA/' "$MODEL" > "$WORK/changed/$name.neuro"
cmp -s "$MODEL" "$WORK/changed/$name.neuro" && { echo "FAIL: the sed changed nothing" >&2; exit 2; }
"$NEUROC" "$WORK/changed/$name.neuro" --backend c -o "$WORK/changed/sim" || exit 3
other=$(dirname "$MODEL")/poisson_in.neuro
"$NEUROC" "$other" --backend c -o "$WORK/other" || exit 3

"$WORK/sim" -q --out "$WORK/a" --checkpoint "$WORK/ck" --checkpoint-at 50ms --stop-after-checkpoint || exit 4
"$WORK/other" -q --out "$WORK/o" --checkpoint "$WORK/cko" --checkpoint-at 50ms --stop-after-checkpoint || exit 4

# expect STATUS PATTERN CMD...: CMD exits with STATUS and its stderr matches PATTERN
expect() {
    st=$1; pat=$2; shift 2
    "$@" >"$WORK/out.txt" 2>"$WORK/err.txt"
    rc=$?
    if [ $rc -ne "$st" ] || ! grep -q -- "$pat" "$WORK/err.txt"; then
        echo "FAIL: $* -> status $rc (expected $st), stderr: $(cat "$WORK/err.txt")" >&2
        fails=$((fails + 1))
    else
        echo "ok: $st '$pat' <- $(cat "$WORK/err.txt")"
    fi
}
expect 1 "written by another model or neuroc version" "$WORK/changed/sim" -q --resume "$WORK/ck" --out "$WORK/r1"
expect 1 "written by another model or neuroc version (model 'lif_delays'" "$WORK/other" -q --resume "$WORK/ck" --out "$WORK/r2"
expect 1 "written by another model or neuroc version (model 'poisson_in'" "$WORK/sim" -q --resume "$WORK/cko" --out "$WORK/r3"
cp -r "$WORK/ck" "$WORK/cktr"
truncate -s -4 "$WORK/cktr/pop_P_V.bin"
expect 1 "pop_P_V.bin' has fewer bytes than the 1600" "$WORK/sim" -q --resume "$WORK/cktr" --out "$WORK/r4"
cp -r "$WORK/ck" "$WORK/ckmiss"
rm "$WORK/ckmiss/prj_Ce_ring.bin"
expect 1 "cannot read checkpoint file '.*prj_Ce_ring.bin'" "$WORK/sim" -q --resume "$WORK/ckmiss" --out "$WORK/r5"
mkdir -p "$WORK/empty"
expect 1 "cannot read checkpoint '.*checkpoint.txt'" "$WORK/sim" -q --resume "$WORK/empty" --out "$WORK/r6"
expect 1 "differs from the seed 2007" "$WORK/sim" -q --resume "$WORK/ck" --seed 3 --out "$WORK/r7"
expect 2 "not a whole number of steps" "$WORK/sim" -q --checkpoint "$WORK/x" --checkpoint-at 0.05ms
expect 2 "outside the steps this run makes (1 to 2000)" "$WORK/sim" -q --checkpoint "$WORK/x" --checkpoint-at 300ms
expect 2 "outside the steps this run makes (501 to 2000)" "$WORK/sim" -q --resume "$WORK/ck" --checkpoint "$WORK/x" --checkpoint-at 20ms
expect 2 "invalid time 'soon'" "$WORK/sim" -q --checkpoint "$WORK/x" --checkpoint-at soon
expect 2 "'--checkpoint-at' needs --checkpoint DIR" "$WORK/sim" -q --checkpoint-at 5ms
expect 2 "'--stop-after-checkpoint' needs --checkpoint-at T" "$WORK/sim" -q --checkpoint "$WORK/x" --stop-after-checkpoint
expect 2 "is for one run, not for --instances" "$WORK/sim" -q --instances 2 --checkpoint "$WORK/x" --checkpoint-at 5ms
: > "$WORK/afile"
expect 1 "cannot create checkpoint folder '.*afile/ck'" "$WORK/sim" -q --out "$WORK/w" --checkpoint "$WORK/afile/ck" --checkpoint-at 5ms
# the accepted forms of --checkpoint-at: seconds, ms, a bare number (ms), steps
for at in "0.0873s|873" "87.3ms|873" "87.3|873" "873steps|873" "2000steps|2000"; do
    v=${at%|*}; want=${at#*|}
    rm -rf "$WORK/ckat"
    "$WORK/sim" -q --out "$WORK/at" --checkpoint "$WORK/ckat" --checkpoint-at "$v" --stop-after-checkpoint
    got=$(sed -n 's/^step //p' "$WORK/ckat/checkpoint.txt" 2>/dev/null)
    if [ "$got" != "$want" ]; then
        echo "FAIL: --checkpoint-at $v wrote step '$got', expected $want" >&2
        fails=$((fails + 1))
    else
        echo "ok: --checkpoint-at $v -> step $got"
    fi
done
[ $fails -eq 0 ] || exit 1
echo "PASSED"
