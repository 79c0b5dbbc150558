#!/usr/bin/env python3
"""f-I checker for examples/hh_batch.neuro (stdlib HH, rk4, dt 0.01 ms) and
models/traub_fi.neuro (stdlib TraubMiles, exp_euler, dt 0.01 ms).

usage: check_fi.py hh|traub OUTDIR   (the reference program: $NEUROC_HH_FI, else hh_fi on PATH)

Reference: reference/hh_fi.c, an independent RK4 integration of the published equations at
dt = 0.001 ms (10x finer), spikes at upward threshold crossings (0 mV HH, -20 mV TraubMiles).
At most 50 neurons are compared (every k-th one for larger runs, so the full 10,000-neuron
hh_batch on a GPU is checked the same way; the reference takes ~0.1 s of CPU per neuron).

  hh     I_i = 50 uA/cm^2 * i / N, spikes counted in [100, 500) ms: every compared neuron within
         +-1 spike of the reference (a count can move by one when a crossing falls within the
         reported step; RK4 at 0.01 ms shifts spike times by < 0.01 ms over 0.5 s).
  traub  I_i = 100 pA * i (11 neurons), spikes in [100, 600) ms: every neuron within 3 % or
         +-2 spikes of the reference. Exponential Euler is first order: at dt 0.01 ms its
         period error is ~1 % (measured, docs/validation.md).
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import spikestats as ss  # noqa: E402
from spikestats import nrtio  # noqa: E402

CASES = {
    #        spike file            t0     t1      current of neuron i (size n)
    "hh": ("hh_batch_spikes.npy", 100.0, 500.0, lambda i, n: 50.0 * i / n),
    "traub": ("fi_spikes.npy", 100.0, 600.0, lambda i, n: 100.0 * i),
}


def reference(kind, t0, t1, currents):
    exe = os.environ.get("NEUROC_HH_FI", "hh_fi")
    try:
        out = subprocess.run([exe, kind, "0.001", repr(t0), repr(t1)] + ["%.17g" % c for c in currents],
                             check=True, stdout=subprocess.PIPE, universal_newlines=True).stdout
    except OSError as e:
        sys.exit("check_fi: cannot run the reference %r (%s): set NEUROC_HH_FI to the hh_fi "
                 "program of the build (build/bin/hh_fi)" % (exe, e))
    return [int(line.split()[1]) for line in out.split("\n") if line.strip()]


def main(kind, out):
    fname, t0, t1, cur = CASES[kind]
    chk = nrtio.Checker("fi_" + kind)
    man = nrtio.load_manifest(out)
    nrtio.check_manifest(chk, man)
    n = man["populations"][0]["size"]
    step = max(1, n // 50)
    idx = list(range(0, n, step))
    currents = [cur(i, n) for i in idx]
    ref = reference(kind, t0, t1, currents)
    sp = nrtio.load_spikes(os.path.join(out, fname))
    trains = ss.by_neuron(sp.t, sp.i, 0, n, t0, t1)
    worst = 0
    bad = []
    for i, c, r in zip(idx, currents, ref):
        got = len(trains.get(i, ()))
        tol = 1 if kind == "hh" else max(2, int(0.03 * r))
        worst = max(worst, abs(got - r))
        if abs(got - r) > tol:
            bad.append("neuron %d (I %.4g): %d vs %d" % (i, c, got, r))
    chk.check(not bad, "spike counts of %d neurons vs RK4 at dt 0.001 ms" % len(idx),
              "all within tolerance", "largest difference %d%s" % (worst, "; " + ", ".join(bad[:5]) if bad else ""))
    span = (t1 - t0) / 1000.0
    firing = [(c, r / span) for c, r in zip(currents, ref) if r > 0]
    if firing:
        chk.info("reference: onset at I = %.4g (%.1f Hz), %.1f Hz at I = %.4g"
                 % (firing[0][0], firing[0][1], firing[-1][1], firing[-1][0]))
    chk.check(sum(1 for r in ref if r > 0) >= len(idx) // 2, "reference fires for most currents",
              ">= half", sum(1 for r in ref if r > 0))
    return chk.finish()


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in CASES:
        print("usage: check_fi.py hh|traub OUTDIR")
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
