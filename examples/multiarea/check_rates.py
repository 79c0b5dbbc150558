#!/usr/bin/env python3
"""check_rates.py OUT_DIR [--data DATA_DIR] [--t-min MS] [--check] -- per-population firing
rates and irregularity (CV of the inter-spike intervals) of a run of the multi-area model
(examples/multiarea/generate.py), area by area.

OUT_DIR is the simulator's output folder: spikes.npy (every neuron of the base population
`all`) and manifest.json, whose views (V1_23E, ...) say which neurons are which population.
Spikes before --t-min (default 500 ms, the transient the published analysis discards) are
left out. The CV is computed per neuron with at least 3 spikes after t-min and averaged.

What it compares against, and why. The published simulated rates (Schmidt et al. 2018b,
Figs. 3 and 5; Knight & Nowotny 2021, Fig. 3) are in figures, not in the data set, so they
cannot be read here. The data set's repo_reference_rates.csv is the reference code's
tests/fullscale_rates.json: of undocumented origin, most likely a mean-field prediction, and
the rates the reference code uses for its down-scaling DC (generate.py uses them the same
way). Down-scaling with that DC keeps each neuron's mean input at the full-scale value only
if the network fires at those rates, and changes the fluctuations (weights / sqrt(K)): so at
reduced scale the rates are not the published ones, and no published number can be asserted.
With --check this asserts what does hold for the reduced model, and prints the comparison
with repo_reference_rates.csv (--data) for information:
  * the run completed, and every population fired after t-min (no silent population);
  * no population runs away: every rate below 100 Hz (refractory limit 500 Hz);
  * the activity is irregular: the mean CV over populations with enough spikes lies in
    [0.5, 2] (a Poisson process has 1; a regular, clock-like firing has ~0);
  * the excitatory populations of layer 2/3 are among the slowest of their area, as in
    every published figure (Schmidt et al. 2018b, Fig. 3: 23E below 5 Hz in each area):
    the mean over areas of 23E's rate is below the mean of all populations.
Exit status 0 when the checks pass (or without --check), 1 when one fails, 2 on bad input.
"""
import argparse
import csv
import json
import os
import sys

import numpy as np

POPS = ["23E", "23I", "4E", "4I", "5E", "5I", "6E", "6I"]


def load(out):
    m = json.load(open(os.path.join(out, "manifest.json")))
    if m.get("error") or m.get("completed_steps") != m.get("total_steps"):
        print("check_rates: the run did not complete: %s" % (m.get("error") or "interrupted"))
        return None, None, None
    a = np.load(os.path.join(out, "spikes.npy"))
    views = [v for v in m["views"] if v["population"] == "all"]
    return m, a, views


def stats(a, views, t_min, t_end):
    """{view name: (rate in Hz, mean CV or nan, neurons with a CV)}, in a few passes over the
    spikes (the full model's 10.5 s are about 1.1e8 of them): a stable sort by neuron keeps
    each neuron's spikes in time order; each neuron's ISI sums give its CV (std / mean, as
    numpy's std: over n, not n - 1)."""
    sel = a[a["t"] > t_min]
    order = np.argsort(sel["i"], kind="stable") if np.all(np.diff(sel["t"]) >= 0) \
        else np.lexsort((sel["t"], sel["i"]))
    t, i = sel["t"][order].astype(np.float64), sel["i"][order].astype(np.int64)
    n = int(max(v["offset"] + v["size"] for v in views))
    same = i[1:] == i[:-1]
    isi, who = (t[1:] - t[:-1])[same], i[1:][same]
    cnt = np.bincount(i, minlength=n)[:n]
    s1 = np.bincount(who, weights=isi, minlength=n)[:n]
    s2 = np.bincount(who, weights=isi * isi, minlength=n)[:n]
    k = np.bincount(who, minlength=n)[:n]
    ok = cnt >= 3
    mean = np.where(ok, s1 / np.maximum(k, 1), 1.0)
    cv = np.where(ok, np.sqrt(np.maximum(s2 / np.maximum(k, 1) - mean * mean, 0)) / mean, 0.0)
    res = {}
    T = (t_end - t_min) * 1e-3
    for v in views:
        lo, hi = v["offset"], v["offset"] + v["size"]
        m = ok[lo:hi]
        res[v["name"]] = (float(cnt[lo:hi].sum()) / (v["size"] * T),
                          float(cv[lo:hi][m].mean()) if m.any() else float("nan"), int(m.sum()))
    return res


def area_of(name):
    area, pop = name.rsplit("_", 1)
    return (area[1:] if area.startswith("A") and area[1:].isdigit() else area), pop


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", metavar="OUT_DIR")
    ap.add_argument("--data", help="the data set, for repo_reference_rates.csv")
    ap.add_argument("--t-min", type=float, default=500.0, help="ms discarded at the start (default 500)")
    ap.add_argument("--check", action="store_true", help="assert what holds at reduced scale")
    args = ap.parse_args()
    try:
        m, a, views = load(args.out)
    except (OSError, ValueError, KeyError) as e:
        print("check_rates: cannot read %s: %s" % (args.out, e))
        return 2
    if m is None:
        return 1
    t_end = m["total_steps"] * m["dt_ms"]
    if not (0 <= args.t_min < t_end):
        print("check_rates: --t-min %g ms is not within the run (%g ms)" % (args.t_min, t_end))
        return 2
    ref = {}
    if args.data:
        with open(os.path.join(args.data, "repo_reference_rates.csv"), newline="") as f:
            ref = {(r["area"], r["population"]): float(r["rate_Hz"]) for r in csv.DictReader(f)}
    res = stats(a, views, args.t_min, t_end)
    areas = list(dict.fromkeys(area_of(v["name"])[0] for v in views))
    print("rates (Hz) and mean CV of ISI, %g to %g ms%s" % (args.t_min, t_end,
          "; [reference: repo_reference_rates.csv]" if ref else ""))
    print("%-6s" % "area" + "".join("%15s" % p for p in POPS))
    for ar in areas:
        row, row2 = "%-6s" % ar, "%-6s" % ""
        for p in POPS:
            name = ("A" + ar if ar[0].isdigit() else ar) + "_" + p
            if name not in res:
                row += "%15s" % "-"
                row2 += "%15s" % ""
                continue
            r, cv, _ = res[name]
            row += "%9.2f %5s" % (r, "%.2f" % cv if cv == cv else "-")
            row2 += "%15s" % ("[%.2f]" % ref[(ar, p)] if (ar, p) in ref else "")
        print(row)
        if ref:
            print(row2)
    if not args.check:
        return 0
    fails = []
    silent = [n for n, (r, _, _) in res.items() if r <= 0]
    if silent:
        fails.append("silent after %g ms: %s" % (args.t_min, ", ".join(silent)))
    fast = [n for n, (r, _, _) in res.items() if r >= 100]
    if fast:
        fails.append("runaway (>= 100 Hz): %s" % ", ".join(fast))
    cvs = [cv for (_, cv, k) in res.values() if k >= 5]
    mcv = float(np.mean(cvs)) if cvs else float("nan")
    if not (0.5 <= mcv <= 2):
        fails.append("mean CV %.2f over %d populations is not in [0.5, 2]" % (mcv, len(cvs)))
    r23 = np.mean([r for n, (r, _, _) in res.items() if n.endswith("_23E")])
    rall = np.mean([r for (r, _, _) in res.values()])
    if not r23 < rall:
        fails.append("23E fires at %.2f Hz on average, not below the mean of all populations %.2f Hz" % (r23, rall))
    if ref:
        x = np.array([res[n][0] for n in res])
        y = np.array([ref[area_of(n)] for n in res])
        print("against repo_reference_rates.csv (information, not asserted): rank correlation %.2f, "
              "mean rate %.2f Hz against %.2f Hz" % (spearman(x, y), x.mean(), y.mean()))
    for f in fails:
        print("check_rates: FAIL: %s" % f)
    if not fails:
        print("check_rates: %d populations fire, none above 100 Hz, mean CV %.2f, 23E %.2f Hz below the "
              "mean %.2f Hz" % (len(res), mcv, r23, rall))
    return 1 if fails else 0


def spearman(x, y):
    rx, ry = np.argsort(np.argsort(x)), np.argsort(np.argsort(y))
    return float(np.corrcoef(rx, ry)[0, 1]) if len(x) > 2 else float("nan")


if __name__ == "__main__":
    sys.exit(main())
