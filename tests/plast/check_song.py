#!/usr/bin/env python3
"""Checker for examples/stdp_song.neuro (Song, Miller & Abbott 2000, Fig. 1).

Additive STDP drives the 1,000 input weights, uniform in [0, g_max] at the start, to a
bimodal distribution: weights pile up at both bounds, most of them at 0. Checked on the
last recorded sample (100 s): the two outer tenths of [0, g_max] hold at least 35 % of the
weights (20 % at the start), each outer tenth holds at least twice the mean of the eight
inner ones, the low mode is larger than the high one, and the output neuron fires at a
plausible rate (5 .. 50 Hz over the run).
"""

import numpy as np

import plastcheck as pc

G_MAX = 0.1  # nS


def main():
    out = pc.outdir()
    chk = pc.Checker("song")
    w, t = pc.last_row(out, "weights.npy")
    chk.check(len(w) == 1000 and abs(t - 100000.0) < 1e-6, "1000 weights sampled at 100 s",
              "%d at %.1f ms" % (len(w), t))
    chk.check(w.min() >= 0 and w.max() <= G_MAX * (1 + 1e-6), "weights stay within [0, g_max]",
              "[%.4g, %.4g] nS" % (w.min(), w.max()))
    h = np.histogram(w / G_MAX, bins=10, range=(0, 1))[0]
    inner = h[1:9].mean()
    chk.check((h[0] + h[9]) >= 350, "the outer tenths hold >= 35 % of the weights", "histogram %s" % h.tolist())
    chk.check(h[0] >= 2 * inner and h[9] >= 2 * inner, "both bounds are modes (>= 2x the inner mean %.1f)" % inner,
              "%d near 0, %d near g_max" % (h[0], h[9]))
    chk.check(h[0] > h[9], "most weights end near 0", "%d vs %d" % (h[0], h[9]))
    n = sum(len(v) for v in pc.spikes(out, "post_spikes.csv").values())
    chk.check(500 <= n <= 5000, "the output neuron fires 5 .. 50 Hz", "%.1f Hz" % (n / 100.0))
    return chk.status()


if __name__ == "__main__":
    raise SystemExit(main())
