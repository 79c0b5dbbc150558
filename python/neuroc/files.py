"""Readers for the files a simulator writes (docs/cli.md section 3), as NumPy arrays.

Every function takes a path and the manifest's record of the file where it has one, checks
that the file is there and has the expected layout, and raises OutputError naming the file
otherwise.
"""
import os

import numpy as np

from .errors import OutputError


def need(path):
    if not os.path.isfile(path):
        raise OutputError("%s: no such file (the manifest names it)" % path)


def load_npy(path, fields):
    need(path)
    try:
        a = np.load(path, allow_pickle=False)
    except Exception as e:  # a truncated or foreign file
        raise OutputError("%s: not a readable .npy file (%s)" % (path, e))
    names = a.dtype.names or ()
    missing = [f for f in fields if f not in names]
    if missing:
        raise OutputError("%s: the records have no field %s (fields: %s)"
                          % (path, ", ".join(missing), ", ".join(names) or "none"))
    return a


def load_csv(path):
    """The header's names and the rows as a 2-D float64 array (rows x columns)."""
    need(path)
    with open(path, encoding="utf-8") as f:
        header = f.readline().strip()
        if not header:
            raise OutputError("%s: empty file, no header line" % path)
        names = header.split(",")
        try:
            rows = [[float(x) for x in line.split(",")] for line in f if line.strip()]
        except ValueError as e:
            raise OutputError("%s: a value is not a number (%s)" % (path, e))
    a = np.array(rows, dtype=np.float64).reshape(len(rows), len(names))
    return names, a


def read_spikes(path, fmt, group=None):
    """(t, i): t in ms (float64), i the neuron index (int64 for .csv and .h5, int32 for .npy).
    group: an .h5 file's SONATA group (the manifest's "group", /spikes/<population>)."""
    if fmt == "npy":
        a = load_npy(path, ("t", "i"))
        return np.ascontiguousarray(a["t"]), np.ascontiguousarray(a["i"])
    if fmt == "csv":
        names, a = load_csv(path)
        if names != ["t_ms", "i"]:
            raise OutputError("%s: header %r is not a spike file's 't_ms,i'" % (path, ",".join(names)))
        return a[:, 0].copy(), a[:, 1].astype(np.int64)
    if fmt == "hdf5":
        need(path)
        try:
            import h5py
        except ImportError:
            raise OutputError("%s: reading .h5 spike files needs h5py (Debian python3-h5py)" % path)
        with h5py.File(path, "r") as f:
            if group is None and "spikes" in f and len(f["spikes"]) == 1:
                group = "/spikes/" + list(f["spikes"].keys())[0]
            if group is None or group not in f:
                raise OutputError("%s: no SONATA group %s" % (path, group or "/spikes/<population>"))
            g = f[group]
            return g["timestamps"][:].astype(np.float64), g["node_ids"][:].astype(np.int64)
    raise OutputError("%s: unknown format %r" % (path, fmt))


def read_state(path, fmt, variables, ncol):
    """(t, values): values is samples x (variables x ncol), variables outer."""
    if fmt == "npy":
        a = load_npy(path, ["t"] + list(variables))
        cols = [np.asarray(a[v], dtype=np.float64).reshape(len(a), -1) for v in variables]
        vals = np.concatenate(cols, axis=1) if cols else np.zeros((len(a), 0))
        t = np.ascontiguousarray(a["t"])
    elif fmt == "csv":
        names, a = load_csv(path)
        if not names or names[0] != "t_ms":
            raise OutputError("%s: header does not start with t_ms" % path)
        t, vals = a[:, 0].copy(), a[:, 1:].copy()
    else:
        raise OutputError("%s: format %r holds no state" % (path, fmt))
    if vals.shape[1] != len(variables) * ncol:
        raise OutputError("%s: %d value columns, the manifest says %d variable(s) x %d"
                          % (path, vals.shape[1], len(variables), ncol))
    return t, vals


def read_rate(path, fmt):
    """(t, hz): the end of each bin (ms) and the target's rate in it (Hz), float64."""
    if fmt == "npy":
        a = load_npy(path, ("t", "rate"))
        return np.ascontiguousarray(a["t"], dtype=np.float64), np.ascontiguousarray(a["rate"], dtype=np.float64)
    if fmt == "csv":
        names, a = load_csv(path)
        if names != ["t_ms", "rate_Hz"]:
            raise OutputError("%s: header %r is not a rate file's 't_ms,rate_Hz'" % (path, ",".join(names)))
        return a[:, 0].copy(), a[:, 1].copy()
    raise OutputError("%s: format %r holds no rate" % (path, fmt))


def read_connectivity(path):
    """The record array of connectivity_<projection>.npy: pre, post, w, delay (steps)."""
    return load_npy(path, ("pre", "post", "w", "delay"))
