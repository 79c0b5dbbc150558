#!/usr/bin/env python3
"""Check the figures nrt_plot drew in a run folder against the recordings themselves.

usage: check_plots.py DIR [--density N] [--no-h5]

The recordings are read with tests/e2e/nrtio.py (an independent reader, standard library
only); the SVG files are parsed with xml.etree. Each figure's data-to-pixel map is recovered
from its tick marks alone (tick line position and label value), so the checks also hold the
axes to account:

  raster_<rec>.svg   every spike is one mark at its (time, neuron) (mark mode), or, with
                     above 100,000 spikes (or N, with --density N for a folder drawn with
                     NEUROC_PLOT_MAX_MARKS=N: then only rasters are checked), the bins
                     drawn are exactly the bins holding spikes; title, axis labels with units, ticks present
                     (marks of a recording that declared views split: a path per view,
                     neighbours in distinct colours, the legend right of the panel)
  rates.svg          per spike recording, and per declared view a recording holds, a
                     staircase whose steps equal the spike counts of the bins the note
                     names, divided by neurons and bin width; its integral times the neurons
                     is the spike count; the legend (right of the panel) names every curve
  state_<rec>.svg    a panel per variable with its unit in the label, a cell per neuron (up
                     to 16) with shared axes, each trace's points (or min/max envelope) on
                     the recorded samples
  weights_<rec>.svg  (a synapse recording) histograms of the first and last samples
  index.html         shows every SVG, the model, seed, every population's spike count,
                     every view's, and links every --save-connectivity file
"""
import collections
import html.parser
import json
import math
import os
import re
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
import nrtio  # noqa: E402

NS = "{http://www.w3.org/2000/svg}"
FAILS = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        FAILS.append(what)
    return ok


def linear_map(ticks):
    """(pixel, value) pairs of ticks -> (a, b) with value = a * pixel + b, checked linear."""
    if len(ticks) < 2:
        return None
    (p0, v0), (p1, v1) = ticks[0], ticks[-1]
    a = (v1 - v0) / (p1 - p0)
    b = v0 - a * p0
    for p, v in ticks:
        if abs(a * p + b - v) > 1e-3 * abs(v1 - v0):
            return None
    return a, b


def axes(root, scope=None):
    """The x and y maps of the ticks under scope (default: the whole document)."""
    scope = root if scope is None else scope
    maps = {}
    for cls, attr in (("xtick", "x1"), ("ytick", "y1")):
        ticks = []
        for g in scope.iter(NS + "g"):
            if g.get("class") != cls:
                continue
            line = g.find(NS + "line")
            text = g.find(NS + "text")
            ticks.append((float(line.get(attr)), float(text.text)))
        maps[cls] = linear_map(ticks)
        step = ticks[1][1] - ticks[0][1] if len(ticks) >= 2 else 0
        mant = step / 10 ** math.floor(math.log10(step)) if step > 0 else 0
        check(maps[cls] is not None and len(ticks) >= 3 and
              any(abs(mant - m) < 1e-6 for m in (1, 2, 5)),
              "%d %s marks with labels in a linear scale, every %g" % (len(ticks), cls, step))
    return maps.get("xtick"), maps.get("ytick")


def texts(root, cls):
    return [t.text or "" for t in root.iter(NS + "text") if t.get("class") == cls]


def path_cmds(d):
    return re.findall(r"([MmLlHhVvZz])([^MmLlHhVvZz]*)", d)


def nums(s):
    return [float(x) for x in s.replace(",", " ").split()]


def delta_e(a, b):
    """CIE76 colour difference of two "#rrggbb" colours (sRGB, D65)."""
    def lab(h):
        def lin(c):
            return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
        r, g, b = (lin(int(h[k:k + 2], 16) / 255) for k in (1, 3, 5))
        x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
        y = 0.2126 * r + 0.7152 * g + 0.0722 * b
        z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

        def f(t):
            return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116
        return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))
    return math.dist(lab(a), lab(b))


def fig_name(prefix, file, man):
    """raster_<stem>.svg, or raster_<stem>_<ext>.svg when another recording shares the stem."""
    stem, ext = os.path.splitext(file)
    twin = any(os.path.splitext(r["file"])[0] == stem and r["file"] != file
               for r in man.get("all_recordings", man["recordings"]))
    return "%s_%s%s.svg" % (prefix, stem, "_" + ext[1:] if twin else "")


def load_spikes(d, rec):
    """The spikes of a recording: .npy/.csv with nrtio; .h5 (SONATA) with h5py."""
    if rec["format"] != "hdf5":
        return nrtio.load_spikes(os.path.join(d, rec["file"]))
    import h5py
    with h5py.File(os.path.join(d, rec["file"]), "r") as f:
        g = f[rec["group"]]
        return nrtio.Spikes(list(g["timestamps"][:]), list(int(x) for x in g["node_ids"][:]))


def check_raster(d, rec, man, density):
    name = fig_name("raster", rec["file"], man)
    path = os.path.join(d, name)
    if not check(os.path.exists(path), name + " exists"):
        return
    root = ET.parse(path).getroot()
    sp = load_spikes(d, rec)
    dt = man["dt_ms"]
    want = {(int(round(t / dt)) - 1, int(i)) for t, i in zip(sp.t, sp.i)}
    xm, ym = axes(root)
    check(any("time (ms)" == t for t in texts(root, "xlabel")), name + ": x axis 'time (ms)'")
    check(any((rec.get("view") or rec["population"]) in t for t in texts(root, "ylabel")),
          name + ": y axis names the population (or the view recorded)")
    check(any(rec["population"] in t for t in texts(root, "title")), name + ": title")
    if not (xm and ym):
        return
    frame = [r for r in root.iter(NS + "rect") if r.get("class") == "frame"][0]
    x0, w = float(frame.get("x")), float(frame.get("width"))
    T = man["completed_steps"] * dt
    check(abs(xm[0] * x0 + xm[1]) < 1e-3 * T and abs(xm[0] * (x0 + w) + xm[1] - T) < 1e-3 * T,
          name + ": time axis spans 0 .. %g ms" % T)
    if len(sp.t) <= density:
        marks = [p for p in root.iter(NS + "path") if p.get("class") == "spikes"]
        got = collections.defaultdict(list)
        for p in marks:
            cmds = path_cmds(p.get("d"))
            for k in range(0, len(cmds), 2):
                x, y = nums(cmds[k][1])
                h = nums(cmds[k + 1][1])[0]
                yi = ym[0] * (y + h / 2) + ym[1]
                got[int(math.floor(yi))].append(xm[0] * x + xm[1])
        spikes = collections.defaultdict(list)
        for t, i in zip(sp.t, sp.i):
            spikes[int(i)].append(t)
        n = sum(len(v) for v in got.values())
        check(n == len(sp.t), name + ": %d marks for %d spikes" % (n, len(sp.t)))
        # coordinates have 2 decimals, the marks' and the ticks' (which give the map):
        # a mark lies within 0.02 px of its spike's time
        tol = abs(xm[0]) * 0.02
        ok = set(got) == set(spikes) and all(
            len(got[i]) == len(spikes[i]) and
            all(abs(a - b) <= tol for a, b in zip(sorted(got[i]), sorted(spikes[i])))
            for i in spikes)
        check(ok, name + ": every mark at its spike's neuron and time (within %.3g ms)" % tol)
    else:
        note = " ".join(texts(root, "note"))
        m = re.search(r"bins of ([0-9.]+) ms x (\d+) neurons", note)
        check("density" in note and m is not None, name + ": says it is a density: " + note)
        if not m:
            return
        spc = int(round(float(m.group(1)) / dt))
        npr = int(m.group(2))
        want_cells = {(s // spc, i // npr) for s, i in want}
        got_cells = set()
        for p in root.iter(NS + "path"):
            if p.get("class") != "density":
                continue
            for c in re.findall(r"M([-0-9.]+) ([-0-9.]+)h([-0-9.]+)v([-0-9.]+)", p.get("d")):
                x, y, bw, bh = map(float, c)
                t = xm[0] * (x + bw / 2) + xm[1]
                yi = ym[0] * (y + bh / 2) + ym[1]
                got_cells.add((int(t / dt) // spc, int(yi) // npr))
        check(got_cells == want_cells,
              name + ": %d bins drawn where %d hold spikes" % (len(got_cells), len(want_cells)))
        check(os.path.getsize(path) < 3e6, name + ": %d bytes" % os.path.getsize(path))


def check_rates(d, man):
    spk = [r for r in man["recordings"] if r["kind"] == "spikes"]
    path = os.path.join(d, "rates.svg")
    if not check(os.path.exists(path) == bool(spk), "rates.svg exists when spikes are recorded"):
        return
    if not spk:
        return
    root = ET.parse(path).getroot()
    xm, ym = axes(root)
    check(any("rate (Hz)" == t for t in texts(root, "ylabel")), "rates.svg: y axis 'rate (Hz)'")
    note = " ".join(texts(root, "note"))
    m = re.search(r"bins of ([0-9.]+) ms", note)
    if not check(m is not None, "rates.svg: names its bin width: " + note) or not (xm and ym):
        return
    dt = man["dt_ms"]
    spb = int(round(float(m.group(1)) / dt))
    steps = man["completed_steps"]
    curves = {p.get("data-file"): p for p in root.iter(NS + "path") if p.get("class") == "rate"}
    legend = [t.text for g in root.iter(NS + "g") if g.get("class") == "legend" for t in g.iter(NS + "text")]
    frame = [r for r in root.iter(NS + "rect") if r.get("class") == "frame"][0]
    right = float(frame.get("x")) + float(frame.get("width"))
    lx = [float(t.get("x")) for g in root.iter(NS + "g") if g.get("class") == "legend" for t in g.iter(NS + "text")]
    check(lx and min(lx) > right, "rates.svg: legend right of the panel, off the data")
    cols = [p.get("stroke") for p in root.iter(NS + "path") if p.get("class") in ("rate", "view-rate")]
    gaps = [delta_e(a, b) for a, b in zip(cols, cols[1:])]
    check(all(g >= 40 for g in gaps), "rates.svg: neighbouring curves' colours differ (Delta E %s)"
          % [round(g) for g in gaps])
    views = {p.get("data-view"): p for p in root.iter(NS + "path") if p.get("class") == "view-rate"}
    jobs = [(rec.get("view") or rec["population"], rec, curves.get(rec["file"]), None) for rec in spk]
    for v in man.get("views", []):   # a curve per view a recording holds (not its own range)
        holders = [r for r in spk if r["population"] == v["population"] and
                   r.get("offset", 0) <= v["offset"] and
                   v["offset"] + v["size"] <= r.get("offset", 0) + r["population_size"]]
        own = any(r.get("offset", 0) == v["offset"] and r["population_size"] == v["size"]
                  for r in spk if r["population"] == v["population"])
        if not check((v["name"] in views) == bool(holders and not own),
                     "rates.svg: a view-rate curve for %s exactly when a recording holds it" % v["name"]):
            continue
        if v["name"] in views:
            jobs.append((v["name"], holders[0], views[v["name"]], v))
    for pop, rec, curve, view in jobs:
        if not check(curve is not None and any(t.startswith(pop) for t in legend),
                     "rates.svg: curve and legend for " + pop):
            continue
        sp = load_spikes(d, rec)
        N = rec["population_size"] if view is None else view["size"]
        lo = view["offset"] - rec.get("offset", 0) if view else 0
        nb = (steps + spb - 1) // spb
        counts = [0] * nb
        n_in = 0
        for t, i in zip(sp.t, sp.i):
            if lo <= i < lo + N:
                counts[(int(round(t / dt)) - 1) // spb] += 1
                n_in += 1
        cmds = path_cmds(curve.get("d"))
        y = ym[0] * nums(cmds[0][1])[1] + ym[1]
        x = xm[0] * nums(cmds[0][1])[0] + xm[1]
        bins, integral = [], 0.0
        for c, arg in cmds[1:]:
            if c == "H":
                x1 = xm[0] * nums(arg)[0] + xm[1]
                bins.append((x1 - x, y))
                integral += (x1 - x) * 1e-3 * y * N
                x = x1
            elif c == "V":
                y = ym[0] * nums(arg)[0] + ym[1]
        tol = 0.01 * max(1.0, max(v for _, v in bins))
        exact = len(bins) == nb and all(
            abs(v - counts[b] / N / (min(spb, steps - b * spb) * dt * 1e-3)) <= tol
            for b, (_, v) in enumerate(bins))
        check(exact, "rates.svg: %s: %d bins of %d steps equal counts / neurons / width" % (pop, nb, spb))
        check(abs(integral - n_in) <= 0.01 * n_in + 0.5,
              "rates.svg: %s: integral x neurons = %.1f spikes, the file has %d" % (pop, integral, n_in))


def check_state(d, rec, man):
    """Small multiples: a panel (g.panel) per variable holding a cell (g.cell) per shown
    neuron, at most MAX_CELLS, each with its own ticks and one trace on its samples; the
    cells of a variable share their axes (the same ranges)."""
    name = fig_name("state", rec["file"], man)
    path = os.path.join(d, name)
    if not check(os.path.exists(path), name + " exists"):
        return
    root = ET.parse(path).getroot()
    st = nrtio.load_state(os.path.join(d, rec["file"]), rec["neurons"] if rec["format"] == "npy" else None)
    panels = [g for g in root.iter(NS + "g") if g.get("class") == "panel"]
    check([g.get("data-variable") for g in panels] == rec["variables"], name + ": a panel per variable")
    shown = min(MAX_CELLS, len(rec["neurons"]))
    for g in panels:
        var = g.get("data-variable")
        unit = rec["units"][var]
        labels = [t.text for t in g.iter(NS + "text") if t.get("class") == "ylabel" and t.text]
        check(labels and (unit == "1" or ("(%s)" % unit) in labels[0]),
              name + ": %s axis labelled with its unit %s: %s" % (var, unit, labels))
        cells = [c for c in g.iter(NS + "g") if c.get("class") == "cell"]
        check([int(c.get("data-index")) for c in cells] == rec["neurons"][:shown],
              name + ": %s: a cell per neuron, %d of %d" % (var, len(cells), len(rec["neurons"])))
        titles = [t.text for c in cells for t in c.iter(NS + "text") if t.get("class") == "cell-title"]
        check(len(titles) == len(cells) and all(t.endswith(" %d" % n) for t, n in zip(titles, rec["neurons"])),
              name + ": %s: every cell names its neuron" % var)
        ranges = set()
        for k, c in enumerate(cells):
            xm, ym = axes(root, c)
            if not (xm and ym):
                continue
            frame = [r for r in c.iter(NS + "rect") if r.get("class") == "frame"][0]
            y0, h = float(frame.get("y")), float(frame.get("height"))
            ranges.add((round(ym[0] * (y0 + h) + ym[1], 6), round(ym[0] * y0 + ym[1], 6)))
            traces = [p for p in c.iter(NS + "path") if p.get("class") == "trace"]
            if not check(len(traces) == 1, name + ": %s cell %d: one trace" % (var, k)):
                continue
            vals = [v for v in st.trace(var, rec["neurons"][k]) if math.isfinite(v)]
            pts = [nums(a) for cmd, a in path_cmds(traces[0].get("d")) if cmd in "ML"]
            ys = [ym[0] * y + ym[1] for _, y in pts]
            ts = [xm[0] * x + xm[1] for x, _ in pts]
            vtol = abs(ym[0]) * 0.02
            if len(pts) == len(vals):
                ok = all(abs(a - b) <= vtol for a, b in zip(ys, vals)) and \
                    all(abs(a - b) <= abs(xm[0]) * 0.02 for a, b in zip(ts, st.t))
                check(ok, name + ": %s trace %d: every sample at its place" % (var, k))
            else:
                check(abs(min(ys) - min(vals)) <= vtol and abs(max(ys) - max(vals)) <= vtol,
                      name + ": %s trace %d: envelope of %d points spans min %.4g max %.4g"
                      % (var, k, len(pts), min(vals), max(vals)))
        check(len(ranges) == 1, name + ": %s: the cells share their y range: %s" % (var, sorted(ranges)))
    if rec["population"] not in [p["name"] for p in man["populations"]]:
        check_weights(d, rec, man, st)


def check_weights(d, rec, man, st):
    """weights_<rec>.svg of a synapse recording: per variable, the histograms of the first
    and the last row, whose bar heights count the synapses in each bin."""
    name = fig_name("weights", rec["file"], man)
    path = os.path.join(d, name)
    if not check(os.path.exists(path), name + " exists"):
        return
    root = ET.parse(path).getroot()
    panels = [g for g in root.iter(NS + "g") if g.get("class") == "hist-panel"]
    check([g.get("data-variable") for g in panels] == rec["variables"], name + ": a panel per variable")
    for g in panels:
        var = g.get("data-variable")
        xm, ym = axes(root, g)
        hists = {p.get("data-sample"): p for p in g.iter(NS + "path") if p.get("class") == "hist"}
        if not check(sorted(hists) == ["first", "last"] and xm and ym, name + ": %s: first and last" % var):
            continue
        colours = {hists[k].get("stroke") for k in hists}
        check(len(colours) == 2, name + ": %s: two colours" % var)
        for which, row in (("first", 0), ("last", len(st.t) - 1)):
            cmds = path_cmds(hists[which].get("d"))
            x = xm[0] * nums(cmds[0][1])[0] + xm[1]
            bins, y = [], 0.0
            for c, arg in cmds[1:]:
                if c == "V":
                    y = ym[0] * nums(arg)[0] + ym[1]
                elif c == "H":
                    x1 = xm[0] * nums(arg)[0] + xm[1]
                    bins.append((x, x1, y))
                    x = x1
            if which == "first" and st.initial is not None:   # the row at t = 0
                vals = [st.initial[var][n] for n in rec["neurons"]]
            else:
                vals = [st.trace(var, n)[row] for n in rec["neurons"]]
            w = float("%.3g" % (bins[0][1] - bins[0][0]))    # a nice width: 1, 2, 5 x 10^k
            lo = round(bins[0][0] / w) * w
            want = [0] * len(bins)
            for v in vals:
                want[min(len(bins) - 1, int(math.floor((v - lo) / w + 1e-9)))] += 1
            got = [round(b[2]) for b in bins]
            check(got == want and sum(got) == len(vals),
                  name + ": %s: %s sample: %d synapses in %d bins as drawn" % (var, which, len(vals), len(bins)))


def check_raster_views(d, man):
    """A raster of a recording that declared views split: a path of marks per view part,
    each its own colour, neighbours distinct, its legend beside the panel (off the data)."""
    for rec in man["recordings"]:
        if rec["kind"] != "spikes":
            continue
        root = ET.parse(os.path.join(d, fig_name("raster", rec["file"], man))).getroot()
        parts = [p for p in root.iter(NS + "path") if p.get("class") == "spikes" and p.get("data-view")]
        off, n = rec.get("offset", 0), rec["population_size"]
        want = [v for v in man.get("views", []) if v["population"] == rec["population"] and
                v["offset"] < off + n and v["offset"] + v["size"] > off and
                not (v["offset"] <= off and v["offset"] + v["size"] >= off + n)]
        check([p.get("data-view") for p in parts] == [v["name"] for v in want],
              "%s: marks per view %s" % (rec["file"], [v["name"] for v in want]))
        if not want:
            continue
        cols = [p.get("stroke") for p in parts]
        check(all(a != b for a, b in zip(cols, cols[1:])), "%s: neighbouring views differ in colour" % rec["file"])
        frame = [r for r in root.iter(NS + "rect") if r.get("class") == "frame"][0]
        right = float(frame.get("x")) + float(frame.get("width"))
        legend = [float(t.get("x")) for g in root.iter(NS + "g") if g.get("class") == "legend"
                  for t in g.iter(NS + "text")]
        check(legend and min(legend) > right, "%s: legend right of the panel" % rec["file"])
        # every spike in the path of the innermost view holding its neuron
        sp = load_spikes(d, rec)
        counts = collections.Counter()
        for i in sp.i:
            best = None
            for v in want:
                if v["offset"] <= off + i < v["offset"] + v["size"] and (best is None or v["size"] < best["size"]):
                    best = v
            counts[best["name"] if best else None] += 1
        got = {p.get("data-view"): int(p.get("data-spikes")) for p in parts}
        check(all(got[v["name"]] == counts[v["name"]] for v in want),
              "%s: spikes per view %s" % (rec["file"], got))


MAX_CELLS = 16


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.imgs, self.text, self.links = [], [], []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.imgs.append(dict(attrs).get("src"))
        if tag == "a":
            self.links.append(dict(attrs).get("href"))

    def handle_data(self, data):
        self.text.append(data)


def check_index(d, man):
    path = os.path.join(d, "index.html")
    if not check(os.path.exists(path), "index.html exists"):
        return
    p = Links()
    with open(path, encoding="utf-8") as f:
        p.feed(f.read())
    svgs = sorted(f for f in os.listdir(d) if f.endswith(".svg"))
    check(sorted(p.imgs) == svgs, "index.html shows every figure: %s" % svgs)
    text = " ".join(p.text)
    check(man["model"] in text and str(man["seed"]) in text, "index.html: model and seed")
    for pop in man["populations"]:
        check(re.search(r"%s\s+%d\s+%d" % (re.escape(pop["name"]), pop["size"], pop["spikes"]),
                        " ".join(text.split())) is not None,
              "index.html: %s with %d neurons and %d spikes" % (pop["name"], pop["size"], pop["spikes"]))
    for v in man.get("views", []):
        check(re.search(r"%s \(%d \.\. %d\)\s+%d\s+%s" % (re.escape(v["name"]), v["offset"],
                                                       v["offset"] + v["size"] - 1, v["size"],
                                                       "-" if v["spikes"] is None else v["spikes"]),
                        " ".join(text.split())) is not None,
              "index.html: view %s with its neurons, size and spikes" % v["name"])
    for c in man.get("connectivity", []):
        check(c["file"] in p.links and os.path.exists(os.path.join(d, c["file"])),
              "index.html links %s (%s)" % (c["file"], c["projection"]))


def main():
    d = sys.argv[1]
    # rasters of more spikes than this are densities (nrt_plot's MAX_MARKS by default)
    only_rasters = sys.argv[2:3] == ["--density"]
    density = int(sys.argv[3]) if only_rasters else 100000
    with open(os.path.join(d, "manifest.json")) as f:
        man = json.load(f)
    if "--no-h5" in sys.argv[2:]:   # drawn by a program without the HDF5 reader (neuroc plot)
        h5 = [r["file"] for r in man["recordings"] if r["format"] == "hdf5"]
        with open(os.path.join(d, "index.html"), encoding="utf-8") as f:
            check("Not plotted: " + ", ".join(h5) in f.read(), "index.html: not plotted: %s" % h5)
        man["all_recordings"] = man["recordings"]
        man["recordings"] = [r for r in man["recordings"] if r["format"] != "hdf5"]
    for rec in man["recordings"]:
        if rec["kind"] == "spikes":
            check_raster(d, rec, man, density)
    if not only_rasters:
        check_raster_views(d, man)
        check_rates(d, man)
        for rec in man["recordings"]:
            if rec["kind"] == "state":
                check_state(d, rec, man)
        check_index(d, man)
    print("%d check(s) failed" % len(FAILS) if FAILS else "all checks passed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
