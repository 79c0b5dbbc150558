#!/usr/bin/env python3
"""tests/python: `pip install` of python/ from the source tree, then a fresh interpreter that
imports neuroc from the install folder alone and loads an output folder.

usage: test_pip.py NEUROC WORKDIR

The install is `python3 -m pip install --no-build-isolation --no-deps --target DIR` of a copy
of python/ (the build writes build/ and *.egg-info beside the sources). Without NumPy: exit 77
(skipped). Without pip or setuptools: a failure, not a skip (CI installs python3-pip and
python3-setuptools, Debian 12).
"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def main():
    neuroc_exe, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    try:
        import numpy  # noqa: F401
    except ImportError:
        print("skipped: no NumPy")
        return 77
    for mod, deb in (("pip", "python3-pip"), ("setuptools", "python3-setuptools")):
        r = subprocess.run([sys.executable, "-c", "import " + mod], capture_output=True, text=True)
        if r.returncode != 0:
            print("FAIL: %s has no %s (Debian %s): %s" % (sys.executable, mod, deb, r.stderr.strip()[-300:]))
            return 1
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    src, target = os.path.join(work, "src"), os.path.join(work, "site")
    shutil.copytree(os.path.join(ROOT, "python"), src)
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps",
                        "--no-index", "--disable-pip-version-check", "--target", target, src],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print("FAIL: pip install python/:\n%s%s" % (r.stdout[-2000:], r.stderr[-2000:]))
        return 1
    print("ok    pip installed python/ into %s" % target)
    dist = [d for d in os.listdir(target) if d.startswith("neuroc-") and d.endswith(".dist-info")]
    if dist != ["neuroc-0.1.0.dist-info"]:
        print("FAIL: the install holds %s, not neuroc-0.1.0.dist-info" % dist)
        return 1
    # compile and run a model with the build's neuroc; load its folder from the installed copy
    sim, out = os.path.join(work, "sim"), os.path.join(work, "out")
    subprocess.run([neuroc_exe, os.path.join(HERE, "net.neuro"), "-o", sim, "--backend", "c"], check=True)
    subprocess.run([sim, "--out", out, "--quiet"], check=True)
    code = """
import sys, numpy as np, neuroc
assert neuroc.__file__.startswith(sys.argv[1]), neuroc.__file__
r = neuroc.load(sys.argv[2])
t, i = r.spikes("P")
raw = np.load(sys.argv[2] + "/P.npy")
assert np.array_equal(t, raw["t"]) and np.array_equal(i, raw["i"])
assert r.state("VU.npy").values.shape == (401, 6)   # the row at t = 0, then 400 samples
print("ok    a fresh interpreter imports", neuroc.__file__, "and loads", len(t), "spikes of P")
"""
    # the installed copy first; the rest of the path stays (NumPy may come from there)
    path = os.pathsep.join(p for p in [target, os.environ.get("PYTHONPATH", "")] if p)
    env = dict(os.environ, PYTHONPATH=path, PYTHONNOUSERSITE="1")
    r = subprocess.run([sys.executable, "-c", code, target, out], cwd=work, env=env,
                       capture_output=True, text=True)
    sys.stdout.write(r.stdout)
    if r.returncode != 0:
        print("FAIL: the installed package:\n%s" % r.stderr[-2000:])
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
