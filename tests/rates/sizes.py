"""tests/rates: recording sizes (docs/cli.md §3.9) of models/tick.neuro.

usage: sizes.py NEUROC WORKDIR [--backend B]

- `neuroc --explain` and the simulator's `--dry-run` list every recording with the same
  rows and bytes; after the run, each .npy state or rate file has exactly the bytes both
  said, each .csv at most that, and the spike file is labelled an estimate;
- the free-space check: with $NEUROC_FREE_BYTES one byte short of the state and rate
  recordings the simulator refuses (status 1, the message, no recording written); with
  exactly enough it runs; --ignore-free-space runs anyway;
- --max-record-size: a warning above it (none at the default 1 GiB, none with off), a bad
  size is a bad command line (status 2); --explain's warning above 1 GiB.
"""
import os
import re
import shutil
import subprocess
import sys

neuroc, work = sys.argv[1], sys.argv[2]
extra = sys.argv[3:]
here = os.path.dirname(os.path.abspath(__file__))
model = os.path.join(here, "models", "tick.neuro")
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
sim = os.path.join(work, "sim")
fails = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        fails.append(what)


def run(args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run(args, capture_output=True, text=True, env=e)


if "cuda" in extra and not (shutil.which("nvcc") or os.path.exists("/usr/local/cuda/bin/nvcc") or os.environ.get("NVCC")):
    print("skipped: no nvcc (CUDA toolkit not installed)")
    sys.exit(77)
r = run([neuroc, model, "-o", sim] + extra)
if r.returncode != 0:
    print(r.stderr)
    sys.exit(1)
if "--backend" in extra:
    dev = run([sim, "--list-devices"])
    if dev.returncode != 0 or not dev.stdout.strip():
        print("skipped: no device for %s" % extra)
        sys.exit(77)

ex = run([neuroc, "--explain", model] + extra)
explain = {m.group(1): (m.group(2), float(m.group(3)), float(m.group(4)), m.group(5))
           for m in re.finditer(r"^recording (\S+): (\w+), (\d+) rows, (\d+) bytes \([\d.]+ MiB, ([^)]+)\)$",
                                ex.stdout, re.M)}
dry = run([sim, "--dry-run", "--out", os.path.join(work, "out")], {"NEUROC_FREE_BYTES": "123456789"})
check(dry.returncode == 0, "--dry-run exits with 0")
plan = {m.group(1): (m.group(2), float(m.group(3)), float(m.group(4)), m.group(5))
        for m in re.finditer(r"^  (\S+) +(spikes|state|rate) +(\d+) rows +(\d+) bytes +\([^,]+, ([^)]+)\)$",
                             dry.stdout, re.M)}
check("  free space: 123456789 bytes" in dry.stdout, "--dry-run prints the free space ($NEUROC_FREE_BYTES)")
check(not os.path.exists(os.path.join(work, "out")), "--dry-run writes nothing")
files = ["spikes.npy", "rate_all.npy", "rate_mid.csv", "rate_one.npy", "rate_last.csv", "rate_mid7.npy",
         "rate_none.npy", "c.npy", "c.csv"]
check(sorted(explain) == sorted(files), "--explain lists every recording: %s" % sorted(explain))
check(explain == plan, "--explain and --dry-run give the same rows, bytes and labels")

out = os.path.join(work, "out")
r = run([sim, "--quiet", "--out", out])
check(r.returncode == 0 and "warning" not in r.stderr, "the run, with no warning at the default --max-record-size")
sure = 0
for f in files:
    kind, rows, size, how = plan[f]
    real = os.path.getsize(os.path.join(out, f))
    if f.endswith(".npy") and kind != "spikes":
        check(how == "exact" and real == size, "%s: %d bytes, exactly as planned (%d)" % (f, real, size))
    elif kind != "spikes":
        check(how == "at most" and real <= size, "%s: %d bytes, at most the %d planned" % (f, real, size))
    else:
        check(how == "estimate at 10 Hz", "%s: an estimate (%d planned, %d written)" % (f, size, real))
    if kind != "spikes":
        sure += size

refused = os.path.join(work, "refused")
r = run([sim, "--quiet", "--out", refused], {"NEUROC_FREE_BYTES": str(int(sure) - 1)})
check(r.returncode == 1 and "more than the" in r.stderr and "--ignore-free-space" in r.stderr,
      "one byte short: status 1 and %r" % r.stderr.strip())
check(not any(f in os.listdir(refused) for f in files), "a refused run writes no recording")
r = run([sim, "--quiet", "--out", os.path.join(work, "fits")], {"NEUROC_FREE_BYTES": str(int(sure))})
check(r.returncode == 0, "exactly enough free space: the run goes on")
r = run([sim, "--quiet", "--ignore-free-space", "--out", os.path.join(work, "forced")], {"NEUROC_FREE_BYTES": "0"})
check(r.returncode == 0 and os.path.exists(os.path.join(work, "forced", "rate_all.npy")),
      "--ignore-free-space runs with no free space")
r = run([sim, "--quiet", "--max-record-size", "1K", "--out", os.path.join(work, "warned")])
check(r.returncode == 0 and "warning: the recordings will take about" in r.stderr and "--max-record-size 1.0 KiB" in r.stderr,
      "above --max-record-size: %r" % r.stderr.strip())
r = run([sim, "--quiet", "--max-record-size=off", "--out", os.path.join(work, "off")])
check(r.returncode == 0 and "warning" not in r.stderr, "--max-record-size=off: no warning")
r = run([sim, "--quiet", "--max-record-size", "12Q", "--out", os.path.join(work, "bad")])
check(r.returncode == 2 and "invalid size '12Q'" in r.stderr, "a bad size: status 2, %r" % r.stderr.strip())
# --explain warns when the recordings pass 1 GiB: 100000 neurons' c every step for 2000 steps
# and the row at t = 0
big = os.path.join(work, "big.neuro")
with open(model) as f, open(big, "w") as g:
    g.write(f.read().replace("Tick[20]", "Tick[100000]").replace("run 10.5 ms", "record c of T to \"all_c.npy\"\nrun 200 ms"))
ex = run([neuroc, "--explain", big] + extra)
check(re.search(r"^recording all_c.npy: state, 2001 rows, 1600816\d{3} bytes \(1526\.7 MiB, exact\)$", ex.stdout, re.M)
      and re.search(r"^warning \d+: the recordings will take about 1\.4\d GiB", ex.stdout, re.M),
      "--explain: a 1.5 GiB state recording and the warning")
print("fails: %d" % len(fails))
sys.exit(1 if fails else 0)
