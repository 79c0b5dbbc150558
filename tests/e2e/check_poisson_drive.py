#!/usr/bin/env python3
"""Checker for models/poisson_drive.neuro (400 probes, 500 steps of 0.1 ms).

poisson(lam) draws (docs/language.md §11) and a stimulus through a receptor (`via`, §12.5):
 * c, the direct stimulus 1 pA x poisson(lam): lam = 1.68 on neurons 0..199 (one inversion),
   37.5 on 200..399 (a sum of 5 inversions of 7.5 over 3 Philox blocks). Every value is a
   whole number; the 100,000 counts of each group have the Poisson mean (within 4 standard
   errors), variance (within 4 standard errors of a variance: sd(s^2) ~ sqrt((mu4 - s^4)/n)
   with mu4 = lam (1 + 3 lam)), and a histogram passing a chi-square test against the Poisson
   probabilities (bins with expected count >= 20, tail pooled; p > 1e-4);
 * draws of different neurons and steps are independent: the correlation of consecutive
   steps of one neuron and of neighbouring neurons in one step is within 5/sqrt(n) of 0;
 * v, the port fed by ExpCurr(tau = 0.5 ms) whose input is 2 pA x poisson(1600 x 8 Hz x dt):
   the receptor adds its input and then decays by exp(-dt/tau), so
   x_s = v_s - exp(-dt/tau) v_(s-1) must be 2 pA times a whole number (within 1e-3 pA), and
   those counts Poisson(1.28) as above.
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nrtio  # noqa: E402

N, STEPS, DT, TAU = 400, 500, 0.1, 0.5


def pois_pmf(lam, k):
    return math.exp(-lam + k * math.log(lam) - math.lgamma(k + 1))


def chi2_sf(x, dof):
    """Upper tail of the chi-square distribution (regularised incomplete gamma, series/CF)."""
    a, z = dof / 2.0, x / 2.0
    if z <= 0:
        return 1.0
    if z < a + 1:
        term = s = 1.0 / a
        n = a
        for _ in range(1000):
            n += 1
            term *= z / n
            s += term
        return 1.0 - s * math.exp(-z + a * math.log(z) - math.lgamma(a))
    b = z + 1 - a
    c, d = 1e300, 1.0 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1.0 / d if d != 0 else 1e300
        c = b + an / c if c != 0 else 1e-300
        h *= d * c
    return math.exp(-z + a * math.log(z) - math.lgamma(a)) * h


def check_counts(chk, name, xs, lam):
    n = len(xs)
    whole = all(abs(x - round(x)) < 1e-3 and x > -0.5 for x in xs)
    chk.check(whole, "%s: every value a whole count >= 0" % name, "yes", "yes" if whole else "no")
    ks = [int(round(x)) for x in xs]
    m = sum(ks) / n
    v = sum((k - m) ** 2 for k in ks) / (n - 1)
    se_m = math.sqrt(lam / n)
    se_v = math.sqrt((lam * (1 + 3 * lam) - lam * lam) / n)
    chk.check(abs(m - lam) < 4 * se_m, "%s: mean" % name, "%.4f +- %.4f" % (lam, 4 * se_m), "%.4f" % m)
    chk.check(abs(v - lam) < 4 * se_v, "%s: variance" % name, "%.4f +- %.4f" % (lam, 4 * se_v), "%.4f" % v)
    hist = {}
    for k in ks:
        hist[k] = hist.get(k, 0) + 1
    # bins of expected count >= 20 around the mode; the two tails pooled
    lo = int(lam)
    while lo > 0 and n * pois_pmf(lam, lo - 1) >= 20:
        lo -= 1
    hi = int(lam)
    while n * pois_pmf(lam, hi + 1) >= 20:
        hi += 1
    chi2, bins = 0.0, 0
    p_below = sum(pois_pmf(lam, k) for k in range(0, lo))
    if p_below * n >= 5:
        o = sum(c for k, c in hist.items() if k < lo)
        chi2 += (o - n * p_below) ** 2 / (n * p_below)
        bins += 1
    for k in range(lo, hi + 1):
        e = n * pois_pmf(lam, k)
        chi2 += (hist.get(k, 0) - e) ** 2 / e
        bins += 1
    p_above = 1.0 - sum(pois_pmf(lam, k) for k in range(0, hi + 1))
    if p_above * n >= 5:
        o = sum(c for k, c in hist.items() if k > hi)
        chi2 += (o - n * p_above) ** 2 / (n * p_above)
        bins += 1
    p = chi2_sf(chi2, bins - 1)
    chk.check(p > 1e-4, "%s: chi-square of the histogram (%d bins)" % (name, bins), "p > 1e-4",
              "chi2 %.1f, p %.3g" % (chi2, p))
    return ks


def corr(a, b):
    n = len(a)
    ma, mb = sum(a) / n, sum(b) / n
    sab = sum((x - ma) * (y - mb) for x, y in zip(a, b))
    sa = math.sqrt(sum((x - ma) ** 2 for x in a))
    sb = math.sqrt(sum((y - mb) ** 2 for y in b))
    return sab / (sa * sb)


def main():
    run = nrtio.open_run("poisson_drive")
    if run is None:
        return 2
    out, chk, man = run
    rec = nrtio.find_recording(man, "probe.npy")
    st = nrtio.load_state(os.path.join(out, "probe.npy"), rec.get("neurons"))
    chk.check(len(st) == STEPS, "rows", STEPS, len(st))
    if len(st) != STEPS:
        return chk.finish()
    c = st.data["c"]
    v = st.data["v"]
    lo = [x for i in range(0, 200) for x in c[i]]
    hi = [x for i in range(200, 400) for x in c[i]]
    check_counts(chk, "poisson(1.68)", lo, 1.68)
    check_counts(chk, "poisson(37.5)", hi, 37.5)
    a = [x for i in range(200) for x in c[i][:-1]]
    b = [x for i in range(200) for x in c[i][1:]]
    r = corr(a, b)
    lim = 5 / math.sqrt(len(a))
    chk.check(abs(r) < lim, "correlation of consecutive steps", "|r| < %.4f" % lim, "%.4f" % r)
    a = [x for i in range(0, 199) for x in c[i]]
    b = [x for i in range(1, 200) for x in c[i]]
    r = corr(a, b)
    chk.check(abs(r) < lim, "correlation of neighbouring neurons", "|r| < %.4f" % lim, "%.4f" % r)
    decay = math.exp(-DT / TAU)
    xs = []
    for i in range(N):
        prev = 0.0
        for s in range(STEPS):
            xs.append((v[i][s] - decay * prev) / 2.0)
            prev = v[i][s]
    check_counts(chk, "via ExpCurr: deconvolved input / 2 pA", xs, 1600 * 8e-3 * DT)
    return chk.finish()


if __name__ == "__main__":
    sys.exit(main())
