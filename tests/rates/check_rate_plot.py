"""tests/rates: the figure of each rate recording (--plot, docs/cli.md §3.8), rate_<rec>.svg:
valid SVG, shown in index.html, one path whose horizontal steps end at each row's t and whose
levels are the rows' rates, mapped back through the axes.

usage: check_rate_plot.py OUTDIR
"""
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

import numpy as np

out = sys.argv[1]
man = json.load(open(os.path.join(out, "manifest.json")))
index = open(os.path.join(out, "index.html")).read()
T = man["completed_steps"] * man["dt_ms"]
n = 0
for r in man["recordings"]:
    if r["kind"] != "rate":
        continue
    stem = r["file"].rsplit(".", 1)[0]
    name = "rate_%s.svg" % stem
    assert name in index, "index.html does not show %s" % name
    root = ET.parse(os.path.join(out, name)).getroot()
    paths = [p for p in root.iter("{http://www.w3.org/2000/svg}path") if p.get("class") == "rate"]
    if r["file"].endswith(".npy"):
        a = np.load(os.path.join(out, r["file"]))
        t, hz = a["t"], a["rate"]
    else:
        a = np.loadtxt(os.path.join(out, r["file"]), delimiter=",", skiprows=1, ndmin=2)
        t, hz = a[:, 0], a[:, 1]
    if len(t) == 0:
        assert not paths, name
        continue
    assert len(paths) == 1 and paths[0].get("data-file") == r["file"], name
    d = paths[0].get("d")
    ymax = float(hz.max()) * 1.08 if hz.max() > 0 else 1.0
    xs = [float(x) for x in re.findall(r"H([-\d.]+)", d)]
    ys = [float(re.match(r"M[-\d.]+ ([-\d.]+)", d).group(1))] + [float(y) for y in re.findall(r"V([-\d.]+)", d)]
    # the panel: x 80..870 for 0..T, y 360..40 for 0..ymax (rt_plot.c, fig_rate_rec)
    assert len(xs) == len(t) and len(ys) == len(t), (name, len(xs), len(ys), len(t))
    assert np.allclose([80 + x / T * 790 for x in np.minimum(t, T)], xs, atol=0.006), name
    assert np.allclose([360 - v / ymax * 320 for v in hz], ys, atol=0.006), name
    n += 1
print("check_rate_plot: %d rate figures match their recordings" % n)
