"""tests/rates: every rate recording of an output folder against the exact replay of
models/tick.neuro's spikers (and against the run's own spike recording, binned).

usage: check_rates.py OUTDIR

The rate of a bin is count / (size * bin_steps * dt) * 1000 in float64, the runtime's
expression, so .npy values must be equal bit for bit; .csv values are printed with %.9g.
"""
import json
import os
import sys

import numpy as np

N, STEPS, DT = 20, 105, 0.1


def replay():
    """spikes[s] = the neurons of T that fire in step s."""
    k = [2 + i % 5 for i in range(N)]
    c = [float(i % 3) for i in range(N)]
    out = []
    for _ in range(STEPS):
        fired = []
        for i in range(N):
            c[i] += 1
            if c[i] >= k[i]:
                fired.append(i)
                c[i] = 0.0
        out.append(fired)
    return out


def expected(spikes, off, size, bin_steps):
    rows = []
    for b in range(STEPS // bin_steps):
        n = sum(1 for s in range(b * bin_steps, (b + 1) * bin_steps) for i in spikes[s] if off <= i < off + size)
        rows.append(((b + 1) * bin_steps * DT, n / (size * bin_steps * DT) * 1000.0))
    return rows


def load(path):
    if path.endswith(".npy"):
        a = np.load(path)
        assert a.dtype.names == ("t", "rate"), a.dtype
        return [(float(t), float(r)) for t, r in zip(a["t"], a["rate"])], True
    with open(path) as f:
        lines = f.read().splitlines()
    assert lines[0] == "t_ms,rate_Hz", lines[0]
    return [tuple(float(x) for x in ln.split(",")) for ln in lines[1:]], False


def main():
    out = sys.argv[1]
    spikes = replay()
    rec = np.load(os.path.join(out, "spikes.npy"))
    got_sp = [sorted(int(i) for i, t in zip(rec["i"], rec["t"]) if round(t / DT) - 1 == s) for s in range(STEPS)]
    assert got_sp == spikes, "the spike recording differs from the replay"
    man = json.load(open(os.path.join(out, "manifest.json")))
    want = {"rate_all.npy": ("T", 0, 20, 10), "rate_mid.csv": ("mid", 5, 7, 5),
            "rate_one.npy": ("T", 3, 1, 1), "rate_last.csv": ("T", 17, 1, 30),
            "rate_mid7.npy": ("mid", 5, 7, 7), "rate_none.npy": ("mid", 5, 7, 200)}
    seen = set()
    for r in man["recordings"]:
        if r["kind"] != "rate":
            continue
        target, off, size, bin_steps = want[r["file"]]
        assert (r["target"], r["offset"], r["size"], r["bin_steps"]) == (target, off, size, bin_steps), r
        assert r["population"] == "T" and r["units"] == {"t": "ms", "rate": "Hz"}, r
        assert abs(r["bin_ms"] - bin_steps * DT) < 1e-12, r
        rows, exact = load(os.path.join(out, r["file"]))
        exp = expected(spikes, off, size, bin_steps)
        assert r["rows"] == len(exp) == len(rows), (r["file"], r["rows"], len(exp), len(rows))
        for (t, v), (et, ev) in zip(rows, exp):
            assert abs(t - et) < 1e-9, (r["file"], t, et)
            if exact:
                assert v == ev, (r["file"], t, v, ev)
            else:
                assert abs(v - ev) <= 1e-8 * abs(ev), (r["file"], t, v, ev)
        seen.add(r["file"])
    assert seen == set(want), seen
    # known values: the whole population's first bin (steps 0-9), in closed form: neuron i
    # (k = 2 + i % 5, c0 = i % 3) first fires in step max(k - c0, 1) - 1, then every k steps
    def fires(i):
        k, first = 2 + i % 5, max(2 + i % 5 - i % 3, 1) - 1
        return (10 - 1 - first) // k + 1
    n0 = sum(fires(i) for i in range(N))
    rows, _ = load(os.path.join(out, "rate_all.npy"))
    assert rows[0][1] == n0 / (20 * 10 * DT) * 1000.0, (rows[0], n0)
    print("check_rates: %d rate recordings exact (%d spikes)" % (len(seen), sum(map(len, spikes))))


main()
