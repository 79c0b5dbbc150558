#!/usr/bin/env python3
"""tests/python: the neuroc Python package (python/neuroc) against real output folders.

usage: test_neuroc.py WORKDIR   (environment: NEUROC = the build's neuroc, PYTHONPATH = python/)

Compiles and runs small models with the build's neuroc and checks that what the package
returns is what the files hold: spikes equal the raw records exactly, spike trains partition
them, state traces have the manifest's time axis (every x dt), units, neurons and shapes,
recorded weights carry (pre, post) from the saved connectivity, a --sweep batch's table and
instances, the compile/run wrappers and their errors, and one OpenCL run (PoCL) giving the C
run's bits. Exits 77 (skipped) without NumPy.
"""
import json
import os
import shutil
import sys
import unittest

try:
    import numpy as np
except ImportError:
    print("skipped: no NumPy")
    sys.exit(77)

# the package of this source tree, ahead of any installed one
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "python"))
import neuroc  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
WORK = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "work")
NET = os.path.join(HERE, "net.neuro")
STDP = os.path.join(ROOT, "tests", "plast", "models", "stdp_pairs.neuro")
LIF = os.path.join(ROOT, "tests", "set", "lif_tau.neuro")
_sims = {}


def sim(model, backend="c"):
    key = (model, backend)
    if key not in _sims:
        name = os.path.basename(model)[:-6] + "_" + backend
        _sims[key] = neuroc.compile(model, os.path.join(WORK, name), backend=backend)
    return _sims[key]


def text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def csv_rows(path):
    return np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)


class RunFolder(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = os.path.join(WORK, "net_out")
        cls.r = sim(NET).run(cls.out, seed=3, save_connectivity=True)
        with open(os.path.join(cls.out, "manifest.json")) as f:
            cls.m = json.load(f)

    def rec(self, f):
        return [r for r in self.m["recordings"] if r["file"] == f][0]

    def test_manifest(self):
        r = self.r
        self.assertIsInstance(r, neuroc.Run)
        self.assertEqual(r.manifest, self.m)
        self.assertEqual((r.dt, r.seed, r.model), (0.1, 3, "net"))
        self.assertAlmostEqual(r.duration, 200.0, places=9)
        self.assertEqual(list(r.populations), ["src", "P"])       # base populations, no views
        self.assertEqual(r.populations["P"].size, 60)
        self.assertEqual(r.populations["src"].spikes, self.m["populations"][0]["spikes"])
        self.assertEqual(r.parameters["src.rate"], 40)

    def test_spikes_npy_exact(self):
        raw = np.load(os.path.join(self.out, "P.npy"))
        s = self.r.spikes("P")                                 # the whole P, not the view Q
        self.assertGreater(len(raw), 50)
        self.assertEqual(s.t.dtype, np.float64)
        self.assertTrue(np.array_equal(s.t, raw["t"]) and np.array_equal(s.i, raw["i"]))
        t, i = self.r.spikes("P.npy")
        self.assertTrue(np.array_equal(t, raw["t"]) and np.array_equal(i, raw["i"]))
        q = self.r.spikes("Q.npy")                             # the view, by file
        self.assertTrue(np.array_equal(q.i, np.load(os.path.join(self.out, "Q.npy"))["i"]))
        self.assertEqual(len(q.t), self.rec("Q.npy")["rows"])
        # the view's spikes are P's neurons 20..39, renumbered from 0
        sel = (s.i >= 20) & (s.i < 40)
        self.assertTrue(np.array_equal(q.t, s.t[sel]) and np.array_equal(q.i, s.i[sel] - 20))

    def test_views(self):
        r = self.r
        self.assertEqual(list(r.views), ["Q", "R"])
        s = r.spikes("P")
        for name, lo in (("Q", 20), ("R", 40)):
            v = r.views[name]
            self.assertEqual((v.population, v.offset, v.size), ("P", lo, 20))
            sel = (s.i >= lo) & (s.i < lo + 20)
            self.assertEqual(v.spikes, int(sel.sum()))             # counted by the simulator
            t, i = r.spikes(name)                                  # by the view's name
            self.assertTrue(np.array_equal(t, s.t[sel]) and np.array_equal(i, s.i[sel] - lo))
            trains = r.spike_trains(name)
            self.assertEqual(len(trains), 20)
            self.assertTrue(np.array_equal(trains[3], s.t[s.i == lo + 3]))
        self.assertEqual(self.rec("Q.npy")["view"], "Q")           # Q's own recording names it
        self.assertTrue(np.array_equal(r.spikes("Q").i, r.spikes("Q.npy").i))
        self.assertEqual(dict(r.connectivity_files), {"drive": "connectivity_drive.npy"})

    def test_spikes_csv_exact(self):
        raw = csv_rows(os.path.join(self.out, "src.csv"))
        t, i = self.r.spikes("src")
        self.assertEqual(len(t), self.m["populations"][0]["spikes"])
        self.assertTrue(np.array_equal(t, raw[:, 0]) and np.array_equal(i, raw[:, 1].astype(int)))

    def test_spike_trains(self):
        t, i = self.r.spikes("P")
        trains = self.r.spike_trains("P")
        self.assertEqual(len(trains), 60)
        self.assertEqual([len(x) for x in trains], list(np.bincount(i, minlength=60)))
        for k in (0, 7, 59):
            self.assertTrue(np.array_equal(trains[k], t[i == k]))
        self.assertEqual(len(self.r.spike_trains("Q.npy")), 20)   # the view's size

    def test_state_npy(self):
        s = self.r.state("VU.npy")
        rec, raw = self.rec("VU.npy"), np.load(os.path.join(self.out, "VU.npy"))
        self.assertEqual((s.variables, list(s.neurons)), (["V", "U"], [0, 5, 9]))
        self.assertEqual((s.units["V"], s.units["U"], s.units["t"]), ("mV", "mV", "ms"))
        self.assertEqual(s.values.shape, (rec["rows"], 6))
        self.assertEqual(rec["rows"], 401)                           # t = 0, then 400 samples
        want_t = np.arange(rec["rows"]) * rec["every_steps"] * rec["dt_ms"]
        self.assertTrue(np.allclose(s.t, want_t, rtol=0, atol=1e-9))
        self.assertTrue(np.array_equal(s["V"], raw["V"]) and np.array_equal(s["U"], raw["U"]))
        self.assertTrue(np.array_equal(s.values[:, 3:], raw["U"]))   # variables outer

    def test_state_csv(self):
        s = self.r.state("VU_Q.csv")
        raw, rec = csv_rows(os.path.join(self.out, "VU_Q.csv")), self.rec("VU_Q.csv")
        self.assertEqual((s.values.shape, list(s.neurons)), ((1001, 4), [1, 2]))
        self.assertEqual(rec["every_steps"], 2)
        self.assertTrue(np.allclose(s.t, np.arange(1001) * 2 * 0.1, rtol=0, atol=1e-9))
        self.assertTrue(np.array_equal(s.values, raw[:, 1:]))
        self.assertTrue(np.array_equal(s["U"], raw[:, 3:5]))

    def test_connectivity(self):
        c = self.r.connectivity("drive")
        raw = np.load(os.path.join(self.out, "connectivity_drive.npy"))
        self.assertTrue(np.array_equal(c, raw))
        self.assertEqual(c.dtype.names, ("pre", "post", "w", "delay"))

    def test_errors(self):
        with self.assertRaises(neuroc.OutputError) as e:
            self.r.spikes("nope")
        self.assertIn("'nope'", str(e.exception))
        self.assertIn("manifest.json", str(e.exception))
        with self.assertRaises(neuroc.OutputError) as e:            # P has two state files
            self.r.state("P")
        self.assertIn("VU.npy", str(e.exception))
        self.assertIn("VU_Q.csv", str(e.exception))
        with self.assertRaises(neuroc.OutputError) as e:
            self.r.connectivity("nope")
        self.assertIn("connectivity_nope.npy", str(e.exception))
        empty = os.path.join(WORK, "empty")
        os.makedirs(empty, exist_ok=True)
        with self.assertRaises(neuroc.OutputError) as e:
            neuroc.load(empty)
        self.assertIn(os.path.join(empty, "manifest.json"), str(e.exception))
        cut = os.path.join(WORK, "net_cut")
        shutil.rmtree(cut, ignore_errors=True)
        shutil.copytree(self.out, cut)
        os.remove(os.path.join(cut, "VU.npy"))
        r = neuroc.load(cut)
        with self.assertRaises(neuroc.OutputError) as e:
            r.state("VU.npy")
        self.assertIn(os.path.join(cut, "VU.npy"), str(e.exception))
        self.assertIn("no such file", str(e.exception))
        self.assertTrue(np.array_equal(r.spikes("P").t, self.r.spikes("P").t))


class Weights(unittest.TestCase):
    def test_weights_pre_post(self):
        out = os.path.join(WORK, "stdp_out")
        run = sim(STDP).run(out, save_connectivity=True)
        for proj in ("pair", "trip_delay"):
            w = run.weights(proj)
            raw = np.load(os.path.join(out, "w_%s.npy" % proj))
            conn = np.load(os.path.join(out, "connectivity_%s.npy" % proj))
            self.assertIsInstance(w, neuroc.Weights)
            self.assertEqual((w.projection, w.variables, w.units["w"]), (proj, ["w"], "1"))
            self.assertTrue(np.array_equal(w.w, raw["w"]))
            self.assertEqual(w.w.shape, (2, len(conn)))                 # t = 0 and the end
            self.assertTrue(np.allclose(w.t, [0.0, 100.0], rtol=0, atol=1e-9))
            self.assertTrue(np.array_equal(w.w[0], conn["w"]) or proj != "pair")   # w as built
            self.assertTrue(np.array_equal(w.pre, conn["pre"]) and np.array_equal(w.post, conn["post"]))
            self.assertTrue(np.array_equal(w.pre, np.arange(len(conn))))   # one_to_one
        self.assertFalse(np.all(run.weights("pair").w[1] == 0.5))          # they learned
        self.assertIsInstance(run.state("w_mult.npy"), neuroc.Weights)
        with self.assertRaises(neuroc.OutputError) as e:
            run.weights("A")                                               # a population
        self.assertIn("'A'", str(e.exception))
        bare = sim(STDP).run(os.path.join(WORK, "stdp_bare"))             # no connectivity
        w = bare.weights("pair")
        self.assertIsNone(w.pre)
        self.assertTrue(np.array_equal(w.w, run.weights("pair").w))


class Records(unittest.TestCase):
    """Receptor states, windows and subsets of synapses (tests/e2e's records models)."""

    def test_receptor_states_and_windows(self):
        run = sim(os.path.join(ROOT, "tests", "e2e", "models", "records.neuro")).run(os.path.join(WORK, "records"))
        g = run.state("g_g.csv")                      # ExpCond of projection g onto dst[1:3]
        self.assertNotIsInstance(g, neuroc.Weights)
        self.assertEqual((g.population, g.variables, g.units["g"], g["g"].shape), ("dst", ["g"], "nS", (201, 2)))
        v0 = run.state("v.npy")                       # the row at t = 0: V = 1 mV (1 + i) as initialised
        self.assertTrue(v0.t[0] == 0 and np.array_equal(v0["V"][0], [1.0, 2.0, 3.0]))
        a, b = run.state("a_I.npy"), run.state("b_I.npy")
        self.assertTrue(np.array_equal(a["I"], b["I"]) and a["I"].max() > 10)   # b merged into a
        v, w = run.state("v.npy"), run.state("v_win.npy")   # from 7.5 ms to 9 ms: steps 75..89
        self.assertTrue(np.array_equal(w.t, v.t[76:91]) and np.array_equal(w.values, v.values[76:91]))
        self.assertEqual(run.recordings()[[r["file"] for r in run.recordings()].index("v_win.npy")]["window_steps"],
                         [75, 90])
        s = run.spikes("src_win.csv")
        self.assertTrue(np.allclose(s.t, [8.0]) and np.array_equal(s.i, [1]))

    def test_synapse_subsets(self):
        out = os.path.join(WORK, "records_syn")
        run = sim(os.path.join(ROOT, "tests", "e2e", "models", "records_syn.neuro")).run(out, save_connectivity=True)
        full, conn = run.state("w_SP.npy"), run.connectivity("SP")
        for f, ok in (("w_SP_box.npy", lambda p, q: (10 <= p) & (p < 30) & (5 <= q) & (q < 12)),
                      ("w_SP_col.csv", lambda p, q: q == 3),
                      ("w_SP_sample.npy", None)):
            w = run.state(f)
            self.assertIsInstance(w, neuroc.Weights)
            cols = w.neurons
            want = np.nonzero(ok(conn["pre"], conn["post"]))[0] if ok else np.arange(25) * len(conn) // 25
            self.assertTrue(np.array_equal(cols, want), f)
            self.assertTrue(np.array_equal(w.pre, conn["pre"][cols]) and np.array_equal(w.post, conn["post"][cols]), f)
            self.assertTrue(np.allclose(w.w, full.w[:, cols], rtol=1e-8, atol=0), f)
        bare = sim(os.path.join(ROOT, "tests", "e2e", "models", "records_syn.neuro")).run(os.path.join(WORK, "records_syn_bare"))
        w = bare.weights("w_SE_sample.npy")                 # (pre, post) without --save-connectivity
        self.assertEqual((w.variables, len(w.pre)), (["e", "w"], 7))
        self.assertIsNone(bare.state("w_SE.npy").pre)


class Batches(unittest.TestCase):
    def test_sweep_table(self):
        out = os.path.join(WORK, "sweep")
        b = sim(LIF).run(out, sweep={"P.tau_m": ["10ms", "20ms", "30ms"]}, seed=4)
        self.assertIsInstance(b, neuroc.Batch)
        self.assertEqual(len(b), 3)
        self.assertEqual(b.sweep, [{"name": "P.tau_m", "values": [10, 20, 30]}])
        tab = b.table
        self.assertEqual([r["P.tau_m"] for r in tab], [10, 20, 30])
        self.assertEqual([r["seed"] for r in tab], [4, 4, 4])
        self.assertEqual([r["exit_status"] for r in tab], [0, 0, 0])
        for r in tab:
            run = b.instance(r["index"])
            self.assertEqual(run.parameters["P.tau_m"], r["P.tau_m"])
            self.assertEqual(r["spikes"], run.populations["P"].spikes)
            self.assertEqual(len(run.spikes("P").t), r["spikes"])
            self.assertEqual(run.state("v.npy").values.shape, (301, 1))
        self.assertGreater(tab[0]["spikes"], tab[2]["spikes"])            # slower tau, fewer
        for r, rates in zip(tab, b.rates()):   # per instance, every population's rate
            run = b.instance(r["index"])
            self.assertEqual(set(rates), set(run.populations) | set(run.views))
            self.assertAlmostEqual(rates["P"], run.populations["P"].spikes / run.populations["P"].size
                                   / (run.duration * 1e-3), places=9)
        self.assertEqual(len(list(b)), 3)
        with self.assertRaises(neuroc.OutputError):
            b.instance(7)
        # the per-instance "values" of the manifest, else instances.csv
        m = dict(b.manifest)
        m["instances"] = [dict(e, values={"P.tau_m": 100 + e["index"]}) for e in m["instances"]]
        self.assertEqual([r["P.tau_m"] for r in neuroc.Batch(out, m).table], [100, 101, 102])
        v = os.path.join(WORK, "sweep_csv")
        shutil.rmtree(v, ignore_errors=True)
        shutil.copytree(out, v)
        self.assertTrue(all("values" in e for e in b.manifest["instances"]))
        m = dict(b.manifest)           # a manifest without "values": instances.csv's are read
        m["instances"] = [{k: x for k, x in e.items() if k != "values"} for e in m["instances"]]
        with open(os.path.join(v, "manifest.json"), "w") as f:
            json.dump(m, f)
        with open(os.path.join(v, "instances.csv"), "w") as f:
            f.write("index,seed,P.tau_m\n0,4,7\n1,4,8\n2,4,9\n")
        self.assertEqual([r["P.tau_m"] for r in neuroc.load(v).table], [7, 8, 9])
        try:
            import pandas  # noqa: F401
        except ImportError:
            with self.assertRaises(ImportError):
                b.to_pandas()
        else:
            self.assertEqual(list(b.to_pandas()["P.tau_m"]), [10, 20, 30])

    def test_sweep_seeds(self):
        out = os.path.join(WORK, "sweep_seeds")
        b = sim(LIF).run(out, sweep={"P.tau_m": ["10ms", "20ms"]}, seeds=2, seed=4)
        self.assertEqual(b.seeds, 2)
        tab = b.table
        self.assertEqual([r["P.tau_m"] for r in tab], [10, 10, 20, 20])
        self.assertEqual([r["seed"] for r in tab], [4, 5, 4, 5])
        for r in tab:
            self.assertEqual(b.instance(r["index"]).seed, r["seed"])

    def test_instances(self):
        b = sim(LIF).run(os.path.join(WORK, "inst"), instances=2, seed=9, set={"P.tau_m": "12ms"})
        self.assertEqual([r["seed"] for r in b.table], [9, 10])
        self.assertEqual([r["P.tau_m"] if "P.tau_m" in r else None for r in b.table], [None, None])
        self.assertEqual(b.instance(1).parameters["P.tau_m"], 12)
        self.assertEqual(b.instance(1).seed, 10)


class Wrappers(unittest.TestCase):
    def test_compile_error(self):
        bad = os.path.join(WORK, "bad.neuro")
        with open(bad, "w") as f:
            f.write("population P = Nope[3]\nrun 1 ms\n")
        with self.assertRaises(neuroc.CompileError) as e:
            neuroc.compile(bad, os.path.join(WORK, "bad"))
        self.assertIn("bad.neuro:1:", str(e.exception))
        with self.assertRaises(neuroc.CompileError):
            neuroc.compile(os.path.join(WORK, "missing.neuro"))
        with self.assertRaises(neuroc.NeurocError):
            neuroc.compile(NET, neuroc=os.path.join(WORK, "no_such_neuroc"))

    def test_run_error(self):
        with self.assertRaises(neuroc.RunError) as e:
            sim(LIF).run(os.path.join(WORK, "bad_set"), set={"P.x": "3ms"})
        self.assertEqual(e.exception.status, 2)
        self.assertIn("unknown run-time parameter 'P.x'", str(e.exception))

    def test_set_and_default_out(self):
        s = neuroc.compile(LIF, no_cache=True)                    # a temporary folder
        self.assertTrue(os.path.basename(s.path) == "lif_tau")
        r = s.run(os.path.join(WORK, "set15"), set={"P.tau_m": "15ms"})
        self.assertEqual(r.parameters["P.tau_m"], 15)
        shutil.rmtree(os.path.dirname(s.path))

    def test_view_parameters(self):
        """runtime exc.b (a view), P.tau_w (per neuron, from a file): set= and sweep= by name."""
        model = os.path.join(ROOT, "tests", "set", "rt_views.neuro")
        tw = os.path.join(WORK, "tw.npy")
        np.save(tw, 150.0 + 2.0 * np.arange(100))
        r = sim(model).run(os.path.join(WORK, "views"), set={"exc.b": "4pA", "P.tau_w": "@" + tw})
        self.assertEqual(r.parameters["exc.b"], 4)
        self.assertIsNone(r.parameters["P.tau_w"])
        self.assertEqual(r.parameter_files, {"P.tau_w": tw})
        p = r.state("p.npy")
        self.assertTrue((p["b"][0][:80] == 4).all() and (p["b"][0][80:] == 80.5).all())
        self.assertTrue((p["tau_w"][0] == 150 + 2 * np.arange(100)).all())
        r = sim(model).run(os.path.join(WORK, "views_expr"), set={"P.tau_w": "150ms + 2ms*i"})
        self.assertEqual(r.parameter_expressions, {"P.tau_w": "150ms + 2ms*i"})
        self.assertTrue((r.state("p.npy")["tau_w"][0] == 150 + 2 * np.arange(100)).all())
        b = sim(model).run(os.path.join(WORK, "views_sweep"), sweep={"inh.b": ["10pA", "40pA"]},
                           set={"exc.b": "4pA"})
        self.assertEqual([x["inh.b"] for x in b.table], [10, 40])
        for x in b.table:
            bb = b.instance(x["index"]).state("p.npy")["b"][0]
            self.assertTrue((bb[:60] == 4).all() and (bb[60:] == x["inh.b"]).all())

    def test_version(self):
        cm = text(os.path.join(ROOT, "CMakeLists.txt"))
        self.assertIn("project(neuroc VERSION %s " % neuroc.__version__, cm)
        self.assertIn('version = "%s"' % neuroc.__version__,
                      text(os.path.join(ROOT, "python", "pyproject.toml")))


class SonataH5(unittest.TestCase):
    def test_h5_spikes(self):
        model = os.path.join(WORK, "net_h5.neuro")
        with open(model, "w") as f:
            f.write(text(NET).replace('"stdlib/', '"%s/stdlib/' % ROOT) + 'record spikes of Q to "Q.h5"\n')
        try:
            s = neuroc.compile(model, os.path.join(WORK, "net_h5"))
        except neuroc.CompileError as e:
            self.assertIn("HDF5", str(e))
            self.skipTest("neuroc built without HDF5")
        r = s.run(os.path.join(WORK, "net_h5_out"), seed=3)
        try:
            import h5py  # noqa: F401
        except ImportError:
            with self.assertRaises(neuroc.OutputError) as e:
                r.spikes("Q.h5")
            self.assertIn("h5py", str(e.exception))
            return
        t, i = r.spikes("Q.h5")
        q = r.spikes("Q.npy")
        self.assertTrue(np.array_equal(t, q.t) and np.array_equal(i, q.i))


class Rates(unittest.TestCase):
    def test_rates(self):
        """run.rate: `record rate of T bin B` by target, file and base population, against the
        run's own spikes binned (count / (size x bin) in Hz: the runtime's expression)."""
        model = os.path.join(WORK, "net_rate.neuro")
        with open(model, "w") as f:
            f.write(text(NET).replace('"stdlib/', '"%s/stdlib/' % ROOT) +
                    'record rate of P bin 1 ms to "rP.npy"\nrecord rate of Q bin 2 ms to "rQ.csv"\n')
        r = neuroc.compile(model, os.path.join(WORK, "net_rate")).run(os.path.join(WORK, "net_rate_out"), seed=3)
        for name, spikes, size, bin_ms, exact in (("P", "P", 60, 1.0, True), ("Q", "Q.npy", 20, 2.0, False)):
            rate = r.rate(name)
            self.assertIsInstance(rate, neuroc.Rate)
            t, hz = rate
            s = r.spikes(spikes)
            nb = int(round(200 / bin_ms))
            steps = int(round(bin_ms / 0.1))
            counts = np.bincount((np.round(s.t / 0.1).astype(int) - 1) // steps, minlength=nb)[:nb]
            want = counts / (size * steps * 0.1) * 1000.0
            self.assertEqual(len(t), nb)
            self.assertTrue(np.allclose(t, (np.arange(nb) + 1) * bin_ms, rtol=0, atol=1e-9))
            if exact:
                self.assertTrue(np.array_equal(hz, want))
            else:
                self.assertTrue(np.allclose(hz, want, rtol=1e-8, atol=0))
            self.assertGreater(hz.sum(), 0)
        self.assertTrue(np.array_equal(r.rate("rQ.csv").hz, r.rate("Q").hz))
        self.assertEqual([x["file"] for x in r.recordings("rate")], ["rP.npy", "rQ.csv"])
        with self.assertRaises(neuroc.OutputError) as e:
            r.rate("src")
        self.assertIn("no rate recording of 'src'", str(e.exception))


class OpenCL(unittest.TestCase):
    def test_opencl_same_bits(self):
        try:
            s = sim(NET, "opencl")
        except neuroc.CompileError as e:
            self.skipTest("no OpenCL build: %s" % e)
        try:
            r = s.run(os.path.join(WORK, "net_ocl"), seed=3, save_connectivity=True)
        except neuroc.RunError as e:
            self.skipTest("no OpenCL device: %s" % e)
        c = sim(NET).run(os.path.join(WORK, "net_c2"), seed=3, save_connectivity=True)
        self.assertEqual(r.backend, "opencl")
        for f in ("P", "src", "Q.npy"):
            self.assertTrue(np.array_equal(r.spikes(f).t, c.spikes(f).t))
            self.assertTrue(np.array_equal(r.spikes(f).i, c.spikes(f).i))
        self.assertTrue(np.array_equal(r.state("VU.npy").values, c.state("VU.npy").values))
        self.assertTrue(np.array_equal(r.connectivity("drive"), c.connectivity("drive")))


if __name__ == "__main__":
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    prog = unittest.main(argv=[sys.argv[0], "-v"], exit=False)
    sys.exit(0 if prog.result.wasSuccessful() else 1)
