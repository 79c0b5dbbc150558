#!/usr/bin/env python3
"""check_spike_files.py NEUROC WORKDIR -- malformed spike files (spike when from_file) stop
the simulator with status 1 and a message "FILE:LINE: problem" (for .npy, LINE is the row;
header problems are line 1); a file that disappeared after compiling is a clear error too.

The model is compiled once per format (the file must exist then); each case rewrites the
file and runs the simulator again. A last case checks that a good file runs (status 0).
"""
import os
import subprocess
import sys

import numpy as np

MODEL = """import "stdlib/neurons.neuro"
neuron Src {{ spike when from_file("{f}") }}
sim {{ dt = 0.1 ms }}
population S = Src[5]
record spikes of S to "s.csv"
run 1 ms
"""

CSV_CASES = [
    ("time,index\n0.5,1\n0.7,x\n", 1, "spikes.csv:3: column 2 ('index') is not a number: 'x'"),
    ("time,index\n0.5,1\nabc,2\n", 1, "spikes.csv:3: column 1 ('time') is not a number: 'abc'"),
    ("time,index\n0.5,1\n\n# c\n0.5,1,2\n", 1, "spikes.csv:5: expected 2 columns (time,index), got 3"),
    ("time,index\n0.5\n", 1, "spikes.csv:2: expected 2 columns (time,index), got 1"),
    ("time,index\n0.5,1\n-0.1,2\n", 1, "spikes.csv:3: the spike time -0.1 is not a finite time >= 0 (ms)"),
    ("time,index\ninf,2\n", 1, "spikes.csv:2: the spike time inf is not a finite time >= 0 (ms)"),
    ("time,index\nnan,2\n", 1, "spikes.csv:2: the spike time nan is not a finite time >= 0 (ms)"),
    ("index,time\n2,0.5\n5,0.5\n", 1, "spikes.csv:3: index 5 is not a neuron of the population (0 .. 4)"),
    ("time,index\n0.5,1.5\n", 1, "spikes.csv:2: index 1.5 is not a neuron of the population (0 .. 4)"),
    ("time,index\n0.5,-1\n", 1, "spikes.csv:2: index -1 is not a neuron of the population (0 .. 4)"),
    ("0.5,1\n", 1, "spikes.csv:1: expected the header line 'time,index', got '0.5,1'"),
    ("# only a comment\n", 1, "spikes.csv:1: no header line 'time,index'"),
    ("time,index\n", 0, ""),                        # no spikes: fine
    ("time,index\n0.5,1\n99,4\n", 0, ""),           # a time after the run: ignored
]


def npy_cases(path):
    yield (lambda: open(path, "wb").write(b"time,index\n0,1\n"), "spikes.npy:1: not a NumPy .npy file")
    yield (lambda: np.save(path, np.zeros((3, 3))),
           "spikes.npy:1: expected an N x 2 array (t, i) of numbers or a record array with fields t and i")
    yield (lambda: np.save(path, np.array([(0.5, 1)], dtype=[("t", "<f8"), ("n", "<i4")])),
           "spikes.npy:1: .npy field 'n' of type '<i4': fields are t and i")
    yield (lambda: np.save(path, np.array([(0.5, 1), (0.2, 7)], dtype=[("t", "<f8"), ("i", "<i4")])),
           "spikes.npy:2: index 7 is not a neuron of the population (0 .. 4)")
    yield (lambda: np.save(path, np.array([[0.5, 1], [-2, 1]])),
           "spikes.npy:2: the spike time -2 is not a finite time >= 0 (ms)")

    def truncated():
        np.save(path, np.ones((4, 2)))
        with open(path, "r+b") as f:
            f.truncate(os.path.getsize(path) - 20)
    yield (truncated, "spikes.npy:3: the file ends early: 4 rows announced, 2 present")
    yield (lambda: os.remove(path), "spikes.npy: cannot open spike file: No such file or directory")


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    neuroc, work = argv[1], argv[2]
    os.makedirs(work, exist_ok=True)
    failed = 0

    def run(sim, f, status, expect):
        nonlocal failed
        p = subprocess.run([sim, "--quiet", "--out", os.path.join(work, "out")],
                           capture_output=True, text=True)
        msg = p.stderr.strip().replace(os.path.join(work, ""), "")
        ok = p.returncode == status and expect in msg and (status != 1 or ": error: " in msg)
        print(("ok    " if ok else "FAIL  ") + "%s: status %d: %s" % (f, p.returncode, msg))
        if not ok:
            print("      expected status %d and: %s" % (status, expect))
            failed += 1

    for f in ("spikes.csv", "spikes.npy"):
        path = os.path.join(work, f)
        if f.endswith(".npy"):
            np.save(path, np.array([(0.5, 1)], dtype=[("t", "<f8"), ("i", "<i4")]))
        else:
            open(path, "w").write("time,index\n0.5,1\n")
        model = os.path.join(work, "m_" + f.replace(".", "_") + ".neuro")
        open(model, "w").write(MODEL.format(f=f))
        sim = os.path.join(work, "sim_" + f.replace(".", "_"))
        if subprocess.run([neuroc, model, "--backend", "c", "-o", sim]).returncode != 0:
            print("FAIL  neuroc " + model)
            return 1
        run(sim, f, 0, "")
        if f.endswith(".csv"):
            for text, status, expect in CSV_CASES:
                open(path, "w").write(text)
                run(sim, f, status, expect)
        else:
            for write, expect in npy_cases(path):
                write()
                run(sim, f, 1, expect)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
