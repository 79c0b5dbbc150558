#!/usr/bin/env python3
"""check_conn.py -- the synapses tests/conn/rules.neuro builds, checked against its rules.

usage: check_conn.py OUT_DIR [OTHER_OUT_DIR]

OUT_DIR holds connectivity_<projection>.npy from `./rules --save-connectivity`. Each rule is
checked exactly where it is exact (degrees, totals, filters, radii, file contents) and
statistically where it is random, with bounds stated below (5 standard deviations: a
correct build fails one check in ~10^6). With OTHER_OUT_DIR (another back end, or another
run with the same seed), every file must be identical, field for field.
"""
import math
import os
import sys

import numpy as np

FAILED = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        FAILED.append(what)


def load(d, name):
    return np.load(os.path.join(d, "connectivity_%s.npy" % name))


def coords(idx, n, spacing):
    """Grid coordinates (um) of base indices: axis 0 fastest, centres at (c + 0.5) * s."""
    out = []
    for size in n:
        out.append((idx % size + 0.5) * spacing)
        idx = idx // size
    return np.stack(out, axis=1)


def dists(pre, post, n, spacing, periodic, n2=None, spacing2=None):
    a = coords(pre, n, spacing)
    b = coords(post, n2 or n, spacing2 or spacing)
    d = b - a
    if periodic:
        ext = np.array(n, dtype=float) * spacing
        d = d - ext * np.round(d / ext)
    return np.sqrt((d ** 2).sum(axis=1)), d


def no_repeats(c):
    return len(np.unique(c["pre"].astype(np.int64) * 1000003 + c["post"])) == len(c)


def sorted_rows(c):
    key = c["pre"].astype(np.int64) * 2 ** 32 + c["post"]
    return bool(np.all(np.diff(key) >= 0))


def binomial_ok(count, n, p, what):
    mean, sd = n * p, math.sqrt(n * p * (1 - p))
    check(abs(count - mean) <= 5 * sd,
          "%s: %d synapses, binomial mean %.1f, sd %.1f (within 5 sd)" % (what, count, mean, sd))


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__)
        return 2
    d = argv[1]

    # all_to_all, autapses off: P[0:30] -> P[10:50], pairs i + 0 == j + 10 dropped
    c = load(d, "A2A")
    check(len(c) == 30 * 40 - 20, "all_to_all: 30 x 40 less 20 autapses = %d" % len(c))
    check(not np.any(c["pre"] == c["post"] + 10), "all_to_all: no autapse")
    check(sorted_rows(c) and no_repeats(c), "all_to_all: rows ascending, no repeats")

    # one_to_one, w = 1 pA * i + 0.5 pA * j
    c = load(d, "O2O")
    check(len(c) == 50 and np.all(c["pre"] == np.arange(50)) and np.all(c["post"] == c["pre"]),
          "one_to_one: i -> i for 50 neurons")
    check(np.allclose(c["w"], 1.5 * c["pre"]), "one_to_one: w from i and j")

    # fixed_prob(0.1), 400 x 400 without autapses: total binomial(400 * 400 - 400, 0.1);
    # out-degrees binomial(399, 0.1): their mean and variance within 5 sd of their estimates
    c = load(d, "FP")
    n, p = 400 * 399, 0.1
    binomial_ok(len(c), n, p, "fixed_prob total")
    deg = np.bincount(c["pre"], minlength=400)
    m, v = 399 * p, 399 * p * (1 - p)
    check(abs(deg.mean() - m) <= 5 * math.sqrt(v / 400),
          "fixed_prob out-degree mean %.2f vs %.2f" % (deg.mean(), m))
    # the sample variance of 400 binomials: sd about v * sqrt(2 / 399)
    check(abs(deg.var(ddof=1) - v) <= 5 * v * math.sqrt(2 / 399),
          "fixed_prob out-degree variance %.2f vs %.2f" % (deg.var(ddof=1), v))
    check(not np.any(c["pre"] == c["post"]) and no_repeats(c) and sorted_rows(c),
          "fixed_prob: no autapse, no repeat, rows ascending")
    check(c["delay"].min() >= 1 and c["delay"].max() == 10,
          "fixed_prob: delays uniform(0.5, 5) ms are 1 .. 10 steps")

    # fixed_indegree(20), no autapses or multapses, P -> P[0:300]
    c = load(d, "FIN")
    indeg = np.bincount(c["post"], minlength=300)
    check(np.all(indeg == 20), "fixed_indegree: every post has exactly 20")
    check(not np.any(c["pre"] == c["post"]) and no_repeats(c), "fixed_indegree: no autapse, no repeat")

    # fixed_outdegree(15), P[100:400] -> P
    c = load(d, "FOUT")
    outdeg = np.bincount(c["pre"], minlength=300)
    check(np.all(outdeg == 15), "fixed_outdegree: every pre has exactly 15")
    check(not np.any(c["pre"] + 100 == c["post"]) and no_repeats(c) and sorted_rows(c),
          "fixed_outdegree: no autapse, no repeat, rows ascending")
    check(abs(c["w"].mean() - 1) < 5 * 0.1 / math.sqrt(len(c)), "fixed_outdegree: w = normal(1, 0.1) pA")

    # fixed_total(5000), P (400) -> L1 (100): each pre's count binomial(5000, 1/400)
    c = load(d, "FTOT")
    # rows in pre order, each in draw order (rt_conn.c, FIXED_TOTAL): not sorted by post
    check(len(c) == 5000 and bool(np.all(np.diff(c["pre"]) >= 0)) and not sorted_rows(c),
          "fixed_total: 5000 synapses, rows in pre order, posts in draw order")
    binomial_ok(int((c["pre"] < 200).sum()), 5000, 0.5, "fixed_total: synapses of pre < 200")
    binomial_ok(int((c["post"] < 50).sum()), 5000, 0.5, "fixed_total: synapses onto post < 50")

    # prob(0.8 exp(-d^2 / (2 sigma^2))) within 90 um on a periodic 40 x 40 sheet, 10 um:
    # no synapse beyond 90 um; per distance bin, the connected fraction of the candidate
    # pairs matches the expression (each bin within 5 sd); chi-square over the bins
    c = load(d, "GAUSS")
    n, s, sigma = (40, 40), 10.0, 30.0
    dd, _ = dists(c["pre"], c["post"], n, s, True)
    check(dd.max() <= 90 + 1e-3, "prob within 90 um: longest synapse %.2f um" % dd.max())
    allpre = np.repeat(np.arange(1600), 1600)
    allpost = np.tile(np.arange(1600), 1600)
    da, _ = dists(allpre, allpost, n, s, True)
    edges = np.linspace(0, 90, 10)
    cand, _ = np.histogram(da[da <= 90], bins=edges)
    got, _ = np.histogram(dd, bins=edges)
    pexp = np.array([np.mean(0.8 * np.exp(-da[(da >= lo) & (da < hi)] ** 2 / (2 * sigma ** 2)))
                     for lo, hi in zip(edges[:-1], edges[1:])])
    exp_n = cand * pexp
    sd = np.sqrt(cand * pexp * (1 - pexp))
    check(bool(np.all(np.abs(got - exp_n) <= 5 * sd + 1e-9)),
          "prob distance profile: bins %s vs expected %s" % (list(got), [int(round(x)) for x in exp_n]))
    chi2 = float(np.sum((got - exp_n) ** 2 / np.maximum(exp_n * (1 - pexp), 1e-9)))
    # 9 bins: chi-square with 9 degrees of freedom exceeds 40 with probability < 1e-5
    check(chi2 < 40, "prob distance profile: chi-square %.1f over 9 bins (< 40)" % chi2)
    check(np.allclose(c["w"], np.exp(-dd / 50), rtol=1e-5, atol=1e-6),
          "prob: w = exp(-dist / 50 um) pA")
    want = np.maximum(1, np.floor((0.5 + dd / 100) / 0.5 + 0.5))
    check(np.all(np.abs(c["delay"] - want) <= 1) and np.mean(c["delay"] == want) > 0.99,
          "prob: delay = 0.5 ms + dist / (0.1 m/s), in steps")

    # prob(0.5) within 45 um where dx >= 0 between two periodic sheets of one extent
    c = load(d, "CROSS")
    dd, dv = dists(c["pre"], c["post"], (40, 40), 10.0, True, (20, 20), 20.0)
    check(dd.max() <= 45 + 1e-3 and dv[:, 0].min() >= 0,
          "prob between grids: within 45 um (%.2f) and dx >= 0" % dd.max())

    # all_to_all where |i - j| <= 5 and i != j, 1-D: exactly those pairs
    c = load(d, "WHERE")
    want = sum(1 for i in range(100) for j in range(100) if 0 < abs(i - j) <= 5)
    check(len(c) == want and np.all(np.abs(c["pre"] - c["post"]) <= 5), "where: the %d pairs" % want)

    # fixed_prob(0.5) within 25 um on a 10 x 10 x 10 grid: binomial over the candidates
    c = load(d, "C3D")
    dd, _ = dists(c["pre"], c["post"], (10, 10, 10), 10.0, False)
    check(dd.max() <= 25 + 1e-3 and not np.any(c["pre"] == c["post"]), "3-D within 25 um, no autapse")
    idx = np.arange(1000)
    xyz = coords(idx, (10, 10, 10), 10.0)
    cands = 0
    for a in range(1000):
        cands += int((np.sqrt(((xyz - xyz[a]) ** 2).sum(axis=1)) <= 25).sum()) - 1
    binomial_ok(len(c), cands, 0.5, "3-D fixed_prob within")

    # prob(exp(-d / 20 um)) within 30 um on a periodic 6^4 lattice
    c = load(d, "H4D")
    dd, _ = dists(c["pre"], c["post"], (6, 6, 6, 6), 10.0, True)
    check(dd.max() <= 30 + 1e-3, "4-D within 30 um (%.2f)" % dd.max())
    x4 = coords(np.arange(1296), (6, 6, 6, 6), 10.0)
    mean = 0.0
    var = 0.0
    for a in range(0, 1296):
        dv = x4 - x4[a]
        dv -= 60.0 * np.round(dv / 60.0)
        r = np.sqrt((dv ** 2).sum(axis=1))
        pr = np.exp(-r[r <= 30] / 20)
        mean += pr.sum()
        var += (pr * (1 - pr)).sum()
    check(abs(len(c) - mean) <= 5 * math.sqrt(var),
          "4-D prob: %d synapses, expected %.0f, sd %.1f" % (len(c), mean, math.sqrt(var)))

    # from_file: edges.csv (header, w and delay columns) and edges.npy (records, no w)
    c = load(d, "FILE")
    rows = [(int(r["pre"]), int(r["post"]), float(r["w"]), int(r["delay"])) for r in c]
    check(rows == [(0, 99, -2.0, 1), (3, 2, 0.25, 2), (3, 2, 0.75, 2), (3, 7, 1.5, 4), (9, 0, 4.0, 7)],
          "from_file csv: edges, weights and delays in CSR order")
    c = load(d, "NPY")
    rows = [(int(r["pre"]), int(r["post"]), float(r["w"]), int(r["delay"])) for r in c]
    check(rows == [(0, 1, 2.0, 2), (1, 5, 2.0, 1), (9, 9, 2.0, 4)], "from_file npy: edges and delays, w = 2 pA")

    if len(argv) == 3:
        names = sorted(f for f in os.listdir(d) if f.startswith("connectivity_"))
        other = sorted(f for f in os.listdir(argv[2]) if f.startswith("connectivity_"))
        check(names == other, "both runs saved the same projections")
        for f in names:
            a = np.load(os.path.join(d, f))
            b = np.load(os.path.join(argv[2], f))
            check(a.dtype == b.dtype and np.array_equal(a, b), "identical: %s (%d synapses)" % (f, len(a)))
    if FAILED:
        print("%d check(s) failed" % len(FAILED))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
