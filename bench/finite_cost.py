"""The cost of the default state check (docs/robustness.md, docs/performance.md): each model
is built once per back end, then the same simulator runs with the check as it is by default
and with --check-finite=off, alternately, RUNS times each (plus, once built with
`neuroc --no-check-finite`, the program without the check's code). Prints the median RTF of
each and the default's cost over off; writes OUT/finite_cost.json.

    python3 bench/finite_cost.py NEUROC OUT [cuda|opencl|c ...]

Environment: RUNS (default 5), ONLY (regex of model names), SCALE_MC (the microcircuit's
scale, default 1), KS (other intervals to time, e.g. "1 100": --check-finite=K).
"""
import json
import os
import re
import statistics
import subprocess
import sys

NEUROC, OUT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
BACKENDS = sys.argv[3:] or ["cuda"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = int(os.environ.get("RUNS", "5"))
KS = os.environ.get("KS", "").split()
ONLY = re.compile(os.environ.get("ONLY", "."))
MODELS = {
    "cuba": (os.path.join(ROOT, "examples", "cuba.neuro"), []),
    "coba": (os.path.join(ROOT, "examples", "coba.neuro"), []),
    "microcircuit": (os.path.join(ROOT, "examples", "microcircuit.neuro"),
                     [(r"(?m)^const scale = 1$", "const scale = %s" % os.environ.get("SCALE_MC", "1"))]),
}


def build(name, backend, extra):
    src, subs = MODELS[name]
    text = open(src).read()
    for a, b in subs:
        text = re.sub(a, b, text)
    d = os.path.join(OUT, "%s_%s%s" % (name, backend, "_nocheck" if extra else ""))
    os.makedirs(d, exist_ok=True)
    model = os.path.join(os.path.dirname(src), ".fc_%s.neuro" % name)
    with open(model, "w") as f:
        f.write(text)
    try:
        subprocess.run([NEUROC, model, "--backend", backend, "-o", os.path.join(d, "sim")] + extra,
                       check=True, stdout=subprocess.DEVNULL, env=dict(os.environ, NEUROC_CACHE="off"))
    finally:
        os.remove(model)
    return os.path.join(d, "sim")


def rtf(sim, args):
    r = subprocess.run([sim, "--bench", "--quiet", "--out", os.path.join(os.path.dirname(sim), "o")] + args,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True)
    text = r.stdout + r.stderr
    m = re.search(r'"rtf": ([0-9.eE+-]+)', text)
    k = re.search(r'"check_finite": ([0-9]+)', text)
    return float(m.group(1)), int(k.group(1)) if k else None


rows = []
for backend in BACKENDS:
    for name in MODELS:
        if not ONLY.search(name):
            continue
        sim, bare = build(name, backend, []), build(name, backend, ["--no-check-finite"])
        t = {"default": [], "off": [], "no code": []}
        t.update({"K=" + k: [] for k in KS})
        every = None
        for _ in range(RUNS):
            x, every = rtf(sim, [])
            t["default"].append(x)
            t["off"].append(rtf(sim, ["--check-finite=off"])[0])
            t["no code"].append(rtf(bare, [])[0])
            for k in KS:
                t["K=" + k].append(rtf(sim, ["--check-finite=" + k])[0])
        med = {k: statistics.median(v) for k, v in t.items()}
        row = {"model": name, "backend": backend, "check_every": every, "runs": RUNS, "rtf": t,
               "median": med, "cost_vs_off": med["default"] / med["off"] - 1,
               "cost_vs_no_code": med["default"] / med["no code"] - 1}
        rows.append(row)
        print("%-13s %-7s K=%-3s RTF default %.5f  off %.5f  no code %.5f  cost %+.1f %% (vs no code %+.1f %%)" % (
            name, backend, every, med["default"], med["off"], med["no code"], 100 * row["cost_vs_off"],
            100 * row["cost_vs_no_code"]) + "".join("  K=%s %+.1f %%" % (k, 100 * (med["K=" + k] / med["off"] - 1))
                                                    for k in KS), flush=True)
with open(os.path.join(OUT, "finite_cost.json"), "w") as f:
    json.dump(rows, f, indent=1)
