#!/usr/bin/env python3
"""Exercise every e2e checker before the compiler exists: for each case, write a synthetic
output folder that follows the contract (built from the checker's own reference or from
random data with the right statistics) and expect PASS, then write corrupted variants
(typical simulator bugs) and expect FAIL. Standard library only; ~20 s.
Usage: selftest_checkers.py [case ...]"""

import math
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import nrtio  # noqa: E402
import check_lif_const as lif  # noqa: E402
import check_exact_linear as exl  # noqa: E402
import check_hh as hh  # noqa: E402
import check_izhikevich as izh  # noqa: E402
import check_poisson as poi  # noqa: E402
import check_spike_array as sa  # noqa: E402


def manifest(model, dt, steps, pops, recs):
    return {"model": model, "dt_ms": dt, "seed": 1, "total_steps": steps, "completed_steps": steps,
            "interrupted": False,
            "populations": [{"name": n, "size": s, "spikes": k} for n, s, k in pops],
            "recordings": recs}


def rec_spikes(f, pop, size):
    return {"file": f, "format": f.rsplit(".", 1)[1], "kind": "spikes", "population": pop,
            "population_size": size}


def rec_state(f, pop, size, variables, units, neurons, every, dt, rows):
    return {"file": f, "format": f.rsplit(".", 1)[1], "kind": "state", "population": pop,
            "population_size": size, "variables": variables, "units": units, "neurons": neurons,
            "every_steps": every, "dt_ms": dt, "rows": rows, "shape": [rows]}


# ---------------------------------------------------------------- lif_const
def gen_lif(d, variant):
    n_ref = 20 if variant != "refractory19" else 19
    steps_all, traces = [], {}
    for i in range(lif.N):
        s, tr, _ = lif.reference(lif.I_E[i], n_ref)
        if variant == "late_spike" and i == 2:
            s = s[:5] + [s[5] + 1] + s[6:]
        steps_all += [(x, i) for x in s]
        traces[i] = [v * (1 + 1e-13) for v in tr]
    if variant == "float_like":
        traces[3] = [v * (1 + 3e-8) for v in traces[3]]
    steps_all.sort()
    nrtio.write_spikes(os.path.join(d, "lif_spikes.csv"), [(s + 1) * lif.DT for s, _ in steps_all],
                       [i for _, i in steps_all])
    times = [(k + 1) * lif.DT for k in range(lif.STEPS)]
    nrtio.write_state(os.path.join(d, "lif_V.csv"), times, ["V"], [0, 3], {"V": {0: traces[0], 3: traces[3]}})
    nrtio.write_manifest(d, manifest("lif_const", lif.DT, lif.STEPS, [("P", 5, len(steps_all))],
                                     [rec_spikes("lif_spikes.csv", "P", 5),
                                      rec_state("lif_V.csv", "P", 5, ["V"], ["mV"], [0, 3], 1, lif.DT, lif.STEPS)]))


# ---------------------------------------------------------------- exact_linear
def gen_exact(d, variant):
    times = [(k + 1) * exl.DT for k in range(exl.STEPS)]
    data = {v: {} for v in ("x", "y", "h", "g")}
    for n in exl.NEURONS:
        for v in data:
            data[v][n] = []
        for k, t in enumerate(times):
            ref, env = exl.analytic(n, t)
            for v in data:
                val = ref[v] * (1 + 1e-13)
                if variant == "rk4_like" and v == "g":
                    val = ref[v] * (1 + 1e-7 * math.sin(k))
                if variant == "off_by_one_step":
                    val = exl.analytic(n, t - exl.DT)[0][v]
                data[v][n].append(val)
    nrtio.write_state(os.path.join(d, "exact.npy"), times, ["x", "y", "h", "g"], exl.NEURONS, data)
    nrtio.write_manifest(d, manifest("exact_linear", exl.DT, exl.STEPS, [("R", 3, 0)],
                                     [rec_state("exact.npy", "R", 3, ["x", "y", "h", "g"], ["mV", "mV", "1", "1"],
                                                exl.NEURONS, 1, exl.DT, exl.STEPS)]))


# ---------------------------------------------------------------- hh
def _hh_model_run(dt=0.01, steps=10000):
    """RK4 at the model's dt: spikes at the end of the crossing step, V every 10 steps."""
    v = -65.0
    am, bm, ah, bh, an, bn = hh.rates(v)
    m, h, n = am / (am + bm), ah / (ah + bh), an / (an + bn)
    spikes, vs = [], []
    for s in range(steps):
        k1 = hh.deriv(v, m, h, n, hh.I_EXT)
        k2 = hh.deriv(v + .5 * dt * k1[0], m + .5 * dt * k1[1], h + .5 * dt * k1[2], n + .5 * dt * k1[3], hh.I_EXT)
        k3 = hh.deriv(v + .5 * dt * k2[0], m + .5 * dt * k2[1], h + .5 * dt * k2[2], n + .5 * dt * k2[3], hh.I_EXT)
        k4 = hh.deriv(v + dt * k3[0], m + dt * k3[1], h + dt * k3[2], n + dt * k3[3], hh.I_EXT)
        vn = v + dt / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        m += dt / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        h += dt / 6 * (k1[2] + 2 * k2[2] + 2 * k3[2] + k4[2])
        n += dt / 6 * (k1[3] + 2 * k2[3] + 2 * k3[3] + k4[3])
        if v < 0.0 <= vn:
            spikes.append((s + 1) * dt)
        v = vn
        if (s + 1) % 10 == 0:
            vs.append(v)
    return spikes, vs


def gen_hh(d, variant):
    spikes, vs = _hh_model_run()
    if variant == "missing_spike":
        spikes = spikes[:-1]
    if variant == "late_by_3_steps":
        spikes = [t + 0.03 for t in spikes]
    nrtio.write_spikes(os.path.join(d, "hh_spikes.csv"), spikes, [0] * len(spikes))
    nrtio.write_state(os.path.join(d, "hh_V.csv"), [(k + 1) * 0.1 for k in range(len(vs))], ["V"], [0],
                      {"V": {0: vs}})
    nrtio.write_manifest(d, manifest("hh", 0.01, 10000, [("cells", 1, len(spikes))],
                                     [rec_spikes("hh_spikes.csv", "cells", 1),
                                      rec_state("hh_V.csv", "cells", 1, ["V"], ["mV"], [0], 10, 0.01, len(vs))]))


# ---------------------------------------------------------------- izhikevich
def gen_izh(d, variant):
    sub = 1 if variant == "one_substep" else 2
    v, u = -65.0, izh.B * -65.0
    steps, V, U = [], [], []
    for s in range(izh.STEPS):
        v, u = izh.scheme_step(v, u, izh.DT, sub, variant == "joint_u")
        if v >= izh.V_PEAK:
            steps.append(s)
            v, u = izh.C, u + izh.D
        if (s + 1) % 10 == 0:
            V.append(v)
            U.append(u)
    nrtio.write_spikes(os.path.join(d, "izh_spikes.csv"), [(s + 1) * izh.DT for s in steps], [0] * len(steps))
    nrtio.write_state(os.path.join(d, "izh_VU.csv"), [(k + 1) * 1.0 for k in range(len(V))], ["V", "U"], [0],
                      {"V": {0: V}, "U": {0: U}})
    nrtio.write_manifest(d, manifest("izhikevich", izh.DT, izh.STEPS, [("n", 1, len(steps))],
                                     [rec_spikes("izh_spikes.csv", "n", 1),
                                      rec_state("izh_VU.csv", "n", 1, ["V", "U"], ["mV", "mV"], [0], 10, izh.DT,
                                                len(V))]))


# ---------------------------------------------------------------- poisson
def gen_poisson(d, variant):
    rng = random.Random(7)
    p = poi.P * (1.1 if variant == "rate_10pct_high" else 1.0)
    lg = math.log(1.0 - p)
    ev = []
    shared = None
    for i in range(poi.N):
        if variant == "shared_stream" and shared is not None:
            ev.extend((s, i) for s in shared)
            continue
        s, mine = -1, []
        while True:
            s += 1 + int(math.log(1.0 - rng.random()) / lg)     # geometric gap, support 1, 2, ...
            if s >= poi.STEPS:
                break
            mine.append(s)
        ev.extend((x, i) for x in mine)
        if variant == "shared_stream":
            shared = mine
    ev.sort()
    nrtio.write_spikes(os.path.join(d, "poisson_spikes.npy"), [(s + 1) * poi.DT for s, _ in ev], [i for _, i in ev])
    nrtio.write_manifest(d, manifest("poisson", poi.DT, poi.STEPS, [("P", poi.N, len(ev))],
                                     [rec_spikes("poisson_spikes.npy", "P", poi.N)]))


# ---------------------------------------------------------------- delay
def gen_delay(d, variant):
    extra = 1 if variant == "delay_plus_one" else 0
    nrtio.write_spikes(os.path.join(d, "delay_src.csv"), [5.0], [0])
    data = {"x": {}}
    for j in range(5):
        arr = 49 + 2 + 3 * j + extra
        data["x"][j] = [0.0 if s < arr else 1.0 + j for s in range(100)]
    times = [(s + 1) * 0.1 for s in range(100)]
    nrtio.write_state(os.path.join(d, "delay_x.csv"), times, ["x"], list(range(5)), data)
    arr1 = 49 + (0 if variant == "zero_delay_allowed" else 1)
    nrtio.write_state(os.path.join(d, "delay_x1.csv"), times, ["x"], [0],
                      {"x": {0: [0.0 if s < arr1 else 7.0 for s in range(100)]}})
    nrtio.write_manifest(d, manifest("delay", 0.1, 100, [("src", 1, 1), ("dst", 5, 0), ("dst1", 1, 0)],
                                     [rec_spikes("delay_src.csv", "src", 1),
                                      rec_state("delay_x.csv", "dst", 5, ["x"], ["mV"], list(range(5)), 1, 0.1, 100),
                                      rec_state("delay_x1.csv", "dst1", 1, ["x"], ["mV"], [0], 1, 0.1, 100)]))


# ---------------------------------------------------------------- cuba / coba (synthetic statistics)
def gen_va(kind, d, variant):
    rng = random.Random(11)
    rate = {"cuba": 5.7, "coba": 19.0}[kind]
    if variant == "runaway":
        rate = 150.0
    mean_isi = 1000.0 / rate
    ev = []
    for i in range(4000):
        t = rng.uniform(0, mean_isi)
        while t < 1000.0:
            s = int(t / 0.1)
            if variant == "dies_at_500ms" and t > 500.0:
                break
            ev.append((s, i))
            if kind == "cuba":                    # gamma(4): CV 0.5
                isi = rng.gammavariate(4.0, mean_isi / 4.0)
            else:                                 # lognormal with CV 1.5
                sig = math.sqrt(math.log(1 + 1.5 ** 2))
                isi = rng.lognormvariate(math.log(mean_isi) - sig * sig / 2, sig)
            t += max(isi, 5.1)
    ev.sort()
    ev = sorted(set(ev))
    f = "%s_spikes.npy" % kind
    nrtio.write_spikes(os.path.join(d, f), [(s + 1) * 0.1 for s, _ in ev], [i for _, i in ev])
    nb = [0, 1, 3200]
    vals = {"V": {n: [-60.0 + 9.9 * rng.random() for _ in range(10000)] for n in nb}}
    tf = "%s_V.csv" % kind
    nrtio.write_state(os.path.join(d, tf), [(s + 1) * 0.1 for s in range(10000)], ["V"], nb, vals)
    nrtio.write_manifest(d, manifest(kind, 0.1, 10000, [("P", 4000, len(ev))],
                                     [rec_spikes(f, "P", 4000),
                                      rec_state(tf, "P", 4000, ["V"], ["mV"], nb, 1, 0.1, 10000)]))


# ---------------------------------------------------------------- spike_array
def gen_spike_array(d, variant):
    exp = sa.expected()
    if variant == "one_file":                   # b replays a's file (one file per model)
        exp["b.npy"] = list(exp["a.csv"])
    if variant == "repeat_fires_twice":         # 0.5 ms listed twice fires twice
        exp["b.npy"] = sorted(exp["b.npy"] + [(5, 4)])
    _, ref = sa.replay(exp)
    pops = {"a.csv": ("a", 4), "b.npy": ("b", 6)}
    recs = []
    for f, spikes in sorted(exp.items()):
        nrtio.write_spikes(os.path.join(d, f), [(s + 1) * sa.DT for s, _ in spikes], [i for _, i in spikes])
        recs.append(rec_spikes(f, *pops[f]))
    times = [(s + 1) * sa.DT for s in range(sa.STEPS)]
    nrtio.write_state(os.path.join(d, "v.csv"), times, ["V"], [0], {"V": {0: ref}})
    recs.append(rec_state("v.csv", "cell", 1, ["V"], ["mV"], [0], 1, sa.DT, sa.STEPS))
    counts = [(pops[f][0], pops[f][1], len(exp[f])) for f in sorted(exp)] + [("cell", 1, 0)]
    nrtio.write_manifest(d, manifest("spike_array", sa.DT, sa.STEPS, counts, recs))


CASES = {
    "lif_const": ("check_lif_const.py", gen_lif, ["late_spike", "refractory19", "float_like"]),
    "exact_linear": ("check_exact_linear.py", gen_exact, ["rk4_like", "off_by_one_step"]),
    "hh": ("check_hh.py", gen_hh, ["missing_spike", "late_by_3_steps"]),
    "izhikevich": ("check_izhikevich.py", gen_izh, ["one_substep", "joint_u"]),
    "poisson": ("check_poisson.py", gen_poisson, ["rate_10pct_high", "shared_stream"]),
    "delay": ("check_delay.py", gen_delay, ["delay_plus_one", "zero_delay_allowed"]),
    "cuba": ("check_cuba.py", lambda d, v: gen_va("cuba", d, v), ["dies_at_500ms", "runaway"]),
    "coba": ("check_coba.py", lambda d, v: gen_va("coba", d, v), ["dies_at_500ms", "runaway"]),
    "spike_array": ("check_spike_array.py", gen_spike_array, ["one_file", "repeat_fires_twice"]),
}


def main():
    names = sys.argv[1:] or list(CASES)
    base = tempfile.mkdtemp(prefix="e2e_checker_selftest_")
    problems = []
    for name in names:
        checker, gen, bad_variants = CASES[name]
        for variant in ["good"] + bad_variants:
            d = os.path.join(base, name, variant)
            os.makedirs(d)
            gen(d, variant)
            r = subprocess.run([sys.executable, os.path.join(HERE, checker), d],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
            want_pass = variant == "good"
            ok = (r.returncode == 0) == want_pass
            print("%-4s %-13s %-20s checker exit %d (expected %s)"
                  % ("ok" if ok else "FAIL", name, variant, r.returncode, "0" if want_pass else "non-zero"))
            if not ok:
                problems.append((name, variant))
                print(r.stdout)
    shutil.rmtree(base, ignore_errors=True)
    if problems:
        print("selftest_checkers: %d problem(s): %s" % (len(problems), problems))
        return 1
    print("selftest_checkers: every checker passes its good output and rejects every bad variant")
    return 0


if __name__ == "__main__":
    sys.exit(main())
