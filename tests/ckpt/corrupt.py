#!/usr/bin/env python3
"""corrupt.py -- damaged or edited checkpoints are refused (tests/ckpt; docs/robustness.md).

usage: corrupt.py NEUROC MODEL WORK [FLIPS] -- NEUROC_ARGS...

Compiles MODEL (tests/ckpt/models/lif_delays.neuro: one run phase, a run-time parameter)
with NEUROC_ARGS, writes a checkpoint at 50 ms with --stop-after-checkpoint, and checks:
  - the checkpoint as written resumes (status 0);
  - each mutation of a copy of it is refused before anything is simulated: status 1, a
    message "error: checkpoint ..." that says what is wrong, no recording written:
      the header edited or damaged (step, seed, a duplicated line, an over-long line, an
      unknown key, a line removed, the checksum line removed): its checksum;
      the same edits with the checksums recomputed (ckpt_format.resign), to reach the
      strict parsing behind them: fields twice, unknown keys, lines too long or split,
      numbers with trailing characters or too large, a phase past the model's phases, a
      step past its steps, a missing field;
      a checkpoint of format version 1 (older) or 3 (newer);
      FLIPS single-bit flips at positions spread over every array file (default 8), each
      alone: that file's checksum;
      an array file one byte short or long.
Exit 77 (skipped) for a GPU back end without a device. Standard library only.
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ckpt_format import resign  # noqa: E402

fails = 0
checked = 0


def run(args):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def header(d):
    with open(os.path.join(d, "checkpoint.txt"), "rb") as f:
        return f.read().split(b"\n")[:-1]


def put_header(d, lines):
    with open(os.path.join(d, "checkpoint.txt"), "wb") as f:
        f.write(b"".join(l + b"\n" for l in lines))


def edit(lines, key, value):
    """lines with the value of the first line of `key` replaced."""
    out, done = [], False
    for l in lines:
        if not done and l.split(b" ")[0] == key:
            l, done = key + b" " + value, True
        out.append(l)
    assert done, key
    return out


def line_of(lines, key):
    return next(l for l in lines if l.split(b" ")[0] == key)


def main():
    global fails, checked
    sep = sys.argv.index("--")
    neuroc, model, work = sys.argv[1:4]
    flips = int(sys.argv[4]) if sep > 4 else 8
    nargs = sys.argv[sep + 1:]
    backend = nargs[nargs.index("--backend") + 1] if "--backend" in nargs else "c"
    if backend == "cuda" and not os.path.exists("/dev/nvidiactl") and \
            subprocess.run("nvidia-smi -L", shell=True, capture_output=True).returncode != 0:
        print("skipped: no CUDA device")
        sys.exit(77)
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(work)
    W = lambda *p: os.path.join(work, *p)
    sim = W("sim")
    p = run([neuroc, model, "-o", sim] + nargs)
    if p.returncode != 0:
        sys.exit("FAIL: neuroc %s %s: %s" % (model, nargs, p.stderr))
    if backend != "c":
        p = run([sim, "--list-devices"])
        if p.returncode != 0 or not p.stdout.strip():
            print("skipped: no %s device (%s)" % (backend, (p.stdout + p.stderr).strip()[:200]))
            sys.exit(77)
    ck = W("ck")
    p = run([sim, "-q", "--out", W("a"), "--checkpoint", ck, "--checkpoint-at", "50ms",
             "--stop-after-checkpoint"])
    if p.returncode != 0:
        sys.exit("FAIL: writing the checkpoint: %s" % p.stderr)
    p = run([sim, "-q", "--resume", ck, "--out", W("ok")])
    if p.returncode != 0:
        sys.exit("FAIL: the checkpoint as written does not resume: %s" % p.stderr)
    print("ok: the checkpoint as written resumes")
    base = header(ck)
    n = 0

    def expect(what, pattern, mutate, sign=False):
        """A copy of the checkpoint, mutate(dir) applied (then re-signed with sign), must be
        refused with status 1 and a message matching pattern, nothing recorded."""
        global fails, checked
        nonlocal n
        n += 1
        d, out = W("m%d" % n), W("o%d" % n)
        shutil.copytree(ck, d)
        mutate(d)
        if sign:
            resign(d)
        p = run([sim, "-q", "--resume", d, "--out", out])
        err = p.stderr.strip()
        recorded = os.path.exists(os.path.join(out, "spikes.npy"))
        checked += 1
        if p.returncode != 1 or "error: checkpoint" not in err or not re.search(pattern, err) or recorded:
            print("FAIL: %s: status %d (expected 1), recorded %s, stderr: %s (expected %r)"
                  % (what, p.returncode, recorded, err, pattern), file=sys.stderr)
            fails += 1
        else:
            print("ok: %s: %s" % (what, err))
            shutil.rmtree(d)
            shutil.rmtree(out, ignore_errors=True)

    def hdr(lines):
        return lambda d: put_header(d, lines)

    cq = "checkpoint '" + re.escape(W("m")) + r"\d+'"
    ck_sum = cq + ": checkpoint.txt does not match its checksum"
    ck_end = cq + ": checkpoint.txt does not end in its line 'checksum HEX'"
    step = line_of(base, b"step").split(b" ")[1]
    seed = line_of(base, b"seed").split(b" ")[1]
    i_dt = base.index(line_of(base, b"dt"))
    i_arr = base.index(next(l for l in base if l.startswith(b"array ")))
    i_spk = base.index(next(l for l in base if l.startswith(b"spikes ")))
    # an over-long line whose end, where fgets(512) split it, read as "step 1000" (after the
    # real step line, so that it wins)
    split = line_of(base, b"backend")
    split = split + b"\t" * (511 - len(split)) + b"step 1000"

    # the header damaged or edited, its checksum as written
    cases = [
        ("step edited", edit(base, b"step", b"%d" % (int(step) + 1))),
        ("seed edited", edit(base, b"seed", b"%d" % (int(seed) + 1))),
        ("dt line duplicated", base[:i_dt + 1] + base[i_dt:]),
        ("over-long line split by fgets", base[:-1] + [split] + base[-1:]),
        ("unknown key", base[:-1] + [b"stpe 0"] + base[-1:]),
        ("a line removed", base[:i_spk] + base[i_spk + 1:]),
        ("array checksum edited", base[:i_arr] + [base[i_arr][:-1] + (b"0" if base[i_arr][-1:] != b"0" else b"1")] + base[i_arr + 1:]),
    ]
    for what, lines in cases:
        expect("header " + what, ck_sum, hdr(lines))
    expect("header without its checksum line", ck_end, hdr(base[:-1]))
    expect("header cut short", ck_end, hdr(base[:-3]))
    expect("header empty", cq + ": .* is not a neuroc checkpoint", hdr([]))

    # the same edits with the checksums recomputed: the strict parsing behind them
    body = base[:-1] if base[-1].startswith(b"checksum ") else base
    L = lambda k: r"checkpoint.txt line %d: " % k
    signed = [
        ("dt line duplicated", L(i_dt + 2) + "'dt' appears twice \\(first in line %d\\)" % (i_dt + 1),
         body[:i_dt + 1] + body[i_dt:]),
        ("array line duplicated", L(i_arr + 2) + "'array .*' appears twice", body[:i_arr + 1] + body[i_arr:]),
        ("spikes line duplicated", L(i_spk + 2) + "'spikes .*' appears twice", body[:i_spk + 1] + body[i_spk:]),
        ("param line duplicated", L(len(body[:body.index(line_of(body, b"param"))]) + 2) + "'param P.t_ref' appears twice",
         [l for l in body for _ in range(2 if l.startswith(b"param ") else 1)]),
        ("over-long line split by fgets", L(len(body) + 1) + "a control character \\(byte 0x09\\)",
         body + [split]),
        ("over-long line split at a space", L(len(body) + 1) + "'backend' takes 1 value, not 2",
         body + [split.replace(b"\t", b"x")]),
        ("line over 8192 characters", L(2) + "longer than 8192 characters",
         body[:1] + [b"model " + b"x" * 8200] + body[2:]),
        ("name over 4000 characters", L(2) + "the name of 'model' is longer than 4000",
         body[:1] + [b"model " + b"x" * 4100] + body[2:]),
        ("unknown key", L(len(body) + 1) + "unknown field 'stpe'", body + [b"stpe 0"]),
        ("two spaces", L(i_dt + 1) + "malformed \\(fields are separated by one space\\): .dt  0", body[:i_dt] + [body[i_dt].replace(b" ", b"  ")] + body[i_dt + 1:]),
        ("a value too many", L(i_dt + 1) + "'dt' takes 1 value, not 2", body[:i_dt] + [body[i_dt] + b" 1"] + body[i_dt + 1:]),
        ("step with trailing characters", "'step' has the value '%sx', not a whole number" % step.decode(),
         edit(body, b"step", step + b"x")),
        ("step negative", "'step' has the value '-1', not a whole number", edit(body, b"step", b"-1")),
        ("step above 2\\^64", "'step' has the value '99999999999999999999', not a whole number below 2\\^64",
         edit(body, b"step", b"99999999999999999999")),
        ("step above 2\\^63", "'step' has the value 9223372036854775808, more than",
         edit(body, b"step", b"9223372036854775808")),
        ("step past the run", cq + " does not fit this program \\(dt 0.1 ms, step 2001 of 2000",
         edit(body, b"step", b"2001")),
        ("seed with trailing characters", "'seed' has the value '%sx', not a whole number" % seed.decode(),
         edit(body, b"seed", seed + b"x")),
        ("seed above 2\\^64", "'seed' has the value '%s7+', not a whole number below 2\\^64" % seed.decode(),
         edit(body, b"seed", seed + b"7" * 20)),
        ("seed hex", "'seed' has the value '0x7d7'", edit(body, b"seed", b"0x7d7")),
        ("dt with trailing characters", "'dt' has the value '0.1ms', not a number", edit(body, b"dt", b"0.1ms")),
        ("hash not 16 digits", "'hash' has the value '[0-9a-f]{15}', not a 64-bit number of 16 hex",
         edit(body, b"hash", line_of(body, b"hash").split(b" ")[1][:15])),
        ("phase past the model's phases", cq + ": its phase 1 is past the model's phases \\(0 to 0\\)",
         edit(body, b"phase", b"1")),
        ("phase far past", cq + ": its phase 7 is past the model's phases", edit(body, b"phase", b"7")),
        ("spike count with trailing characters", "'spikes' has the value '.*x', not a whole number",
         body[:i_spk] + [body[i_spk] + b"x"] + body[i_spk + 1:]),
        ("array size with trailing characters", "'array' has the value '.*x', not a whole number",
         body[:i_arr] + [b" ".join(w[:2] + [w[2] + b"x"] + w[3:]) for w in [body[i_arr].split(b" ")]]
         + body[i_arr + 1:]),
        ("param with trailing characters", "'param' has the value '.*x', not a number",
         [l + b"x" if l.startswith(b"param ") else l for l in body]),
        ("dt removed", cq + ": checkpoint.txt lacks the field 'dt'", body[:i_dt] + body[i_dt + 1:]),
        ("spikes line removed", cq + ": checkpoint.txt lacks the spike count of population",
         body[:i_spk] + body[i_spk + 1:]),
        ("param line removed", cq + ": checkpoint.txt lacks 'param P.t_ref'",
         [l for l in body if not l.startswith(b"param ")]),
        ("unknown population", "spike count of population 'Q', which this program does not have",
         body + [b"spikes Q 5"]),
        ("format version 1", cq + " is from an older version of neuroc \\(checkpoint format 1",
         [b"neuroc-checkpoint 1"] + body[1:]),
        ("format version 3", cq + " has checkpoint format 3, from a newer version of neuroc",
         [b"neuroc-checkpoint 3"] + body[1:]),
    ]
    for what, pattern, lines in signed:
        expect("re-signed header, " + what, pattern, hdr(lines), sign=True)
    # a checkpoint of format 1 as neuroc wrote it: no checksums
    v1 = [b"neuroc-checkpoint 1"] + [b" ".join(l.split(b" ")[:3]) if l.startswith(b"array ") else l
                                    for l in body[1:]]
    expect("format 1 checkpoint", cq + " is from an older version of neuroc \\(checkpoint format 1, "
           "without checksums; this program reads format 2\\)", hdr(v1))

    # single-bit flips in every array file
    arrays = sorted(f for f in os.listdir(ck) if f.endswith(".bin"))
    if not arrays:
        sys.exit("FAIL: the checkpoint has no array files: %s" % os.listdir(ck))
    for f in arrays:
        size = os.path.getsize(os.path.join(ck, f))
        bits = 8 * size
        spots = sorted({(k * (bits - 1)) // max(flips - 1, 1) for k in range(flips)} | {0, bits - 1})

        def flip(d, f=f, bit=0):
            path = os.path.join(d, f)
            with open(path, "rb") as g:
                b = bytearray(g.read())
            b[bit // 8] ^= 1 << (bit % 8)
            with open(path, "wb") as g:
                g.write(b)
        for bit in spots:
            expect("%s bit %d of %d flipped" % (f, bit, bits),
                   cq + ": array file '%s' does not match its checksum" % re.escape(f),
                   lambda d, f=f, bit=bit: flip(d, f, bit))

        def cut(d, f=f, k=-1):
            path = os.path.join(d, f)
            with open(path, "rb") as g:
                b = g.read()
            with open(path, "wb") as g:
                g.write(b[:k] if k < 0 else b + bytes(k))
        expect("%s one byte short" % f, "checkpoint file '.*%s' has fewer bytes than the %d"
               % (re.escape(f), size), lambda d, f=f: cut(d, f, -1))
        expect("%s one byte long" % f, "checkpoint file '.*%s' has more bytes than the %d"
               % (re.escape(f), size), lambda d, f=f: cut(d, f, 1))

    if fails:
        sys.exit("FAIL: %d of %d damaged checkpoints were not refused as expected" % (fails, checked))
    print("PASSED: %d damaged or edited checkpoints refused (%d array files, %s back end)"
          % (checked, len(arrays), backend))


if __name__ == "__main__":
    main()
