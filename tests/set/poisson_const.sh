#!/bin/sh
# poisson_const.sh NEUROC WORKDIR [neuroc back-end args...]
# Poisson draws whose mean is known when compiling take their split and e^-mean from the
# compiler (cg_poisson_split, cg_poisson_table, nc_poisson_c: the first eight cumulative
# probabilities as constants, no division); the same model with the means as run-time
# parameters (--set) takes them from nc_poisson_k at run time. The counts must be identical,
# byte for byte, and not all zero. Exit: 0 pass, 1 a check failed, 77 skipped (no device).
set -u
NEUROC=$1; WORK=$2; shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$WORK"; mkdir -p "$WORK"
sed '/^runtime /d' "$HERE/poisson_const.neuro" >"$WORK/const.neuro"
"$NEUROC" "$HERE/poisson_const.neuro" -o "$WORK/rt" "$@" || { echo "FAIL neuroc (run-time means) $*"; exit 1; }
"$NEUROC" "$WORK/const.neuro" -o "$WORK/const" "$@" || { echo "FAIL neuroc (constant means) $*"; exit 1; }
"$NEUROC" "$WORK/const.neuro" --dump=ir | grep -q 'nc_poisson_c(' || { echo "FAIL constant means not baked (no nc_poisson_c)"; exit 1; }
case " $* " in
*" cuda "*|*" opencl "*)
    if ! "$WORK/rt" --list-devices >"$WORK/devices.txt" 2>&1 || [ ! -s "$WORK/devices.txt" ]; then
        echo "skipped: no device for $* ($(head -n 1 "$WORK/devices.txt"))"; exit 77
    fi ;;
esac
"$WORK/const" --quiet --out "$WORK/o_const" || { echo "FAIL the constant-mean simulator"; exit 1; }
"$WORK/rt" --quiet --out "$WORK/o_rt" --set A.lam=0.5 --set B.lam=1.28 --set C.lam=20 --set D.lam=70000 ||
    { echo "FAIL the run-time-mean simulator"; exit 1; }
fails=0
for f in a b c d; do
    if ! cmp -s "$WORK/o_const/$f.csv" "$WORK/o_rt/$f.csv"; then
        echo "FAIL $f.csv differs:"; diff "$WORK/o_const/$f.csv" "$WORK/o_rt/$f.csv" | head -5; fails=$((fails + 1))
    elif ! awk -F, 'NR > 1 { for (i = 2; i <= NF; i++) if ($i + 0 > 0) found = 1 } END { exit !found }' "$WORK/o_const/$f.csv"; then
        echo "FAIL $f.csv: every count is 0"; fails=$((fails + 1))
    else
        echo "ok   $f.csv: identical counts ($(tail -n 1 "$WORK/o_const/$f.csv"))"
    fi
done
[ $fails -eq 0 ] && echo "PASSED" || echo "FAILED: $fails"
[ $fails -eq 0 ]
