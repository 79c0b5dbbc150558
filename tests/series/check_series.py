#!/usr/bin/env python3
"""check_series.py NEUROC WORKDIR BACKEND -- analog input series (docs/language.md §5.3).

BACKEND c: the values a model reads from a series, held and linear, one column and one per
neuron, in float and double, are those of the documented rule (sample s // k; linear
a + (b - a) * ((s - r*k) / k) in the model's precision; the last sample held after the end),
exactly, and a stimulus driven by a series integrates to the closed form; then malformed
series files stop the simulator at start-up with status 1 (as a bad spike or edge file) and "FILE:LINE[:COL]: problem",
and bad declarations and uses are compile-time errors (status 1) at the model's location.
BACKEND opencl or cuda: the same models built for that back end (every GPU schedule it has)
give recordings bit-identical to the C program's. Exit: 0 pass, 77 skipped (no device for
BACKEND), 1 failed.
"""
import os
import shutil
import subprocess
import sys

import numpy as np

MODEL = """neuron Probe {{
  param {{ C: pF = 2 pF }}
  input {{ I: pA }}
  state {{ v: mV = 0 mV; g: pA = 0 pA; h: 1 = 0 }}
  dynamics {{ v' = I / C }}
  update {{ g = drv(t); h = per(t) }}
}}
series drv: nA = "drv.csv" every 0.5 ms{mode}
series per: 1 = "per.npy" every 3 steps{mode}
sim {{ dt = 0.25 ms; precision = {prec} }}
population P = Probe[4]
stimulus s -> P.I = drv(t)
record v, g, h of P to "r.npy"
run 5 ms
"""
# a `series` parameter: one model, two populations given different series
PARAM_MODEL = """neuron Probe2 {{
  param {{ d: series 1 }}
  state {{ h: 1 = 0 }}
  update {{ h = d(t) }}
}}
series s1: 1 = "per.npy" every 3 steps linear
series s2: 1 = "drv.csv" every 0.5 ms
sim {{ dt = 0.25 ms; precision = {prec} }}
population A = Probe2(d = s1)[4]
population B = Probe2(d = s2)[2]
record h of A to "a.npy"
record h of B to "b.npy"
run 5 ms
"""
# a per-neuron series into a view (columns of the base population) and a series read in a
# receptor's update (a stimulus `via` it)
VIEW_MODEL = """series pn: pA = "pn6.npy" every 1 ms
series glob: 1 = "drv.csv" every 0.5 ms
receptor R {
  input { x: 1 }
  state { s: pA = 0 pA }
  update { s = glob(t) * 1 pA + x * 1 pA }
  emit s
}
neuron A {
  input { I: pA }
  state { v: pA = 0 pA }
  update { v = I }
}
sim { dt = 0.25 ms; precision = double }
population P = A[6]
population V = P[2:5]
stimulus s -> V.I = pn(t)
stimulus r -> P.I via R() = 0
record v of P to "v.npy"
run 5 ms
"""
STEPS, N, DT = 20, 4, 0.25
DRV = [1.5, -2.0, 4.25, 0.125, 3.0]                       # nA, one column (with a header)
PER = (np.arange(24, dtype=np.float64).reshape(6, 4) * 0.75 - 3.0) * np.array([1, -1, 2, 0.5])


def value(y, k, linear, s, real):
    """The documented rule, in the model's precision (real: np.float32 or np.float64)."""
    n = len(y)
    r = s // k
    if r >= n - 1:
        return real(y[n - 1])
    if not linear:
        return real(y[r])
    a, b = real(y[r]), real(y[r + 1])
    return a + (b - a) * (real(s - r * k) / real(k))


def expected(linear, real):
    drv = [real(x * 1000.0) for x in DRV]                  # nA -> pA, once, in double
    g = np.array([value(drv, 2, linear, s, real) for s in range(STEPS)])
    h = np.array([[value([real(PER[r][c]) for r in range(6)], 3, linear, s, real) for c in range(N)]
                  for s in range(STEPS)])
    v, vs = real(0), []
    for s in range(STEPS):                                 # v' = I / C: exact, Phi = 1, Psi = dt
        v = real(v + real(DT) * (g[s] / real(2)))
        vs.append(v)
    return g, h, np.array(vs)


def write_data(d):
    with open(os.path.join(d, "drv.csv"), "w") as f:
        f.write("drive\n# nA, one sample every 0.5 ms\n" + "\n".join(str(x) for x in DRV) + "\n")
    np.save(os.path.join(d, "per.npy"), PER)
    np.save(os.path.join(d, "pn6.npy"), np.arange(18.0).reshape(3, 6))


def build(neuroc, d, name, backend, mode, prec, extra=()):
    model = os.path.join(d, name + ".neuro")
    with open(model, "w") as f:
        f.write(VIEW_MODEL if name == "view" else
                (PARAM_MODEL if name.startswith("param") else MODEL).format(mode=mode, prec=prec))
    exe = os.path.join(d, name + "_" + backend + "".join(extra).replace("-", "_"))
    p = subprocess.run([neuroc, model, "--backend", backend, "-o", exe] + list(extra),
                       capture_output=True, text=True)
    if p.returncode != 0:
        print("FAIL  neuroc %s --backend %s %s: %s" % (name, backend, " ".join(extra), p.stderr.strip()))
        return None
    return exe


def states(path):
    """A state recording's rows after the one at t = 0 (the values after initialisation, all
    zero in these models), which is checked here."""
    r = np.load(path)
    if r["t"][0] != 0.0 or any(np.any(r[f][0] != 0) for f in r.dtype.names):
        raise SystemExit("FAIL  %s: no row of initial values at t = 0: %s" % (path, r[0]))
    return r[1:]


def run(exe, out):
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run([exe, "--quiet", "--out", out], capture_output=True, text=True)
    return p.returncode, p.stderr.strip()


CASES = [("held", "", "double"), ("linear", " linear", "double"),
         ("held_f", " held", "float"), ("linear_f", " linear", "float")]


def check_values(neuroc, work):
    failed = 0
    for name, mode, prec in CASES:
        exe = build(neuroc, work, name, "c", mode, prec)
        if not exe:
            failed += 1
            continue
        rc, err = run(exe, os.path.join(work, "out_" + name))
        if rc != 0:
            print("FAIL  %s: status %d: %s" % (name, rc, err))
            failed += 1
            continue
        r = states(os.path.join(work, "out_" + name, "r.npy"))
        g, h, v = expected("linear" in mode, np.float32 if prec == "float" else np.float64)
        ok = (np.array_equal(r["g"], np.repeat(g[:, None], N, axis=1)) and np.array_equal(r["h"], h)
              and np.array_equal(r["v"], np.repeat(v[:, None], N, axis=1)))
        print(("ok    " if ok else "FAIL  ") + "%s: the values read at each step and the integrated drive" % name)
        if not ok:
            print("      g %s\n      want %s\n      h %s\n      want %s\n      v %s\n      want %s"
                  % (r["g"][:, 0], g, r["h"], h, r["v"][:, 0], v))
            failed += 1
    for prec in ("double", "float"):
        real = np.float32 if prec == "float" else np.float64
        name = "param_" + prec
        exe = build(neuroc, work, name, "c", "", prec)
        out = os.path.join(work, "out_" + name)
        if not exe or run(exe, out)[0] != 0:
            print("FAIL  %s: did not build or run" % name)
            failed += 1
            continue
        a, b = states(os.path.join(out, "a.npy")), states(os.path.join(out, "b.npy"))
        ha = np.array([[value([real(PER[r][c]) for r in range(6)], 3, True, s, real) for c in range(N)]
                       for s in range(STEPS)])
        hb = np.array([value([real(x) for x in DRV], 2, False, s, real) for s in range(STEPS)])
        ok = np.array_equal(a["h"], ha) and np.array_equal(b["h"], np.repeat(hb[:, None], 2, axis=1))
        print(("ok    " if ok else "FAIL  ") + "%s: a 'series' parameter given a different series per population" % name)
        failed += not ok
    # a run resumed from a checkpoint reads the series at its own steps: its rows are the tail
    # of the uninterrupted run's
    exe = os.path.join(work, "linear_c")
    ck, res = os.path.join(work, "ck"), os.path.join(work, "res")
    shutil.rmtree(ck, ignore_errors=True)
    shutil.rmtree(res, ignore_errors=True)
    p = subprocess.run([exe, "--quiet", "--out", os.path.join(work, "ck_out"), "--checkpoint", ck,
                        "--checkpoint-at", "2.25ms", "--stop-after-checkpoint"], capture_output=True, text=True)
    if p.returncode == 0:
        p = subprocess.run([exe, "--quiet", "--resume", ck, "--out", res], capture_output=True, text=True)
    rc, err = p.returncode, p.stderr.strip()
    full = np.load(os.path.join(work, "out_linear", "r.npy"))
    ok = rc == 0 and os.path.exists(os.path.join(res, "r.npy"))
    if ok:
        tail = np.load(os.path.join(res, "r.npy"))
        ok = 0 < len(tail) < len(full) and np.array_equal(full[len(full) - len(tail):], tail)
    print(("ok    " if ok else "FAIL  ") + "resume: a resumed run reads the series at its own steps%s"
          % ("" if rc == 0 else " (status %d: %s)" % (rc, err)))
    failed += not ok
    exe = build(neuroc, work, "view", "c", "", "double")
    out = os.path.join(work, "out_view")
    if not exe or run(exe, out)[0] != 0:
        print("FAIL  view: did not build or run")
        return failed + 1
    v = states(os.path.join(out, "v.npy"))["v"]
    want = np.zeros((STEPS, 6))
    for s in range(STEPS):
        want[s, :] = value(DRV, 2, False, s, float)                # the receptor: glob(t) * 1 pA
        want[s, 2:5] += np.arange(18.0).reshape(3, 6)[min(s // 4, 2), 2:5]
    ok = np.array_equal(v, want)
    print(("ok    " if ok else "FAIL  ") + "view: a view reads its base population's columns; a receptor reads a series")
    if not ok:
        print("      got %s\n      want %s" % (v, want))
    return failed + (not ok)


CSV_CASES = [
    ("1\n2,3\n", "drv.csv:2: 2 columns, but the file has 1"),
    ("1\nx\n", "drv.csv:2:1: not a number: 'x'"),
    ("1\n  2e\n", "drv.csv:2:3: not a number: '2e'"),
    ("1\n0x10\n", "drv.csv:2:1: not a number: '0x10'"),
    ("1\n\n# c\ninf\n", "drv.csv:4:1: the value inf is not a finite number"),
    ("nan\n", "drv.csv:1:1: the value nan is not a finite number"),
    ("1e300\n", "drv.csv:1:1: the value 1e+300 is beyond float's range in the declared unit"),
    ("1\n-1e999\n", "drv.csv:2:1: the value -1e999 is beyond float's range in the declared unit"),
    ("", "drv.csv:1: no samples"),
    ("# only a comment\n", "drv.csv:1: no samples"),
    ("drive\n", "drv.csv:1: no samples"),
    ("a,b\n1,2\n", "drv.csv:1: 2 columns, but population P has 4 neurons"),
    ("1\n2\x003\n", "drv.csv:2: a NUL byte"),
]


def npy_cases(path):
    yield (lambda: open(path, "wb").write(b"1,2\n"), "per.npy:1: not a NumPy .npy file")
    yield (lambda: np.save(path, np.array([(1.0, 2)], dtype=[("a", "<f8"), ("b", "<i4")])),
           "per.npy:1: expected a plain array of numbers (integers or f4/f8), got a record array")
    yield (lambda: np.save(path, np.zeros((2, 2, 2))), "per.npy:1: expected a 2-D array")
    yield (lambda: np.save(path, np.zeros((0, 4))), "per.npy:1: no samples")
    yield (lambda: np.save(path, np.array([[0, 1, 2, 3]] * 2 + [[0, 1, np.inf, 3]])),
           "per.npy:3: the value inf is not a finite number")
    yield (lambda: np.save(path, np.zeros((3, 3))), "per.npy:1: 3 columns, but population P has 4 neurons")

    def truncated():
        np.save(path, np.ones((4, 4)))
        with open(path, "r+b") as f:
            f.truncate(os.path.getsize(path) - 40)
    yield (truncated, "per.npy:3: the file ends early: 4 rows announced, 2 present")
    yield (lambda: os.remove(path), "per.npy: cannot open series file: No such file or directory")


def check_files(neuroc, work):
    failed = 0
    exe = build(neuroc, work, "files", "c", "", "double")
    if not exe:
        return 1

    def expect(what, status, msg):
        nonlocal failed
        rc, err = run(exe, os.path.join(work, "out_files"))
        err = err.replace(os.path.join(work, ""), "")
        ok = rc == status and msg in err and (status == 0 or ": error: " in err)
        print(("ok    " if ok else "FAIL  ") + "%s: status %d: %s" % (what, rc, err))
        if not ok:
            print("      expected status %d and: %s" % (status, msg))
            failed += 1

    for text, msg in CSV_CASES:
        with open(os.path.join(work, "drv.csv"), "w") as f:
            f.write(text)
        expect("drv.csv %r" % text, 1, msg)
    with open(os.path.join(work, "drv.csv"), "w") as f:
        f.write("x\n1e-320\n-0\n 2 \r\n")        # a header, a subnormal, -0, spaces and CR
    expect("drv.csv read", 0, "")
    os.remove(os.path.join(work, "drv.csv"))
    expect("drv.csv removed", 1, "drv.csv: cannot open series file: No such file or directory")
    write_data(work)
    np.save(os.path.join(work, "per.npy"), np.arange(6.0))   # one column: the same for all
    expect("per.npy 1-D", 0, "")
    for write, msg in npy_cases(os.path.join(work, "per.npy")):
        write()
        expect("per.npy", 1, msg)
    write_data(work)
    return failed


DECL = """neuron A {{
  input {{ I: pA }}
  state {{ v: mV = 0 mV }}
  dynamics {{ v' = I / 1 pF }}
}}
sim {{ dt = 0.25 ms }}
{text}
"""
OK_SERIES = 'series d: pA = "drv.csv" every 1 ms\n'
USE = OK_SERIES + "population P = A[2]\n"
COMPILE_CASES = [
    ('series d = "drv.csv" every 1 ms', "7:1: error: series 'd' needs its unit"),
    ('series d: int = "drv.csv" every 1 ms', "7:11: error: a series holds real values"),
    ('series d: pA = "nope.csv" every 1 ms', "7:16: error: cannot read series file"),
    ('series d: pA = "drv.txt" every 1 ms', "7:16: error: a series file ends in '.csv' or '.npy'"),
    ('series d: pA = "drv.csv" every 0.3 ms', "7:32: error: the sampling step of a series is not a whole number of steps"),
    ('series d: pA = "drv.csv" every 0 ms', "7:32: error: the sampling step of a series must be at least one step"),
    ('series d: pA = "drv.csv" every 1 mV', "7:32: error: the sampling step of a series must be a time"),
    ('series d: pA = "drv.csv" every 1 ms cubic', "7:37: error: expected 'held' or 'linear'"),
    (USE + "stimulus s -> P.I = d", "9:21: error: 'd' is a series: read its value at the current time as d(t)"),
    (USE + "stimulus s -> P.I = d(t + 1 ms)", "9:21: error: a series is read at the current time: d(t)"),
    (USE + "stimulus s -> P.I = d(t) / 1 pA", "9:21: error: stimulus 's' into port 'I' has dimension 1, expected pA"),
    (OK_SERIES + "const c = d(t)", "8:11: error: series 'd' can be read only in stimuli"),
    (USE + "population Q = A[2] { v = d(t) * 1 GOhm }", "9:27: error: series 'd' can be read only in stimuli"),
    (OK_SERIES + OK_SERIES, "8:1: error: redefinition of 'd'"),
    ("const x: series pA = 1", "7:10: error: 'series' is a type of model parameters only"),
    (OK_SERIES + 'series u: 1 = "drv.csv" every 1 ms\nneuron B {\n  param { s: series pA }\n  state { x: pA = 0 pA }\n'
     "  update { x = s(t) }\n}\npopulation P = B(s = u)[2]\npopulation Q = B(s = 3)[2]\npopulation R = B[2]",
     ["14:22: error: series 'u' has dimension 1, but parameter 's' of 'B' is a series of pA",
      "15:22: error: parameter 's' of 'B' is a series: the name of a 'series' declaration, s = NAME",
      "16:16: error: parameter 's' of 'B' has no default and is not given"]),
    (OK_SERIES + "neuron B {\n  param { s: series pA }\n  state { x: pA = 0 pA }\n  update { x = s(t) }\n}\n"
     "population P = B(s = d)[2] { s = d }", "13:30: error: series parameter 's' is the same for the whole population"),
]


def check_compile(neuroc, work):
    failed = 0
    p = subprocess.run([neuroc, os.path.join(work, "linear.neuro"), "--backend", "c", "--explain"],
                       capture_output=True, text=True)
    want = ["series drv: drv.csv (loaded at start-up), a sample every 2 steps (0.5 ms), linear between samples; read by P",
            "series per: per.npy (loaded at start-up), a sample every 3 steps (0.75 ms), linear between samples; read by P"]
    ok = p.returncode == 0 and all(w in p.stdout.splitlines() for w in want)
    print(("ok    " if ok else "FAIL  ") + "--explain: each series, its step, rule and readers")
    if not ok:
        print("      " + p.stdout.replace("\n", "\n      "))
    failed += not ok
    # --dump=ast prints declarations and `series` parameters back as they parse: a fixed point
    for name, text in (("rt_linear", MODEL.format(mode=" linear", prec="double")),
                       ("rt_param", PARAM_MODEL.format(mode="", prec="float"))):
        first = os.path.join(work, name + ".neuro")
        with open(first, "w") as f:
            f.write(text)
        a = subprocess.run([neuroc, first, "--dump=ast"], capture_output=True, text=True).stdout
        with open(os.path.join(work, name + "_2.neuro"), "w") as f:
            f.write(a)
        b = subprocess.run([neuroc, os.path.join(work, name + "_2.neuro"), "--dump=ast"],
                           capture_output=True, text=True).stdout
        ok = a == b and ("series drv: nA = \"drv.csv\" every 0.5 ms linear" in a or "d: series 1" in a)
        print(("ok    " if ok else "FAIL  ") + "%s: --dump=ast prints series back as they parse" % name)
        failed += not ok
    model = os.path.join(work, "bad.neuro")
    for text, msg in COMPILE_CASES:
        with open(model, "w") as f:
            f.write(DECL.format(text=text))
        p = subprocess.run([neuroc, model, "--emit-only", os.path.join(work, "bad_out")],
                           capture_output=True, text=True)
        msgs = msg if isinstance(msg, list) else [msg]
        ok = p.returncode == 1 and all(("bad.neuro:" + m) in p.stderr for m in msgs)
        print(("ok    " if ok else "FAIL  ") + "compile %r: %s" % (text.splitlines()[-1], msg))
        if not ok:
            print("      status %d: %s" % (p.returncode, p.stderr.strip()))
            failed += 1
    return failed


def check_gpu(neuroc, work, backend):
    if backend == "cuda" and not os.path.exists("/dev/nvidiactl") and \
            subprocess.run(["sh", "-c", "nvidia-smi -L >/dev/null 2>&1"]).returncode != 0:
        print("series[cuda]: skipped: no CUDA device")
        return 77
    # every schedule for two models; the block schedule for the others (nvcc builds are slow)
    every = ["block", "launch", "free"] + (["graph", "persistent", "cluster"] if backend == "cuda" else [])
    failed = 0
    for name, mode, prec in CASES + [("param_float", "", "float"), ("view", "", "double")]:
        ref = build(neuroc, work, name, "c", mode, prec)
        if not ref or run(ref, os.path.join(work, "ref"))[0] != 0:
            return 1
        files = ["a.npy", "b.npy"] if name.startswith("param") else ["v.npy"] if name == "view" else ["r.npy"]
        modes = every if name in ("linear_f", "param_float") or backend == "opencl" else ["block"]
        if name == "view":   # a stimulus through a receptor: not the free schedule
            modes = [m for m in modes if m != "free"]
        for gm in modes:
            exe = build(neuroc, work, name, backend, mode, prec, ["--gpu-mode", gm])
            if not exe:
                failed += 1
                continue
            p = subprocess.run([exe, "--list-devices"], capture_output=True, text=True)
            if p.returncode != 0 or not p.stdout.strip():
                print("series[%s]: skipped: no %s device" % (backend, backend))
                return 77
            rc, err = run(exe, os.path.join(work, "gpu"))
            same = rc == 0 and all(open(os.path.join(work, "ref", f), "rb").read() ==
                                   open(os.path.join(work, "gpu", f), "rb").read() for f in files)
            print(("ok    " if same else "FAIL  ") + "%s --gpu-mode %s: the same bits as C%s"
                  % (name, gm, "" if rc == 0 else " (status %d: %s)" % (rc, err)))
            failed += not same
    return failed


def main(argv):
    if len(argv) != 4:
        print(__doc__)
        return 2
    neuroc, work, backend = argv[1], argv[2], argv[3]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    write_data(work)
    if backend != "c":
        r = check_gpu(neuroc, work, backend)
        return r if r == 77 else (1 if r else 0)
    failed = check_values(neuroc, work) + check_files(neuroc, work) + check_compile(neuroc, work)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
