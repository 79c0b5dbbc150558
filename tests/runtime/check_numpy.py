#!/usr/bin/python3
# check_numpy.py -- reads what rec_writer wrote with numpy.load / numpy.loadtxt and json:
# dtypes, shapes and values of spikes.npy, state.npy and the CSVs, and a manifest.json
# that parses and names every recording. Exits 77 (CTest: skipped) without numpy.
import json
import os
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("skipped: numpy not available")
    sys.exit(77)


def main():
    writer, out = sys.argv[1], sys.argv[2]
    subprocess.run([writer, out], check=True)
    bad = []

    def check(cond, what):
        if not cond:
            bad.append(what)
            print("FAIL:", what)

    s = np.arange(200000)
    step = s // 67
    t_want = (step + 1).astype(np.float64) * 0.1
    i_want = (s * 31) % 3000

    sp = np.load(os.path.join(out, "spikes.npy"))
    check(sp.dtype == np.dtype([("t", "<f8"), ("i", "<i4")]), "spikes.npy dtype %s" % sp.dtype)
    check(sp.shape == (200000,), "spikes.npy shape %s" % (sp.shape,))
    check(np.array_equal(sp["t"], t_want), "spikes.npy t")
    check(np.array_equal(sp["i"], i_want), "spikes.npy i")

    with open(os.path.join(out, "spikes.csv")) as f:
        check(f.readline().strip() == "t_ms,i", "spikes.csv header")
    sc = np.loadtxt(os.path.join(out, "spikes.csv"), delimiter=",", skiprows=1)
    check(sc.shape == (200000, 2), "spikes.csv shape")
    check(np.allclose(sc[:, 0], t_want, rtol=1e-12, atol=0), "spikes.csv t")
    check(np.array_equal(sc[:, 1].astype(np.int64), i_want), "spikes.csv i")

    steps = np.arange(0, 3000, 10)
    st = np.load(os.path.join(out, "state.npy"))
    check(st.dtype.names == ("t", "V", "m"), "state.npy fields %s" % (st.dtype.names,))
    check(st["V"].shape == (300, 3) and st.shape == (300,), "state.npy shape")
    check(np.array_equal(st["t"], (steps + 1).astype(np.float64) * 0.1), "state.npy t")
    V = -65.0 + 0.5 * steps[:, None].astype(np.float64) + np.arange(3)[None, :]
    m = steps[:, None].astype(np.float64) / 1024.0 + np.arange(3)[None, :]
    check(np.array_equal(st["V"], V), "state.npy V")
    check(np.array_equal(st["m"], m), "state.npy m")

    with open(os.path.join(out, "state.csv")) as f:
        hdr = f.readline().strip()
    check(hdr == "t_ms,V[0],V[2500],V[7],m[0],m[2500],m[7]", "state.csv header %r" % hdr)
    sv = np.loadtxt(os.path.join(out, "state.csv"), delimiter=",", skiprows=1)
    check(sv.shape == (300, 7), "state.csv shape")
    check(np.allclose(sv[:, 1:4], V, rtol=1e-9) and np.allclose(sv[:, 4:7], m, rtol=1e-8),
          "state.csv values")

    with open(os.path.join(out, "manifest.json")) as f:
        man = json.load(f)
    check(man["model"] == "writer" and man["seed"] == 1234, "manifest model/seed")
    check(man["completed_steps"] == 3000 and man["interrupted"] is False, "manifest steps")
    files = {r["file"]: r for r in man["recordings"]}
    check(set(files) == {"spikes.npy", "spikes.csv", "state.npy", "state.csv"},
          "manifest recordings %s" % sorted(files))
    for name, r in files.items():
        check(os.path.exists(os.path.join(out, name)), "manifest file %s exists" % name)
    check(files["spikes.npy"]["rows"] == 200000 and files["spikes.npy"]["shape"] == [200000],
          "manifest spikes rows")
    check(files["state.csv"]["neurons"] == [0, 2500, 7], "manifest neurons")
    check(files["state.npy"]["units"] == {"t": "ms", "V": "mV", "m": "1"}, "manifest units")
    check(files["state.npy"]["every_steps"] == 10 and files["state.npy"]["rows"] == 300,
          "manifest state rows")
    check(man["populations"] == [{"name": "exc", "size": 3000, "spikes": 200000}],
          "manifest populations")
    print("check_numpy: %d failures" % len(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
