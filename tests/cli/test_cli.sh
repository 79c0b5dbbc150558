#!/usr/bin/env bash
# CLI behaviour of neuroc and of a generated simulator: options, exit statuses, seeds,
# interruption, and compiling with an installed copy of neuroc.
#   test_cli.sh NEUROC BUILD_DIR WORK_DIR
set -u
NEUROC=$1; BUILD=$2; WORK=$3
HERE=$(cd "$(dirname "$0")" && pwd)
fails=0; passes=0
ok()   { passes=$((passes + 1)); echo "ok   $*"; }
bad()  { fails=$((fails + 1)); echo "FAIL $*"; }
expect_rc() { # want cmd...
    local want=$1; shift
    "$@" >"$WORK/out.txt" 2>"$WORK/err.txt"; local rc=$?
    if [ "$rc" = "$want" ]; then ok "exit $want: $*"; else bad "exit $rc (want $want): $*"; sed 's/^/    /' "$WORK/err.txt" | head -5; fi
}
rm -rf "$WORK"; mkdir -p "$WORK"
sed 's/STEPS/200 ms/' "$HERE/tiny.neuro" >"$WORK/tiny.neuro"
sed 's/STEPS/3000 s/' "$HERE/tiny.neuro" >"$WORK/long.neuro" # far longer than the 1 s before the signal

expect_rc 0 "$NEUROC" --help
grep -q "usage: neuroc" "$WORK/out.txt" && ok "--help prints usage" || bad "--help prints usage"
expect_rc 0 "$NEUROC" --version
grep -qE "^neuroc [0-9]+\.[0-9]+\.[0-9]+$" "$WORK/out.txt" && ok "--version" || bad "--version: $(cat "$WORK/out.txt")"
expect_rc 2 "$NEUROC" --bogus "$WORK/tiny.neuro"
grep -q "unknown option '--bogus'" "$WORK/err.txt" && ok "unknown option named" || bad "unknown option named"
expect_rc 2 "$NEUROC"
expect_rc 1 "$NEUROC" "$WORK/missing.neuro"
grep -q "cannot read '.*missing.neuro'" "$WORK/err.txt" && ok "missing file named" || bad "missing file named"
expect_rc 1 "$NEUROC" "$WORK/tiny.neuro" --backend opencl --gpu-mode graph
grep -q "the graph schedule needs CUDA" "$WORK/err.txt" && ok "graph schedule refused on OpenCL" || bad "graph schedule refused on OpenCL"
expect_rc 1 "$NEUROC" "$HERE/../../examples/cuba.neuro" --backend opencl --gpu-mode free --emit-only "$WORK/free_cuba"
grep -q "the free schedule takes a model without projections or top-k, in one process (this one has projections)" "$WORK/err.txt" &&
    ok "free schedule refused with projections" || bad "free schedule refused with projections: $(cat "$WORK/err.txt")"
expect_rc 1 "$NEUROC" "$HERE/../../examples/cuba.neuro" --backend opencl --gpu-mode cluster --emit-only "$WORK/cl_cuba"
grep -q "the cluster schedule needs CUDA" "$WORK/err.txt" && ok "cluster schedule refused on OpenCL" || bad "cluster schedule refused on OpenCL"
expect_rc 1 "$NEUROC" "$HERE/../../examples/stdp_song.neuro" --backend cuda --gpu-mode cluster --emit-only "$WORK/cl_song"
grep -q "the cluster schedule cannot run this model: a projection is plastic" "$WORK/err.txt" &&
    ok "cluster schedule refused with plasticity" || bad "cluster schedule refused with plasticity: $(cat "$WORK/err.txt")"
expect_rc 1 "$NEUROC" "$HERE/../../examples/cuba.neuro" --backend cuda --gpu-arch sm_80 --gpu-mode cluster --emit-only "$WORK/cl_80"
grep -q "thread-block clusters need --gpu-arch sm_90 or later" "$WORK/err.txt" &&
    ok "cluster schedule refused before sm_90" || bad "cluster schedule refused before sm_90: $(cat "$WORK/err.txt")"
expect_rc 0 "$NEUROC" "$HERE/../../examples/cuba.neuro" --backend cuda --gpu-arch sm_90 --explain
grep -q "^kernel plan (cuda, cluster): nc_k_cluster runs the network on one thread-block cluster" "$WORK/out.txt" &&
    ok "--explain: the cluster kernel plan" || bad "--explain cluster plan: $(grep plan "$WORK/out.txt")"
expect_rc 2 "$NEUROC" "$WORK/tiny.neuro" --gpu-mode fastest
grep -q "unknown GPU schedule 'fastest'" "$WORK/err.txt" && ok "bad --gpu-mode named" || bad "bad --gpu-mode named"
expect_rc 2 "$NEUROC" "$WORK/tiny.neuro" --gpu-arch 90
expect_rc 1 "$NEUROC" "$WORK/tiny.neuro" --backend cuda --nvcc /nonexistent/nvcc
grep -q "nvcc failed\|could not run" "$WORK/err.txt" && ok "missing nvcc named" || bad "missing nvcc named: $(cat "$WORK/err.txt")"
expect_rc 0 "$NEUROC" "$WORK/tiny.neuro" --backend opencl --explain
grep -q "^schedule: block" "$WORK/out.txt" && ok "--explain names the GPU schedule" || bad "--explain schedule"
expect_rc 0 "$NEUROC" "$WORK/tiny.neuro" --backend opencl --emit-only "$WORK/gen_cl"
[ -s "$WORK/gen_cl/tiny.cl" ] && [ -s "$WORK/gen_cl/tiny.c" ] && ok "--emit-only (opencl) writes tiny.cl, tiny.c" || bad "--emit-only opencl"
expect_rc 1 "$NEUROC" "$WORK/tiny.neuro" --backend fpga
expect_rc 0 "$NEUROC" "$WORK/tiny.neuro" --dump=tokens
grep -q "^2:1 'import'" "$WORK/out.txt" && ok "--dump=tokens" || bad "--dump=tokens"
expect_rc 0 "$NEUROC" "$WORK/tiny.neuro" --dump=ast
grep -q "^population P = LIF" "$WORK/out.txt" && ok "--dump=ast" || bad "--dump=ast"
expect_rc 0 "$NEUROC" "$WORK/tiny.neuro" --dump=ir
grep -q "^population P = LIF\[200\]" "$WORK/out.txt" && ok "--dump=ir" || bad "--dump=ir"
expect_rc 0 "$NEUROC" "$WORK/tiny.neuro" --explain
grep -q "auto -> exact" "$WORK/out.txt" && ok "--explain names the integrator" || bad "--explain"
grep -q "^kernel plan (c): --threads N; each step: step_src (100 neurons, all threads), step_P (200 neurons, all threads), propagate_drive (all threads, by post; equal posts, or the warm-up's events with \$NEUROC_THREADS_WARMUP), records (one thread)$" "$WORK/out.txt" &&
    grep -q "^warnings: none$" "$WORK/out.txt" && ok "--explain: C kernel plan, no warnings" || bad "--explain C plan: $(grep plan "$WORK/out.txt")"
expect_rc 0 "$NEUROC" "$HERE/../plast/models/stdp_order.neuro" --backend c --explain
grep -q "each step: arrive_a_pre (all threads, by post), arrive_a_post (all threads, by post), .* learn_a_pre (all threads: scopes by neuron, synapses by post; spike lists one thread)," "$WORK/out.txt" &&
    ok "--explain: C kernel plan of plastic projections on the threads" || bad "--explain C plastic plan: $(grep plan "$WORK/out.txt")"
expect_rc 0 "$NEUROC" "$HERE/../threads/models/phases.neuro" --backend c --explain
grep -q "each step: .* records (state rows of 2,048 values or more gathered on all threads and written into the buffers there (.npy: from 16,384), files on one)$" "$WORK/out.txt" &&
    ok "--explain: C kernel plan of state rows gathered and written on the threads" || bad "--explain C records plan: $(grep plan "$WORK/out.txt")"
expect_rc 0 "$NEUROC" "$HERE/../plast/models/stdp_order.neuro" --backend c --mpi --explain
grep -q "each step: .* records (state rows of 2,048 values or more as .csv, 16,384 as .npy, written into the buffers on all threads, the rest on one)$" "$WORK/out.txt" &&
    ok "--explain: C kernel plan of --mpi state rows written on the threads" || bad "--explain C --mpi records plan: $(grep plan "$WORK/out.txt")"
expect_rc 0 "$NEUROC" "$HERE/../threads/models/phases.neuro" --backend opencl --explain
grep -q "^host (--threads N; .*: the drains write the state rows .* (w.npy, V.csv, w.csv) into the files' buffers on all threads; spike lists sorted by step on all," "$WORK/out.txt" &&
    expect_rc 0 "$NEUROC" "$WORK/tiny.neuro" --backend cuda --explain &&
    grep -q "^host (--threads N; default 1: no state row of 2,048 values as .csv, 16,384 as .npy): the drains on one thread," "$WORK/out.txt" &&
    ok "--explain: a GPU program's host threads" || bad "--explain GPU host plan: $(grep '^host' "$WORK/out.txt")"
expect_rc 0 "$NEUROC" "$HERE/../assembly/models/topk_ties.neuro" --backend c --explain
grep -q "each step: .*(.* neurons, all threads, then top-k selection on one, then all threads)," "$WORK/out.txt" &&
    ok "--explain: C kernel plan of a top-k population on the threads" || bad "--explain C top-k plan: $(grep plan "$WORK/out.txt")"
expect_rc 0 "$NEUROC" "$WORK/tiny.neuro" --explain --backend opencl --gpu-mode launch
grep -q "^kernel plan (opencl, launch): each step, launched: neurons of src P (nc_k_neurons" "$WORK/out.txt" &&
    grep -q "^warning 1: the launch schedule adds synaptic input with atomics" "$WORK/out.txt" &&
    ok "--explain: launch kernel plan, atomics warning" || bad "--explain launch: $(grep -E 'plan|warning' "$WORK/out.txt")"
cat >"$WORK/quad.neuro" <<'EOF'
neuron Quad {
  state { V: mV = -65 mV }
  dynamics { V' = (V + 65 mV) * (V + 50 mV) / (15 mV * 10 ms) + 0.5 [mV/ms] }
  spike when V >= 0 mV
  on spike { V = -65 mV }
}
neuron QuadE {
  state { V: mV = -65 mV }
  dynamics using euler(substeps = 2) { V' = (V + 65 mV) * (V + 50 mV) / (15 mV * 10 ms) }
}
population A = Quad[2]
population B = QuadE[2]
record spikes of A to "a.csv"
run 10 ms
EOF
expect_rc 0 "$NEUROC" "$WORK/quad.neuro" --explain
grep -q "^warning 1: 2 dynamics blocks are integrated by rk4 or euler" "$WORK/out.txt" && ok "--explain warns: rk4/euler" || bad "--explain rk4 warning: $(grep -E 'integrator|warning' "$WORK/out.txt")"
grep -v "^record" "$WORK/tiny.neuro" >"$WORK/norec.neuro"
expect_rc 0 "$NEUROC" "$WORK/norec.neuro" --explain
grep -q "^warning 1: nothing is recorded" "$WORK/out.txt" && ok "--explain warns: nothing recorded" || bad "--explain norec"
expect_rc 0 "$NEUROC" "$WORK/tiny.neuro" --emit-only "$WORK/gen"
[ -s "$WORK/gen/tiny.c" ] && ok "--emit-only writes tiny.c" || bad "--emit-only writes tiny.c"
# emission is deterministic
"$NEUROC" "$WORK/tiny.neuro" --emit-only "$WORK/gen2" 2>/dev/null
cmp -s "$WORK/gen/tiny.c" "$WORK/gen2/tiny.c" && ok "emission is byte-reproducible" || bad "emission differs between runs"

expect_rc 0 "$NEUROC" "$WORK/tiny.neuro" -o "$WORK/sim"
expect_rc 0 "$WORK/sim" --help
expect_rc 2 "$WORK/sim" --frobnicate
expect_rc 2 "$WORK/sim" --seed banana
expect_rc 2 "$WORK/sim" --set P.I_e=100pA
grep -q "unknown run-time parameter 'P.I_e': this model has none" "$WORK/err.txt" && ok "--set without run-time parameters" || bad "--set without runtime: $(cat "$WORK/err.txt")"
expect_rc 0 "$WORK/sim" --quiet
[ -s "$WORK/tiny_out/manifest.json" ] && ok "default output folder beside the binary" || bad "default output folder (expected $WORK/tiny_out)"
expect_rc 0 "$WORK/sim" --out "$WORK/a" --quiet
[ ! -s "$WORK/err.txt" ] && ok "--quiet prints nothing" || bad "--quiet printed: $(head -2 "$WORK/err.txt")"
expect_rc 0 "$WORK/sim" --out "$WORK/b"
grep -q "rate (Hz)" "$WORK/err.txt" && ok "summary on stderr" || bad "summary on stderr"
expect_rc 0 "$WORK/sim" --out "$WORK/c" --seed 8 --quiet
cmp -s "$WORK/a/spikes.npy" "$WORK/b/spikes.npy" && ok "same seed, same spikes" || bad "same seed gave different spikes"
cmp -s "$WORK/a/spikes.npy" "$WORK/c/spikes.npy" && bad "--seed 8 gave the same spikes as seed 7" || ok "--seed changes the spikes"
expect_rc 1 "$WORK/sim" --out /proc/forbidden --quiet
grep -q "forbidden" "$WORK/err.txt" && ok "unwritable output folder named" || bad "unwritable output folder: $(cat "$WORK/err.txt")"

# SIGINT: stops after the step, flushes, manifest says interrupted, files stay valid
"$NEUROC" "$WORK/long.neuro" -o "$WORK/long" 2>/dev/null
"$WORK/long" --out "$WORK/int" --quiet & pid=$!
sleep 1; kill -INT $pid; wait $pid; rc=$?
[ "$rc" = 130 ] && ok "interrupted run exits 130" || bad "interrupted run exited $rc"
PY=${PYTHON:-python3}
"$PY" - "$WORK/int" <<'PYEOF' && ok "interrupted run: manifest and .npy consistent" || bad "interrupted run outputs"
import json, os, struct, sys
d = sys.argv[1]
m = json.load(open(os.path.join(d, "manifest.json")))
assert m["interrupted"] is True, m
assert 0 < m["completed_steps"] < m["total_steps"], m
raw = open(os.path.join(d, "spikes.npy"), "rb").read()
assert raw[:6] == b"\x93NUMPY"
hl = struct.unpack("<H", raw[8:10])[0]
hdr = raw[10:10 + hl].decode()
n = int(hdr.split("'shape': (")[1].split(",")[0])
assert len(raw) == 10 + hl + 12 * n, (len(raw), hl, n)
rec = [r for r in m["recordings"] if r["file"] == "spikes.npy"][0]
assert rec["rows"] == n, (rec, n)
ts = [struct.unpack_from("<d", raw, 10 + hl + 12 * k)[0] for k in range(n)]
assert max(ts) <= m["completed_steps"] * m["dt_ms"] + 1e-9
PYEOF

# an installed neuroc finds its runtime and stdlib relative to itself
if cmake --install "$BUILD" --prefix "$WORK/prefix" >/dev/null 2>&1; then
    expect_rc 0 "$WORK/prefix/bin/neuroc" "$WORK/tiny.neuro" -o "$WORK/sim_installed"
    expect_rc 0 "$WORK/sim_installed" --out "$WORK/d" --quiet
    cmp -s "$WORK/a/spikes.npy" "$WORK/d/spikes.npy" && ok "installed neuroc: same spikes" || bad "installed neuroc: different spikes"
    missing=""
    for f in share/man/man1/neuroc.1 share/man/man1/neuroc-sim.1 share/doc/neuroc/tutorial.md \
             share/doc/neuroc/examples/cuba.neuro share/neuroc/editors/vim/syntax/neuro.vim; do
        [ -s "$WORK/prefix/$f" ] || missing="$missing $f"
    done
    [ -z "$missing" ] && ok "cmake --install: man pages, docs, examples, editor files" || bad "not installed:$missing"
else
    bad "cmake --install failed"
fi
echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
