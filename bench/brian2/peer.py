"""Brian2 as the peer of bench/run.sh: build a model of this folder (cuba, coba, cobahh,
hh_1e4, microcircuit_SCALE; a module's DT sets dt, default 0.1 ms) once with Brian2's C++ standalone device (CPU)
or Brian2CUDA's cuda_standalone (GPU), run its binary
RUNS times, print one JSON object.

    python3 bench/brian2/peer.py MODEL WORK_DIR RUNS [cpp_standalone|cuda_standalone [THREADS]]

THREADS (cpp_standalone): prefs.devices.cpp_standalone.openmp_threads, Brian2's OpenMP on
that many threads (default 0: OpenMP off, one thread).

Timed as neuroc's simulators are (Python start-up and `import brian2` excluded):
  build_s      network construction in Python, code generation and compilation
               (device.build(compile=True, run=False)), in a fresh folder: cold
  loop_s       Brian2's own time of the simulation loop (results/last_run_info.txt): for
               cpp_standalone with OpenMP off it is std::clock(), the process's CPU time
               during the loop (reported as simulate_cpu_s); for cuda_standalone as Brian2CUDA
               measures it (reported as simulate_s); with THREADS > 0 Brian2 measures wall
               time (omp_get_wtime), reported as simulate_s
  run_wall_s   wall time of the whole binary (construction, simulation, writing results)
  run_cpu_s    user + system CPU time of the whole binary (wait4)
each the median over RUNS runs; spikes from Brian2's SpikeMonitor after one more run.
BRIAN2_CFLAGS replaces Brian2's compiler flags (to compare at neuroc's -O2).
"""
import importlib
import json
import os
import shutil
import statistics
import sys
import time

MODEL, WORK, RUNS = sys.argv[1], os.path.abspath(sys.argv[2]), int(sys.argv[3])
DEVICE = sys.argv[4] if len(sys.argv) > 4 else "cpp_standalone"
THREADS = int(sys.argv[5]) if len(sys.argv) > 5 else 0
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
if os.environ.get("BRIAN2CUDA_PYTHONPATH"):
    # unpacked wheels (tests/gpu/run.sh, bench/run.sh; Brian2 2.10 and Brian2CUDA, for either
    # device): a site folder, so that its .pth files run (setuptools' distutils, which Brian2
    # imports and Python 3.12 no longer has)
    import site
    site.addsitedir(os.environ["BRIAN2CUDA_PYTHONPATH"])
import brian2  # noqa: E402
if DEVICE == "cuda_standalone":
    import brian2cuda  # noqa: E402,F401  (registers the device)
from brian2 import Network, defaultclock, device, ms, prefs, seed, set_device  # noqa: E402

brian2.BrianLogger.log_level_error()
shutil.rmtree(WORK, ignore_errors=True)
t0 = time.perf_counter()
set_device(DEVICE, directory=WORK, build_on_run=False)
if DEVICE == "cpp_standalone":
    prefs.devices.cpp_standalone.openmp_threads = THREADS
if DEVICE == "cuda_standalone":
    # CUDA 13's Thrust and CUB need C++17; Brian2CUDA 1.0b1 passes -std=c++11 (the last -std wins)
    prefs.devices.cuda_standalone.cuda_backend.extra_compile_args_nvcc += ["-std=c++17"]
    prefs.codegen.cpp.extra_compile_args_gcc = [
        "-std=c++17" if a == "-std=c++11" else a for a in prefs.codegen.cpp.extra_compile_args_gcc]
if os.environ.get("BRIAN2_CFLAGS"):      # instead of Brian2's -O3 -ffast-math -march=native
    prefs.codegen.cpp.extra_compile_args_gcc = os.environ["BRIAN2_CFLAGS"].split()
seed(2007)
scaled = MODEL.startswith("microcircuit_")     # microcircuit_0.1: the microcircuit at scale 0.1
mod = importlib.import_module("microcircuit" if scaled else MODEL)
if scaled:
    mod.SCALE = float(MODEL.split("_", 1)[1])
defaultclock.dt = getattr(mod, "DT", 0.1 * ms)   # a model's DT, else 0.1 ms
objs, spikes, neurons = mod.build()
net = Network(*objs)
net.run(mod.DURATION)
device.build(directory=WORK, compile=True, run=False)
build_s = time.perf_counter() - t0

wall, cpu, sim = [], [], []
for r in range(RUNS):
    s = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.chdir(WORK)
        with open(os.devnull, 'w') as null:
            os.dup2(null.fileno(), 1)
        os.execv('./main', ['./main'])
    _, status, ru = os.wait4(pid, 0)
    wall.append(time.perf_counter() - s)
    if status != 0:
        sys.exit("peer.py: %s/main failed (status %d)" % (WORK, status))
    cpu.append(ru.ru_utime + ru.ru_stime)
    with open(os.path.join(WORK, 'results', 'last_run_info.txt')) as f:
        sim.append(float(f.read().split()[0]))
device.run(WORK, with_output=False, run_args=[])
duration = float(mod.DURATION)
loop = statistics.median(sim)
print(json.dumps({
    "model": MODEL, "peer": "brian2 %s %s" % (brian2.__version__, DEVICE),
    "compiler_flags": " ".join(prefs.codegen.cpp.extra_compile_args_gcc),
    "neurons": neurons, "synapses": int(sum(len(o) for o in objs if isinstance(o, brian2.Synapses))),
    "steps": int(round(duration / float(defaultclock.dt))), "dt_ms": float(defaultclock.dt / ms),
    "build_s": build_s, "threads": THREADS or 1,
    "simulate_cpu_s": loop if DEVICE == "cpp_standalone" and not THREADS else None,
    "simulate_s": None if DEVICE == "cpp_standalone" and not THREADS else loop,
    "rtf": None if DEVICE == "cpp_standalone" and not THREADS else loop / duration,
    "run_wall_s": statistics.median(wall), "run_cpu_s": statistics.median(cpu),
    "spikes": int(spikes.num_spikes), "runs": RUNS}))
