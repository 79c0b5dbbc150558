#!/usr/bin/env python3
"""Check the overview of a sweep folder and the batch's summary of rates per instance.

usage: check_sweep.py DIR SUMMARY_FILE

  sweep_<i>.svg  per swept parameter: a panel per population and declared view (the groups
                 of the instances' manifests), in each a line per combination of the other
                 parameters' values, a point per value at the mean rate over the seeds of
                 that grid point (from the instances' manifests), an error bar where there
                 are several seeds; neighbouring lines in distinct colours
  index.html     shows every sweep figure and links every instance's page
  the summary    a row per instance with the rate of every population and view
"""
import html.parser
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
FAILS = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        FAILS.append(what)
    return ok


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.imgs, self.links = [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img":
            self.imgs.append(a.get("src"))
        if tag == "a":
            self.links.append(a.get("href"))


def rates_of(m):
    """(name, base or "") -> rate of every population and view of an instance's manifest."""
    sim_s = m["completed_steps"] * m["dt_ms"] * 1e-3
    out = {}
    for p in m["populations"]:
        out[(p["name"], "")] = p["spikes"] / p["size"] / sim_s
    for v in m.get("views", []):
        out[(v["name"], v["population"])] = v["spikes"] / v["size"] / sim_s
    return out


def main():
    d, summary = sys.argv[1], sys.argv[2]
    with open(os.path.join(d, "manifest.json")) as f:
        top = json.load(f)
    insts = top["instances"]
    sweep, K = top["sweep"], top["seeds"]
    rates = []
    for it in insts:
        with open(os.path.join(d, it["folder"], "manifest.json")) as f:
            rates.append(rates_of(json.load(f)))
    groups = list(rates[0])
    sizes = [len(p["values"]) for p in sweep]

    def index(b, i):
        p = b // K
        for j in range(len(sweep) - 1, i, -1):
            p //= sizes[j]
        return p % sizes[i]

    for i, par in enumerate(sweep):
        path = os.path.join(d, "sweep_%d.svg" % i)
        if not check(os.path.exists(path), "sweep_%d.svg exists (%s)" % (i, par["name"])):
            continue
        root = ET.parse(path).getroot()
        panels = [g for g in root.iter(NS + "g") if g.get("class") == "sweep-panel"]
        check([g.get("data-group") for g in panels] == [n for n, _ in groups],
              "sweep_%d.svg: a panel per population and view %s" % (i, [n for n, _ in groups]))
        ncombo = 1
        for j, n in enumerate(sizes):
            if j != i:
                ncombo *= n
        for g, key in zip(panels, groups):
            lines = [p for p in g.iter(NS + "path") if p.get("class") == "sweep-line"]
            check(len(lines) == ncombo, "sweep_%d.svg: %s: %d lines, one per combination" % (i, key[0], len(lines)))
            cols = [p.get("stroke") for p in lines]
            check(all(a != b for a, b in zip(cols, cols[1:])), "sweep_%d.svg: %s: neighbouring lines differ" % (i, key[0]))
            pts = [c for c in g.iter(NS + "circle") if c.get("class") == "point"]
            bars = [c for c in g.iter(NS + "line") if c.get("class") == "errbar"]
            check(len(pts) == ncombo * sizes[i], "sweep_%d.svg: %s: %d points" % (i, key[0], len(pts)))
            check(len(bars) == (len(pts) if K > 1 else 0), "sweep_%d.svg: %s: %d error bars" % (i, key[0], len(bars)))
            # each point: the mean over the instances at its value (and its combination)
            ok = True
            for k, c in enumerate(pts):
                combo, x = divmod(k, sizes[i])
                members = []
                for b in range(len(insts)):
                    cb = 0
                    for j in range(len(sweep)):
                        if j != i:
                            cb = cb * sizes[j] + index(b, j)
                    if index(b, i) == x and cb == combo:
                        members.append(rates[b][key])
                mean = sum(members) / len(members)
                ok = ok and abs(float(c.get("data-rate")) - mean) <= 1e-5 * max(1, mean) and \
                    int(c.get("data-n")) == len(members) == K and \
                    abs(float(c.get("data-x")) - par["values"][x]) <= 1e-9 * max(1, abs(par["values"][x]))
            check(ok, "sweep_%d.svg: %s: every point the mean of its %d seeds" % (i, key[0], K))
    p = Links()
    with open(os.path.join(d, "index.html"), encoding="utf-8") as f:
        p.feed(f.read())
    check(sorted(p.imgs) == ["sweep_%d.svg" % i for i in range(len(sweep))], "index.html shows %s" % p.imgs)
    want = ["%s/index.html" % it["folder"] for it in insts]
    check(all(w in p.links for w in want) and all(os.path.exists(os.path.join(d, w)) for w in want),
          "index.html links every instance's page (%d)" % len(want))
    with open(summary) as f:
        text = f.read()
    heads = ["%s:%s" % (b, n) if b else n for n, b in groups]
    m = re.search(r"^ +instance +" + " +".join(re.escape(h) for h in heads) + r"$", text, re.M)
    if check(m is not None, "summary: the rate table's header names %s" % heads):
        rows = text[m.end():].splitlines()[1:len(insts) + 1]
        ok = len(rows) == len(insts)
        for b, row in enumerate(rows):
            f = row.split()
            ok = ok and int(f[0]) == b and all(abs(float(v) - rates[b][k]) < 0.006 for v, k in zip(f[1:], groups))
        check(ok, "summary: a row per instance with every population's and view's rate")
    print("%d check(s) failed" % len(FAILS) if FAILS else "all checks passed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
