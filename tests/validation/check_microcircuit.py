#!/usr/bin/env python3
"""Checker for examples/microcircuit.neuro (Potjans & Diesmann 2014), at any `scale`.

Reference rates: NEST's PyNEST microcircuit at full scale with Poisson input (the
'mean_rates' of NEST's network_params for the mesocircuit, "obtained by running this PyNEST
microcircuit with ... N_scaling and K_scaling set to 1"): L2/3E 0.943, L2/3I 3.026,
L4E 4.368, L4I 5.882, L5E 7.733, L5I 8.664, L6E 1.096, L6I 7.851 Hz. Potjans & Diesmann
(2014) Fig. 6 shows the same pattern (low L2/3E and L6E, highest L5).

Checks over [200, 1000) ms (the start-up transient dropped):
  * every population's rate within max(0.5 Hz, 25 %) of the reference. Why that wide: the
    CI run is scaled to 0.2 (15,434 neurons with the full in-degrees), which raises the
    correlations of shared inputs (at scale 0.1, L2/3E fires at 1.47 Hz, +56 %: the scale is
    the limit of this test); and one 1 s run has sampling noise (L2/3E: ~4,000 neurons x
    0.8 s). The external drive is Poisson input through the synapse, as NEST's. Measured at
    scale 0.2: largest deviations L2/3E +0.16 Hz (+17 %), L6E -0.24 Hz (-22 %);
    docs/validation.md.
  * the layer pattern: L2/3E and L6E are the two slowest populations, and L5E is the fastest
    excitatory one.
  * irregular firing: mean ISI CV over neurons with >= 5 spikes in [0.5, 1.5] in each
    population that has >= 20 such neurons.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import spikestats as ss  # noqa: E402
from spikestats import nrtio  # noqa: E402

NAMES = ["L2/3E", "L2/3I", "L4E", "L4I", "L5E", "L5I", "L6E", "L6I"]
N_FULL = [20683, 5834, 21915, 5479, 4850, 1065, 14395, 2948]
REF = [0.943, 3.026, 4.368, 5.882, 7.733, 8.664, 1.096, 7.851]
T0, T1 = 200.0, 1000.0


def sizes(total):
    """Population sizes of the scaled model: round(N * scale) with sum == total."""
    base = total / float(sum(N_FULL))
    for d in range(0, 2000):
        for sc in (base + d * 1e-7, base - d * 1e-7):
            n = [int(x * sc + 0.5) for x in N_FULL]    # round() in neuroc: halves away from 0
            if sum(n) == total:
                return n, sc
    raise ValueError("no scale gives %d neurons" % total)


def main(out):
    chk = nrtio.Checker("microcircuit")
    man = nrtio.load_manifest(out)
    nrtio.check_manifest(chk, man, dt=0.1)
    n, sc = sizes(man["populations"][0]["size"])
    chk.info("scale %.4g: %s" % (sc, n))
    sp = nrtio.load_spikes(os.path.join(out, "microcircuit_spikes.npy"))
    rates = []
    o = 0
    for k, nm in enumerate(NAMES):
        tr = ss.by_neuron(sp.t, sp.i, o, o + n[k], T0, T1)
        r = ss.mean_rate(tr, n[k], T1 - T0)
        rates.append(r)
        tol = max(0.5, 0.25 * REF[k])
        chk.check(abs(r - REF[k]) <= tol, "%s rate (Hz)" % nm, "%.3f +- %.2f" % (REF[k], tol), "%.3f" % r)
        cv, ncv = ss.mean_cv(tr)
        if ncv >= 20:
            chk.check(0.5 <= cv <= 1.5, "%s mean ISI CV (%d neurons)" % (nm, ncv), "[0.5, 1.5]", "%.3f" % cv)
        o += n[k]
    slow = sorted(range(8), key=lambda k: rates[k])[:2]
    chk.check(sorted(slow) == [0, 6], "slowest two populations", "L2/3E and L6E",
              " and ".join(NAMES[k] for k in sorted(slow)))
    fast_e = max((0, 2, 4, 6), key=lambda k: rates[k])
    chk.check(fast_e == 4, "fastest excitatory population", "L5E", NAMES[fast_e])
    return chk.finish()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: check_microcircuit.py OUTDIR")
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
