#!/usr/bin/env python3
"""Check a run folder of views.neuro (or views_free.neuro) for its declared views.

usage: check_views.py DIR SUMMARY_FILE MODEL_NAME

  manifest.json  "views" lists every declared view of the model in model order with its base
                 population, offset and size (views of views resolved to the base, an alias
                 whole); each view's spike count equals the spikes of its neurons in the
                 recording of its whole base population (so on every back end the counts are
                 the device's, checked against the recorded spikes);
                 a recording of a view names it ("view", "offset"); one of a whole population
                 names none; every --save-connectivity file is listed and exists
  the summary    a line per view, indented under its population, with size, spikes, rate
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
import nrtio  # noqa: E402

FAILS = []

# the views each model declares: name, base population, offset, size
VIEWS = {
    "views": [("exc", "P", 0, 120), ("inh", "P", 120, 30), ("core", "P", 40, 30),
              ("drive", "src", 0, 200), ("late", "src", 150, 50)],
    "views_free": [("a", "src", 0, 37), ("b", "src", 37, 263), ("mid", "src", 33, 64),
                   ("all", "src", 0, 300)],
    "cuba": [("exc", "P", 0, 3200), ("inh", "P", 3200, 800)],
}
# the recording of each base population whole
BASE_FILE = {"views": {"P": "P.npy", "src": "src.npy"}, "views_free": {"src": "src.npy"},
             "cuba": {"P": "cuba_spikes.npy"}}


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        FAILS.append(what)
    return ok


def main():
    d, summary, model = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(os.path.join(d, "manifest.json")) as f:
        man = json.load(f)
    with open(summary) as f:
        text = f.read()
    want = VIEWS[model]
    got = [(v["name"], v["population"], v["offset"], v["size"]) for v in man.get("views", [])]
    check(got == want, "manifest views %s" % got)
    dt = man["dt_ms"]
    sim_s = man["completed_steps"] * dt * 1e-3
    for v in man.get("views", []):
        sp = nrtio.load_spikes(os.path.join(d, BASE_FILE[model][v["population"]]))
        n = sum(1 for i in sp.i if v["offset"] <= i < v["offset"] + v["size"])
        check(v["spikes"] == n, "%s: %s spikes counted, %d recorded in its neurons" % (v["name"], v["spikes"], n))
        # "    exc   120   404   11.22" right after its population's line or a sibling view's
        m = re.search(r"^    %s +%d +%d +([0-9.]+)$" % (re.escape(v["name"]), v["size"], n), text, re.M)
        check(m is not None and abs(float(m.group(1)) - n / v["size"] / sim_s) < 0.006,
              "summary: %s indented with size, spikes and rate" % v["name"])
        if m:
            before = text[:m.start()].splitlines()
            k = len(before) - 1
            while k >= 0 and before[k].startswith("    "):
                k -= 1
            check(k >= 0 and before[k].split()[0] == v["population"],
                  "summary: %s under its population %s" % (v["name"], v["population"]))
    for r in man["recordings"]:
        views = [v for v in want if v[1] == r["population"] and v[2] == r.get("offset") and v[3] == r["population_size"]]
        if r["file"] == "inh.csv":
            check(r.get("view") == "inh" and r.get("offset") == 120 and r["population"] == "P",
                  "inh.csv names its view, base and offset")
            sp = nrtio.load_spikes(os.path.join(d, "inh.csv"))
            vi = [v for v in man["views"] if v["name"] == "inh"][0]
            check(len(sp.t) == vi["spikes"], "inh.csv holds the view's %d spikes" % vi["spikes"])
        elif r["population"] in ("P", "src") and not views:
            check("view" not in r, "%s: a whole population names no view" % r["file"])
    conn = man.get("connectivity", [])
    if model == "views":
        check(sorted(c["projection"] for c in conn) == ["feed", "ie", "stdp"] and
              all(os.path.exists(os.path.join(d, c["file"])) and c["file"] == "connectivity_%s.npy" % c["projection"]
                  for c in conn), "connectivity files listed: %s" % [c["file"] for c in conn])
        for c in conn:
            with open(os.path.join(d, c["file"]), "rb") as f:
                head = f.read(128).decode("latin1")
            m = re.search(r"'shape': \((\d+),\)", head)
            check(m is not None and int(m.group(1)) == c["synapses"],
                  "%s: %d synapses as listed" % (c["file"], c["synapses"]))
    print("%d check(s) failed" % len(FAILS) if FAILS else "all checks passed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
