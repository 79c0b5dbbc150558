"""The benchmark suite (bench/run.sh): build every model of the machine's list with neuroc,
run each simulator with --bench, run the peers, print a table and write
OUT/bench.json (every row) and OUT/bench.md (the table, for docs/performance.md).

    python3 bench/suite.py cpu|gpu NEUROC OUT

Environment: RUNS (runs per small model, default 3), SCALING (cpu: the models of the threads
table, default "coba,microcircuit_0.1,assembly_1e5"; "" none), TIMEOUT (s per run, default 900), ONLY (a regular expression: rows whose
name matches), SIM_ARGS (more options for every simulator run, split at blanks: SIM_ARGS=--check-finite=off
measures the state check's cost against a run with the default), JOBS (parallel builds, default: the number of CPUs), BRIAN2_PYTHON (the
Python with brian2, default /usr/bin/python3; "none" skips the peers), BRIAN2CUDA_PYTHONPATH
(the folder holding brian2cuda, brian2 2.10 and their dependencies; bench/run.sh unpacks
it from the wheels in <build>/wheels-brian2cuda beside NEUROC's bin/, for the GPU peer, and
for the CPU peer where /usr/bin/python3 has no Brian2 of its own), BRIAN2_THREADS (the thread
counts of the threads table at which Brian2 runs too, e.g. 1,16; default all), BRIAN2_MC_MS
(bench/brian2/microcircuit.py's run length in ms, default 1000; the table compares RTFs).

Every model is built first (in parallel, with a fresh compile cache, so compile times are
cold), the microcircuit a second time from the cache (the cached build time), then every
simulator runs alone, RUNS times for small models and once for large ones; the row holds
the medians. The C back end's rows run with --threads 1 (one core, as the single-threaded
peers); the threads table (cpu) runs each SCALING model with --threads 1, 2, 4, 8, 16 (THREADS=1,16: those; those the
machine has), and Brian2 with OpenMP on as many threads where bench/brian2 has the model
(COBA; the stored microcircuit at any scale),
each with its speed-up and parallel efficiency against one thread. The "build" rows then build the full-scale microcircuit alone (build_row): RUNS
cold builds (--no-cache) and RUNS cached ones, medians of wall and CPU time. A simulator's own --bench report gives construction and simulation times, RTF,
synaptic events per second and peak memory; the suite adds the process's CPU time (user +
system, from wait4) and wall time, measured the same way for the peers.
"""
import concurrent.futures
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

MODE, NEUROC, OUT = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = int(os.environ.get("RUNS", "3"))
ONLY = re.compile(os.environ.get("ONLY", "."))
JOBS = int(os.environ.get("JOBS", str(os.cpu_count() or 2)))
TIMEOUT = int(os.environ.get("TIMEOUT", "900"))   # s, per simulator run
SIM_ARGS = os.environ.get("SIM_ARGS", "").split()   # more simulator options, e.g. --check-finite=off


def ex(*p):
    return os.path.join(ROOT, *p)


# every fixed_total projection of the microcircuit made procedural (a substitution of 55)
PROCEDURAL = (r"(?m)^(  connect  = fixed_total\(.*\))$", r"\1\n  storage  = procedural", 55)

# (name, source, substitutions (regex, replacement[, how many: 1 by default]) on the model
# text, large: one run)
MODELS = {
    "cuba": (ex("examples", "cuba.neuro"), [], False),
    "coba": (ex("examples", "coba.neuro"), [], False),
    "cobahh": (ex("examples", "cobahh.neuro"), [], False),
    "microcircuit_0.1": (ex("examples", "microcircuit.neuro"), [(r"(?m)^const scale = 1$", "const scale = 0.1")], True),
    "microcircuit_0.5": (ex("examples", "microcircuit.neuro"), [(r"(?m)^const scale = 1$", "const scale = 0.5")], True),
    "microcircuit_1": (ex("examples", "microcircuit.neuro"), [], True),
    # the same at a tenth with 4,260 membrane potentials recorded every step, .npy and .csv (420 MB
    # a second of model time): the state rows written on the threads (SCALING=microcircuit_rec_0.1)
    "microcircuit_rec_0.1": (ex("examples", "microcircuit.neuro"), [
        (r"(?m)^const scale = 1$", "const scale = 0.1"),
        (r"(?m)^run 1 s$", 'record V of L23E every 0.1 ms to "V23.npy"\nrecord V of L4E every 0.1 ms to "V4.csv"\nrun 1 s')], True),
    # the microcircuit with every projection (55 fixed_total) procedural: rows regenerated at
    # each spike, no synapse memory (GeNN's procedural microcircuit: RTF 7.8)
    "microcircuit_proc_0.1": (ex("examples", "microcircuit.neuro"), [(r"(?m)^const scale = 1$", "const scale = 0.1"),
                                                                    PROCEDURAL], True),
    "microcircuit_proc_1": (ex("examples", "microcircuit.neuro"), [PROCEDURAL], True),
    # HH batch: 5,000 steps (50 ms at dt 0.01 ms), the unit of the goal
    "hh_1e4": (ex("examples", "hh_batch.neuro"), [(r"(?m)^run 500 ms$", "run 50 ms")], False),
    "hh_1e5": (ex("examples", "hh_batch.neuro"), [(r"(?m)^run 500 ms$", "run 50 ms"),
                                                  (r"(?m)^const scale = 1$", "const scale = 10")], True),
    "hh_1e6": (ex("examples", "hh_batch.neuro"), [(r"(?m)^run 500 ms$", "run 50 ms"),
                                                  (r"(?m)^const scale = 1$", "const scale = 100")], True),
    # plastic STDP network (Song, Miller & Abbott 2000), 10 s of its 100 s
    "stdp_song": (ex("examples", "stdp_song.neuro"), [(r"(?m)^run 100 s$", "run 10 s"),
                                                      (r"(?m)^record w of plastic every 10 s", "record w of plastic every 5 s")], False),
    # assembly projection, a round a step: n, k = sqrt(n), p = 0.01 (0.001 at 1e6)
    "assembly_1e4": (ex("examples", "assembly", "projection.neuro"),
                     [(r"(?m)^const n    = 100000", "const n    = 10000"), (r"(?m)^const k    = 317", "const k    = 100"),
                      (r"(?m)^run 30 steps$", "run 100 steps")], False),
    "assembly_1e5": (ex("examples", "assembly", "projection.neuro"), [(r"(?m)^run 30 steps$", "run 1000 steps")], True),
    "assembly_1e6": (ex("tests", "assembly", "models", "topk_1e6.neuro"), [(r"(?m)^run 20 steps$", "run 200 steps")], True),
    # the same area with plastic (Hebbian) synapses: 10^9 of them, 22.4 GiB planned
    "assembly_plastic_1e6": (ex("examples", "assembly", "projection.neuro"),
                             [(r"(?m)^const n    = 100000", "const n    = 1000000"), (r"(?m)^const k    = 317", "const k    = 1000"),
                              (r"(?m)^const p    = 0.01", "const p    = 0.001"), (r"(?m)^run 30 steps$", "run 200 steps")], True),
    # procedural connectivity, 1/10 of bench/conn/proc_big.neuro (410,000 neurons, 2.4e9 synapses)
    "proc_tenth": (ex("bench", "conn", "proc_big.neuro"), [(r"(?m)^const N_E = 3280000", "const N_E = 328000"),
                                                         (r"(?m)^const N_I = 820000", "const N_I = 82000")], True),
    "proc_full": (ex("bench", "conn", "proc_big.neuro"), [], True),
}

# (model, back end, GPU schedule or None); a row per entry
if MODE == "cpu":
    ROWS = [(m, "c", None) for m in ("cuba", "coba", "cobahh", "microcircuit_0.1", "microcircuit_proc_0.1",
                                     "hh_1e4", "stdp_song", "assembly_1e4")]
    PEERS = [("cuba", "cpp_standalone"), ("coba", "cpp_standalone"), ("cobahh", "cpp_standalone"),
             ("hh_1e4", "cpp_standalone")]
else:
    ROWS = [(m, b, s) for m in ("cuba", "coba") for b, s in
            (("cuda", "cluster"), ("cuda", "block"), ("cuda", "graph"), ("cuda", "persistent"), ("cuda", "launch"),
             ("opencl", "block"), ("opencl", "launch"))]
    ROWS += [(m, "cuda", None) for m in ("microcircuit_0.1", "microcircuit_0.5", "microcircuit_1",
                                         "microcircuit_proc_0.1", "microcircuit_proc_1", "hh_1e4",
                                         "hh_1e5", "hh_1e6", "stdp_song", "assembly_1e4", "assembly_1e5",
                                         "assembly_1e6", "assembly_plastic_1e6", "proc_tenth", "proc_full")]
    ROWS += [("assembly_1e5", "cuda", "launch")]
    PEERS = [("cuba", "cuda_standalone"), ("coba", "cuda_standalone")]
# the threads table (cpu): models run with --threads N for each N of THREADS
SCALING = [m for m in os.environ.get("SCALING", "coba,microcircuit_0.1,assembly_1e5").split(",") if m] if MODE == "cpu" else []
THREADS = [t for t in ([int(x) for x in os.environ.get("THREADS", "").split(",") if x] or (1, 2, 4, 8, 16))
           if t <= (os.cpu_count() or 1)]   # THREADS=1,16: only these counts
# the thread counts Brian2 runs at in that table (BRIAN2_THREADS=1,16; default: all of THREADS;
# each is a build of its own, since Brian2 fixes its OpenMP threads in the generated code)
B2THREADS = [int(t) for t in os.environ.get("BRIAN2_THREADS", "").split(",") if t]
# build time: the full-scale microcircuit built alone, after the runs (model, back end)
BUILDS = [("microcircuit_1", "c")] if MODE == "cpu" else [("microcircuit_1", "cuda"), ("microcircuit_1", "opencl")]
# many independent COBA instances: only where the simulator has --instances (rows added below);
# the row gives each instance's medians (RTF also its worst, rtf_max) and all their spikes
INSTANCES = [(100, "cuda")] if MODE == "gpu" else [(10, "c")]


def row_name(m, b, s):
    return "%s/%s%s" % (m, b, "/" + s if s else "")


def instances_name(n, b):
    return "coba/%s/instances x%d" % (b, n)


def write_model(work, m):
    src, subs, _ = MODELS[m]
    with open(src) as f:
        text = f.read()
    for sub in subs:
        pat, rep, want = sub if len(sub) == 3 else sub + (1,)
        text, n = re.subn(pat, rep, text)
        if n != want:
            sys.exit("suite.py: %s: pattern %r not found in %s" % (m, pat, src))
    path = os.path.join(work, m + ".neuro")
    with open(path, "w") as f:
        f.write(text)
    return path


def build(work, cache, m, b, s, tag=""):
    exe = os.path.join(work, "bin", row_name(m, b, s).replace("/", "-") + tag)
    cmd = [NEUROC, os.path.join(work, m + ".neuro"), "--backend", b, "-o", exe]
    if s:
        cmd += ["--gpu-mode", s]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, env=dict(os.environ, NEUROC_CACHE=cache), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        return exe, None, r.stdout.strip().splitlines()[-3:]
    with open(exe + ".build.json") as f:
        info = json.load(f)
    info["wall_s"] = wall
    return exe, info, None


def build_row(work, m, b):
    """The build time of model m on back end b, the machine otherwise idle: RUNS cold builds
    (--no-cache: neuroc, the C compiler, nvcc) and RUNS cached ones (the same model again, a
    hit), medians of wall and CPU time (user + system of neuroc and the compilers it runs)."""
    exe = os.path.join(work, "bin", "build-%s-%s" % (m, b))
    cmd = [NEUROC, os.path.join(work, m + ".neuro"), "--backend", b, "-o", exe]
    cache = os.path.join(work, "build-cache")
    env = dict(os.environ, NEUROC_CACHE=cache)
    cold, cold_cpu, stages, hit, hit_cpu = [], [], [], [], []
    for i in range(RUNS + 1):   # one warm-up: the files neuroc and the compilers read in memory
        status, wall, cpu = timed_run(cmd + ["--no-cache"], env=env)
        if status != 0:
            return {"row": "build %s/%s" % (m, b), "error": "build failed (exit status %d)" % status}
        with open(exe + ".build.json") as f:
            info = json.load(f)
        if i:
            cold.append(wall)
            cold_cpu.append(cpu)
            stages.append((info["codegen_s"], info["compile_s"]))
    for i in range(RUNS + 1):   # the first stores the entry
        status, wall, cpu = timed_run(cmd, env=env)
        with open(exe + ".build.json") as f:
            info = json.load(f)
        if i and status == 0 and info["cache"] == "hit":
            hit.append(wall)
            hit_cpu.append(cpu)
    med = statistics.median
    return {"row": "build %s/%s" % (m, b), "build": True, "builds": RUNS,
            "build_cold_s": med(cold), "build_cold_cpu_s": med(cold_cpu),
            "codegen_s": med(x[0] for x in stages), "compile_s": med(x[1] for x in stages),
            "build_cached_s": med(hit) if hit else None, "build_cached_cpu_s": med(hit_cpu) if hit else None}


def timed_run(argv, cwd=None, env=None):
    """(exit status, wall s, user + system CPU s) of one process."""
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            if cwd:
                os.chdir(cwd)
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            if env is None:
                os.execv(argv[0], argv)
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    return status, time.perf_counter() - t0, ru.ru_utime + ru.ru_stime


def run_sim(exe, work, runs, extra=()):
    reports = []
    for r in range(runs):
        rep = os.path.join(work, "report.json")
        if os.path.exists(rep):
            os.unlink(rep)
        status, wall, cpu = timed_run(["/usr/bin/timeout", str(TIMEOUT), exe, "--quiet", "--bench=" + rep,
                                       "--out", os.path.join(work, "out")] + list(extra) + SIM_ARGS)
        if status != 0:
            return None, "exit status %d" % (status >> 8 if status & 0xff == 0 else status)
        with open(rep) as f:
            b = json.load(f)
        b["run_wall_s"], b["run_cpu_s"] = wall, cpu
        reports.append(b)
    row = dict(reports[0])
    for k in ("construct_s", "simulate_s", "simulate_cpu_s", "rtf", "synaptic_events_per_s", "run_wall_s", "run_cpu_s",
              "peak_host_bytes"):
        vals = [x[k] for x in reports if x.get(k) is not None]
        row[k] = statistics.median(vals) if vals else None
    row["runs"] = runs
    return row, None


def brian2_peer(m, dev, work, threads=0):
    py = os.environ.get("BRIAN2_PYTHON", "/usr/bin/python3")
    if py == "none":
        return None, "not run: BRIAN2_PYTHON=none"
    mod = "brian2cuda" if dev == "cuda_standalone" else "brian2"
    env = dict(os.environ)
    wheels = dev == "cuda_standalone" or env.get("BRIAN2CUDA_PYTHONPATH")
    if wheels:
        # the wheels' Brian2 needs NumPy 2, the checkers of tests/gpu/run.sh NumPy 1.26: the
        # peer adds BRIAN2CUDA_PYTHONPATH as a site folder itself (peer.py), not PYTHONPATH
        env.pop("PYTHONPATH", None)
    probe = ("import os, site\np = os.environ.get('BRIAN2CUDA_PYTHONPATH')\nif p: site.addsitedir(p)\n"
             if wheels else "") + "import " + mod
    if subprocess.run([py, "-c", probe], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
        return None, "not run: %s cannot be imported by %s (%s)" % (
            mod, py, "its wheels in <build>/wheels-brian2cuda: docs/performance.md, GPU peer" if dev == "cuda_standalone" else "apt-get install python3-brian")
    r = subprocess.run([py, ex("bench", "brian2", "peer.py"), m, os.path.join(work, "brian2_" + m), str(RUNS), dev,
                        str(threads)],
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if r.returncode != 0:
        return None, "peer.py failed: " + " ".join(r.stderr.strip().splitlines()[-2:])
    return json.loads(r.stdout.strip().splitlines()[-1]), None


def mb(x):
    return "%.0f" % (x / 1048576.0) if x is not None else "-"


def num(x, fmt):
    return fmt % x if x is not None else "-"


HEAD = ["row", "neurons", "synapses", "steps", "compile s", "construct s", "simulate s", "per step us", "RTF",
        "simulate CPU s", "process CPU s",
        "syn. events/s", "peak host MiB", "peak dev MiB", "spikes"]


def cells(r):
    if r.get("error"):
        return [r["row"]] + [""] * (len(HEAD) - 2) + [r["error"]]
    if r.get("build"):   # build_row: compile s = cold wall (cached wall), process CPU s = cold CPU
        return [r["row"], "-", "-", "-", "%.2f (cached %s)" % (r["build_cold_s"], num(r.get("build_cached_s"), "%.3f")),
                "-", "-", "-", "-", "-", "%.2f" % r["build_cold_cpu_s"], "-", "-", "-", "-"]
    comp = r.get("compile_s")
    per = r["simulate_s"] / r["steps"] * 1e6 if r.get("simulate_s") is not None and r.get("steps") else None
    return [r["row"], "%d" % r["neurons"], "%.3g" % r["synapses"] if r.get("synapses") is not None else "-",
            "%d" % r["steps"], num(comp, "%.2f") + (" (cached %.2f)" % r["cached_build_s"] if r.get("cached_build_s") is not None
                                                     else " (cache hit)" if r.get("cache") == "hit" else ""),
            num(r.get("construct_s"), "%.3f"), num(r.get("simulate_s"), "%.4f"), num(per, "%.1f"), num(r.get("rtf"), "%.4g"),
            num(r.get("simulate_cpu_s"), "%.4f"), num(r.get("run_cpu_s"), "%.3f"), num(r.get("synaptic_events_per_s"), "%.3g"),
            mb(r.get("peak_host_bytes")), mb(r.get("peak_device_bytes")), "%d" % r["spikes"]]


THEAD = ["model", "threads", "construct s", "simulate s", "RTF", "speed-up", "efficiency", "Brian2 OpenMP RTF",
         "neuroc / Brian2 RTF", "spikes", "Brian2 spikes"]


def tcells(r):
    if r.get("error"):
        return [r["row"], str(r.get("threads", "")), r["error"]] + [""] * (len(THEAD) - 3)
    b = r.get("brian2_rtf")
    return [r["model"], "%d" % r["threads"], num(r.get("construct_s"), "%.3f"), num(r.get("simulate_s"), "%.4f"),
            num(r.get("rtf"), "%.4g"),
            num(r.get("speedup"), "%.2f"), num(r.get("efficiency"), "%.0f %%"), num(b, "%.4g") if b else "-",
            num(r["rtf"] / b if b and r.get("rtf") else None, "%.2f"), "%d" % r["spikes"],
            "%d" % r["brian2_spikes"] if r.get("brian2_spikes") is not None else "-"]


def threads_table(work, cache, models):
    """A row per (model, N of THREADS): the C back end's simulator with --threads N, its
    speed-up simulate_s(1) / simulate_s(N) and efficiency speed-up / N; where bench/brian2 has
    the model, Brian2 C++ standalone with OpenMP on N threads (brian2_simulate_s)."""
    rows = []
    # bench/brian2/microcircuit.py is the stored microcircuit at any scale (peer.py)
    peers = {m for m, dev in PEERS if dev == "cpp_standalone"} | {
        m for m in models if m.startswith("microcircuit_") and "proc" not in m}
    for m in models:
        exe, info, err = build(work, cache, m, "c", None, tag="-threads")
        if err:
            rows.append({"row": "threads %s/c" % m, "error": "build failed: " + " | ".join(err)})
            continue
        one = None
        for t in THREADS:
            r, rerr = run_sim(exe, work, 1 if MODELS[m][2] else RUNS, ["--threads", str(t)])
            if rerr:
                rows.append({"row": "threads %s/c" % m, "threads": t, "error": rerr})
                continue
            one = r["simulate_s"] if t == 1 else one
            r.update(row="threads %s/c" % m, model=m, threads=t)
            if one:
                r["speedup"] = one / r["simulate_s"]
                r["efficiency"] = 100.0 * r["speedup"] / t
            if m in peers and (not B2THREADS or t in B2THREADS):
                p, perr = brian2_peer(m, "cpp_standalone", work, t)
                r["brian2_simulate_s"] = p["simulate_s"] if p else None
                r["brian2_rtf"] = p["rtf"] if p else None
                r["brian2_spikes"] = p["spikes"] if p else None
                r["brian2_error"] = perr
            rows.append(r)
            print(" | ".join(tcells(r)), flush=True)
    return rows


def main():
    os.makedirs(OUT, exist_ok=True)
    work = tempfile.mkdtemp(prefix="neuroc-bench-")
    os.makedirs(os.path.join(work, "bin"))
    cache = os.path.join(work, "cache")
    rows = [x for x in ROWS if ONLY.search(row_name(*x))]
    batches = [(n, b) for n, b in INSTANCES if ONLY.search(instances_name(n, b))]
    builds = [x for x in BUILDS if ONLY.search("build %s/%s" % x)]
    scaling = [m for m in SCALING if ONLY.search("threads %s/c" % m)]
    for m in sorted({x[0] for x in rows} | ({"coba"} if batches else set()) | {x[0] for x in builds} | set(scaling)):
        write_model(work, m)
    t_start = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, JOBS)) as pool:
        futs = {pool.submit(build, work, cache, *x): x for x in rows}
        built = {futs[f]: f.result() for f in concurrent.futures.as_completed(futs)}
    out = []
    for x in rows:
        m, b, s = x
        exe, info, err = built[x]
        name = row_name(m, b, s)
        if err:
            out.append({"row": name, "error": "build failed: " + " | ".join(err)})
            print(out[-1]["row"], out[-1]["error"], flush=True)
            continue
        r, rerr = run_sim(exe, work, 1 if MODELS[m][2] else RUNS, ["--threads", "1"] if b == "c" else [])
        if rerr:
            out.append({"row": name, "error": rerr})
            print(name, rerr, flush=True)
            continue
        r["row"] = name
        r["compile_s"] = info["codegen_s"] + info["compile_s"]
        r["build_wall_s"] = info["wall_s"]
        if m.startswith("microcircuit"):   # the same model again: from the cache
            _, cinfo, cerr = build(work, cache, m, b, s, tag="-cached")
            if cinfo and cinfo["cache"] == "hit":
                r["cached_build_s"] = cinfo["wall_s"]
        out.append(r)
        print(" | ".join(cells(r)), flush=True)
    for n, b in batches:
        name = instances_name(n, b)
        exe, info, err = build(work, cache, "coba", b, None, tag="-inst")
        hlp = subprocess.run([exe, "--help"], stdout=subprocess.PIPE, universal_newlines=True).stdout if not err else ""
        if "--instances" not in hlp:
            out.append({"row": name, "error": "not run: this simulator has no --instances"})
            print(name, out[-1]["error"], flush=True)
            continue
        jobs = min(n, os.cpu_count() or 1)
        inst = os.path.join(work, "inst")
        status, wall, cpu = timed_run(["/usr/bin/timeout", str(TIMEOUT), exe, "--quiet", "--instances", str(n),
                                       "--jobs", str(jobs), "--bench", "--out", inst] + SIM_ARGS)
        if status != 0:
            out.append({"row": name, "error": "exit status %d" % status})
            continue
        reps = []
        for b in range(n):
            with open(os.path.join(inst, "instance_%d" % b, "bench.json")) as f:
                reps.append(json.load(f))
        r = dict(reps[0])
        for k in ("construct_s", "simulate_s", "simulate_cpu_s", "rtf", "synaptic_events_per_s", "peak_host_bytes",
                  "peak_device_bytes"):
            vals = [x[k] for x in reps if x.get(k) is not None]
            r[k] = statistics.median(vals) if vals else None
        with open(os.path.join(inst, "manifest.json")) as f:
            run_as = json.load(f).get("run_as", "processes")
        how = "side by side in one process" if run_as == "one process" else "%d at a time" % jobs
        r.update(row=name + " (%s)" % how, instances=n, jobs=jobs if run_as == "processes" else n,
                 rtf_max=max(x["rtf"] for x in reps),
                 spikes=sum(x["spikes"] for x in reps), batch_wall_s=wall, run_cpu_s=cpu,
                 compile_s=info["codegen_s"] + info["compile_s"], runs=1)
        out.append(r)
        print(" | ".join(cells(r)), flush=True)
    for m, b in builds:
        out.append(build_row(work, m, b))
        print(" | ".join(cells(out[-1])), flush=True)
    table = threads_table(work, cache, scaling)
    for m, dev in PEERS:
        name = "%s/brian2 %s" % (m, dev)
        if not ONLY.search(name):
            continue
        p, err = brian2_peer(m, dev, work)
        if err:
            out.append({"row": name, "error": err})
            print(name, err, flush=True)
            continue
        p.update(row=name, compile_s=p["build_s"], construct_s=None, peak_host_bytes=None, peak_device_bytes=None,
                 synaptic_events_per_s=None)
        out.append(p)
        print(" | ".join(cells(p)), flush=True)
    machine = {"mode": MODE, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t_start)),
               "host": os.uname().nodename, "cpus": os.cpu_count(),
               "device": next((r["device"] for r in out + table if r.get("device")), None),
               "neuroc": subprocess.run([NEUROC, "--version"], stdout=subprocess.PIPE,
                                        universal_newlines=True).stdout.strip(),
               "load_average": os.getloadavg()}
    with open(os.path.join(OUT, "bench.json"), "w") as f:
        json.dump({"machine": machine, "rows": out, "threads": table}, f, indent=1)
    with open(os.path.join(OUT, "bench.md"), "w") as f:
        f.write("Machine: %s (%s CPUs%s), %s, %s, load average %.1f at the start; `bench/run.sh %s`, "
                "medians of %d runs (1 for large models).\n\n"
                % (machine["device"], machine["cpus"], "" if MODE == "cpu" else ", host " + machine["host"],
                   machine["neuroc"], machine["date"], machine["load_average"][0], MODE, RUNS))
        f.write("| " + " | ".join(HEAD) + " |\n|" + " --- |" * len(HEAD) + "\n")
        for r in out:
            f.write("| " + " | ".join(cells(r)) + " |\n")
        if table:
            f.write("\nThreads (`--threads N`; Brian2: `prefs.devices.cpp_standalone.openmp_threads = N`), "
                    "speed-up and parallel efficiency of the simulation loop against one thread:\n\n")
            f.write("| " + " | ".join(THEAD) + " |\n|" + " --- |" * len(THEAD) + "\n")
            for r in table:
                f.write("| " + " | ".join(tcells(r)) + " |\n")
    print("wrote %s and %s" % (os.path.join(OUT, "bench.json"), os.path.join(OUT, "bench.md")))
    shutil.rmtree(work, ignore_errors=True)
    return 1 if any(r.get("error") and not r["error"].startswith("not run") for r in out + table) else 0


if __name__ == "__main__":
    sys.exit(main())
