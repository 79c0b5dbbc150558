#!/usr/bin/env python3
"""compare.py REF TEST [--exact] [--tol REL] [--rate-tol REL]

Differential check of two simulator output folders of the same model and seed: REF from
the C back end (the reference), TEST from a GPU back end. Every recording in REF's
manifest is compared with the same file in TEST.

  --exact       spikes identical (same (t, i) rows in the same order), state values
                bit-identical, per-population spike totals identical. The claim for
                schedules that fix the summation order (the `block` schedule) when the
                model's arithmetic is IEEE basic operations.
  --tol REL     state traces within REL relative to the trace's range (plus 1e-6 of
                it), spike trains identical.  For models whose only differences are
                last-bit differences of math functions.
  --rate-tol R  statistics only: per-recording spike counts and per-population totals
                within R relative (chaotic networks whose delivery order is not fixed:
                atomics in `launch`/`graph`/`persistent`).
Exit 0 when everything agrees, 1 otherwise, 2 on usage or missing files. The first
difference is printed with its step, so a failure says where the runs part.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
import nrtio  # noqa: E402


def first_spike_difference(a, b):
    n = min(len(a), len(b))
    for k in range(n):
        if a.t[k] != b.t[k] or a.i[k] != b.i[k]:
            return k
    return n if len(a) != len(b) else -1


def main(argv):
    args = argv[1:]
    exact = "--exact" in args
    tol = None
    rate_tol = None
    pos = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--exact":
            pass
        elif a == "--tol":
            i += 1
            tol = float(args[i])
        elif a == "--rate-tol":
            i += 1
            rate_tol = float(args[i])
        elif a.startswith("-"):
            print("compare: unknown option %s" % a)
            return 2
        else:
            pos.append(a)
        i += 1
    if len(pos) != 2 or (exact + (tol is not None) + (rate_tol is not None)) != 1:
        print(__doc__)
        return 2
    ref, test = pos
    try:
        mr = nrtio.load_manifest(ref)
        mt = nrtio.load_manifest(test)
    except (OSError, ValueError) as e:
        print("compare: cannot read a manifest: %s" % e)
        return 2
    bad = 0

    def fail(msg):
        nonlocal bad
        bad += 1
        print("MISMATCH: " + msg)

    if mr.get("completed_steps") != mt.get("completed_steps"):
        fail("completed_steps %s vs %s" % (mr.get("completed_steps"), mt.get("completed_steps")))
    pr = {p["name"]: p["spikes"] for p in mr.get("populations", [])}
    pt = {p["name"]: p["spikes"] for p in mt.get("populations", [])}
    for name, n in sorted(pr.items()):
        m = pt.get(name)
        if m is None:
            fail("population %s missing in %s" % (name, test))
        elif rate_tol is not None:
            if abs(m - n) > rate_tol * max(n, 1) + 3.0 * max(n, 1) ** 0.5:
                fail("population %s: %d spikes vs %d (tolerance %g)" % (name, n, m, rate_tol))
        elif m != n:
            fail("population %s: %d spikes vs %d" % (name, n, m))
    dt = mr.get("dt_ms")
    for rec in mr.get("recordings", []):
        f = os.path.basename(rec["file"])
        try:
            a = nrtio.load_recording(ref, f, mr)
            b = nrtio.load_recording(test, f, mt)
        except (OSError, ValueError, KeyError) as e:
            fail("%s: cannot load: %s" % (f, e))
            continue
        if isinstance(a, nrtio.Spikes):
            if rate_tol is not None:
                na, nb = len(a), len(b)
                if abs(na - nb) > rate_tol * max(na, 1) + 3.0 * max(na, 1) ** 0.5:
                    fail("%s: %d spikes vs %d (tolerance %g)" % (f, na, nb, rate_tol))
                else:
                    print("ok: %s: %d vs %d spikes" % (f, na, nb))
                continue
            k = first_spike_difference(a, b)
            if k >= 0:
                where = ("t = %g ms (step %d), neuron %s vs %s" %
                         (a.t[k], int(round(a.t[k] / dt)) - 1, a.i[k], b.i[k] if k < len(b) else "-")
                         if k < len(a) else "after the reference's last spike")
                fail("%s: spike trains part at row %d of %d/%d: %s" % (f, k, len(a), len(b), where))
            else:
                print("ok: %s: %d spikes identical" % (f, len(a)))
            continue
        if a.t != b.t:
            fail("%s: sample times differ (%d vs %d rows)" % (f, len(a.t), len(b.t)))
            continue
        if rate_tol is not None:
            print("ok: %s: %d rows (values not compared: statistics mode)" % (f, len(a.t)))
            continue
        worst = 0.0
        where = None
        for var in a.variables:
            for n in a.neurons:
                x = a.trace(var, n)
                y = b.trace(var, n)
                if exact:
                    for r, (u, v) in enumerate(zip(x, y)):
                        if u != v and not (u != u and v != v):
                            fail("%s: %s[%s] differs first at t = %g ms: %r vs %r" % (f, var, n, a.t[r], u, v))
                            break
                    continue
                span = (max(x) - min(x)) if x else 0.0
                floor = span + 1e-6 * max(abs(v) for v in x) if x else 1.0
                for r, (u, v) in enumerate(zip(x, y)):
                    e = abs(u - v) / (floor if floor > 0 else 1.0)
                    if e > worst:
                        worst, where = e, (var, n, a.t[r], u, v)
        if exact:
            print("ok: %s: compared bit for bit" % f)
        elif worst > tol:
            fail("%s: %s[%s] at t = %g ms: %r vs %r (relative %.3g > %g)" % ((f,) + where + (worst, tol)))
        else:
            print("ok: %s: worst relative difference %.3g" % (f, worst))
    if bad:
        print("compare: %d mismatches between %s and %s" % (bad, ref, test))
        return 1
    print("compare: %s and %s agree" % (ref, test))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
