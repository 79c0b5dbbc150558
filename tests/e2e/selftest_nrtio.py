#!/usr/bin/env python3
"""Self-test of nrtio: writes small .npy/.csv/manifest files byte by byte with `struct`
(independently of nrtio's own writers) and checks that the loaders read them back.
Runs without the compiler: `python3 selftest_nrtio.py`."""

import json
import os
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nrtio  # noqa: E402

FAILS = []


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILS.append(what)


def npy_bytes(header_dict_text, payload, version=1, align=64):
    """Hand-made NPY: magic, version, header length, padded header, payload."""
    hdr = header_dict_text
    pre = 6 + 2 + (2 if version == 1 else 4)
    pad = (align - (pre + len(hdr) + 1) % align) % align
    hdr = hdr + " " * pad + "\n"
    if version == 1:
        hl = struct.pack("<H", len(hdr))
    else:
        hl = struct.pack("<I", len(hdr))
    return b"\x93NUMPY" + bytes([version, 0]) + hl + hdr.encode("latin1") + payload


def main():
    d = tempfile.mkdtemp(prefix="nrtio_selftest_")

    # 1. spike file: 3 rows of (<f8, <i4), packed 12-byte rows
    spikes = [(0.1, 0), (0.30000000000000004, 7), (12.5, 2)]
    payload = b"".join(struct.pack("<di", t, i) for t, i in spikes)
    p = os.path.join(d, "sp.npy")
    with open(p, "wb") as f:
        f.write(npy_bytes("{'descr': [('t', '<f8'), ('i', '<i4')], 'fortran_order': False, 'shape': (3,), }",
                          payload))
    s = nrtio.load_spikes(p)
    expect(s.t == [t for t, _ in spikes], "spike npy times read back exactly")
    expect(s.i == [i for _, i in spikes], "spike npy indices read back")
    expect(s.steps(0.1) == [0, 2, 124], "spike steps from times (t = (s+1) dt): %r" % s.steps(0.1))

    # 2. empty spike file (shape (0,)) -- a silent population
    p0 = os.path.join(d, "sp0.npy")
    with open(p0, "wb") as f:
        f.write(npy_bytes("{'descr': [('t', '<f8'), ('i', '<i4')], 'fortran_order': False, 'shape': (0,), }", b""))
    expect(len(nrtio.load_spikes(p0)) == 0, "empty spike npy gives 0 rows")

    # 3. state file with subarray fields: t, V (2,), U (2,) -- 40-byte rows
    rows = [(0.1, (-65.0, -64.5), (-13.0, -12.9)), (0.2, (-64.0, 1e-300), (5.5, -0.0))]
    payload = b"".join(struct.pack("<d2d2d", r[0], *(list(r[1]) + list(r[2]))) for r in rows)
    p = os.path.join(d, "st.npy")
    with open(p, "wb") as f:
        f.write(npy_bytes("{'descr': [('t', '<f8'), ('V', '<f8', (2,)), ('U', '<f8', (2,))], "
                          "'fortran_order': False, 'shape': (2,), }", payload))
    tab = nrtio.load_npy(p)
    expect(tab.names == ["t", "V", "U"], "state npy field names %r" % tab.names)
    expect(tab.field("V").shape == (2,), "subarray shape parsed")
    expect(tab["V"][1] == (-64.0, 1e-300), "subarray values read back")
    st = nrtio.load_state(p, neurons=[0, 5])
    expect(st.t == [0.1, 0.2], "state times")
    expect(st.trace("V", 5) == [-64.5, 1e-300], "V of neuron 5 via manifest indices")
    expect(st.trace("U", 0) == [-13.0, 5.5], "U of neuron 0")

    # 4. single-neuron subarray written as shape (1,), and a scalar field variant
    payload = struct.pack("<dd", 0.5, 1.25) + struct.pack("<dd", 1.0, 2.5)
    p = os.path.join(d, "one.npy")
    with open(p, "wb") as f:
        f.write(npy_bytes("{'descr': [('t', '<f8'), ('x', '<f8', (1,))], 'fortran_order': False, 'shape': (2,), }",
                          payload))
    expect(nrtio.load_state(p, [3]).trace("x", 3) == [1.25, 2.5], "1-element subarray")
    p = os.path.join(d, "scalar.npy")
    with open(p, "wb") as f:
        f.write(npy_bytes("{'descr': [('t', '<f8'), ('x', '<f8')], 'fortran_order': False, 'shape': (2,), }",
                          payload))
    expect(nrtio.load_state(p, [3]).trace("x", 3) == [1.25, 2.5], "scalar field as 1 neuron")

    # 5. NPY version 2.0 header (uint32 length), 16-byte alignment
    p = os.path.join(d, "v2.npy")
    with open(p, "wb") as f:
        f.write(npy_bytes("{'descr': [('t', '<f8'), ('i', '<i4')], 'fortran_order': False, 'shape': (1,), }",
                          struct.pack("<di", 3.0, 9), version=2, align=16))
    s = nrtio.load_spikes(p)
    expect(s.t == [3.0] and s.i == [9], "NPY 2.0 header")

    # 6. malformed files must raise
    bad = [
        ("magic", b"\x93NUMPX" + b"\x01\x00" + b"\x00\x00"),
        ("truncated data", npy_bytes("{'descr': [('t', '<f8'), ('i', '<i4')], 'fortran_order': False, 'shape': (2,), }",
                                     struct.pack("<di", 1.0, 1))),
        ("big-endian", npy_bytes("{'descr': [('t', '>f8'), ('i', '>i4')], 'fortran_order': False, 'shape': (0,), }", b"")),
        ("not a literal", npy_bytes("{'descr': os.system('x'), 'fortran_order': False, 'shape': (0,), }", b"")),
    ]
    for name, blob in bad:
        p = os.path.join(d, "bad.npy")
        with open(p, "wb") as f:
            f.write(blob)
        try:
            nrtio.load_spikes(p)
            expect(False, "malformed (%s) rejected" % name)
        except (nrtio.NpyError, ValueError, struct.error):
            expect(True, "malformed (%s) rejected" % name)
    # wrong spike dtype (i as <i8)
    p = os.path.join(d, "badtype.npy")
    with open(p, "wb") as f:
        f.write(npy_bytes("{'descr': [('t', '<f8'), ('i', '<i8')], 'fortran_order': False, 'shape': (1,), }",
                          struct.pack("<dq", 1.0, 1)))
    try:
        nrtio.load_spikes(p)
        expect(False, "spike file with <i8 index rejected")
    except nrtio.NpyError:
        expect(True, "spike file with <i8 index rejected")

    # 7. CSV spikes and variable-major CSV state
    p = os.path.join(d, "sp.csv")
    with open(p, "w") as f:
        f.write("t_ms,i\n0.1,0\n0.2,3\n")
    s = nrtio.load_spikes(p)
    expect(s.t == [0.1, 0.2] and s.i == [0, 3], "spike csv")
    p = os.path.join(d, "st.csv")
    with open(p, "w") as f:
        f.write("t_ms,V[0],V[5],U[0],U[5]\n0.1,1,2,3,4\n0.2,5,6,7,8\n")
    st = nrtio.load_state(p)
    expect(st.variables == ["V", "U"] and st.neurons == [0, 5], "csv state columns parsed")
    expect(st.trace("U", 5) == [4.0, 8.0] and st.trace("V", 0) == [1.0, 5.0], "csv state values")
    try:
        with open(p, "w") as f:
            f.write("time,i\n")
        nrtio.load_spikes(p.replace("st.csv", "st.csv"))
        expect(False, "csv with wrong header rejected")
    except ValueError:
        expect(True, "csv with wrong header rejected")

    # 8. manifest + load_recording
    man = {"model": "t", "dt_ms": 0.1, "seed": 1, "total_steps": 2, "completed_steps": 2,
           "interrupted": False, "populations": [{"name": "P", "size": 10, "spikes": 3}],
           "recordings": [{"file": "sp.npy", "format": "npy", "kind": "spikes", "population": "P",
                           "population_size": 10},
                          {"file": "st.npy", "format": "npy", "kind": "state", "population": "P",
                           "population_size": 10, "variables": ["V", "U"], "units": ["mV", "mV"],
                           "neurons": [0, 5], "every_steps": 1, "dt_ms": 0.1, "rows": 2, "shape": [2]}]}
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(man, f)
    m = nrtio.load_manifest(d)
    st = nrtio.load_recording(d, "st.npy", m)
    expect(isinstance(st, nrtio.State) and st.trace("V", 5) == [-64.5, 1e-300], "load_recording state via manifest")
    expect(isinstance(nrtio.load_recording(d, "sp.npy", m), nrtio.Spikes), "load_recording spikes")

    # 9. nrtio's own writers produce what the hand-made bytes encode
    p = os.path.join(d, "w.npy")
    nrtio.write_npy(p, [("t", "<f8"), ("V", "<f8", (2,)), ("U", "<f8", (2,))],
                    [(r[0], r[1], r[2]) for r in rows])
    with open(p, "rb") as f:
        blob = f.read()
    hdr, off = nrtio.read_npy_header(blob)
    expect(off % 64 == 0, "writer aligns data to 64 bytes")
    expect(blob[off:] == b"".join(struct.pack("<d2d2d", r[0], *(list(r[1]) + list(r[2]))) for r in rows),
           "writer payload identical to hand-packed rows")
    expect(hdr["descr"] == [("t", "<f8"), ("V", "<f8", (2,)), ("U", "<f8", (2,))], "writer descr")
    nrtio.write_state(os.path.join(d, "w.csv"), [0.1], ["V"], [2, 4], {"V": {2: [1.5], 4: [-2.0]}})
    st = nrtio.load_state(os.path.join(d, "w.csv"))
    expect(st.trace("V", 4) == [-2.0], "write_state csv round trip")

    if FAILS:
        print("selftest_nrtio: %d FAILED" % len(FAILS))
        return 1
    print("selftest_nrtio: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
