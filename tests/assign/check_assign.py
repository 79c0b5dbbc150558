#!/usr/bin/env python3
"""check_assign.py exact|trial OUT -- the expectations of tests/assign's models.

exact (exact.neuro): every sample after a `set` equals the set's expression, computed here
in float32 as the simulator does: by index, within a view, by grid position, reading states
and parameters before the statement's assignments, at the boundary's time; keyed draws with
plausible moments, a second set statement drawing other numbers.
trial (trial.neuro): trial 2's spikes are trial 1's 300 steps later (V and w reset), the
weights grew in trial 1, and the per-synapse expressions give the expected weights.
cond (cond.neuro): receptor states set (`set EE.g`, `set bg { g = .. }`): each g is 0 after
the reset and evolves as in trial 1, so trial 2's spikes and g are trial 1's; a set of g by
an expression of i (within the post view), g and the post neuron's V.
"""
import csv
import sys

import numpy as np

DT_EXACT, DT_TRIAL, TRIAL = 0.5, 0.1, 300
F = np.float32
fails = 0


def check(cond, what):
    global fails
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        fails += 1


def table(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    return rows[0], np.array([[float(x) for x in r] for r in rows[1:]], dtype=np.float64)


def after_t0(path):
    """A state recording's header and rows after its row at t = 0, which must be there."""
    head, d = table(path)
    check(d[0, 0] == 0, "%s starts with the row at t = 0" % path.rsplit("/", 1)[-1])
    return head, d[1:]


def cols(head, data, name):
    return data[:, [k for k, h in enumerate(head) if h.startswith(name + "[")]].astype(F)


def exact(out):
    head, d = after_t0(out + "/p.csv")
    V, U, p = cols(head, d, "V"), cols(head, d, "U"), cols(head, d, "p")
    n = np.arange(6)
    check(np.all(V[:2] == 0) and np.all(U[:2] == 0), "before any set: the initial values")
    check(np.array_equal(V[2], F(-65) + F(1) * n.astype(F)), "set P.V = -65 mV + 1 mV * i")
    check(np.all(V[3] == 3) and np.array_equal(U[3], V[2] * F(2)),
          "set P { U = V * q; V = 3 mV }: U read V before the block's assignments")
    want = np.zeros(6, F)
    want[2:5] = (F(0) + F(1) * (n[2:5] - 2).astype(F)) + F(1.5)
    check(np.array_equal(p[3], want), "set half.p = p + 1 mV * i + t: i within the view, t = 1.5 ms")
    check(np.array_equal(V[4], V[3] + U[3]) and np.array_equal(p[4], p[3]), "set P.V = V + U")
    gh, g = after_t0(out + "/g.csv")
    G = cols(gh, g, "V")
    c0, c1 = n % 3, n // 3
    check(np.array_equal(G[2], (c0 + 0.5) * 10 * F(1) + (c1 + 0.5) * 10 * F(0.5)),
          "set G.V = pos.x .. + pos.y ..: by grid position")
    with open(out + "/x.csv") as f:
        xs = [r for r in csv.reader(f)][1:]
    check(xs == [["1.5", "0"]], "crossed(W, 0 mV) after set X.W = -0.25 mV: one spike at 1.5 ms (%s)" % xs)
    lh, ld = after_t0(out + "/l.csv")
    L = cols(lh, ld, "V")
    check(len(set(L[1])) == 1 and len(set(L[-1])) == 4 and np.all(np.diff(L[-1]) < 0),
          "set L.g_L = g_L * (1 + 0.25 * i): a leak per neuron from then on (propagators per neuron)")
    r = np.load(out + "/r.npy")
    check(r["t"][0] == 0, "r.npy starts with the row at t = 0")
    r = r[1:]
    RV, RU = r["V"].astype(np.float64), r["U"].astype(np.float64)
    v0, u0 = RV[2], RU[2]
    check(abs(v0.mean() + 65) < 1.2 and 4.3 < v0.std() < 5.7 and len(set(v0)) > 190,
          "normal() per neuron: mean -65 mV, sd 5 mV, distinct (mean %.3f sd %.3f)" % (v0.mean(), v0.std()))
    frac, k = u0 - np.floor(u0), np.floor(u0)
    check(abs(frac.mean() - 0.5) < 0.08 and abs(k.mean() - 3) < 0.4 and np.all(frac > 0),
          "uniform(0 mV, 1 mV) + 1 mV * poisson(3) (uniform mean %.3f, count mean %.3f)" % (frac.mean(), k.mean()))
    dv = RV[4] - RV[3]
    check(0.85 < dv.std() < 1.15 and abs(np.corrcoef(dv, v0)[0, 1]) < 0.2,
          "a second set statement draws other numbers (sd %.3f)" % dv.std())


def spikes(path):
    with open(path) as f:
        rows = list(csv.reader(f))[1:]
    return sorted((round(float(t) / DT_TRIAL), int(i)) for t, i in rows)


def trial_spikes(out):
    """Trial 2's spikes of S and T are trial 1's, TRIAL steps later."""
    for pop in ("s", "t"):
        sp = spikes(out + "/%s.csv" % pop)
        one = [(s, i) for s, i in sp if s <= TRIAL]
        two = [(s - TRIAL, i) for s, i in sp if TRIAL < s <= 2 * TRIAL]
        check(len(one) > 0 and one == two, "%s: trial 2's %d spikes are trial 1's, %d steps later"
              % (pop.upper(), len(two), TRIAL))


def trial(out):
    trial_spikes(out)
    head, d = table(out + "/w.csv")
    w = d[:, 1:].astype(F)
    steps = np.round(d[:, 0] / DT_TRIAL).astype(int)
    row = {s: k for k, s in enumerate(steps)}
    check(np.any(w[row[TRIAL]] != 6000), "the weights grew in trial 1 (max %.1f pA)" % w[row[TRIAL]].max())
    check(np.array_equal(w[row[2 * TRIAL]], w[row[TRIAL]]), "so did they in trial 2, from the reset weights")
    s = np.arange(w.shape[1])
    i, j = (s // 4).astype(F), (s % 4).astype(F)
    want = ((w[row[2 * TRIAL]] * F(0.5)) + F(1) * i) + F(0.25) * j
    check(np.array_equal(w[row[2 * TRIAL + 1]], want), "set ST.w = w * 0.5 + 1 pA * i + 0.25 pA * j")
    wn = w[row[2 * TRIAL + 2]].astype(np.float64)
    check(len(set(wn)) == len(wn) and abs(wn.mean() - 100) < 6 and 5 < wn.std() < 15,
          "set ST.w = 100 pA + 10 pA * normal(): per synapse (mean %.2f sd %.2f)" % (wn.mean(), wn.std()))


def cond(out):
    trial_spikes(out)
    for f, what in (("g", "set EE.g = 0 nS"), ("b", "set bg { g = 0 nS }")):
        head, d = after_t0(out + "/%s.csv" % f)
        g = d[:, 1:].astype(F)   # g[k - 1]: the sample at step k
        check(np.all(g[TRIAL - 1] > 0), "%s.csv: g > 0 at the end of trial 1 (%s)" % (f, g[TRIAL - 1]))
        if f == "g":
            check(np.all(g[TRIAL] == 0), "%s: g is 0 at the next sample (no spike arrives)" % what)
        check(np.array_equal(g[TRIAL:2 * TRIAL], g[:TRIAL]),
              "%s: trial 2's g is trial 1's, sample for sample" % what)
    head, d = after_t0(out + "/g.csv")
    g = d[:, 1:]
    vh, vd = after_t0(out + "/v.csv")
    V = vd[:, 1:]
    want = (0.5 * g[2 * TRIAL - 1] + 0.25 * np.arange(4) + 0.01 * V[2 * TRIAL - 1, 2:6]) * np.exp(-0.1 / 10)
    check(np.allclose(g[2 * TRIAL], want, rtol=1e-5, atol=1e-6),
          "set EE.g = g * 0.5 + 0.25 nS * i + V / 1 mV * 0.01 nS, then a step of decay (%s, want %s)"
          % (g[2 * TRIAL], want))


def main():
    {"exact": exact, "trial": trial, "cond": cond}[sys.argv[1]](sys.argv[2])
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
