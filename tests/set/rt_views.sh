#!/bin/sh
# rt_views.sh NEUROC WORKDIR [neuroc back-end args...]
# Per-neuron, view and projection run-time parameters (docs/language.md §12.9) on one back end:
#  - `runtime exc.b, inh.b` (two overlapping views of P) and `runtime P.tau_w` (assigned per
#    neuron by the initialiser): --set exc.b=4pA --set inh.b=10pA --set P.tau_w=@tw.npy equals,
#    bit for bit (spikes, V and w, the recorded b and tau_w), rt_views_ref.neuro, which writes
#    the same values into the model with `set` and the initialiser; the .csv file and a file
#    in another unit (@FILE[s]) give the same bits;
#  - overlapping views: the later --set wins on the overlap (the command line's order);
#    one value for a per-neuron parameter sets every neuron of its target;
#  - `runtime sA.beta` of a plastic projection: --set sA.beta=0.02 equals `set sA.beta = 0.02`;
#  - --sweep inh.b=...: instances.csv and the manifest list the values, each instance's b;
#  - --help says per neuron / projection; the manifest's parameters;
#  - errors: a wrong count, a bad line, a wrong unit, an unknown view, a file for a scalar, a
#    file in --sweep: status 2 and FILE:LINE: messages;
#  - expressions of i (`--set 'P.b=2pA - i*0.3pA'`) equal the same initialiser in the model,
#    bit for bit, in float and in double; i of a view is the index within it; their errors;
#  - on a GPU back end, the runs equal the C back end's.
# Exit: 0 pass, 1 a check failed, 77 skipped (a GPU back end without a device).
set -u
NEUROC=$1; WORK=$2; shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
fails=0
ok()  { echo "ok   $*"; }
bad() { fails=$((fails + 1)); echo "FAIL $*"; }
rm -rf "$WORK"; mkdir -p "$WORK"
case " $* " in
*" cuda "*)
    if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ] && [ -z "${NVCC:-}" ]; then
        echo "skipped: no nvcc (CUDA toolkit not installed)"; exit 77
    fi ;;
esac
for m in rt_views rt_views_ref rt_proj rt_proj_ref; do
    "$NEUROC" "$HERE/$m.neuro" -o "$WORK/$m" "$@" || { echo "FAIL neuroc $m $*"; exit 1; }
done
case " $* " in
*" cuda "*)
    if [ ! -e /dev/nvidiactl ] && ! nvidia-smi -L >/dev/null 2>&1; then
        echo "skipped: no CUDA device (the CUDA simulators compiled)"; exit 77
    fi ;;
esac
case " $* " in
*" cuda "*|*" opencl "*)
    if ! "$WORK/rt_views" --list-devices >"$WORK/devices.txt" 2>&1 || [ ! -s "$WORK/devices.txt" ]; then
        echo "skipped: no device for $* ($(head -n 1 "$WORK/devices.txt"))"; exit 77
    fi ;;
esac
cd "$WORK" || exit 1
"$PYTHON" - <<'PY' || exit 1
import numpy as np
tw = 150.0 + 2.0 * np.arange(100)
np.save("tw.npy", tw)
np.save("tw_s.npy", tw / 1000)
with open("tw.csv", "w") as f:
    f.write("tau_w\n# ms\n\n" + "".join("%g\n" % v for v in tw))
np.save("tw99.npy", tw[:99])
with open("bad.csv", "w") as f:
    f.write("150\n152\nabc\n")
PY
same() { # dirA dirB what
    for f in s.csv vw.npy p.npy; do
        cmp -s "$1/$f" "$2/$f" || { bad "$3: $f differs"; return; }
    done
    ok "$3"
}
./rt_views_ref --quiet --out ref || bad "rt_views_ref does not run"
./rt_views --quiet --out npy --set exc.b=4pA --set inh.b=10pA --set P.tau_w=@tw.npy &&
    same npy ref "--set exc.b=4pA --set inh.b=10pA --set P.tau_w=@tw.npy = the values in the model, bit for bit" ||
    bad "rt_views --set ... @tw.npy"
./rt_views --quiet --out csv --set exc.b=4pA --set inh.b=10pA --set P.tau_w=@tw.csv &&
    same csv ref "@tw.csv (a header, a '#' line, a blank line) = @tw.npy" || bad "rt_views @tw.csv"
./rt_views --quiet --out sec --set exc.b=4pA --set inh.b=10pA "--set=P.tau_w=@tw_s.npy[s]" &&
    same sec ref "@tw_s.npy[s] (seconds) = @tw.npy (ms), in float" || bad "rt_views @tw_s.npy[s]"
./rt_views --quiet --out rev --set inh.b=10pA --set exc.b=4pA --set P.tau_w=144ms || bad "rt_views rev"
"$PYTHON" - <<'PY' && ok "the later --set wins on the overlap; one value sets every neuron; the manifest" || bad "overlap, one value or the manifest"
import json, numpy as np, sys
def b_tw(d):
    p = np.load(d + "/p.npy")
    return p["b"][0], p["tau_w"][0]
b, tw = b_tw("npy")
assert (b[:60] == 4).all() and (b[60:] == 10).all(), b
assert (tw == 150 + 2 * np.arange(100)).all(), tw
b, tw = b_tw("rev")
assert (b[:80] == 4).all() and (b[80:] == 10).all(), b
assert (tw == 144).all(), tw
p = json.load(open("npy/manifest.json"))["parameters"]
assert p["exc.b"] == {"value": 4, "unit": "pA", "neurons": 80, "first": 0}, p
assert p["inh.b"] == {"value": 10, "unit": "pA", "neurons": 40, "first": 60}, p
assert p["P.tau_w"] == {"value": None, "unit": "ms", "neurons": 100, "first": 0, "file": "tw.npy"}, p
PY
./rt_proj_ref --quiet --out pref && ./rt_proj --quiet --out pset --set sA.beta=0.02 &&
    cmp -s pref/w.npy pset/w.npy && cmp -s pref/a.csv pset/a.csv &&
    ./rt_proj --quiet --out pdef && ! cmp -s pdef/w.npy pset/w.npy &&
    ok "runtime sA.beta: --set sA.beta=0.02 = set sA.beta = 0.02, bit for bit (and differs from 0.1)" ||
    bad "runtime sA.beta"

# a sweep over a view's parameter: instance b = the run --set inh.b=Vb
./rt_views --quiet --out sw --sweep inh.b=10pA,0.04nA --set exc.b=4pA --set P.tau_w=@tw.npy &&
    same sw/instance_0 ref "--sweep inh.b: instance 0 = the model with inh.b = 10 pA" || bad "--sweep inh.b"
./rt_views --quiet --out sw1 --set exc.b=4pA --set P.tau_w=@tw.npy --set inh.b=40pA &&
    same sw/instance_1 sw1 "--sweep inh.b: instance 1 = --set inh.b=40pA" || bad "--sweep inh.b instance 1"
"$PYTHON" - <<'PY' && ok "--sweep inh.b: instances.csv, the manifest's sweep, b of each instance" || bad "--sweep inh.b outputs"
import csv, json, numpy as np
rows = list(csv.DictReader(open("sw/instances.csv")))
assert [float(r["inh.b"]) for r in rows] == [10, 40], rows
m = json.load(open("sw/manifest.json"))
assert m["sweep"] == [{"name": "inh.b", "values": [10, 40]}], m["sweep"]
for k, v in enumerate([10, 40]):
    b = np.load("sw/instance_%d/p.npy" % k)["b"][0]
    assert (b[:60] == 4).all() and (b[60:] == v).all(), (k, b)
PY

# a grid of a view's parameter and a scalar, with seeds: instance 5 = point 2 (exc.b=2pA,
# P.a=2nS), seed 3 + 1
./rt_views --quiet --out grid --sweep exc.b=1pA,2pA --sweep P.a=2nS,4nS --seeds 2 --set P.tau_w=@tw.npy &&
    ./rt_views --quiet --out g5 --seed 4 --set exc.b=2pA --set P.a=2nS --set P.tau_w=@tw.npy &&
    same grid/instance_5 g5 "--sweep exc.b x --sweep P.a x --seeds 2: instance 5 = --seed 4 --set exc.b=2pA --set P.a=2nS" &&
    [ "$(sed -n 7p grid/instances.csv | cut -d, -f1-5)" = "5,instance_5,4,2,2" ] && ok "grid: instances.csv row 5" ||
    bad "the grid with seeds: $(sed -n 7p grid/instances.csv)"

./rt_views --help >help.txt && grep -q "^  exc.b  *80.5 pA  (per neuron of P\[0:80\], 80 neurons" help.txt &&
    grep -q "^  P.tau_w  *144 ms  (per neuron of P, 100 neurons" help.txt &&
    ./rt_proj --help | grep -q "^  sA.beta  *0.1  (projection sA)$" &&
    ok "--help: per neuron of a view / of P, projection" || bad "--help"

expect_err() { # arg substring
    ./rt_views --quiet --out err --set "$1" 2>err.txt; rc=$?
    if [ $rc -eq 2 ] && grep -qF -- "$2" err.txt && [ ! -e err ]; then
        ok "--set '$1': $(cat err.txt)"
    else
        bad "--set '$1': exit $rc, want 2 and '$2': $(cat err.txt)"
    fi
}
expect_err "P.tau_w=@tw99.npy" "tw99.npy: 99 values, but the target has 100 neurons (one value per neuron)"
expect_err "exc.b=@tw.npy" "tw.npy:81: more than 80 values: one value per neuron of the target"
expect_err "P.tau_w=@bad.csv" "bad.csv:3: not a number: 'abc'"
expect_err "P.tau_w=@tw.npy[mV]" "'P.tau_w' is a time (ms), but 'mV' is a voltage"
expect_err "exc.b=4mV" "'exc.b' is a current (pA), but 'mV' is a voltage"
expect_err "mid.b=4pA" "unknown run-time parameter 'mid.b' (valid: exc.b, inh.b, P.tau_w, P.a)"
expect_err "P.a=@tw.npy" "'P.a' is one value; '@FILE' gives the values of a per-neuron parameter"
expect_err "P.tau_w=@nofile.npy" "nofile.npy: cannot open values file"
./rt_views --quiet --out err --sweep P.tau_w=@tw.npy,144ms 2>err.txt
[ $? -eq 2 ] && grep -qF "value 0 is a file" err.txt && ok "--sweep refuses a file: $(cat err.txt)" ||
    bad "--sweep with a file: $(cat err.txt)"

# expressions of i, computed as the initialiser computes them, in float and in double
E1='P.tau_w=0.1 s + 3 ms * i / 7'; E2='P.b=2pA - i*0.3pA + (i*i)/3*1pA'; E3='P.a=(i - 10) / 3 * 1 nS + 0.1 nS'
for prec in float double; do
    sed "s/^sim { seed = 2 }/sim { seed = 2; precision = $prec }/" "$HERE/rt_expr.neuro" >rt_expr_$prec.neuro
    sed "s/^sim { seed = 2 }/sim { seed = 2; precision = $prec }/" "$HERE/rt_expr_ref.neuro" >rt_expr_ref_$prec.neuro
    "$NEUROC" rt_expr_$prec.neuro -o ex_$prec "$@" && "$NEUROC" rt_expr_ref_$prec.neuro -o exr_$prec "$@" &&
        ./exr_$prec --quiet --out exr_$prec.out || bad "rt_expr ($prec) does not build or run"
    ./ex_$prec --quiet --out ex_$prec.out --set "$E1" --set "$E2" --set "$E3" &&
        same ex_$prec.out exr_$prec.out "$prec: --set '$E1' '$E2' '$E3' = the same initialiser, bit for bit" ||
        bad "$prec: expressions"
    ./ex_$prec --quiet --out exv_$prec.out --set "$E1" --set "$E2" --set "$E3" --set 'v.a=i / 3 * 1 nS + 0.1 nS' &&
        same exv_$prec.out exr_$prec.out "$prec: v.a's i is the index within the view v = P[10:40]" ||
        bad "$prec: the view's i"
done
"$PYTHON" - <<'PY' && ok "the manifest names the expression" || bad "the manifest's expression"
import json
p = json.load(open("ex_float.out/manifest.json"))["parameters"]
assert p["P.b"] == {"value": None, "unit": "pA", "neurons": 50, "first": 0,
                    "expression": "2pA - i*0.3pA + (i*i)/3*1pA"}, p
PY
./ex_float --quiet --out exc --set 'P.V_T=-50mV - 2 mV * 0.2' && ok "a constant expression for a scalar" ||
    bad "a constant expression for a scalar"
expect_err_x() { # arg substring
    ./ex_float --quiet --out err --set "$1" 2>err.txt; rc=$?
    if [ $rc -eq 2 ] && grep -qF -- "$2" err.txt && [ ! -e err ]; then
        ok "--set '$1': $(cat err.txt)"
    else
        bad "--set '$1': exit $rc, want 2 and '$2': $(cat err.txt)"
    fi
}
expect_err_x "P.b=2pA - i" "subtracting quantities of different dimensions"
expect_err_x "P.b=2mV * i" "'P.b' is a current (pA), but the expression is a voltage"
expect_err_x "P.V_T=-50mV + i * 1mV" "'P.V_T' is one value; the neuron index 'i' belongs to a per-neuron parameter"
expect_err_x "P.b=i / (i - i) * 1pA" "division by zero for i = 0"
expect_err_x "P.b=1pA / (i - i)" "the value for i = 0 is not finite"
expect_err_x "P.b=(2pA * i" "expected ')'"
expect_err_x "P.b=2pA * x" "expected a number with a unit, 'i' or '('"
./ex_float --quiet --out err --sweep 'P.b=1pA*i,2pA' 2>err.txt
[ $? -eq 2 ] && grep -qF "value 0 depends on i" err.txt && ok "--sweep refuses an expression of i: $(cat err.txt)" ||
    bad "--sweep with i: $(cat err.txt)"

# a GPU back end against C
case " $* " in
*" cuda "*|*" opencl "*)
    "$NEUROC" "$HERE/rt_views.neuro" -o simc --backend c 2>/dev/null &&
        ./simc --quiet --out c --set exc.b=4pA --set inh.b=10pA --set P.tau_w=@tw.npy &&
        same npy c "$*: the run = the C back end's, bit for bit" || bad "$*: the C simulator"
    "$NEUROC" rt_expr_float.neuro -o exc_c --backend c 2>/dev/null &&
        ./exc_c --quiet --out exc_c.out --set "$E1" --set "$E2" --set "$E3" &&
        same ex_float.out exc_c.out "$*: expressions = the C back end's, bit for bit" || bad "$*: expressions against C" ;;
esac

[ $fails -eq 0 ] && echo "rt_views: PASSED" || echo "rt_views: $fails FAILED"
[ $fails -eq 0 ]
