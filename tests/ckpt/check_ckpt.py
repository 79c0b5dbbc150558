#!/usr/bin/env python3
"""check_ckpt.py -- checkpoint and resume against an uninterrupted run (tests/ckpt).

usage: check_ckpt.py SIM WORK T N PERTURB [PERTURB...]

SIM is a compiled simulator, T the checkpoint time (as --checkpoint-at takes it), N the
model's total steps, PERTURB suffixes of checkpoint arrays that hold state in flight at T, or scalar:NAME for a
settable scalar of the header.
Runs, in WORK:
  full   the whole run, with a checkpoint after the last step (ckF);
  cont   --checkpoint-at T without stopping: recordings identical to full's;
  stop   --checkpoint-at T --stop-after-checkpoint: status 0, T steps, not interrupted,
         the same checkpoint as cont's;
  res    --resume: full's recordings are stop's followed by res's, byte for byte (npy data,
         csv lines); the spike counts of the manifest are full's; its checkpoint after the
         last step equals ckF file for file (every state array, weights and rings included);
  bad    each PERTURB array zeroed (scalar: changed) in a copy of the checkpoint, its
         checksums recomputed (ckpt_format.resign): the resumed recordings differ from
         full's (that state matters, so the test can fail).
Standard library only.
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ckpt_format import resign  # noqa: E402


def run(args, expect=0):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != expect:
        sys.exit("FAIL: %s exited %d (expected %d)\n%s" % (" ".join(args), p.returncode, expect,
                                                            p.stderr))
    return p


def manifest(d):
    with open(os.path.join(d, "manifest.json")) as f:
        return json.load(f)


def npy_split(path):
    """(header dict text, data bytes) of an .npy file."""
    with open(path, "rb") as f:
        b = f.read()
    assert b[:6] == b"\x93NUMPY", path
    if b[6] == 1:
        hl, pre = b[8] | b[9] << 8, 10
    else:
        hl, pre = int.from_bytes(b[8:12], "little"), 12
    hdr = b[pre:pre + hl].decode("latin1")
    return hdr[:hdr.index("'shape'")], b[pre + hl:]


def rows(path):
    """The data of a recording: npy (descr, bytes) or csv (header line, data lines)."""
    if path.endswith(".npy"):
        return npy_split(path)
    with open(path) as f:
        lines = f.read().splitlines(True)
    return lines[0], "".join(lines[1:])


def recordings(d):
    return [r["file"] for r in manifest(d)["recordings"]]


def same_dir(a, b, what):
    fa, fb = sorted(os.listdir(a)), sorted(os.listdir(b))
    if fa != fb:
        sys.exit("FAIL: %s: %s holds %s, %s holds %s" % (what, a, fa, b, fb))
    for f in fa:
        with open(os.path.join(a, f), "rb") as x, open(os.path.join(b, f), "rb") as y:
            if x.read() != y.read():
                sys.exit("FAIL: %s: %s differs between %s and %s" % (what, f, a, b))


def concat_equal(full, first, second):
    """full's recordings == first's then second's; returns the recordings that differ."""
    bad = []
    for f in recordings(full):
        hf, df = rows(os.path.join(full, f))
        h1, d1 = rows(os.path.join(first, f))
        h2, d2 = rows(os.path.join(second, f))
        if not (hf == h1 == h2 and df == d1 + d2):
            bad.append(f)
    return bad


def main():
    sim, work, t_at, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    perturb = sys.argv[5:]
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(work)
    W = lambda *p: os.path.join(work, *p)
    end = "%dsteps" % n

    run([sim, "-q", "--out", W("full"), "--checkpoint", W("ckF"), "--checkpoint-at", end])
    run([sim, "-q", "--out", W("cont"), "--checkpoint", W("ck"), "--checkpoint-at", t_at])
    for f in recordings(W("full")):
        if rows(W("full", f)) != rows(W("cont", f)):
            sys.exit("FAIL: writing a checkpoint changed recording %s" % f)

    run([sim, "-q", "--out", W("stop"), "--checkpoint", W("ck2"), "--checkpoint-at", t_at,
         "--stop-after-checkpoint"])
    m = manifest(W("stop"))
    t = m["completed_steps"]
    if not (0 < t < n) or m["interrupted"] or m.get("checkpoint_step") != t:
        sys.exit("FAIL: stop: completed %d of %d steps, interrupted %s, checkpoint_step %s"
                 % (t, n, m["interrupted"], m.get("checkpoint_step")))
    same_dir(W("ck"), W("ck2"), "checkpoint of a continued and a stopped run")

    run([sim, "-q", "--resume", W("ck2"), "--out", W("res"), "--checkpoint", W("ckE"),
         "--checkpoint-at", end])
    bad = concat_equal(W("full"), W("stop"), W("res"))
    if bad:
        sys.exit("FAIL: stop + resume differs from the full run in %s" % bad)
    mf, mr = manifest(W("full")), manifest(W("res"))
    if mf["populations"] != mr["populations"] or mr.get("first_step") != t or mr["interrupted"]:
        sys.exit("FAIL: resumed manifest: %s first_step %s, full: %s"
                 % (mr["populations"], mr.get("first_step"), mf["populations"]))
    same_dir(W("ckF"), W("ckE"), "final state of the full and the resumed run")
    # the split is a real one: spikes on both sides of T
    for r in mf["recordings"]:
        if r["kind"] == "spikes":
            a, b = rows(W("stop", r["file"]))[1], rows(W("res", r["file"]))[1]
            if not a or not b:
                sys.exit("FAIL: %s has no spikes %s the checkpoint: choose another T"
                         % (r["file"], "before" if not a else "after"))

    for p in perturb:
        shutil.copytree(W("ck2"), W("ckP"))
        if p.startswith("scalar:"):     # a settable scalar of the header: v -> 2 v + 1
            with open(W("ckP", "checkpoint.txt")) as g:
                lines = g.read().splitlines()
            names = [l for l in lines if l.startswith("scalar %s " % p[7:])]
            lines = ["scalar %s %r" % (p[7:], 2 * float(l.split()[2]) + 1) if l in names else l
                     for l in lines]
            with open(W("ckP", "checkpoint.txt"), "w") as g:
                g.write("\n".join(lines) + "\n")
        else:                           # arrays whose names end in p: zeroed
            names = [f for f in os.listdir(W("ck2")) if f.endswith(p + ".bin")]
            for f in names:
                size = os.path.getsize(W("ckP", f))
                with open(W("ckP", f), "wb") as g:
                    g.write(bytes(size))
        if not names:
            sys.exit("FAIL: the checkpoint has no %s: %s" % (p, os.listdir(W("ck2"))))
        resign(W("ckP"))    # a change on purpose, not damage: the checksums follow it
        shutil.rmtree(W("resP"), ignore_errors=True)
        run([sim, "-q", "--resume", W("ckP"), "--out", W("resP")])
        if not concat_equal(W("full"), W("stop"), W("resP")):
            sys.exit("FAIL: zeroing %s in the checkpoint changed nothing: the test cannot see it"
                     % names)
        shutil.rmtree(W("ckP"))
    print("ok: checkpoint at step %d of %d; stop + resume == full (%d recordings, final state "
          "files identical); perturbed %s change the result" % (t, n, len(recordings(W("full"))),
                                                               perturb))


if __name__ == "__main__":
    main()
