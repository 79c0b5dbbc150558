"""One run's output folder: the manifest and the recordings it lists."""
import collections
import json
import os

import numpy as np

from . import files
from .errors import OutputError

Spikes = collections.namedtuple("Spikes", "t i")
Spikes.__doc__ = """A spike recording: `t` (ms, float64) and `i` (the neuron's index within the
recorded population or view), one entry per spike in time order. Unpacks as `t, i`."""

Rate = collections.namedtuple("Rate", "t hz")
Rate.__doc__ = """A rate recording (`record rate of T bin B`): `t` (ms, the end of each bin) and
`hz` (the target's spikes in the bin over its size times the bin, in Hz). Unpacks as `t, hz`."""

Population = collections.namedtuple("Population", "name size spikes")
Population.__doc__ = "A base population of the manifest: its name, size and total spikes."

View = collections.namedtuple("View", "name population offset size spikes")
View.__doc__ = """A declared view (`population exc = P[0:80]`): its name, base population,
offset and size in it, and its spikes (None where the back end did not count them)."""


class State:
    """A state recording (`record V, U of P[...] every T to "f.npy"`).

    t          -- sample times, ms (float64), shape (samples,)
    values     -- float64, samples x columns; the columns are variables outer, neurons inner
                  (the .csv's order: V[0], V[1], ..., U[0], U[1], ...)
    variables  -- the variable names
    units      -- {variable: unit} in the internal system ("mV", "pA", "1"), "t": "ms"
    neurons    -- the recorded neurons' indices within the recorded population or view
                  (for `record w of PROJ`: the synapses, as rows of the connectivity)
    population -- the base population's name (the projection's for synapse states)
    file, every_steps, dt

    s["V"] is the samples x neurons block of one variable.
    """

    def __init__(self, rec, t, values):
        self.file = rec["file"]
        self.population = rec.get("population")
        self.variables = list(rec.get("variables", []))
        self.units = dict(rec.get("units", {}))
        self.neurons = np.asarray(rec.get("neurons", []), dtype=np.int64)
        self.every_steps = rec.get("every_steps", 1)
        self.dt = rec.get("dt_ms")
        self.t = t
        self.values = values

    def __getitem__(self, var):
        if var not in self.variables:
            raise KeyError("%s records no variable %r (it has: %s)"
                           % (self.file, var, ", ".join(self.variables)))
        k, n = self.variables.index(var), len(self.neurons)
        return self.values[:, k * n:(k + 1) * n]

    def __repr__(self):
        return "<%s %s: %s of %s, %d samples x %d columns>" % (
            type(self).__name__, self.file, ",".join(self.variables), self.population, len(self.t), self.values.shape[1])


class Weights(State):
    """A synapse-state recording (`record w of PROJ`): a State whose columns are synapses.
    `pre` and `post` (int arrays, one per column, indices within the projection's pre- and
    postsynaptic populations or views) come from the recording's own (pre, post) file for a
    subset (`record w of PROJ[pre a:b, post c:d]` or `[sample k]`: the manifest's
    "synapses_file"), else from connectivity_<PROJ>.npy, which the simulator writes with
    --save-connectivity; without either they are None.
    `w` is values["w"]-like: the samples x synapses block of the first variable."""

    def __init__(self, rec, t, values, conn, pairs=None):
        State.__init__(self, rec, t, values)
        self.projection = self.population
        self.pre = self.post = None
        if pairs is not None:
            if len(pairs) != len(self.neurons):
                raise OutputError("%s: %d synapses recorded, %s names %d"
                                  % (self.file, len(self.neurons), rec.get("synapses_file"), len(pairs)))
            self.pre = np.asarray(pairs["pre"], dtype=np.int64)
            self.post = np.asarray(pairs["post"], dtype=np.int64)
        elif conn is not None:
            if len(self.neurons) and self.neurons.max() >= len(conn):
                raise OutputError("%s: synapse %d recorded, the connectivity file has %d"
                                  % (self.file, self.neurons.max(), len(conn)))
            self.pre = np.asarray(conn["pre"][self.neurons], dtype=np.int64)
            self.post = np.asarray(conn["post"][self.neurons], dtype=np.int64)

    @property
    def w(self):
        return self[self.variables[0]]


class Run:
    """A finished (or interrupted) run's output folder; made by neuroc.load(folder).

    manifest    -- the raw manifest.json, a dict
    dt          -- the time step, ms
    duration    -- the simulated time, ms (completed_steps x dt)
    seed, model, backend, parameters ({"P.x": value} in the declared units; None for a
                  per-neuron parameter that kept the model's values or took them from a file)
    parameter_files -- {"P.x": file} of the per-neuron parameters given as --set P.x=@FILE
    parameter_expressions -- {"P.x": "2pA + 0.5pA*i"} of those given by an expression of i
    populations -- {name: Population(name, size, spikes)} for every base population
    views       -- {name: View(name, population, offset, size, spikes)} for every declared
                   view (`population exc = P[0:80]`), in model order
    connectivity_files -- {projection: file name} of the files --save-connectivity wrote
    """

    def __init__(self, folder):
        self.folder = os.path.abspath(folder)
        path = os.path.join(folder, "manifest.json")
        if not os.path.isfile(path):
            raise OutputError("%s: no manifest.json (not a simulator's output folder, or the run "
                              "did not finish writing it)" % path)
        try:
            with open(path, encoding="utf-8") as f:
                self.manifest = json.load(f)
        except ValueError as e:
            raise OutputError("%s: not valid JSON (%s)" % (path, e))
        m = self.manifest
        if "instances" in m:
            raise OutputError("%s: a batch's manifest (--instances/--sweep): load it with "
                              "neuroc.load(), which returns a Batch" % path)
        for k in ("dt_ms", "populations", "recordings"):
            if k not in m:
                raise OutputError("%s: no key %r" % (path, k))
        self.dt = float(m["dt_ms"])
        self.steps = int(m.get("completed_steps", 0))
        self.duration = self.steps * self.dt
        self.seed = m.get("seed")
        self.model = m.get("model")
        self.backend = m.get("backend")
        self.error = m.get("error")
        self.interrupted = bool(m.get("interrupted"))
        self.parameters = {k: v.get("value") for k, v in m.get("parameters", {}).items()}
        self.parameter_files = {k: v["file"] for k, v in m.get("parameters", {}).items()
                                if "file" in v}
        self.parameter_expressions = {k: v["expression"] for k, v in m.get("parameters", {}).items()
                                      if "expression" in v}
        self.populations = collections.OrderedDict(
            (p["name"], Population(p["name"], int(p["size"]), int(p.get("spikes", 0))))
            for p in m["populations"])
        self.views = collections.OrderedDict(
            (v["name"], View(v["name"], v["population"], int(v["offset"]), int(v["size"]),
                             None if v.get("spikes") is None else int(v["spikes"])))
            for v in m.get("views", []))
        self.connectivity_files = collections.OrderedDict(
            (c["projection"], c["file"]) for c in m.get("connectivity", []))

    def __repr__(self):
        return "<neuroc Run %s: %s, %g ms, %d recordings>" % (
            self.folder, self.model, self.duration, len(self.manifest["recordings"]))

    def path(self, name):
        return os.path.join(self.folder, name)

    def recordings(self, kind=None):
        """The manifest's recordings (dicts), all or of one kind ("spikes", "state" or "rate")."""
        return [r for r in self.manifest["recordings"] if kind is None or r.get("kind") == kind]

    def _find(self, kind, name, what):
        recs = self.recordings(kind)
        by_file = [r for r in recs if r["file"] == name]
        if by_file:
            return by_file[0]
        by_view = [r for r in recs if r.get("view") == name]
        if len(by_view) == 1:
            return by_view[0]
        by_pop = [r for r in recs if r.get("population") == name]
        if len(by_pop) > 1 and kind == "spikes" and name in self.populations:
            # a population and views of it: the name means the whole population's recording
            whole = [r for r in by_pop if r.get("population_size") == self.populations[name].size]
            by_pop = whole if len(whole) == 1 else by_pop
        if len(by_pop) == 1:
            return by_pop[0]
        mf = self.path("manifest.json")
        if len(by_pop) > 1:
            raise OutputError("%s: %d %s recordings of %r (%s): name the file"
                              % (mf, len(by_pop), kind, name, ", ".join(r["file"] for r in by_pop)))
        have = sorted(set(r.get("population") for r in recs) | set(r["file"] for r in recs))
        raise OutputError("%s: no %s recording of %r (%s: %s)"
                          % (mf, kind, name, what, ", ".join(have) or "none"))

    def _view_source(self, view):
        """A spike recording holding all of declared view `view`, and the view's first neuron
        in it; None when no recording does (or the name is no view's)."""
        v = self.views.get(view)
        if v is None:
            return None
        for r in self.recordings("spikes"):
            off = int(r.get("offset", 0))
            if (r.get("population") == v.population and off <= v.offset and
                    v.offset + v.size <= off + int(r.get("population_size", 0))):
                return r, v.offset - off
        return None

    def spikes(self, pop):
        """Spikes(t, i) of a spike recording, named by its file name, by the declared view it
        records, by its base population (the recording of the whole population, where views
        of it are recorded too), or by a declared view that a recording holds (`exc` of a
        recording of its population P): that view's spikes, indices within the view."""
        recs = self.recordings("spikes")
        if pop in self.views and not any(r["file"] == pop or r.get("view") == pop for r in recs):
            src = self._view_source(pop)
            if src is None:
                raise OutputError("%s: no spike recording holds view %r (of %s)"
                                  % (self.path("manifest.json"), pop, self.views[pop].population))
            rec, lo = src
            t, i = files.read_spikes(self.path(rec["file"]), rec.get("format", "npy"), rec.get("group"))
            keep = (i >= lo) & (i < lo + self.views[pop].size)
            return Spikes(t[keep], (i[keep] - lo).astype(i.dtype))
        rec = self._find("spikes", pop, "recorded")
        t, i = files.read_spikes(self.path(rec["file"]), rec.get("format", "npy"), rec.get("group"))
        return Spikes(t, i)

    def spike_trains(self, pop):
        """A list with one array of spike times (ms) per neuron of the recorded population or
        view (its size is the manifest's population_size), in index order."""
        if pop in self.views and not any(r["file"] == pop or r.get("view") == pop
                                         for r in self.recordings("spikes")):
            t, i = self.spikes(pop)
            n = self.views[pop].size
        else:
            rec = self._find("spikes", pop, "recorded")
            t, i = self.spikes(rec["file"])
            n = int(rec.get("population_size") or (i.max() + 1 if len(i) else 0))
        order = np.argsort(i, kind="stable")
        bounds = np.searchsorted(i[order], np.arange(n + 1))
        ts = t[order]
        return [ts[bounds[k]:bounds[k + 1]] for k in range(n)]

    def rate(self, name):
        """Rate(t, hz) of a rate recording, named by its file, by its target (the population
        or view named in the model) or by its base population when it has only one."""
        recs = self.recordings("rate")
        for key in ("file", "target", "population"):
            found = [r for r in recs if r.get(key) == name]
            if len(found) == 1:
                rec = found[0]
                break
            if len(found) > 1:
                raise OutputError("%s: %d rate recordings of %r (%s): name the file"
                                  % (self.path("manifest.json"), len(found), name,
                                     ", ".join(r["file"] for r in found)))
        else:
            have = sorted(set(r.get("target") for r in recs) | set(r["file"] for r in recs))
            raise OutputError("%s: no rate recording of %r (recorded: %s)"
                              % (self.path("manifest.json"), name, ", ".join(have) or "none"))
        return Rate(*files.read_rate(self.path(rec["file"]), rec.get("format", "npy")))

    def _state(self, rec):
        ncol = len(rec.get("neurons", []))
        return files.read_state(self.path(rec["file"]), rec.get("format", "npy"),
                                rec.get("variables", []), ncol)

    def state(self, name):
        """The State of a state recording, named by its file or by its population."""
        rec = self._find("state", name, "recorded")
        t, vals = self._state(rec)
        if rec.get("population") not in self.populations:
            return Weights(rec, t, vals, self._conn_or_none(rec.get("population")), self._pairs(rec))
        return State(rec, t, vals)

    def _pairs(self, rec):
        """The (pre, post) records of a subset's synapses, or None (every synapse)."""
        f = rec.get("synapses_file")
        return files.load_npy(self.path(f), ("pre", "post")) if f else None

    def _conn_or_none(self, proj):
        p = self.path("connectivity_%s.npy" % proj)
        return files.read_connectivity(p) if os.path.isfile(p) else None

    def weights(self, proj):
        """The Weights of a `record w of PROJ` recording (named by the projection or the file),
        with pre and post from connectivity_<PROJ>.npy when the run saved it."""
        rec = self._find("state", proj, "projections with recorded synapse states")
        if rec.get("population") in self.populations:
            raise OutputError("%s: %s records neurons of population %r, not synapses"
                              % (self.path("manifest.json"), rec["file"], rec["population"]))
        t, vals = self._state(rec)
        return Weights(rec, t, vals, self._conn_or_none(rec["population"]), self._pairs(rec))

    def connectivity(self, proj):
        """The synapses of projection PROJ as saved by --save-connectivity: a record array
        with fields pre, post, w (internal units) and delay (steps), sorted by pre, post."""
        p = self.path("connectivity_%s.npy" % proj)
        if not os.path.isfile(p):
            raise OutputError("%s: no such file (run the simulator with --save-connectivity; "
                              "or no projection %r)" % (p, proj))
        return files.read_connectivity(p)
