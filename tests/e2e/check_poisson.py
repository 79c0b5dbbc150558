#!/usr/bin/env python3
"""Checker for models/poisson.neuro: 1000 Bernoulli-per-step Poisson sources, 20 Hz, dt 0.1 ms.

Each neuron spikes in each step independently with p = rate*dt = 0.002. Expected:
 * total count ~ Binomial(n = 1000 * 100000, p): within 4 sigma of n p = 200000 (sigma ~ 447);
 * each neuron's count ~ Binomial(100000, p) (mean 200, sd 14.1): within 6 sd (Bonferroni
   over 1000 neurons: false-alarm probability ~ 2e-6 per run);
 * ISIs are geometric: CV = sqrt(1 - p) = 0.999; pooled CV within 0.03;
 * counts in 100 ms windows ~ Binomial(1000, p): Fano factor 1 - p = 0.998, within 0.1;
 * population counts in 1 ms bins ~ Binomial(10000, p): Fano 0.998 within 0.1 (neurons
   must use independent random streams; a shared stream gives a Fano factor ~ 1000);
 * at most one spike per neuron and step, all times on the grid, indices in 0..999.
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nrtio  # noqa: E402

DT = 0.1
STEPS = 100000
N = 1000
RATE_HZ = 20.0
P = RATE_HZ * 1e-3 * DT


def fano(counts):
    m = sum(counts) / len(counts)
    v = sum((c - m) ** 2 for c in counts) / (len(counts) - 1)
    return v / m if m > 0 else float("nan")


def main():
    run = nrtio.open_run("poisson", STEPS, DT)
    if run is None:
        return 2
    out, chk, man = run
    sp = nrtio.load_recording(out, "poisson_spikes.npy", man)
    steps = sp.steps(DT)
    on_grid = all(abs(t / DT - (s + 1)) < 1e-6 for t, s in zip(sp.t, steps))
    chk.check(on_grid, "spike times on the grid", "(s+1)*dt", "ok" if on_grid else "off-grid times")
    bad_idx = [i for i in sp.i if not 0 <= i < N]
    chk.check(not bad_idx, "indices in range", "0..%d" % (N - 1), "%d out of range" % len(bad_idx))
    bad_step = [s for s in steps if not 0 <= s < STEPS]
    chk.check(not bad_step, "steps in range", "0..%d" % (STEPS - 1), "%d out of range" % len(bad_step))
    pairs = set(zip(sp.i, steps))
    chk.check(len(pairs) == len(steps), "at most one spike per neuron and step", len(steps), len(pairs))

    n_trials = N * STEPS
    mu, sd = n_trials * P, math.sqrt(n_trials * P * (1 - P))
    total = len(sp)
    chk.check(abs(total - mu) <= 4 * sd, "total spike count", "%.0f +- %.0f (4 sigma)" % (mu, 4 * sd),
              "%d (%.2f Hz, z = %+.2f)" % (total, total / N / (STEPS * DT * 1e-3), (total - mu) / sd))
    pops = man.get("populations", [])
    if pops:
        chk.check(pops[0].get("spikes") == total, "manifest spike count of P", total, pops[0].get("spikes"))

    counts = [0] * N
    for i in sp.i:
        if 0 <= i < N:
            counts[i] += 1
    m1, s1 = STEPS * P, math.sqrt(STEPS * P * (1 - P))
    lo, hi = m1 - 6 * s1, m1 + 6 * s1
    outliers = [(i, c) for i, c in enumerate(counts) if not lo <= c <= hi]
    chk.check(not outliers, "per-neuron counts", "all in [%.0f, %.0f]" % (lo, hi),
              "min %d, max %d, outliers %s" % (min(counts), max(counts), outliers[:5]))

    by = [[] for _ in range(N)]
    for i, s in zip(sp.i, steps):
        if 0 <= i < N:
            by[i].append(s)
    isi = []
    for l in by:
        l.sort()
        isi.extend((b - a) * DT for a, b in zip(l, l[1:]))
    if isi:
        m = sum(isi) / len(isi)
        cv = math.sqrt(sum((x - m) ** 2 for x in isi) / len(isi)) / m
    else:
        cv = float("nan")
    chk.check(abs(cv - math.sqrt(1 - P)) <= 0.03, "pooled ISI CV", "%.4f +- 0.03" % math.sqrt(1 - P),
              "%.4f over %d ISIs" % (cv, len(isi)))

    win = int(round(100.0 / DT))
    wc = []
    for l in by:
        c = [0] * (STEPS // win)
        for s in l:
            c[s // win] += 1
        wc.extend(c)
    fw = fano(wc)
    chk.check(abs(fw - (1 - P)) <= 0.1, "Fano factor, 100 ms windows per neuron", "%.3f +- 0.1" % (1 - P),
              "%.4f" % fw)
    pb = int(round(1.0 / DT))
    pc = [0] * (STEPS // pb)
    for s in steps:
        if 0 <= s < STEPS:
            pc[s // pb] += 1
    fp = fano(pc)
    chk.check(abs(fp - (1 - P)) <= 0.1, "Fano factor, population count in 1 ms bins",
              "%.3f +- 0.1" % (1 - P), "%.4f" % fp)
    return chk.finish()


if __name__ == "__main__":
    sys.exit(main())
