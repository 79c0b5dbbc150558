"""Wrappers around the neuroc executable and the simulators it builds."""
import os
import shutil
import subprocess
import tempfile

from .errors import CompileError, NeurocError, RunError


def find_neuroc(neuroc=None):
    """The neuroc executable: the argument, else $NEUROC, else `neuroc` on PATH."""
    exe = neuroc or os.environ.get("NEUROC") or shutil.which("neuroc")
    if not exe:
        raise NeurocError("no neuroc executable: pass neuroc=PATH, set $NEUROC, or put neuroc on PATH")
    if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
        raise NeurocError("%s: not an executable file (the neuroc compiler)" % exe)
    return exe


def _flag(name):
    return "--" + name.replace("_", "-")


def compile(model, out=None, backend="c", neuroc=None, **opts):
    """Compile MODEL (a .neuro file) into a simulator and return it as a Simulator.

    out      -- the program to write (default: a temporary folder's <model name>)
    backend  -- "c" (default), "cuda", "opencl" or "auto"
    neuroc   -- the compiler (default: $NEUROC, else neuroc on PATH)
    opts     -- further options of `neuroc` (docs/cli.md section 1), by name with _ for -:
                gpu_mode="block", cflags="-O2", no_cache=True, include=["dir", ...] (-I)
    Raises CompileError with neuroc's message when it refuses the model.
    """
    exe = find_neuroc(neuroc)
    if not os.path.isfile(model):
        raise CompileError("%s: no such model file" % model)
    if out is None:
        name = os.path.basename(model)
        name = name[:-6] if name.endswith(".neuro") else name
        out = os.path.join(tempfile.mkdtemp(prefix="neuroc_"), name)
    cmd = [exe, model, "-o", out, "--backend", backend]
    for k, v in opts.items():
        if k == "include":
            for d in ([v] if isinstance(v, str) else v):
                cmd += ["-I", d]
        elif v is True:
            cmd.append(_flag(k))
        elif v not in (None, False):
            cmd += [_flag(k), str(v)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise CompileError((r.stderr or r.stdout).strip() or "neuroc exited with %d" % r.returncode)
    return Simulator(out)


class Simulator:
    """A compiled simulator (the program neuroc wrote); `path` is its file."""

    def __init__(self, path):
        if not os.path.isfile(path):
            raise NeurocError("%s: no such simulator" % path)
        self.path = os.path.abspath(path)

    def __repr__(self):
        return "<neuroc Simulator %s>" % self.path

    def run(self, out_dir, seed=None, set=None, sweep=None, seeds=None, instances=None,
            jobs=None, save_connectivity=False, quiet=True, args=(), env=None):
        """Run it into OUT_DIR and return the loaded output: a Run, or a Batch for
        instances/sweep.

        seed       -- the seed (default: the model's)
        set        -- {"P.x": "15ms", ...}: --set P.x=15ms for each (values as strings with
                      their unit, or numbers for dimensionless parameters; names of views
                      and projections too, "exc.b"; "@values.npy" or "@values.csv[pA]" gives
                      a per-neuron parameter one value per neuron from a file, and
                      "2pA + 0.5pA*i" one computed from the neuron's index i)
        sweep      -- {"P.x": ["10ms", "20ms", ...], ...}: --sweep P.x=10ms,20ms,... for each;
                      several make a grid, the last varying fastest
        seeds      -- --seeds K: every point (or the plain run) with seeds seed .. seed+K-1
        instances  -- --instances B;  jobs: --jobs J
        save_connectivity -- --save-connectivity;  quiet: --quiet;  args: more arguments
        Raises RunError (with the simulator's error output and exit status) when it fails.
        """
        from . import load
        cmd = [self.path, "--out", out_dir]
        if seed is not None:
            cmd += ["--seed", str(seed)]
        for k, v in (set or {}).items():
            cmd.append("--set=%s=%s" % (k, v))
        for k, vs in (sweep or {}).items():
            cmd.append("--sweep=%s=%s" % (k, ",".join(str(v) for v in vs)))
        if seeds is not None:
            cmd += ["--seeds", str(seeds)]
        if instances is not None:
            cmd += ["--instances", str(instances)]
        if jobs is not None:
            cmd += ["--jobs", str(jobs)]
        if save_connectivity:
            cmd.append("--save-connectivity")
        if quiet:
            cmd.append("--quiet")
        cmd += list(args)
        r = subprocess.run(cmd, capture_output=True, text=True,
                           env=None if env is None else dict(os.environ, **env))
        if r.returncode != 0:
            raise RunError((r.stderr or r.stdout).strip() or "%s exited with %d" % (self.path, r.returncode),
                           r.returncode, out_dir)
        return load(out_dir)
