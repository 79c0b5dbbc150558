#!/bin/sh
# merge_views.sh NEUROC WORKDIR PYTHON -- receptors merged across views (docs/language.md
# §6): models/merge_views.neuro must merge its four projections and three stimuli on three
# views into one state and one ring (--explain; one ring allocated), and give the spikes of
# the same model unmerged (each receptor given its own initial value, `{ I = 0 pA }`), its
# V and the receptor current on view B (unmerged: of SB and bgB added) to 1e-9 (double
# precision: merging reassociates the sums);
# the OpenCL program (PoCL here; skipped without a device) the C program's files byte for byte.
# Exit: 0 pass; 3 compile failed; 4 run failed; 1 outputs.
set -u
NEUROC=$1; WORK=$2; PY=$3
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/models/merge_views.neuro
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
sed -e 's/receptor = ExpCurr(tau = 2 ms) -> I_syn/receptor = ExpCurr(tau = 2 ms) { I = 0 pA } -> I_syn/' \
    -e 's/^run /record I of bgB every 1 ms to "ib.npy"\nrun /' "$M" >"$WORK/unmerged.neuro"
"$NEUROC" "$M" --explain >"$WORK/explain.txt" 2>&1 || { echo "merge_views: FAILED: --explain" >&2; exit 3; }
want="merged: population P: receptor ExpCurr of projection SA, projection SB, projection SC, projection CA, stimulus bgA, stimulus bgB, stimulus bgC: one state and one delay ring"
if ! grep -qF "$want" "$WORK/explain.txt"; then
    echo "merge_views: FAILED: --explain does not say '$want':" >&2
    grep merged "$WORK/explain.txt" >&2
    exit 1
fi
"$NEUROC" "$M" --emit-only "$WORK/src" >/dev/null 2>&1 || { echo "merge_views: FAILED: --emit-only" >&2; exit 3; }
n=$(grep -c '_ring = nrt_alloc' "$WORK/src/merge_views.c")
if [ "$n" != 1 ]; then
    echo "merge_views: FAILED: $n delay rings allocated, not 1" >&2
    exit 1
fi
for v in merged unmerged; do
    src=$M; [ $v = unmerged ] && src=$WORK/unmerged.neuro
    "$NEUROC" "$src" --backend c -o "$WORK/sim_$v" 2>/dev/null || { echo "merge_views: FAILED: neuroc ($v)" >&2; exit 3; }
    "$WORK/sim_$v" --quiet --out "$WORK/$v" || { echo "merge_views: FAILED: run ($v)" >&2; exit 4; }
done
"$PY" - "$WORK/merged" "$WORK/unmerged" <<'CHECK' || exit 1
import sys
import numpy as np
a, b = sys.argv[1], sys.argv[2]
p, q = np.load(a + "/p.npy"), np.load(b + "/p.npy")
if len(p) < 50 or not np.array_equal(p, q):
    sys.exit("merge_views: FAILED: %d spikes merged, %d unmerged, or not the same" % (len(p), len(q)))
# V; and I of SB: merged, the group's state on B, unmerged the sum of SB's and bgB's
for x, u, v in (("V", np.load(a + "/v.npy")["V"], np.load(b + "/v.npy")["V"]),
                ("I", np.load(a + "/i.npy")["I"], np.load(b + "/i.npy")["I"] + np.load(b + "/ib.npy")["I"])):
    d = np.abs(u - v).max()
    if not d <= 1e-9 or not np.abs(u).max() > 0:
        sys.exit("merge_views: FAILED: %s merged and unmerged differ by %g" % (x, d))
print("merge_views: one state and one ring for 3 views; merged = unmerged: %d spikes, V and I within 1e-9" % len(p))
CHECK
if "$NEUROC" "$M" --backend opencl -o "$WORK/sim_cl" 2>/dev/null && "$WORK/sim_cl" --list-devices >/dev/null 2>&1; then
    "$WORK/sim_cl" --quiet --out "$WORK/cl" || { echo "merge_views: FAILED: OpenCL run" >&2; exit 4; }
    for f in p.npy v.npy i.npy; do
        cmp "$WORK/merged/$f" "$WORK/cl/$f" || { echo "merge_views: FAILED: OpenCL's $f differs from C's" >&2; exit 1; }
    done
    echo "merge_views: OpenCL = C, byte for byte"
else
    echo "merge_views: OpenCL skipped: no OpenCL device"
fi
