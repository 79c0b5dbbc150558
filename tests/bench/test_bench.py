"""--bench of a generated simulator (rt_bench.c): every field against an independent
account of the same run -- the recorded spikes, the saved connectivity, neuroc's
build.json -- on the C back end and, where an OpenCL device exists (PoCL here), OpenCL;
or, with BACKEND cuda, on CUDA (exit 77, "skipped: no CUDA device", without one).
    test_bench.py NEUROC MODEL WORK_DIR [cuda]
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
import nrtio  # noqa: E402

NEUROC, MODEL, WORK = sys.argv[1:4]
ONLY = sys.argv[4] if len(sys.argv) > 4 else None
fails = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        fails.append(what)


def close(a, b, rel=1e-6):
    return a is not None and b is not None and abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def run_case(backend):
    exe = os.path.join(WORK, "sim_" + backend)
    out = os.path.join(WORK, "out_" + backend)
    env = dict(os.environ, NEUROC_CACHE="off")
    subprocess.run([NEUROC, MODEL, "--backend", backend, "-o", exe], check=True, env=env,
                   stderr=subprocess.DEVNULL)
    r = subprocess.run([exe, "--quiet", "--bench", "--save-connectivity", "--out", out],
                       check=True, stdout=subprocess.PIPE, universal_newlines=True)
    b = json.loads(r.stdout)             # --bench alone: the report is all of stdout
    fpath = os.path.join(WORK, "bench_%s.json" % backend)
    subprocess.run([exe, "--quiet", "--bench=" + fpath, "--out", out + "2"], check=True)
    with open(fpath) as f:
        b2 = json.load(f)
    check(b2["spikes"] == b["spikes"] and b2["synapses"] == b["synapses"],
          "%s: --bench=FILE writes the same run (same seed)" % backend)
    with open(exe + ".build.json") as f:
        built = json.load(f)

    spikes = {p: len(nrtio.load_spikes(os.path.join(out, p + ".csv")).t) for p in ("src", "p")}
    conn = {j: nrtio.load_npy(os.path.join(out, "connectivity_%s.npy" % j)).nrows for j in ("drive", "rec")}
    # closed forms of the documented fields
    check(b["model"] == "bench_model" and b["backend"] == backend, "%s: model, backend" % backend)
    check(b["neurons"] == 300, "%s: neurons 300 (got %s)" % (backend, b["neurons"]))
    check(b["steps"] == 2000 and close(b["dt_ms"], 0.1) and close(b["simulated_s"], 0.2),
          "%s: 2000 steps of 0.1 ms" % backend)
    check(b["synapses"] == conn["drive"] + conn["rec"],
          "%s: synapses %s = saved connectivity %s" % (backend, b["synapses"], conn))
    check(conn["rec"] == 7 * 200, "%s: fixed_indegree(7) saved 1400 synapses" % backend)
    check(b["spikes"] == spikes["src"] + spikes["p"] and spikes["p"] > 0,
          "%s: spikes %s = recorded %s" % (backend, b["spikes"], spikes))
    pops = {p["name"]: p for p in b["populations"]}
    check(pops["src"]["spikes"] == spikes["src"] and pops["P"]["size"] == 200, "%s: populations" % backend)
    # events: spikes of the presynaptic population x synapses per neuron of that population
    events = spikes["src"] * conn["drive"] / 100.0 + spikes["p"] * conn["rec"] / 200.0
    check(close(b["synaptic_events"], events, 1e-6),
          "%s: synaptic events %s = %s" % (backend, b["synaptic_events"], events))
    check(close(b["synaptic_events_per_s"], events / b["simulate_s"], 1e-6), "%s: events per second" % backend)
    check(close(b["rtf"], b["simulate_s"] / 0.2, 1e-6), "%s: rtf = simulate_s / 0.2 s" % backend)
    check(close(b["codegen_s"], built["codegen_s"], 1e-5) and close(b["compile_s"], built["compile_s"], 1e-5)
          and b["cache"] == "off" == built["cache"], "%s: build times from %s.build.json" % (backend, exe))
    check(0 < built["codegen_s"] < built["compile_s"], "%s: code generation shorter than compiling" % backend)
    check(1e6 < b["peak_host_bytes"] < 4e9, "%s: peak host memory %s bytes" % (backend, b["peak_host_bytes"]))
    check(b["construct_s"] >= 0 and b["simulate_s"] > 0 and b["interrupted"] is False, "%s: phase times" % backend)
    check(0 < b["simulate_cpu_s"], "%s: simulation CPU time %s s" % (backend, b["simulate_cpu_s"]))
    if backend == "c":
        with open("/proc/cpuinfo") as f:
            names = [l.split(":", 1)[1].strip() for l in f if l.startswith("model name")]
        check(b["device"] == (names[0] if names else "CPU"), "c: device is the CPU (%s)" % b["device"])
        check(b["schedule"] is None and b["peak_device_bytes"] is None, "c: no schedule, no device memory")
        # one thread: the loop's CPU time cannot exceed its wall time (clock resolutions aside)
        check(b["simulate_cpu_s"] <= b["simulate_s"] + 0.01, "c: simulation CPU time <= wall time")
    else:
        check(b["schedule"] in ("block", "cluster", "launch") and b["device"], "%s: %s on %s" % (backend, b["schedule"], b["device"]))
        # at least each synapse's column index (4 bytes) and float weight (4 bytes)
        check(8 * b["synapses"] <= b["peak_device_bytes"] < 1e9,
              "%s: peak device memory %s bytes" % (backend, b["peak_device_bytes"]))
    if backend == "c":
        # --instances: each instance's report in its own folder, as its plain run's
        batch = os.path.join(WORK, "batch")
        r = subprocess.run([exe, "--quiet", "--instances", "2", "--bench", "--out", batch], check=True,
                           stdout=subprocess.PIPE, universal_newlines=True)
        check(r.stdout == "", "c: --instances --bench prints nothing on stdout")
        inst = []
        for i in range(2):
            with open(os.path.join(batch, "instance_%d" % i, "bench.json")) as f:
                inst.append(json.load(f))
        plain = subprocess.run([exe, "--quiet", "--bench", "--seed", str(b["seed"] + 1), "--out", out + "4"],
                               check=True, stdout=subprocess.PIPE, universal_newlines=True)
        p1 = json.loads(plain.stdout)
        check(inst[0]["seed"] == b["seed"] and inst[0]["spikes"] == b["spikes"] and inst[1]["seed"] == b["seed"] + 1
              and inst[1]["spikes"] == p1["spikes"] and inst[1]["synapses"] == p1["synapses"],
              "c: instance_<b>/bench.json of --instances 2 = the runs with seed + b")
    if backend == "c":
        # a run stopped at a checkpoint and its resumed part report their own steps, spikes and
        # events, which add up to the whole run's
        ck = os.path.join(WORK, "ck")
        part = []
        for args in (["--checkpoint", ck, "--checkpoint-at", "1000steps", "--stop-after-checkpoint"], ["--resume", ck]):
            r = subprocess.run([exe, "--quiet", "--bench", "--out", ck + "_out%d" % len(part)] + args, check=True,
                               stdout=subprocess.PIPE, universal_newlines=True)
            part.append(json.loads(r.stdout))
        check(part[0]["first_step"] == 0 and part[0]["steps"] == 1000 and part[1]["first_step"] == 1000
              and part[1]["steps"] == 1000 and part[0]["spikes"] + part[1]["spikes"] == b["spikes"]
              and close(part[0]["synaptic_events"] + part[1]["synaptic_events"], b["synaptic_events"], 1e-9),
              "c: checkpoint + resume: steps, spikes and events of each part add up to the whole run")
    # the same binary without its build.json (copied elsewhere): build times unknown
    lone = os.path.join(WORK, "lone_" + backend)
    shutil.copy(exe, lone)
    r = subprocess.run([lone, "--quiet", "--bench", "--out", out + "3"], check=True, stdout=subprocess.PIPE,
                       universal_newlines=True)
    b3 = json.loads(r.stdout)
    check(b3["codegen_s"] is None and b3["compile_s"] is None and b3["cache"] is None,
          "%s: no build.json: build times null" % backend)


def many_projections():
    """a model of more projections than populations the runtime keeps (NRT_MAX_POPS = 256):
    bench/conn/families.py 17 4 has 17 x 17 = 289 fixed_total projections, whose synapse
    counts the generator's formula gives; --bench's synapses and events must count all of
    them (they counted the first 256 before)"""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "..", "bench", "conn"))
    import families  # noqa: E402
    n, size, k = 17, 4, 20
    model = os.path.join(WORK, "many.neuro")
    with open(model, "w") as f:
        f.write(families.model(n, size, 50.0, k).replace('import "stdlib/', 'import "%s/' % os.path.join(here, "..", "..", "stdlib")))
    exe = os.path.join(WORK, "many")
    subprocess.run([NEUROC, model, "--backend", "c", "-o", exe], check=True, env=dict(os.environ, NEUROC_CACHE="off"),
                   stderr=subprocess.DEVNULL)
    r = subprocess.run([exe, "--quiet", "--bench", "--out", os.path.join(WORK, "many_out")], check=True,
                       stdout=subprocess.PIPE, universal_newlines=True)
    b = json.loads(r.stdout)
    total = sum(k + (7 * a + 3 * t) % (k // 2 + 1) for a in range(n) for t in range(n))
    check(b["synapses"] == total, "c: 289 projections: synapses %s = %s" % (b["synapses"], total))
    # every population's spikes reach its 17 projections: events = spikes x total / neurons
    check(close(b["synaptic_events"], b["spikes"] * total / (n * size), 1e-9) and b["spikes"] > 0,
          "c: 289 projections: synaptic events %s" % b["synaptic_events"])


def many_populations():
    """more populations and views than the runtime's tables held (256): the generated code
    counted spikes into ctx.pops[256...] past the array (the fields after it: timings), and
    the summary, manifest.json and --bench listed the first 256. 260 Poisson populations of
    2 neurons, a view of each, compiled with -O0 (gcc -O3 takes a minute over them)"""
    n = 260
    here = os.path.dirname(os.path.abspath(__file__))
    lines = ['import "%s/neurons.neuro"' % os.path.join(here, "..", "..", "stdlib"), "sim { dt = 0.1 ms; seed = 3 }"]
    for i in range(n):
        lines.append("population P%d = Poisson(rate = %d Hz)[2]" % (i, 200 + i))
        lines.append("population V%d = P%d[1:2]" % (i, i))
    lines += ['record spikes of P%d to "last.npy"' % (n - 1), "run 30 ms"]
    model = os.path.join(WORK, "pops.neuro")
    with open(model, "w") as f:
        f.write("\n".join(lines) + "\n")
    exe = os.path.join(WORK, "pops")
    subprocess.run([NEUROC, model, "--backend", "c", "--cflags", "-O0", "-o", exe], check=True, env=dict(os.environ, NEUROC_CACHE="off"),
                   stderr=subprocess.DEVNULL)
    out = os.path.join(WORK, "pops_out")
    r = subprocess.run([exe, "--quiet", "--bench", "--out", out], check=True, stdout=subprocess.PIPE,
                       universal_newlines=True)
    b = json.loads(r.stdout)
    with open(os.path.join(out, "manifest.json")) as f:
        m = json.load(f)
    pops, views = m["populations"], m["views"]
    check(len(pops) == n and [p["name"] for p in pops] == ["P%d" % i for i in range(n)],
          "c: 260 populations: the manifest lists %d" % len(pops))
    check(all(p["spikes"] > 0 for p in pops) and b["spikes"] == sum(p["spikes"] for p in pops),
          "c: 260 populations: spike counts %s, --bench %s" % ([p["spikes"] for p in pops[250:]], b["spikes"]))
    last = nrtio.load_npy(os.path.join(out, "last.npy")).nrows
    check(pops[-1]["spikes"] == last, "c: P259 counted %d spikes, recorded %d" % (pops[-1]["spikes"], last))
    check(len(views) == n and views[-1]["name"] == "V%d" % (n - 1) and 0 < views[-1]["spikes"] <= pops[-1]["spikes"],
          "c: 260 views: the manifest lists %d, the last %s" % (len(views), views[-1] if views else None))
    check(0 <= b["simulate_s"] < 60 and 0 <= b["construct_s"] < 60,
          "c: 260 populations: timings %s %s (the counts wrote over them)" % (b["simulate_s"], b["construct_s"]))


def has_devices(backend):
    try:
        subprocess.run([NEUROC, MODEL, "--backend", backend, "-o", os.path.join(WORK, "probe_" + backend)],
                       check=True, env=dict(os.environ, NEUROC_CACHE="off"), stderr=subprocess.DEVNULL)
    except subprocess.CalledProcessError:
        return False
    lst = subprocess.run([os.path.join(WORK, "probe_" + backend), "--list-devices"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, universal_newlines=True)
    return lst.returncode == 0 and lst.stdout.strip() != ""


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
def nvidia_gpu():
    try:
        return subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    except OSError:
        return False


if ONLY == "cuda":
    # no driver, no device: skip before nvcc spends a minute on the probe
    if not nvidia_gpu() or not has_devices("cuda"):
        print("skipped: no CUDA device")
        sys.exit(77)
    run_case("cuda")
else:
    run_case("c")
    many_projections()
    many_populations()
    if has_devices("opencl"):
        run_case("opencl")
    else:
        print("skipped opencl: no OpenCL device")
print("%d failed" % len(fails))
sys.exit(1 if fails else 0)
