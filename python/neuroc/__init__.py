"""neuroc: the output of neuroc simulators in Python, and the neuroc compiler behind two calls.

Pure Python on NumPy (pandas only for Batch.to_pandas()). docs/outputs.md, "In Python: the
neuroc package", shows it at work; docs/cli.md section 3 has the file layouts.

    import neuroc
    run = neuroc.load("out")              # a simulator's output folder (its manifest.json)
    run.dt, run.duration, run.seed        # ms, ms
    run.populations                       # {name: Population(name, size, spikes)}, base populations
    t, i = run.spikes("P")                # by population or file name: Spikes(t, i), t in ms
    trains = run.spike_trains("P")        # one array of spike times per neuron
    s = run.state("V.npy")                # State: s.t (ms), s.values (samples x columns),
                                          # s.variables, s.units, s.neurons; s["V"]
    t, hz = run.rate("exc")               # record rate of exc bin T: Rate(t, hz), by target or file
    w = run.weights("proj")               # Weights (record w of proj): w.t, w.w, w.pre, w.post
    c = run.connectivity("proj")          # connectivity_proj.npy: pre, post, w, delay
    run.manifest                          # the raw manifest.json

    batch = neuroc.load("batch")          # --instances / --sweep: a Batch
    batch.table                           # a list of dicts, one per instance
    batch.to_pandas()                     # the same as a DataFrame (needs pandas)
    batch.instance(2)                     # that instance's Run

    sim = neuroc.compile("model.neuro")   # runs `neuroc` ($NEUROC, else on PATH): a Simulator
    run = sim.run("out", seed=3, set={"P.tau_m": "15ms"})
    batch = sim.run("sweep", sweep={"P.tau_m": ["10ms", "20ms"]})

Errors: OutputError (a missing or malformed folder or file, named in the message),
CompileError and RunError (neuroc's or the simulator's message); all are NeurocError.
"""
import json
import os

from .batch import Batch
from .errors import CompileError, NeurocError, OutputError, RunError
from .run import Population, Run, Rate, Spikes, State, View, Weights
from .tool import Simulator, compile, find_neuroc

__version__ = "0.1.0"
__all__ = ["load", "compile", "Run", "Batch", "Simulator", "Spikes", "State", "Weights", "View", "Rate",
           "Population", "NeurocError", "OutputError", "CompileError", "RunError", "find_neuroc"]


def load(folder):
    """Load a simulator's output folder: a Run, or a Batch when its manifest.json lists
    instances (--instances / --sweep). Raises OutputError when the folder has no manifest."""
    path = os.path.join(folder, "manifest.json")
    if not os.path.isfile(path):
        raise OutputError("%s: no manifest.json (not a simulator's output folder, or the run "
                          "did not finish writing it)" % path)
    try:
        with open(path, encoding="utf-8") as f:
            m = json.load(f)
    except ValueError as e:
        raise OutputError("%s: not valid JSON (%s)" % (path, e))
    if "instances" in m:
        return Batch(folder, m)
    return Run(folder)
