#!/usr/bin/env python3
"""The SONATA spike files of a run against the .npy recordings of the same spikes.

usage: check_h5.py DIR          (every X.h5 recording beside an X.npy one)

Reads the .h5 with h5py (python3-h5py) or, without it, with h5dump (hdf5-tools). Checks, per
file: the group /spikes/<population> named in the manifest; timestamps (float64, attribute
units = "ms") equal to the .npy's t bit for bit, node_ids (uint64) equal to its i; the
group attribute sorting = by_time of the SONATA enum (none 0, by_id 1, by_time 2), and the
times indeed sorted. Exit 0 when all hold, 77 (skip) with neither reader.
"""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
import nrtio  # noqa: E402

FAILS = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        FAILS.append(what)


def read_h5py(path, group):
    import h5py
    with h5py.File(path, "r") as f:
        g = f[group]
        ts, ids = g["timestamps"], g["node_ids"]
        enum = h5py.check_enum_dtype(g.attrs.get_id("sorting").dtype)
        sorting = {v: k for k, v in (enum or {}).items()}.get(int(g.attrs["sorting"]))
        units = ts.attrs["units"]
        units = units.decode() if isinstance(units, bytes) else units
        return ([float(x) for x in ts[:]], [int(x) for x in ids[:]], str(ts.dtype), str(ids.dtype),
                sorting, units)


def read_h5dump(path, group):
    def dump(what):
        return subprocess.run(["h5dump", "-w", "0", "-m", "%.17g"] + what + [path],
                              capture_output=True, text=True, check=True).stdout

    def data(text):
        body = text[text.index("DATA {") + 6:]
        body = body[:body.index("}")]
        return [x for x in re.sub(r"\(\d+\):", " ", body).replace(",", " ").split()]

    ts = dump(["-d", group + "/timestamps"])
    ids = dump(["-d", group + "/node_ids"])
    att = dump(["-a", group + "/sorting"])
    units = dump(["-a", group + "/timestamps/units"])
    return ([float(x) for x in data(ts)], [int(x) for x in data(ids)],
            "float64" if "H5T_IEEE_F64LE" in ts else ts, "uint64" if "H5T_STD_U64LE" in ids else ids,
            "by_time" if re.search(r'"by_time"\s+2;', att) and re.search(r"\(0\): by_time", att) else att,
            "ms" if '"ms"' in units else units)


def main():
    d = sys.argv[1]
    try:
        import h5py  # noqa: F401
        reader, how = read_h5py, "h5py"
    except ImportError:
        if not shutil.which("h5dump"):
            print("skipped: neither h5py (python3-h5py) nor h5dump (hdf5-tools) to read .h5 files")
            return 77
        reader, how = read_h5dump, "h5dump"
    with open(os.path.join(d, "manifest.json")) as f:
        man = json.load(f)
    h5 = [r for r in man["recordings"] if r["file"].endswith(".h5")]
    check(len(h5) >= 1, "%d .h5 recordings (read with %s)" % (len(h5), how))
    for rec in h5:
        f = rec["file"]
        check(rec["format"] == "hdf5" and rec["group"] == "/spikes/" + rec["population"],
              "%s: manifest format hdf5, group /spikes/%s" % (f, rec["population"]))
        t, ids, tdt, idt, sorting, units = reader(os.path.join(d, f), rec["group"])
        ref = nrtio.load_spikes(os.path.join(d, f[:-3] + ".npy"))
        check(len(t) == len(ids) == len(ref.t) == rec["rows"] and len(t) > 100,
              "%s: %d spikes, as in the .npy (%d) and the manifest (%d)" % (f, len(t), len(ref.t), rec["rows"]))
        check(t == list(ref.t), "%s: timestamps equal the .npy's t bit for bit" % f)
        check(ids == [int(i) for i in ref.i], "%s: node_ids equal the .npy's i" % f)
        check(tdt == "float64" and idt == "uint64", "%s: timestamps %s, node_ids %s" % (f, tdt, idt))
        check(units == "ms", "%s: timestamps units %r" % (f, units))
        check(sorting == "by_time" and t == sorted(t), "%s: sorting %r and sorted by time" % (f, sorting))
    print("%d check(s) failed" % len(FAILS) if FAILS else "all checks passed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
