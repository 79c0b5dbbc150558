#!/bin/sh
# lattice4d.sh NEUROC PYTHON EXAMPLES_DIR CHECKER WORKDIR BACKEND SCHEDULE SECONDS
# examples/lattice4d_stdp.neuro on BACKEND with --gpu-mode SCHEDULE, cut to SECONDS (a
# whole number; the example runs 5), with --save-connectivity, checked by
# tests/plast/check_lattice4d.py. Exit: the checker's status; 77 skipped (no device).
set -u
if [ $# -ne 8 ]; then
    echo "usage: $0 NEUROC PYTHON EXAMPLES_DIR CHECKER WORKDIR BACKEND SCHEDULE SECONDS" >&2
    exit 2
fi
NEUROC=$1; PYTHON=$2; EXAMPLES=$3; CHECKER=$4; WORK=$5; BACKEND=$6; MODE=$7; SECS=$8
tag="lattice4d[$BACKEND/$MODE/${SECS}s]"
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
grep -q '^run 5 s$' "$EXAMPLES/lattice4d_stdp.neuro" || { echo "$tag: FAILED: the example no longer ends with 'run 5 s'" >&2; exit 2; }
# the copy sits next to the example so that its imports resolve as the example's do
model="$WORK/lattice4d_stdp.neuro"
sed "s/^run 5 s\$/run $SECS s/" "$EXAMPLES/lattice4d_stdp.neuro" > "$model" || exit 2
"$NEUROC" "$model" -I "$EXAMPLES/.." --backend "$BACKEND" --gpu-mode "$MODE" -o "$WORK/sim" || { echo "$tag: FAILED: neuroc" >&2; exit 3; }
if ! "$WORK/sim" --list-devices >"$WORK/devices.txt" 2>&1 || [ ! -s "$WORK/devices.txt" ]; then
    echo "$tag: skipped: no $BACKEND device ($(head -n 1 "$WORK/devices.txt"))"
    exit 77
fi
"$WORK/sim" --save-connectivity --quiet --out "$WORK/out" || { echo "$tag: FAILED: the simulator" >&2; exit 4; }
exec "$PYTHON" "$CHECKER" "$WORK/out" "$((SECS * 1000))"
