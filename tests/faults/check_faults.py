"""Checks of tests/faults (run_faults.sh) on a simulator's output folder, with NumPy.

  outputs DIR [--full]      every recording of the manifest is a valid file: an .npy whose
                            header's shape times the row size is exactly the data on disk
                            (never a header that lies) and that numpy.load reads; a .csv
                            with the manifest's rows; spike times within the completed
                            steps. --full: every completed step was recorded (state rows ==
                            completed // every), as after a signal or --check-finite
  finite DIR PREC K         the doubling model (models/blowup.neuro) stopped by
                            --check-finite=K where the closed form says, values exact
  range DIR K               models/range.neuro stopped by the state check every K steps
                            where its closed form says: the variable, neuron, bound and
                            step of the first value out of its declared range
  always DIR N STEPS        every neuron of N spiked in every one of STEPS steps, once
  npyfiles DIR              every .npy file in DIR is valid (when there may be no manifest)
  headers DIR               every .npy valid and every .csv with a whole header line
"""
import ast
import json
import math
import os
import sys

import numpy as np


def manifest(d):
    with open(os.path.join(d, "manifest.json")) as f:
        return json.load(f)


def npy_rows(path):
    """Rows of an .npy file, checking that its header matches the bytes on disk."""
    with open(path, "rb") as f:
        raw = f.read()
    assert raw[:6] == b"\x93NUMPY", path
    major = raw[6]
    hl = int.from_bytes(raw[8:10] if major == 1 else raw[8:12], "little")
    pre = 10 if major == 1 else 12
    hdr = ast.literal_eval(raw[pre:pre + hl].decode("latin1"))
    dt = np.dtype(hdr["descr"])
    (n,) = hdr["shape"]
    assert len(raw) == pre + hl + n * dt.itemsize, \
        "%s: header says %d rows of %d bytes, the file holds %d bytes of data" % (
            path, n, dt.itemsize, len(raw) - pre - hl)
    a = np.load(path)
    assert a.shape == (n,), (path, a.shape, n)
    return a


def outputs(d, full):
    m = manifest(d)
    done, dt = m["completed_steps"], m["dt_ms"]
    assert 0 <= done <= m["total_steps"], m
    assert m["interrupted"] == (done < m["total_steps"] or m["signal"] is not None
                                or m["error"] is not None), m
    for r in m["recordings"]:
        path = os.path.join(d, r["file"])
        if r["format"] == "npy":
            a = npy_rows(path)
            rows = len(a)
            t = a["t"]
        else:
            with open(path) as f:
                lines = f.read().splitlines()
            rows = len(lines) - 1
            t = np.array([float(x.split(",")[0]) for x in lines[1:]])
        assert rows == r["rows"] == r["shape"][0], (r, rows)
        assert rows == 0 or t.max() <= done * dt * (1 + 1e-12), (r["file"], t.max(), done)
        assert np.all(np.diff(t) >= 0), r["file"]
        if r["kind"] == "state":   # the row at t = 0 (not in a resumed run), then every every_steps
            t0 = 0 if m.get("first_step") else 1
            want = done // r["every_steps"] + t0
            assert rows <= want and (not full or rows == want), (r["file"], rows, want)
            if rows:
                k = np.arange(1 - t0, rows + 1 - t0) * r["every_steps"]
                assert np.allclose(t, k * dt, rtol=1e-9, atol=1e-6 * dt), r["file"]
    print("ok  %s: %d of %d steps, %d recordings valid" % (d, done, m["total_steps"],
                                                          len(m["recordings"])))


def finite(d, prec, k):
    """x of neuron n doubles every step from x0 (4 for neuron 7, else 1): after step s it is
    x0 * 2^(s + 1), infinite once that reaches 2^128 (float) or 2^1024 (double)."""
    emax = 128 if prec == "float" else 1024
    over = lambda x0: emax - int(math.log2(x0)) - 1   # first infinite step
    bad = {n: over(4 if n == 7 else 1) for n in range(10)}
    s = min(bad.values())
    while (s + 1) % k:
        s += 1                                         # first checked step at or after it
    n = min(i for i in range(10) if bad[i] <= s)
    m = manifest(d)
    want = "non-finite value: population P, variable x, neuron %d, step %d (t = %.12g ms)" % (
        n, s, (s + 1) * m["dt_ms"])
    assert m["error"] == want, (m["error"], want)
    assert m["completed_steps"] == s + 1 and m["interrupted"] is True, m
    a = npy_rows(os.path.join(d, "xy.npy"))
    assert len(a) == s + 2 and a["t"][0] == 0, len(a)
    assert np.array_equal(a["x"][0], [1.0, 4.0]) and np.array_equal(a["y"][0], [0.0, 0.0]), a[0]   # t = 0
    a = a[1:]
    steps = np.arange(s + 1)
    with np.errstate(over="ignore"):
        for col, x0 in ((0, 1.0), (1, 4.0)):
            x = np.array([x0 * 2.0 ** (q + 1) if q < over(x0) else np.inf for q in steps])
            assert np.array_equal(a["x"][:, col], x), col
            y = np.where(np.isinf(x), np.nan, 0.0)
            assert np.array_equal(a["y"][:, col], y, equal_nan=True), col
    print("ok  %s: stopped after step %d at neuron %d (%s, every %d)" % (d, s, n, prec, k))
    return want


def range_(d, k):
    """V of neuron n is x0 * 2^(s + 1) mV after step s (x0 = 4 for neuron 7, else 1), W = -V;
    V must stay <= 1000 mV, W within [-500 mV, 500 mV]."""
    def fails(s):
        for var in ("V", "W"):
            for n in range(10):
                v = (4 if n == 7 else 1) * 2.0 ** (s + 1)
                if var == "V" and v > 1000:
                    return "variable V, neuron %d, step %d (t = %%.12g ms): above the upper bound 1000 mV" % (n, s)
                if var == "W" and -v < -500:
                    return "variable W, neuron %d, step %d (t = %%.12g ms): below the lower bound -500 mV" % (n, s)
        return None
    s = k - 1
    while not fails(s):
        s += k                                        # the checked steps: (s + 1) % k == 0
    m = manifest(d)
    want = "value out of range: population P, " + fails(s) % ((s + 1) * m["dt_ms"])
    assert m["error"] == want, (m["error"], want)
    assert m["completed_steps"] == s + 1 and m["interrupted"] is True, m
    a = npy_rows(os.path.join(d, "vw.npy"))
    assert len(a) == s + 2 and a["t"][0] == 0, len(a)
    assert np.array_equal(a["V"][0], [1.0, 4.0]) and np.array_equal(a["W"][0], [0.0, 0.0]), a[0]   # t = 0
    a = a[1:]
    for col, x0 in ((0, 1.0), (1, 4.0)):
        v = np.array([x0 * 2.0 ** (q + 1) for q in range(s + 1)])
        assert np.array_equal(a["V"][:, col], v), col
        assert np.array_equal(a["W"][:, col], -v), col
    print("ok  %s: stopped after step %d (every %d)" % (d, s, k))
    return want


def always(d, n, steps):
    m = manifest(d)
    a = npy_rows(os.path.join(d, "all.npy"))
    assert len(a) == n * steps == m["populations"][0]["spikes"], (len(a), n * steps)
    step = np.rint(a["t"] / m["dt_ms"]).astype(np.int64) - 1
    key = np.sort(step * n + a["i"])
    assert np.array_equal(key, np.arange(n * steps)), "a spike is missing or repeated"
    print("ok  %s: all %d spikes of %d neurons x %d steps" % (d, len(a), n, steps))


def counts(d, full):
    """After a write error: the manifest counts the spikes of the completed steps only, those
    of an uninterrupted run (full, the same model and seed) up to completed_steps."""
    m, f = manifest(d), manifest(full)
    done = m["completed_steps"]
    assert 0 < done < f["completed_steps"], (done, f["completed_steps"])
    for p, q in zip(m["populations"], f["populations"]):
        r = [x for x in f["recordings"] if x["kind"] == "spikes" and x["population"] == p["name"]]
        assert r, p["name"]
        path = os.path.join(full, r[0]["file"])
        if r[0]["format"] == "npy":
            t = npy_rows(path)["t"]
        else:
            with open(path) as h:
                t = np.array([float(x.split(",")[0]) for x in h.read().splitlines()[1:]])
        want = int(np.sum(np.rint(t / f["dt_ms"]).astype(np.int64) <= done))
        assert len(t) == q["spikes"], (p["name"], len(t), q["spikes"])
        assert p["spikes"] == want, "%s: manifest counts %d spikes, its %d completed steps hold %d" % (
            p["name"], p["spikes"], done, want)
    print("ok  %s: spike counts of %d completed steps" % (d, done))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "outputs":
        outputs(sys.argv[2], "--full" in sys.argv[3:])
    elif cmd == "finite":
        print(finite(sys.argv[2], sys.argv[3], int(sys.argv[4])))
    elif cmd == "range":
        print(range_(sys.argv[2], int(sys.argv[3])))
    elif cmd == "npyfiles":
        names = sorted(f for f in os.listdir(sys.argv[2]) if f.endswith(".npy"))
        for f in names:
            npy_rows(os.path.join(sys.argv[2], f))
        print("ok  %s: %d .npy files valid" % (sys.argv[2], len(names)))
    elif cmd == "headers":
        # after a full disk while the first headers were written: every file on disk whole
        d = sys.argv[2]
        names = sorted(os.listdir(d))
        for f in names:
            if f.endswith(".npy"):
                npy_rows(os.path.join(d, f))
            elif f.endswith(".csv"):
                with open(os.path.join(d, f), "rb") as h:
                    text = h.read()
                assert text.startswith(b"t_ms,") and b"\n" in text, (f, text[:80])
            elif f.endswith(".part") or f.endswith(".tmp"):
                raise AssertionError("a temporary file is left: " + f)
        print("ok  %s: %s whole" % (d, ", ".join(names)))
    elif cmd == "counts":
        counts(sys.argv[2], sys.argv[3])
    elif cmd == "always":
        always(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit("unknown command " + cmd)
