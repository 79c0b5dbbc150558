#!/usr/bin/env python3
"""Checker for examples/cobahh.neuro (Brette et al. 2007 benchmark 3, Brian2 COBAHH), at any
`scale` (constant in-degree).

Reference: reference/cobahh_ref.c, an independent C implementation of the same network under
the same step contract with its own random numbers. The network is chaotic; its statistics
vary from seed to seed. Reference runs (E rate, I rate, mean ISI CV, active fraction):
  full size, seeds 1-7: E 41.6 32.5 38.3 38.2 41.9 31.3 31.9 Hz (mean 36.5);
                        I 37.9 33.7 36.4 37.0 37.8 33.3 34.4 Hz; CV 2.02-2.12; active 0.87-0.93
  scale 0.25, seeds 1-3: E 31.8 41.3 27.1 Hz; I 33.0 35.5 29.6 Hz; CV 1.81-2.10; active 0.83-0.91
neuroc itself, full size, seeds 2007 (the model's) and 11-14: E 31.5 35.4 34.3 42.5 40.2 Hz
(mean 36.8), I 33.8 35.5 35.1 38.4 37.4 Hz, CV 2.05-2.12, active 0.89-0.90.

Checks: E and I rates over the second within 30 % of 36.5 Hz (the reference mean; the
seed-to-seed spread is +-15 %); every 100 ms window above 10 Hz (the self-sustained
activity must not stop; it did in no run of either program); mean ISI CV
(neurons with >= 5 spikes in 1 s) in [1.6, 2.5] (bursty firing; Poisson-like would be 1);
at least 75 % of the neurons fire.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import spikestats as ss  # noqa: E402
from spikestats import nrtio  # noqa: E402

REF = 36.5


def main(out):
    chk = nrtio.Checker("cobahh")
    man = nrtio.load_manifest(out)
    nrtio.check_manifest(chk, man, dt=0.1)
    n = man["populations"][0]["size"]
    ne = n * 4 // 5
    sp = nrtio.load_spikes(os.path.join(out, "cobahh_spikes.npy"))
    for nm, lo, hi in (("E", 0, ne), ("I", ne, n)):
        r = ss.mean_rate(ss.by_neuron(sp.t, sp.i, lo, hi, 0.0, 1000.0), hi - lo, 1000.0)
        chk.check(abs(r - REF) <= 0.3 * REF, "%s rate (Hz)" % nm,
                  "%.1f +-30%%" % REF, "%.2f" % r)
    for w0 in range(0, 1000, 100):
        c = sum(1 for t in sp.t if w0 <= t < w0 + 100)
        r = c / (n * 0.1)
        chk.check(r > 10.0, "rate in [%d, %d) ms" % (w0, w0 + 100), "> 10 Hz", "%.1f" % r)
    trains = ss.by_neuron(sp.t, sp.i, 0, n, 0.0, 1000.0)
    cv, ncv = ss.mean_cv(trains)
    chk.check(1.6 <= cv <= 2.5, "mean ISI CV (%d neurons)" % ncv, "[1.6, 2.5]", "%.3f" % cv)
    act = len(trains) / float(n)
    chk.check(act >= 0.75, "fraction of neurons that fire", ">= 0.75", "%.3f" % act)
    return chk.finish()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: check_cobahh.py OUTDIR")
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
