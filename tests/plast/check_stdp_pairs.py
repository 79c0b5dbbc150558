#!/usr/bin/env python3
"""Checker for models/stdp_pairs.neuro: STDP weight changes against their closed forms.

Spike times are read from the recordings (t = end of the step). A presynaptic spike acts
at the synapse at t_pre + (d - 1) dt (axonal delay of d steps; d = 1 is the base step of
transmission); a postsynaptic spike acts at once. At equal times the postsynaptic spike
counts second in the default order pre_first (a pair with t_post = t_arrival potentiates, as
in Brian2) and first in order post_first (it depresses); docs/language.md §7. `pair_post`
uses STDP with order = post_first.
Rules (all-to-all: traces add up):
  pair additive:  post: w += wmax A+ sum exp(-(t - t_a)/tau+);  pre: w -= wmax A- sum exp(-(t - t_p)/tau-)
  multiplicative: post: w += (wmax - w) A+ sum ...;            pre: w -= w A- sum ...
  triplet (Pfister & Gerstner 2006): post: w += wmax r1 (A2+ + A3+ o2(t-)); pre: w -= wmax o1 (A2- + A3- r2(t-))
"""

import math

import plastcheck as pc

DT = 0.1
TOL = 1e-12


def replay(pre, post, d, rule, p, w0=0.5, wmax=1.0, post_first=False):
    """Final weight of one synapse whose pre spikes arrive d steps after emission; at equal
    times the pre spike acts first unless post_first."""
    pf = 1 if post_first else 0
    ev = [(t, kind) for t, _, kind in sorted([(t, 1 - pf, 0) for t in post] +
                                             [(t + (d - 1) * DT, pf, 1) for t in pre])]
    w = w0
    if rule == "triplet":
        r1, r2, o1, o2 = pc.Trace(p["tau_plus"]), pc.Trace(p["tau_x"]), pc.Trace(p["tau_minus"]), pc.Trace(p["tau_y"])
        for t, kind in ev:
            if kind == 0:
                w = pc.clip(w + wmax * r1.at(t) * (p["A2p"] + p["A3p"] * o2.at(t)), 0, wmax)
                o1.at(t), o2.at(t)
                o1.v += 1
                o2.v += 1
            else:
                w = pc.clip(w - wmax * o1.at(t) * (p["A2m"] + p["A3m"] * r2.at(t)), 0, wmax)
                r1.at(t), r2.at(t)
                r1.v += 1
                r2.v += 1
        return w
    x, y = pc.Trace(p["tau_plus"]), pc.Trace(p["tau_minus"])
    for t, kind in ev:
        if kind == 0:
            dw = x.at(t) * (wmax if rule == "pair" else (wmax - w))
            w = pc.clip(w + dw, 0, wmax)
            y.at(t)
            y.v += p["A_minus"]
        else:
            dw = y.at(t) * (wmax if rule == "pair" else w)
            w = pc.clip(w - dw, 0, wmax)
            x.at(t)
            x.v += p["A_plus"]
    return w


def check_proj(chk, out, name, pre, post, n, delay, rule, p, post_first=False):
    w, _ = pc.last_row(out, "w_%s.npy" % name)
    chk.check(len(w) == n, "%s: %d synapses recorded" % (name, n), "got %d" % len(w))
    if len(w) != n:
        return
    errs = [abs(w[k] - replay(pre.get(k, []), post.get(k, []), delay(k), rule, p, post_first=post_first))
            for k in range(n)]
    changed = sum(1 for k in range(n) if abs(w[k] - 0.5) > 1e-6)
    chk.check(max(errs) <= TOL, "%s: every weight equals the %s rule replayed in closed form" % (name, rule),
              "max |error| %.3g over %d synapses, %d of them changed" % (max(errs), n, changed))
    chk.check(changed >= n - 2, "%s: the spike pattern changes the weights" % name, "%d of %d changed" % (changed, n))


def main():
    out = pc.outdir()
    chk = pc.Checker("stdp_pairs")
    A, B, C, D = (pc.spikes(out, f) for f in ("A.csv", "B.csv", "C.csv", "D.csv"))
    chk.check(len(A) == 41 and len(B) == 41 and len(C) == 12 and len(D) == 12,
              "every scripted neuron fired", "A %d B %d C %d D %d" % (len(A), len(B), len(C), len(D)))
    # the pair rule, pair by pair: A+ exp(-dt_/tau+) for dt_ > 0, -A- exp(dt_/tau-) for dt_ <= 0
    w, _ = pc.last_row(out, "w_pair.npy")
    worst = 0.0
    for k in range(41):
        if k not in B:
            continue
        d = B[k][0] - A[k][0]
        dw = 0.01 * math.exp(-d / 20.0) if d >= 0 else -0.0105 * math.exp(d / 20.0)
        worst = max(worst, abs((w[k] - 0.5) - dw))
    chk.check(worst <= TOL, "pair: w - w0 = A+ exp(-dt/tau+) for dt >= 0, -A- exp(dt/tau-) for dt < 0, "
              "dt = t_post - t_pre from -30 to +30 ms", "max |error| %.3g" % worst)
    # pre_first and post_first differ exactly at the pair in the same step (k = 20, dt = 0)
    wp, _ = pc.last_row(out, "w_pair_post.npy")
    chk.check(B[20][0] == A[20][0] and w[20] == 0.5 + 0.01 and wp[20] == 0.5 - 0.0105,
              "pair in one step: w = 0.5 + A+ (pre_first) and 0.5 - A- (post_first)",
              "got %r and %r" % (w[20], wp[20]))
    pair = {"tau_plus": 20.0, "tau_minus": 20.0, "A_plus": 0.01, "A_minus": 0.0105}
    check_proj(chk, out, "pair", A, B, 41, lambda k: 1, "pair", pair)
    check_proj(chk, out, "pair_post", A, B, 41, lambda k: 1, "pair", pair, post_first=True)
    check_proj(chk, out, "pair_delay", A, B, 41, lambda k: 1 + 3 * (k % 3), "pair", dict(pair, tau_minus=30.0))
    check_proj(chk, out, "mult", A, B, 41, lambda k: 1, "mult", dict(pair, A_plus=0.2, A_minus=0.3))
    trip = {"tau_plus": 16.8, "tau_minus": 33.7, "tau_x": 101.0, "tau_y": 125.0,
            "A2p": 0.005, "A3p": 0.0062, "A2m": 0.007, "A3m": 0.0023}
    check_proj(chk, out, "trip", C, D, 12, lambda k: 1, "triplet", trip)
    check_proj(chk, out, "trip_delay", C, D, 12, lambda k: 1 + 5 * (k % 2), "triplet", trip)
    # the triplet terms matter: the same spikes through the pair terms alone differ
    w, _ = pc.last_row(out, "w_trip.npy")
    pair_only = dict(trip, A3p=0.0, A3m=0.0)
    diff = max(abs(w[k] - replay(C[k], D[k], 1, "triplet", pair_only)) for k in range(12))
    chk.check(diff > 1e-4, "trip: the triplet terms change the result", "max difference to pair terms only %.3g" % diff)
    return chk.status()


if __name__ == "__main__":
    raise SystemExit(main())
