"""nrtio -- pure-Python (standard library only) readers for what a neuroc simulator writes.

A generated simulator run as `./sim --out DIR` writes into DIR:
  * every recording file named in the model:
      spikes  .npy  structured dtype [('t','<f8'), ('i','<i4')]            (t in ms, i = index)
              .csv  header "t_ms,i"
      state   .npy  structured dtype [('t','<f8'), ('V','<f8',(nidx,)), ...]
              .csv  header "t_ms,V[0],V[5],U[0],U[5]"                      (variable-major)
  * manifest.json with keys model, dt_ms, seed, total_steps, completed_steps, interrupted,
    populations [{name, size, spikes}], recordings [{file, format, kind, population,
    population_size, variables, units, neurons, every_steps, dt_ms, rows, shape}].

NPY format (version 1.0; 2.0/3.0 accepted too): magic b"\\x93NUMPY", major, minor, header
length (uint16 LE for 1.0, uint32 LE for 2.0/3.0), an ASCII Python-literal dict
{'descr': ..., 'fortran_order': False, 'shape': (n,)} padded with blanks and ending in
'\\n', then the packed little-endian rows.

Writers (write_npy, write_spikes, write_state, write_manifest) exist so the checkers can be
exercised on synthetic output before the compiler exists (see selftest_checkers.py).
"""

import ast
import csv
import json
import os
import struct
import sys

MAGIC = b"\x93NUMPY"

# numpy type code (kind + itemsize) -> struct code
_STRUCT_CODES = {
    ("f", 8): "d", ("f", 4): "f", ("f", 2): "e",
    ("i", 8): "q", ("i", 4): "i", ("i", 2): "h", ("i", 1): "b",
    ("u", 8): "Q", ("u", 4): "I", ("u", 2): "H", ("u", 1): "B",
    ("b", 1): "?",
}


class NpyError(ValueError):
    pass


def _parse_typestr(ts):
    """'<f8' -> ('<', 'd', 8). Only little-endian or byte-order-free types are accepted."""
    if not isinstance(ts, str) or len(ts) < 2:
        raise NpyError("bad type string %r" % (ts,))
    order = ts[0]
    if order in "<>|=":
        body = ts[1:]
    else:
        order, body = "|", ts
    kind, size = body[0], int(body[1:])
    if order == ">" and size > 1:
        raise NpyError("big-endian field %r not supported" % ts)
    code = _STRUCT_CODES.get((kind, size))
    if code is None:
        raise NpyError("unsupported type %r" % ts)
    return code, size


class Field(object):
    """One field of a structured dtype: name, struct code, subarray shape (tuple, () = scalar)."""

    def __init__(self, name, typestr, shape=()):
        self.name = name
        self.typestr = typestr
        if isinstance(shape, int):
            shape = (shape,)
        self.shape = tuple(shape)
        self.code, self.itemsize = _parse_typestr(typestr)
        self.count = 1
        for d in self.shape:
            self.count *= d

    def __repr__(self):
        return "Field(%r, %r, %r)" % (self.name, self.typestr, self.shape)


def parse_descr(descr):
    """descr from the header -> list of Field. A plain type string gives one field named ''."""
    if isinstance(descr, str):
        return [Field("", descr)]
    fields = []
    for item in descr:
        if not isinstance(item, tuple) or len(item) not in (2, 3):
            raise NpyError("bad descr entry %r" % (item,))
        name = item[0]
        if isinstance(name, tuple):          # (title, name)
            name = name[1]
        if isinstance(item[1], list):
            raise NpyError("nested structured field %r not supported" % (name,))
        shape = item[2] if len(item) == 3 else ()
        fields.append(Field(name, item[1], shape))
    return fields


class Table(object):
    """Columns of a structured array. columns[name] is a list with one entry per row:
    a number for a scalar field, a tuple (flattened, C order) for a subarray field."""

    def __init__(self, fields, columns, nrows):
        self.fields = fields
        self.columns = columns
        self.nrows = nrows

    @property
    def names(self):
        return [f.name for f in self.fields]

    def field(self, name):
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    def __len__(self):
        return self.nrows

    def __getitem__(self, name):
        return self.columns[name]


def read_npy_header(data):
    """-> (header dict, offset of the data)."""
    if data[:6] != MAGIC:
        raise NpyError("not an NPY file (magic %r)" % (data[:6],))
    major, minor = data[6], data[7]
    if major == 1:
        (hlen,) = struct.unpack("<H", data[8:10])
        start = 10
    elif major in (2, 3):
        (hlen,) = struct.unpack("<I", data[8:12])
        start = 12
    else:
        raise NpyError("unsupported NPY version %d.%d" % (major, minor))
    if len(data) < start + hlen:
        raise NpyError("truncated NPY header")
    text = data[start:start + hlen].decode("utf-8" if major == 3 else "latin1")
    if not text.endswith("\n"):
        raise NpyError("NPY header does not end with a newline")
    try:
        header = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError) as e:
        raise NpyError("NPY header is not a Python literal: %s" % e)
    for key in ("descr", "fortran_order", "shape"):
        if key not in header:
            raise NpyError("NPY header lacks %r" % key)
    return header, start + hlen


def load_npy(path):
    """Read a 1-D (structured or plain) .npy file into a Table."""
    with open(path, "rb") as f:
        data = f.read()
    header, off = read_npy_header(data)
    if header["fortran_order"]:
        raise NpyError("%s: fortran_order arrays not supported" % path)
    shape = tuple(header["shape"])
    if len(shape) > 1:
        raise NpyError("%s: only 1-D arrays supported, shape %r" % (path, shape))
    nrows = shape[0] if shape else 1
    fields = parse_descr(header["descr"])
    fmt = "<" + "".join("%d%s" % (fl.count, fl.code) for fl in fields)
    rowsize = struct.calcsize(fmt)
    body = data[off:]
    if len(body) != rowsize * nrows:
        raise NpyError("%s: data size %d does not match %d rows x %d bytes"
                       % (path, len(body), nrows, rowsize))
    columns = dict((fl.name, []) for fl in fields)
    for vals in struct.iter_unpack(fmt, body) if nrows else []:
        k = 0
        for fl in fields:
            if fl.shape:
                columns[fl.name].append(tuple(vals[k:k + fl.count]))
            else:
                columns[fl.name].append(vals[k])
            k += fl.count
    return Table(fields, columns, nrows)


def _descr_literal(fields):
    parts = []
    for fl in fields:
        if fl.shape:
            parts.append("(%r, %r, %r)" % (fl.name, fl.typestr, tuple(fl.shape)))
        else:
            parts.append("(%r, %r)" % (fl.name, fl.typestr))
    return "[" + ", ".join(parts) + "]"


def write_npy(path, fields, rows):
    """fields: list of (name, typestr[, shape]); rows: list of tuples, subarrays as sequences."""
    flds = [Field(*f) for f in fields]
    header = "{'descr': %s, 'fortran_order': False, 'shape': (%d,), }" % (_descr_literal(flds), len(rows))
    total = len(MAGIC) + 2 + 2 + len(header) + 1
    pad = (64 - total % 64) % 64
    header = header + " " * pad + "\n"
    fmt = "<" + "".join("%d%s" % (fl.count, fl.code) for fl in flds)
    out = bytearray(MAGIC + bytes([1, 0]) + struct.pack("<H", len(header)) + header.encode("latin1"))
    for row in rows:
        flat = []
        for fl, v in zip(flds, row):
            if fl.shape:
                flat.extend(v)
            else:
                flat.append(v)
        out += struct.pack(fmt, *flat)
    with open(path, "wb") as f:
        f.write(out)


# ---------------------------------------------------------------- CSV

def load_csv(path):
    """-> (header list, list of rows of floats)."""
    with open(path, newline="") as f:
        rd = csv.reader(f)
        header = next(rd)
        rows = [[float(x) for x in r] for r in rd if r]
    return [h.strip() for h in header], rows


def parse_state_column(name):
    """'V[5]' -> ('V', 5)."""
    if not name.endswith("]") or "[" not in name:
        raise ValueError("bad state column name %r" % name)
    var, idx = name[:-1].split("[", 1)
    return var, int(idx)


# ---------------------------------------------------------------- recordings

class Spikes(object):
    """Spike recording: parallel lists t (ms) and i (index)."""

    def __init__(self, t, i):
        self.t = t
        self.i = i

    def __len__(self):
        return len(self.t)

    def steps(self, dt):
        """Step numbers s of the spikes (t = (s + 1) * dt)."""
        return [int(round(tt / dt)) - 1 for tt in self.t]

    def by_neuron(self, n=None):
        """-> dict index -> sorted list of times (or list of lists when n is given)."""
        if n is not None:
            out = [[] for _ in range(n)]
            for tt, ii in zip(self.t, self.i):
                out[ii].append(tt)
            for l in out:
                l.sort()
            return out
        d = {}
        for tt, ii in zip(self.t, self.i):
            d.setdefault(ii, []).append(tt)
        for l in d.values():
            l.sort()
        return d


def load_spikes(path):
    if path.endswith(".npy"):
        tab = load_npy(path)
        if tab.names != ["t", "i"]:
            raise NpyError("%s: spike file fields are %r, expected ['t', 'i']" % (path, tab.names))
        ft, fi = tab.field("t"), tab.field("i")
        if ft.typestr not in ("<f8",) or fi.typestr not in ("<i4",):
            raise NpyError("%s: spike dtype %r/%r, expected <f8/<i4" % (path, ft.typestr, fi.typestr))
        return Spikes(list(tab["t"]), list(tab["i"]))
    header, rows = load_csv(path)
    if header != ["t_ms", "i"]:
        raise ValueError("%s: spike CSV header %r, expected ['t_ms', 'i']" % (path, header))
    return Spikes([r[0] for r in rows], [int(r[1]) for r in rows])


class State(object):
    """State recording: t (list of ms) and data[var][neuron] -> list of values, the samples
    taken at the ends of steps (t > 0). A recording's first row, at t = 0 (the values after
    initialisation, docs/language.md 12.6), is split off into initial[var][neuron] (None for
    a file without it: a window that starts later, or synthetic output)."""

    def __init__(self, t, data, variables, neurons):
        self.initial = None
        if t and t[0] == 0.0:
            self.initial = dict((v, dict((n, col[0]) for n, col in d.items())) for v, d in data.items())
            t = t[1:]
            data = dict((v, dict((n, col[1:]) for n, col in d.items())) for v, d in data.items())
        self.t = t
        self.data = data
        self.variables = variables
        self.neurons = neurons

    def __len__(self):
        return len(self.t)

    def trace(self, var, neuron):
        return self.data[var][neuron]


def load_state(path, neurons=None):
    """Load a state recording. For .npy the neuron indices are not in the file: pass
    `neurons` (from the manifest); without it positions 0..nidx-1 are used."""
    if path.endswith(".npy"):
        tab = load_npy(path)
        if not tab.fields or tab.fields[0].name != "t":
            raise NpyError("%s: first field must be 't'" % path)
        variables = [f.name for f in tab.fields[1:]]
        data = {}
        nidx = None
        for fl in tab.fields[1:]:
            n = fl.count
            if nidx is None:
                nidx = n
            elif n != nidx:
                raise NpyError("%s: fields have different neuron counts" % path)
        idx = list(neurons) if neurons is not None else list(range(nidx or 0))
        if nidx is not None and len(idx) != nidx:
            raise NpyError("%s: %d neurons in file, %d given" % (path, nidx, len(idx)))
        for fl in tab.fields[1:]:
            col = tab[fl.name]
            if not fl.shape:
                col = [(v,) for v in col]
            data[fl.name] = dict((idx[k], [row[k] for row in col]) for k in range(len(idx)))
        return State(list(tab["t"]), data, variables, idx)
    header, rows = load_csv(path)
    if header[0] != "t_ms":
        raise ValueError("%s: first column %r, expected 't_ms'" % (path, header[0]))
    variables, idx, data = [], [], {}
    for c, name in enumerate(header[1:], start=1):
        var, n = parse_state_column(name)
        if var not in data:
            variables.append(var)
            data[var] = {}
        if n not in idx:
            idx.append(n)
        data[var][n] = [r[c] for r in rows]
    return State([r[0] for r in rows], data, variables, idx)


def load_manifest(outdir):
    with open(os.path.join(outdir, "manifest.json")) as f:
        return json.load(f)


def find_recording(manifest, filename):
    for r in manifest.get("recordings", []):
        if os.path.basename(r.get("file", "")) == filename:
            return r
    raise KeyError("recording %r not in manifest (have %r)"
                   % (filename, [r.get("file") for r in manifest.get("recordings", [])]))


def load_recording(outdir, filename, manifest=None):
    """Load a recording by file name, using the manifest for neuron indices (npy)."""
    if manifest is None:
        manifest = load_manifest(outdir)
    path = os.path.join(outdir, filename)
    rec = None
    try:
        rec = find_recording(manifest, filename)
    except KeyError:
        pass
    kind = rec.get("kind") if rec else None
    if kind == "spikes" or (kind is None and _looks_like_spikes(path)):
        return load_spikes(path)
    neurons = rec.get("neurons") if rec else None
    return load_state(path, neurons)


def _looks_like_spikes(path):
    if path.endswith(".npy"):
        return load_npy(path).names == ["t", "i"]
    with open(path) as f:
        return f.readline().strip() == "t_ms,i"


# ---------------------------------------------------------------- writers (tests only)

def write_spikes(path, times, idx):
    if path.endswith(".npy"):
        write_npy(path, [("t", "<f8"), ("i", "<i4")], list(zip(times, idx)))
    else:
        with open(path, "w") as f:
            f.write("t_ms,i\n")
            for t, i in zip(times, idx):
                f.write("%.17g,%d\n" % (t, i))


def write_state(path, times, variables, neurons, data):
    """data[var][neuron] -> list of values, one per time."""
    if path.endswith(".npy"):
        fields = [("t", "<f8")] + [(v, "<f8", (len(neurons),)) for v in variables]
        rows = []
        for k, t in enumerate(times):
            rows.append(tuple([t] + [[data[v][n][k] for n in neurons] for v in variables]))
        write_npy(path, fields, rows)
    else:
        with open(path, "w") as f:
            f.write(",".join(["t_ms"] + ["%s[%d]" % (v, n) for v in variables for n in neurons]) + "\n")
            for k, t in enumerate(times):
                f.write(",".join(["%.17g" % t] + ["%.17g" % data[v][n][k]
                                                  for v in variables for n in neurons]) + "\n")


def write_manifest(outdir, manifest):
    with open(os.path.join(outdir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


# ---------------------------------------------------------------- small helpers for checkers

class Checker(object):
    """Collects comparisons; prints each as it is made; exit status reflects failures."""

    def __init__(self, name):
        self.name = name
        self.failures = 0
        self.checks = 0

    def check(self, ok, what, expected, got):
        self.checks += 1
        status = "ok  " if ok else "FAIL"
        print("[%s] %s %s: expected %s, got %s" % (self.name, status, what, expected, got))
        if not ok:
            self.failures += 1
        return ok

    def info(self, msg):
        print("[%s] %s" % (self.name, msg))

    def finish(self):
        if self.failures:
            print("[%s] FAILED: %d of %d checks" % (self.name, self.failures, self.checks))
            return 1
        if self.checks == 0:
            print("[%s] FAILED: no checks were made" % self.name)
            return 1
        print("[%s] PASSED: %d checks" % (self.name, self.checks))
        return 0


def open_run(name, steps=None, dt=None, manifest=True, usage="OUTDIR"):
    """The checkers' common start, check_<name>.py OUTDIR: (OUTDIR, a Checker, the manifest
    (None without `manifest`), its common checks made where steps or dt are given); None,
    after the usage line, for other arguments (exit status 2)."""
    if len(sys.argv) != 2:
        print("usage: check_%s.py %s" % (name, usage))
        return None
    out = sys.argv[1]
    chk = Checker(name)
    man = load_manifest(out) if manifest else None
    if man is not None and (steps is not None or dt is not None):
        check_manifest(chk, man, model_steps=steps, dt=dt)
    return out, chk, man


def check_manifest(chk, manifest, model_steps=None, dt=None):
    """Common manifest sanity: not interrupted, all steps done, dt as in the model."""
    chk.check(manifest.get("interrupted") in (False, 0), "manifest interrupted", False,
              manifest.get("interrupted"))
    if model_steps is not None:
        chk.check(manifest.get("completed_steps") == model_steps, "manifest completed_steps",
                  model_steps, manifest.get("completed_steps"))
    if dt is not None:
        got = manifest.get("dt_ms")
        chk.check(got is not None and abs(got - dt) <= 1e-12 * dt, "manifest dt_ms", dt, got)


def rel_err(a, b, floor):
    return abs(a - b) / max(abs(b), floor)
