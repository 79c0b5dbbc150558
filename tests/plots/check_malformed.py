#!/usr/bin/env python3
"""check_malformed.py NEUROC WORKDIR -- `neuroc plot` (the code ./sim --plot runs) on output
folders it did not write: recording names with control characters and bytes that are not
UTF-8 still give well-formed SVG and HTML (xml.dom.minidom parses them); spike times that are
NaN, infinite or negative are a clear error (exit 1), not undefined behaviour; a huge time
(past any run) is drawn nowhere; a manifest whose numbers are no counts is refused.
"""
import json
import os
import subprocess
import sys
import struct
import xml.dom.minidom

fails = 0


def check(cond, what):
    global fails
    print(("ok   " if cond else "FAIL ") + what)
    fails += 0 if cond else 1


def npy(times):
    """A spike recording as the runtime writes it: [('t', '<f8'), ('i', '<i4')]."""
    d = "{'descr': [('t', '<f8'), ('i', '<i4')], 'fortran_order': False, 'shape': (%d,), }" % len(times)
    hl = (10 + len(d) + 1 + 63) // 64 * 64 - 10
    head = b"\x93NUMPY\x01\x00" + struct.pack("<H", hl) + d.encode().ljust(hl - 1) + b"\n"
    return head + b"".join(struct.pack("<di", t, k % 4) for k, t in enumerate(times))


def folder(w, name, files, steps=100, dt=0.1):
    d = os.path.join(w, name)
    os.makedirs(d, exist_ok=True)
    recs = []
    for fname, times in files:
        with open(os.path.join(d, fname), "wb") as f:
            f.write(npy(times))
        recs.append({"file": fname, "format": "npy", "kind": "spikes", "population": fname + "@BYTE@",
                     "population_size": 4, "fields": ["t", "i"], "every_steps": 1, "dt_ms": dt,
                     "rows": len(times), "shape": [len(times)]})
    m = {"model": "m\x01odel", "backend": "c", "dt_ms": dt, "seed": 1, "total_steps": steps,
         "completed_steps": steps, "interrupted": False, "signal": None, "error": None,
         "populations": [], "recordings": recs}
    with open(os.path.join(d, "manifest.json"), "wb") as f:   # a byte that is not UTF-8
        f.write(json.dumps(m, ensure_ascii=True).encode().replace(b"@BYTE@", b"\xff\xc3"))
    return d


def plot(neuroc, d):
    p = subprocess.run([neuroc, "plot", d], capture_output=True)
    return p.returncode, p.stderr.decode("utf-8", "replace")


def main(neuroc, w):
    os.makedirs(w, exist_ok=True)
    # control characters (U+0001, U+001B, DEL, tab, CR, LF) in file names, bytes that are not
    # UTF-8 in the population names
    names = ["a\x01b\x1b[31m.npy", "tab\there\x7f.npy", "cr\rnl\n.npy"]
    d = folder(w, "names", [(n, [0.1, 0.5, 1.0]) for n in names])
    rc, err = plot(neuroc, d)
    check(rc == 0, "names: neuroc plot exit %d %s" % (rc, err.strip()))
    svgs = sorted(f for f in os.listdir(d) if f.endswith((".svg", ".html")))
    check(len(svgs) >= 4, "names: %d figures" % len(svgs))
    for f in svgs:
        with open(os.path.join(d, f), "rb") as h:
            text = h.read()
        try:
            if f.endswith(".svg"):
                xml.dom.minidom.parseString(text)
            else:
                text.decode("utf-8")
                assert not any(c < 0x20 and c not in (9, 10, 13) for c in text)
            check(True, "names: %r is well-formed" % f)
        except Exception as e:  # noqa: BLE001 -- any parse error is the failure
            check(False, "names: %r: %s" % (f, e))
    # every link of index.html names a file that exists (percent-encoded), and the figures'
    # own names hold no control characters
    import re
    import urllib.parse
    with open(os.path.join(d, "index.html"), "rb") as h:
        links = re.findall(rb'(?:href|src)="([^"]*)"', h.read())
    missing = [u for u in links if not os.path.exists(os.path.join(d, urllib.parse.unquote(u.decode())))]
    check(len(links) >= 8 and not missing, "names: %d links of index.html, missing: %r" % (len(links), missing))
    made = [f for f in os.listdir(d) if f.endswith(".svg")]
    check(not any(ord(c) < 0x20 or c == "\x7f" for f in made for c in f),
          "names: figure files %r hold no control characters" % made)
    for bad, shown in ((float("nan"), "nan"), (float("inf"), "inf"), (-3.0, "-3")):
        d = folder(w, "t_" + shown, [("s.npy", [0.5, bad, 1.0])])
        rc, err = plot(neuroc, d)
        check(rc == 1 and "s.npy': row 2: the spike time %s ms is not a finite time >= 0" % shown in err,
              "time %s: exit %d, %s" % (shown, rc, err.strip()))
    d = folder(w, "t_huge", [("s.npy", [0.5, 1e300, 9.3e18, 1.0])])
    rc, err = plot(neuroc, d)
    check(rc == 0, "huge times: exit %d %s" % (rc, err.strip()))
    d = folder(w, "t_huge_dens", [("s.npy", [0.5, 1e300, 1.0] * 400)])
    rc = subprocess.run([neuroc, "plot", d], env=dict(os.environ, NEUROC_PLOT_MAX_MARKS="10"),
                        capture_output=True).returncode
    check(rc == 0, "huge times, density: exit %d" % rc)
    d = folder(w, "steps_nan", [("s.npy", [0.5])], steps=1)
    with open(os.path.join(d, "manifest.json"), "rb") as f:
        text = f.read().replace(b'"completed_steps": 1', b'"completed_steps": 1e300')
    with open(os.path.join(d, "manifest.json"), "wb") as f:
        f.write(text)
    rc, err = plot(neuroc, d)
    check(rc == 1 and "no completed_steps >= 0" in err, "completed_steps 1e300: exit %d, %s" % (rc, err.strip()))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
