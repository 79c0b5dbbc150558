#!/usr/bin/env python3
"""Checker for examples/stdp_song.neuro and models/song_brian2.neuro (Song, Miller & Abbott
2000, Fig. 1; Brian2's example examples/synapses/STDP.py).

Additive STDP drives the 1,000 input weights, uniform in [0, g_max] at the start, to a
bimodal distribution: weights pile up at both bounds, most of them at 0. Checked on the
last recorded sample (100 s): the two outer tenths of [0, g_max] hold at least 35 % of the
weights (20 % at the start), each outer tenth holds at least twice the mean of the eight
inner ones, the low mode is larger than the high one; and the output rate and the weight
statistics lie within the spread of Brian2's own runs of its example (BRIAN2 below).

BRIAN2: Brian2 2.9.0 (numpy < 2.3, cython target; tests/plast/brian2_song.py), its example verbatim (N = 1000 Poisson
inputs at 15 Hz, taum 10 ms, taue 5 ms, Ee 0 mV, vt -54 mV, vr -60 mV, El -74 mV, gmax 0.01,
dApre 0.01, dApost = -1.05 dApre, both times gmax, traces event-driven, w = rand() gmax,
method euler, dt 0.1 ms) run for 100 s with seed(s) for s = 1 .. 6; per run: the output
rate over 100 s and over the last 20 s, the fractions of w / gmax below 0.1 and above 0.9,
the mean of w / gmax. The accepted band is the mean of the six runs +- 4 standard
deviations. For scale: neuroc with `order = post_first` (on post before on pre when both
fall in one step) gave 18.7 Hz, 14.7 Hz over the last 20 s and mean w / gmax 0.458 on
song_brian2: outside the band; the default pre_first gave 26.3 Hz, 23.3 Hz and 0.474.
"""

import json
import os

import numpy as np

import plastcheck as pc

#          rate_all  rate_last20  frac_lo  frac_hi  mean_w   (seeds 1 .. 6)
BRIAN2 = [(26.36, 20.75, 0.234, 0.185, 0.4753),
          (22.63, 20.50, 0.236, 0.193, 0.4703),
          (26.36, 22.90, 0.228, 0.191, 0.4764),
          (26.59, 22.75, 0.265, 0.191, 0.4719),
          (26.50, 23.85, 0.228, 0.179, 0.4729),
          (26.52, 20.95, 0.253, 0.199, 0.4712)]
NAMES = ["output rate over 100 s (Hz)", "output rate over the last 20 s (Hz)",
         "fraction of w < 0.1 g_max", "fraction of w > 0.9 g_max", "mean w / g_max"]


def main():
    out = pc.outdir()
    chk = pc.Checker("song")
    w, t = pc.last_row(out, "weights.npy")
    with open(os.path.join(out, "manifest.json")) as f:
        rec = [r for r in json.load(f)["recordings"] if r["file"] == "weights.npy"][0]
    g_max = 0.1 if rec["units"]["w"] == "nS" else 0.01     # the example: nS; song_brian2: 1
    chk.check(len(w) == 1000 and abs(t - 100000.0) < 1e-6, "1000 weights sampled at 100 s",
              "%d at %.1f ms" % (len(w), t))
    chk.check(w.min() >= 0 and w.max() <= g_max * (1 + 1e-6), "weights stay within [0, g_max]",
              "[%.4g, %.4g]" % (w.min(), w.max()))
    u = w / g_max
    h = np.histogram(u, bins=10, range=(0, 1))[0]
    inner = h[1:9].mean()
    chk.check((h[0] + h[9]) >= 350, "the outer tenths hold >= 35 % of the weights", "histogram %s" % h.tolist())
    chk.check(h[0] >= 2 * inner and h[9] >= 2 * inner, "both bounds are modes (>= 2x the inner mean %.1f)" % inner,
              "%d near 0, %d near g_max" % (h[0], h[9]))
    chk.check(h[0] > h[9], "most weights end near 0", "%d vs %d" % (h[0], h[9]))
    st = np.array(sum(pc.spikes(out, "post_spikes.csv").values(), []), dtype=float) / 1000.0
    got = [len(st) / 100.0, np.sum(st > 80.0) / 20.0, np.mean(u < 0.1), np.mean(u > 0.9), np.mean(u)]
    ref = np.array(BRIAN2)
    for k, name in enumerate(NAMES):
        m, s = ref[:, k].mean(), ref[:, k].std(ddof=1)
        chk.check(abs(got[k] - m) <= 4 * s, "%s as Brian2's (%.4g +- 4 x %.2g)" % (name, m, s), "%.4g" % got[k])
    return chk.status()


if __name__ == "__main__":
    raise SystemExit(main())
