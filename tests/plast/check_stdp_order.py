#!/usr/bin/env python3
"""Checker for models/stdp_order.neuro: `order = pre_first | post_first` against values
computed by hand (docs/language.md §7, §9).

P[k] fires in the step ending at 10.1 ms; Q[0] in the same step, Q[1] two steps later.
Pair STDP with w0 = 0.5, A+ = 0.01, A- = 0.0105, tau = 20 ms:
  a (no delay), synapse 0, a pair in one step:
      pre_first: on pre first (post.y = 0: no depression), then on post sees pre.x = A+:
                 w = 0.5 + 0.01, and `on pre & post` runs once (c = 1);
      post_first: on post first (pre.x = 0), then on pre sees post.y = A-:
                 w = 0.5 - 0.0105, c = 0.
  a, synapse 1 (post 2 steps after pre): both orders w = 0.5 + 0.01 exp(-0.2/20), c = 0.
  b (delay 1 step for synapse 0, 3 steps for synapse 1): synapse 1's spike reaches it in
      the step of Q[1]'s spike, so both synapses behave as a's synapse 0.
Every synapse's `on pre` runs once (n = 1).
"""

import math

import plastcheck as pc

TOL = 1e-15


def main():
    out = pc.outdir()
    chk = pc.Checker("stdp_order")
    P, Q = pc.spikes(out, "P.csv"), pc.spikes(out, "Q.csv")
    chk.check(P == {0: [10.1], 1: [10.1]} and Q == {0: [10.1], 1: [10.3]}, "the scripted spikes",
              "P %s Q %s" % (P, Q))
    late = 0.5 + 0.01 * math.exp(-0.2 / 20)
    want = {"a_pre": ([0.5 + 0.01, late], [1, 0]), "a_post": ([0.5 - 0.0105, late], [0, 0]),
            "b_pre": ([0.5 + 0.01, 0.5 + 0.01], [1, 1]), "b_post": ([0.5 - 0.0105, 0.5 - 0.0105], [0, 0])}
    for name, (w_want, c_want) in want.items():
        w, _ = pc.last_row(out, name + ".npy")
        n, _ = pc.last_row(out, name + ".npy", "n")
        c, _ = pc.last_row(out, name + ".npy", "c")
        err = max(abs(w[k] - w_want[k]) for k in range(2))
        chk.check(err <= TOL, "%s: w = %s" % (name, ["%.10g" % x for x in w_want]),
                  "got %s, max |error| %.3g" % (["%.10g" % x for x in w], err))
        chk.check(list(c) == c_want and list(n) == [1, 1], "%s: on pre ran once, on pre & post %s times" % (name, c_want),
                  "n %s c %s" % (list(n), list(c)))
    return chk.status()


if __name__ == "__main__":
    raise SystemExit(main())
