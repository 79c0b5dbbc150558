#!/bin/sh
# redraw.sh NEUROC WORKDIR PYTHON -- normals truncated by redrawing (docs/language.md §11):
# models/redraw.neuro on the C back end replayed draw by draw (check_redraw.py); the OpenCL
# program (PoCL here) gives the same files byte for byte (skipped without a device); a delay
# whose bounds no attempt meets (a bound that varies per synapse, so neuroc cannot refuse it)
# stops the simulator at start-up with status 1 and names the synapse.
# Exit: 0 pass; 3 compile failed; 4 run failed; 1 outputs.
set -u
NEUROC=$1; WORK=$2; PY=$3
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
"$NEUROC" "$HERE/models/redraw.neuro" --backend c -o "$WORK/sim_c" 2>/dev/null || { echo "redraw: FAILED: neuroc" >&2; exit 3; }
"$WORK/sim_c" --quiet --save-connectivity --out "$WORK/c" || { echo "redraw: FAILED: run" >&2; exit 4; }
"$PY" "$HERE/check_redraw.py" "$WORK/c" || exit 1
if "$NEUROC" "$HERE/models/redraw.neuro" --backend opencl -o "$WORK/sim_cl" 2>/dev/null &&
   "$WORK/sim_cl" --list-devices >/dev/null 2>&1; then
    "$WORK/sim_cl" --quiet --save-connectivity --out "$WORK/cl" || { echo "redraw: FAILED: OpenCL run" >&2; exit 4; }
    for f in v.npy connectivity_PQ.npy; do
        cmp "$WORK/c/$f" "$WORK/cl/$f" || { echo "redraw: FAILED: OpenCL's $f differs from C's" >&2; exit 1; }
    done
    echo "redraw: OpenCL = C, byte for byte"
else
    echo "redraw: OpenCL skipped: no OpenCL device"
fi
cat >"$WORK/cap.neuro" <<'MODEL'
import "stdlib/neurons.neuro"
import "stdlib/receptors.neuro"
population P = LIF[20]
projection PP = P -> P {
  receptor = ExpCurr -> I_syn
  connect  = fixed_total(50)
  w        = 10 pA
  delay    = normal(1 ms, 0.1 ms, lo = 3 ms + 0.001 ms * j)    # 20 sd and more: never
}
run 1 ms
MODEL
"$NEUROC" "$WORK/cap.neuro" --backend c -o "$WORK/sim_cap" 2>/dev/null || { echo "redraw: FAILED: neuroc (cap)" >&2; exit 3; }
"$WORK/sim_cap" --quiet --out "$WORK/cap" 2>"$WORK/cap.err"
rc=$?
if [ $rc -ne 1 ] || ! grep -q "projection PP: delay nan ms of synapse .* is not a usable time" "$WORK/cap.err"; then
    echo "redraw: FAILED: past the cap: status $rc, '$(cat "$WORK/cap.err")'" >&2
    exit 1
fi
echo "redraw: past $((4096)) attempts: $(cat "$WORK/cap.err")"
# the values drawn on 3 threads (vals_<J>, rows in parts): the same first unusable synapse
"$WORK/sim_cap" --quiet --threads 3 --out "$WORK/cap3" 2>"$WORK/cap3.err"
if [ $? -ne 1 ] || ! cmp -s "$WORK/cap.err" "$WORK/cap3.err"; then
    echo "redraw: FAILED: past the cap on 3 threads: '$(cat "$WORK/cap3.err")'" >&2
    exit 1
fi
echo "redraw: the same on 3 threads"
# procedural: build_<J> walks every row for the longest delay, on the threads (scan_<J>, rows
# in 3 parts of 1,000); rows from about 1,400 on cannot draw a delay, so parts 1 and 2 both
# fail and the message must be part 1's first, the one-thread message
sed -e 's/^population P = LIF\[20\]$/population P = LIF[3000]/' -e 's/fixed_total(50)/fixed_total(6000)/' \
    -e 's/lo = 3 ms + 0.001 ms \* j)    # 20 sd and more: never/lo = 0.001 ms * i)/' \
    -e 's/^  w        = 10 pA$/  storage  = procedural\n  w        = 10 pA/' "$WORK/cap.neuro" >"$WORK/capp.neuro"
grep -q "storage  = procedural" "$WORK/capp.neuro" && grep -q "lo = 0.001 ms \* i" "$WORK/capp.neuro" ||
    { echo "redraw: FAILED: the procedural model was not written" >&2; exit 3; }
"$NEUROC" "$WORK/capp.neuro" --backend c -o "$WORK/sim_capp" 2>/dev/null || { echo "redraw: FAILED: neuroc (capp)" >&2; exit 3; }
for t in 1 3; do
    "$WORK/sim_capp" --quiet --threads $t --out "$WORK/capp$t" 2>"$WORK/capp$t.err"
    [ $? -eq 1 ] || { echo "redraw: FAILED: procedural, $t threads: status not 1: '$(cat "$WORK/capp$t.err")'" >&2; exit 1; }
done
if ! grep -q "projection PP: delay nan ms of synapse 1[0-9][0-9][0-9] -> .* is not a usable time" "$WORK/capp1.err" ||
   ! cmp -s "$WORK/capp1.err" "$WORK/capp3.err"; then
    echo "redraw: FAILED: procedural: '$(cat "$WORK/capp1.err")' / '$(cat "$WORK/capp3.err")'" >&2
    exit 1
fi
echo "redraw: procedural, 1 and 3 threads: $(cat "$WORK/capp3.err")"
