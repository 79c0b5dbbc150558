#!/usr/bin/env python3
"""Checker for examples/izhikevich.neuro (Izhikevich 2003, 1000 neurons, 1 s).

Reference: izhikevich_ref.py, an independent pure-Python implementation of the same network
under neuroc's step contract with Python's random numbers and the 2003 program's integration
scheme (seeds 1-4: E 7.89, 7.85, 7.40, 8.04 Hz; I 7.22, 7.21, 7.45, 8.04 Hz; means E 7.80,
I 7.48 Hz, seed-to-seed spread +-7 %). Before issue 27 both the model and this reference
advanced U in the two half-steps with V: E 8.45, I 8.78 Hz (I 17 % above the program's).
The networks are chaotic, so only statistics can agree.

Checks: mean E and I rates within 15 % of the reference means (2.5x the seed-to-seed spread);
the population activity oscillates: the spectrum of the E population count (1 ms bins) has its
largest peak between 5 and 60 Hz and that peak holds > 3x the mean power (Izhikevich's
alpha/gamma rhythms; an asynchronous network has a flat spectrum).
"""
import cmath
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from spikestats import nrtio  # noqa: E402

REF_E, REF_I = 7.80, 7.48


def main(out):
    chk = nrtio.Checker("izhikevich_net")
    man = nrtio.load_manifest(out)
    nrtio.check_manifest(chk, man, model_steps=1000, dt=1.0)
    e = nrtio.load_spikes(os.path.join(out, "izh_E_spikes.npy"))
    i = nrtio.load_spikes(os.path.join(out, "izh_I_spikes.npy"))
    re_, ri = len(e.t) / 800.0, len(i.t) / 200.0
    chk.check(abs(re_ - REF_E) <= 0.15 * REF_E, "E rate (Hz)", "%.2f +-15%%" % REF_E, "%.2f" % re_)
    chk.check(abs(ri - REF_I) <= 0.15 * REF_I, "I rate (Hz)", "%.2f +-15%%" % REF_I, "%.2f" % ri)
    counts = [0.0] * 1000
    for t in e.t:
        b = int(t) - 1
        if 0 <= b < 1000:
            counts[b] += 1
    seg = counts[100:]
    m = sum(seg) / len(seg)
    x = [c - m for c in seg]
    n = len(x)
    power = []
    for k in range(1, n // 2):
        s = sum(x[j] * cmath.exp(-2j * math.pi * k * j / n) for j in range(n))
        power.append((abs(s) ** 2, k * 1000.0 / n))
    mean_p = sum(p for p, _ in power) / len(power)
    top = max(power)
    chk.check(5.0 <= top[1] <= 60.0 and top[0] > 3 * mean_p, "spectral peak of E activity",
              "5-60 Hz, > 3x mean power", "%.1f Hz, %.1fx" % (top[1], top[0] / mean_p))
    return chk.finish()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: check_izhikevich_net.py OUTDIR")
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
