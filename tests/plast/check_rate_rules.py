#!/usr/bin/env python3
"""Checker for models/rate_rules.neuro (see the model's header for the setups).

Oja: the final w against the principal eigenvector of the covariance of the inputs as
recorded (every 1 ms over 20 s): angle below 3 degrees, |w| within 2 % of 1/sqrt(alpha) = 1.
BCM: the unit becomes selective: one weight at least 20x the other, responses to the two
patterns at least 3x apart (the overlap 0.2 of the patterns caps the ratio at 5).
Hebbian (assembly): w = (1 + beta)^(20 - d) for delays d = 1 and 3 steps, within rounding.
RateHebbian: w(T) = w0 + eta x y T at every sample, within rounding.
"""

import math

import numpy as np

import plastcheck as pc


def main():
    out = pc.outdir()
    chk = pc.Checker("rate_rules")
    x = np.load(out + "/x.npy")["r"]
    c = np.cov(x.T, bias=True)
    ev, vec = np.linalg.eigh(c)
    a = np.array([[1, 0.8, 0.3, 0], [0, 0.2, 0.3, 0.6], [0.2, -0.2, 0.1, 0.1]])
    c_theory = 0.5 * a.T @ a
    chk.check(np.abs(c - c_theory).max() < 0.01, "the inputs have the covariance of their definition",
              "max |difference| %.3g" % np.abs(c - c_theory).max())
    w, _ = pc.last_row(out, "w_oja.npy")
    angle = math.degrees(math.acos(min(1.0, abs(w @ vec[:, -1]) / np.linalg.norm(w))))
    chk.check(angle < 3.0, "oja: w is aligned with the principal eigenvector (angle < 3 degrees)",
              "angle %.3f degrees, eigenvalues %s" % (angle, np.round(ev, 4)))
    chk.check(abs(np.linalg.norm(w) - 1) < 0.02, "oja: |w| converges to 1/sqrt(alpha) = 1",
              "|w| = %.5f" % np.linalg.norm(w))
    w0 = np.load(out + "/w_oja.npy")["w"][0]
    a0 = math.degrees(math.acos(min(1.0, abs(w0 @ vec[:, -1]) / np.linalg.norm(w0))))
    chk.check(a0 > 3 * angle, "oja: learning reduced the angle", "%.2f -> %.2f degrees" % (a0, angle))

    w, _ = pc.last_row(out, "w_bcm.npy")
    big, small = max(w), min(w)
    ya, yb = w @ [1, 0.2], w @ [0.2, 1]
    chk.check(big > 0 and small <= big / 20, "bcm: one input wins, the other weight decays",
              "w = %s" % np.round(w, 4))
    chk.check(max(ya, yb) >= 3 * min(ya, yb), "bcm: the unit is selective to one pattern",
              "responses %.4f and %.4f" % (ya, yb))

    for name, d in (("hebb", 1), ("hebb_delay", 3)):
        a = np.load(out + "/w_%s.npy" % name)
        want = 1.05 ** (20 - d)
        err = np.abs(a["w"][-1] - want).max() / want
        chk.check(a["w"].shape[1] == 6 and err < 1e-13, "%s: w = 1.05^(20 - %d) = %.6f" % (name, d, want),
                  "relative error %.3g" % err)
    a = np.load(out + "/w_rate_hebb.npy")
    want = 0.25 + 0.004 * 0.7 * 1.5 * a["t"]
    err = np.abs(a["w"][:, 0] - want).max()
    chk.check(err < 1e-9 and len(want) == 10001 and a["t"][0] == 0, "rate_hebb: w = w0 + eta x y t at every sample (and t = 0)",
              "max |error| %.3g over %d samples, final w %.4f" % (err, len(want), a["w"][-1, 0]))
    return chk.status()


if __name__ == "__main__":
    raise SystemExit(main())
