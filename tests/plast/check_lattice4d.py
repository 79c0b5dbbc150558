#!/usr/bin/env python3
"""Checker for examples/lattice4d_stdp.neuro (run with --save-connectivity).

  check_lattice4d.py OUTDIR [T_END_MS]
T_END_MS: the run's length where a shortened copy was run (default 5000, the example's;
tests/gpu/lattice4d.sh runs 1 s on OpenCL). The weights are recorded every 1 s, so T_END_MS
is a whole number of seconds.

Connectivity, from the saved synapses: every synapse joins two sites of the periodic
6x6x6x6 lattice (40 um apart) at most 60 um apart, so at distance 40 um (8 neighbours) or
40 sqrt(2) um (24 neighbours); none is an autapse or a repeat; the number at each distance
is its binomial expectation 1296 n p(d), p(d) = 0.8 exp(-d^2 / (2 (40 um)^2)), within 4
standard deviations; delays are round((1 ms + d / 0.05 m/s) / dt) steps.

STDP: the final weight of every synapse equals additive all-to-all pair STDP replayed from
its saved initial weight through the recorded spike times (a presynaptic spike reaching the
synapse (d - 1) steps after it was recorded, a postsynaptic one at once, the presynaptic
first at equal times: the default order pre_first; docs/language.md §7, §9), within 1e-9 w_max; the network fires at
2..40 Hz, and the weights moved (the mean by more than 10 % of w_max).
"""

import math
import sys

import numpy as np

import plastcheck as pc

N, SIDE, SPACING, R = 1296, 6, 40.0, 60.0
DT, T_END = 0.1, 5000.0
W_MAX, A_PLUS, A_MINUS, TAU_PLUS, TAU_MINUS = 120.0, 0.01, 0.012, 20.0, 20.0


def coords(i):
    return np.stack([(i // SIDE ** k) % SIDE for k in range(4)], axis=-1)


def pdist(a, b):
    d = np.abs(coords(a) - coords(b))
    d = np.minimum(d, SIDE - d) * SPACING
    return np.sqrt((d * d).sum(axis=-1))


def replay(w, pre, post, d):
    """Events on the step grid (integer steps, so equal times compare equal). The run
    simulates steps 0 .. end - 1: an arrival at t = end dt has happened (pre_first runs its
    `on pre` at the end of step end - 1), a later one has not."""
    end = round(T_END / DT)
    ev = [(s, kind) for s, _, kind in
          sorted([(round(t / DT), 1, 0) for t in post] +
                 [(round(t / DT) + d - 1, 0, 1) for t in pre if round(t / DT) + d - 1 <= end])]
    x, y = pc.Trace(TAU_PLUS), pc.Trace(TAU_MINUS)
    for s, kind in ev:
        t = s * DT
        if kind == 0:
            w = pc.clip(w + x.at(t) * W_MAX, 0, W_MAX)
            y.at(t)
            y.v += A_MINUS
        else:
            w = pc.clip(w - y.at(t) * W_MAX, 0, W_MAX)
            x.at(t)
            x.v += A_PLUS
    return w


def main():
    global T_END
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: check_lattice4d.py OUTDIR [T_END_MS]")
    out = sys.argv[1]
    if len(sys.argv) == 3:
        T_END = float(sys.argv[2])
    chk = pc.Checker("lattice4d")
    c = np.load(out + "/connectivity_lateral.npy")
    pre, post = c["pre"].astype(np.int64), c["post"].astype(np.int64)
    dist = pdist(pre, post)
    chk.check(len(c) > 0 and dist.max() <= R + 1e-9, "every synapse within 60 um",
              "%d synapses, longest %.2f um" % (len(c), dist.max() if len(c) else 0))
    chk.check(not (pre == post).any(), "no autapses")
    chk.check(len(np.unique(pre * N + post)) == len(c), "no repeated pairs")
    for n, d in ((8, SPACING), (24, SPACING * math.sqrt(2))):
        p = 0.8 * math.exp(-d * d / (2 * SPACING ** 2))
        mean, sd = N * n * p, math.sqrt(N * n * p * (1 - p))
        got = int((np.abs(dist - d) < 1e-6).sum())
        chk.check(abs(got - mean) <= 4 * sd, "synapses at %.1f um: binomial(%d x %d, %.4f)" % (d, N, n, p),
                  "%d, expected %.0f +- %.0f" % (got, mean, sd))
    want = np.floor((1.0 + dist / 50.0) / DT + 0.5).astype(int)
    chk.check((c["delay"] == want).all(), "delays are 1 ms + dist / (0.05 m/s) in steps",
              "steps %s" % np.unique(c["delay"]).tolist())

    sp = pc.spikes(out, "l4d_spikes.csv")
    rate = sum(len(v) for v in sp.values()) / N / (T_END / 1000.0)
    chk.check(2 <= rate <= 40, "the lattice fires at 2..40 Hz", "%.2f Hz" % rate)
    w_end, t = pc.last_row(out, "l4d_weights.npy")
    chk.check(len(w_end) == len(c) and abs(t - T_END) < 1e-6,
              "weights of every synapse recorded at %g s" % (T_END / 1000.0),
              "%d at %.1f ms" % (len(w_end), t))
    if len(w_end) != len(c):
        return chk.status()
    err = max(abs(w_end[k] - replay(c["w"][k], sp.get(int(pre[k]), []), sp.get(int(post[k]), []), int(c["delay"][k])))
              for k in range(len(c)))
    chk.check(err <= 1e-9 * W_MAX, "every final weight equals pair STDP replayed from the spikes",
              "max |error| %.3g pA over %d synapses" % (err, len(c)))
    moved = abs(w_end.mean() - c["w"].mean())
    chk.check(moved >= 0.1 * W_MAX, "the weights moved", "mean %.2f -> %.2f pA" % (c["w"].mean(), w_end.mean()))
    return chk.status()


if __name__ == "__main__":
    raise SystemExit(main())
