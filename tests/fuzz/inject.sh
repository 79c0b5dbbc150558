#!/bin/sh
# Injection safety (docs/robustness.md, "Fuzzing"): model text must not reach the generated
# C / CUDA / OpenCL code or the compiler's command line as code.
#   inject.sh NEUROC BACKEND WORK      (BACKEND: c, opencl or cuda)
# One model, written twice: plainly in WORK/plain, and in a folder whose path holds quotes,
# a backslash, '??/' (a trigraph), '*/', '%n', '$(...)', backquotes and a newline, with
# populations, variables and a projection named like C/OpenCL keywords, library macros and
# the back ends' own names (main, double, NAN, errno, kernel, __global, real, ctx, nc_step,
# and ctx.b_spk beside population ctx_b, whose spike list is ctx_b's "spk"), recording to
# file names with quotes, '%' and '$(...)'. The spike and edge files it reads
# sit beside it (absolute paths in the generated code). Both must compile and run; the
# weird one must record exactly what the plain one records (the names change nothing),
# the source population must fire exactly as its spike file says (step floor(t / dt)),
# and no command in the paths may have run. cuda: compiled only (no device here).
set -u
NEUROC=$1
BACKEND=$2
WORK=$3
tag="inject[$BACKEND]"
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
WORK=$(cd "$WORK" && pwd)
nl='
'
weird="$WORK/q\"uo'te \\back %n%s \$(touch PWNED) \`touch PWNED2\` ??/*/new${nl}line"
mkdir -p "$WORK/plain" "$weird" || exit 2

# write MODEL into DIR with the names N_*: the plain set, then the weird one
write() {
    dir=$1 neuron=$2 p_rest=$3 p_th=$4 p_tau=$5 p_i=$6 p_r=$7 v=$8 s1=$9
    shift 9
    s2=$1 pin=$2 pout=$3 pout2=$4 proj=$5 r1=$6 r2=$7
    printf 'time,index\n0.05,0\n0.3,2\n1.0,1\n1.0,1\n2.25,0\n' >"$dir/in spikes.csv"
    printf 'pre,post,w,delay\n0,0,1e5,0.5\n1,2,1e5,1\n2,1,1e5,0.2\n' >"$dir/edges.csv"
    cat >"$dir/m.neuro" <<EOM
import "stdlib/receptors.neuro"
sim { dt = 0.1 ms; seed = 1 }
neuron $neuron {
  param { $p_rest: mV = -70 mV; $p_th: mV = -50 mV; $p_tau: ms = 10 ms; $p_i: pA = 0 pA; $p_r: mV/pA = 0.1 [mV/pA] }
  state { $v: mV = -70 mV; $s1: 1 = 0; $s2: 1 = 0 }
  input { I_syn: pA }
  dynamics { $v' = ($p_rest - $v) / $p_tau + ($p_i + I_syn) * $p_r / $p_tau }
  spike when $v >= $p_th
  on spike { $v = $p_rest; $s1 += 1; $s2 += 2 }
}
neuron Src { spike when from_file("in spikes.csv") }
population $pin = Src[3]
population $pout = $neuron[3]
population $pout2 = $neuron[1]
projection $proj = $pin -> $pout { receptor = Delta -> I_syn; connect = from_file("edges.csv") }
record spikes of $pin to "$r1"
record spikes of $pout to "$r2"
record $v, $s1 of $pout to "state.csv"
run 5 ms
EOM
}
write "$WORK/plain" LIF2 E_L V_th tau I_e R V n_a n_b inp cells other proj s1.csv s2.csv
write "$weird" main double NAN errno kernel EOF float b_spk __global real ctx ctx_b nc_step \
    'r1 \"q%s$(touch PWNED3).csv' 'r2%n.csv'

run() {
    dir=$1
    if [ "$BACKEND" = cuda ]; then
        "$NEUROC" "$dir/m.neuro" --backend cuda --gpu-arch sm_80 -o "$dir/sim" >"$dir/neuroc.log" 2>&1 ||
            { cat "$dir/neuroc.log"; echo "$tag: FAILED: neuroc on $dir"; exit 1; }
        return
    fi
    "$NEUROC" "$dir/m.neuro" --backend "$BACKEND" -o "$dir/sim" >"$dir/neuroc.log" 2>&1 ||
        { cat "$dir/neuroc.log"; echo "$tag: FAILED: neuroc on $dir"; exit 1; }
    if [ "$BACKEND" = opencl ] && ! "$dir/sim" --list-devices >/dev/null 2>&1; then
        echo "$tag: skipped: no OpenCL device"
        exit 77
    fi
    "$dir/sim" --out "$dir/out" --quiet || { echo "$tag: FAILED: the simulator in $dir"; exit 1; }
}
if [ "$BACKEND" = cuda ] && ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
    echo "$tag: skipped: no nvcc"
    exit 77
fi
run "$WORK/plain"
run "$weird"
for f in "$WORK/PWNED" "$WORK/PWNED2" "$WORK/PWNED3" PWNED PWNED2 PWNED3; do
    if [ -e "$f" ]; then echo "$tag: FAILED: a command in a path ran ($f exists)"; exit 1; fi
done
if [ "$BACKEND" = cuda ]; then
    echo "$tag: PASSED (compiled: names and paths)"
    exit 0
fi
"${PYTHON:-python3}" - "$WORK/plain/out" "$weird/out" 'r1 "q%s$(touch PWNED3).csv' <<'EOP' || { echo "$tag: FAILED"; exit 1; }
import csv, math, os, sys
plain, weird, r1 = sys.argv[1:4]
def rows(p):
    with open(p) as f:
        return [r for r in csv.reader(f) if r and not r[0].startswith('#')]
ok = True
for a, b in (("s1.csv", r1), ("s2.csv", "r2%n.csv"), ("state.csv", "state.csv")):
    ra, rb = rows(os.path.join(plain, a)), rows(os.path.join(weird, b))
    if ra[1:] != rb[1:] or len(ra) < 3:
        print("differs or empty: %s vs %s (%d, %d rows)" % (a, b, len(ra), len(rb)))
        ok = False
# the source fires as its file says: (t, i) -> step floor(t / dt), recorded at (step + 1) dt, once
want = sorted({(math.floor(t / 0.1 + 1e-9) + 1, i) for t, i in [(0.05, 0), (0.3, 2), (1.0, 1), (2.25, 0)]})
got = sorted((round(float(r[0]) / 0.1), int(r[1])) for r in rows(os.path.join(weird, r1))[1:])
if got != want:
    print("source spikes", got, "expected", want)
    ok = False
# every target neuron got a kick of 1e5 pA (far above threshold) from the edge file and fired
fired = {int(r[1]) for r in rows(os.path.join(weird, "r2%n.csv"))[1:]}
if fired != {0, 1, 2}:
    print("target neurons that fired:", sorted(fired), "expected [0, 1, 2]")
    ok = False
sys.exit(0 if ok else 1)
EOP
echo "$tag: PASSED"
