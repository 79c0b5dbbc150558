"""check_redraw.py OUT_DIR -- models/redraw.neuro replayed independently: Philox4x32-10
(checked against the Random123 known-answer vector) gives each attempt's Box-Muller normal,
attempt r of a draw at the call's site + (r << 20); the value kept is the first attempt
inside the bounds (docs/language.md §11). Every initial V (the row at t = 0), weight and
delay (in steps) of the run must equal the replay: the values to 1e-9 (nrt_log and nrt_cos
against Python's), and the attempt that was kept exactly, which the values tell apart."""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from philox_ref import M32, philox  # noqa: E402


def u01(x):
    return ((x >> 8) + 1.0) / 16777216.0


def redraw(key, stream, elem, sub, site, mu, sd, lo, hi):
    """The value kept and the attempt that gave it."""
    for r in range(4096):
        v = philox([elem, sub, 0, (site + (r << 20)) & M32], key, stream)
        z = math.sqrt(-2.0 * math.log(u01(v[0]))) * math.cos(6.283185307179586 * u01(v[1]))
        x = mu + sd * z
        if x >= lo and x <= hi:
            return x, r
    return float("nan"), 4096


def main():
    assert philox([0, 0, 0, 0], 0, 0) == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]
    out = sys.argv[1]
    seed = 31
    key = (seed ^ (seed >> 32)) & M32
    bad = 0
    # initial V of P: stream NEURON_INIT (1) of population 0, element i, site 0
    v = np.load(os.path.join(out, "v.npy"))
    v0 = v["V"][0] if v.dtype.names else v[0, 1:]
    tries = []
    for i in range(3000):
        x, r = redraw(key, (1 << 24) | 0, i, 0, 0, -60.0, 10.0, -62.0, -55.0)
        tries.append(r)
        if not abs(v0[i] - x) <= 1e-9 * abs(x):
            print("check_redraw: FAIL: V of neuron %d is %r, the replay %r (attempt %d)" % (i, v0[i], x, r))
            bad += 1
    # PQ: stream SYNAPSE_INIT (4) of projection 0, element = pre, sub = rank in the row,
    # site 0 for w, 1 for the delay (steps: round(delay / dt))
    c = np.load(os.path.join(out, "connectivity_PQ.npy"))
    rank = np.zeros(len(c), dtype=int)
    for s in range(1, len(c)):
        rank[s] = rank[s - 1] + 1 if c["pre"][s] == c["pre"][s - 1] else 0
    wt, dt_ = [], []
    for s in range(len(c)):
        i, k = int(c["pre"][s]), int(rank[s])
        w, rw = redraw(key, (4 << 24) | 0, i, k, 0, -50.0, 40.0, -math.inf, 0.0)
        d, rd = redraw(key, (4 << 24) | 0, i, k, 1, 0.3, 0.3, 0.1, 0.5)
        wt.append(rw)
        dt_.append(rd)
        ds = max(1, int(math.floor(d / 0.1 + 0.5)))
        if not abs(c["w"][s] - w) <= 1e-9 * abs(w) or c["delay"][s] != ds:
            print("check_redraw: FAIL: synapse %d (%d -> %d, rank %d): w %r delay %r, the replay %r %r"
                  % (s, i, c["post"][s], k, c["w"][s], c["delay"][s], w, ds))
            bad += 1
        if bad > 10:
            break
    if bad:
        return 1
    print("check_redraw: %d initial values (up to %d redraws, %.2f on average), %d weights (up to %d) "
          "and delays (up to %d) equal to the replay" % (len(tries), max(tries), sum(tries) / len(tries),
                                                         len(c), max(wt), max(dt_)))
    if max(tries) < 5 or max(wt) < 2 or max(dt_) < 3:
        print("check_redraw: FAIL: too few redraws to test them")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
