#!/usr/bin/env python3
"""emit_hashes.py -- freeze everything neuroc emits.

For every .neuro model under examples/ and tests/, and the generated models of GENERATED
(tests/gpu/bigargs.py: programs past the kernel-argument limits, in table mode), this runs neuroc in every configuration
that emits code or a report: each back end (c, cuda, opencl), each GPU schedule given
explicitly (--gpu-mode), --mpi on each back end, --dump=ir and --explain on each back end.
Each run's outcome is one line: the model, the configuration and a SHA-256 over what it
produced (every emitted file, name and bytes, in name order; or stdout), or "refused" with
a hash of the message when neuroc exits non-zero. A model no configuration accepts is left
out. Absolute paths of the source tree and build tree become placeholders, so the list is
the same on every machine.

  emit_hashes.py NEUROC SRCDIR LIST            compare with the committed LIST (exit 1 on any change)
  emit_hashes.py NEUROC SRCDIR LIST --update   rewrite LIST

A change to generated code updates LIST in the same commit, visibly (git diff shows which
model and configuration changed).

Under the sanitized build ($NEUROC_SANITIZED, scripts/test.sh asan) the point is neuroc's
memory safety, not the list, which the normal build checks whole: there each model runs every
third configuration, in rotation (model k the configurations c with (k + c) % 3 == 0), so every
configuration still runs on a third of the models, in a third of the time (ASan's start and
exit cost dominate a run of neuroc), and the runs made are compared with the list.
"""
import concurrent.futures
import hashlib
import os
import subprocess
import sys
import tempfile

CONFIGS = [("c", ["--backend", "c"]),
           ("c-mpi", ["--backend", "c", "--mpi"]),
           ("cuda", ["--backend", "cuda"])]
CONFIGS += [("cuda-" + m, ["--backend", "cuda", "--gpu-mode", m])
            for m in ("block", "cluster", "launch", "graph", "persistent", "free")]
CONFIGS += [("cuda-mpi", ["--backend", "cuda", "--mpi"]),
            ("opencl", ["--backend", "opencl"])]
CONFIGS += [("opencl-" + m, ["--backend", "opencl", "--gpu-mode", m])
            for m in ("block", "launch", "free")]
CONFIGS += [("opencl-mpi", ["--backend", "opencl", "--mpi"]),
            ("ir", ["--dump=ir"])]
CONFIGS += [("explain-" + b, ["--backend", b, "--explain"]) for b in ("c", "cuda", "opencl")]
REPORTS = {"ir", "explain-c", "explain-cuda", "explain-opencl"}


# generated models: (name, generator and its arguments, relative to the source tree)
GENERATED = [("gen/bigargs-12.neuro", ["tests/gpu/bigargs.py", "12"]),
             ("gen/bigargs-40.neuro", ["tests/gpu/bigargs.py", "40"]),
             ("gen/bigargs-26-stdp.neuro", ["tests/gpu/bigargs.py", "26", "stdp"])]


def models(src, gendir):
    out = []
    for name, gen in GENERATED:
        path = os.path.join(gendir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            subprocess.run([sys.executable, os.path.join(src, gen[0])] + gen[1:],
                           stdout=fh, check=True)
        out.append(path)
    for top in ("examples", "tests"):
        for root, dirs, files in os.walk(os.path.join(src, top)):
            dirs.sort()
            out += [os.path.relpath(os.path.join(root, f), src)
                    for f in sorted(files) if f.endswith(".neuro")]
    return out


def scrub(data, subs):
    for a, b in subs:
        data = data.replace(a, b)
    return data


def one(neuroc, src, subs, model, name, args):
    h = hashlib.sha256()
    with tempfile.TemporaryDirectory(prefix="nc-emit-") as tmp:
        cmd = [neuroc, model] + args
        if name not in REPORTS:
            cmd += ["--emit-only", tmp]
        env = dict(os.environ, NEUROC_CACHE="off")
        try:
            p = subprocess.run(cmd, cwd=src, capture_output=True, timeout=600, env=env)
        except subprocess.TimeoutExpired:
            return model, name, "timeout"
        subs = subs + [(tmp.encode(), b"<emit>")]
        if p.returncode != 0:
            h.update(scrub(p.stderr, subs))
            return model, name, "refused:" + h.hexdigest()[:16]
        if name in REPORTS:
            h.update(scrub(p.stdout, subs))
        else:
            for f in sorted(os.listdir(tmp)):
                h.update(f.encode() + b"\0")
                with open(os.path.join(tmp, f), "rb") as fh:
                    h.update(scrub(fh.read(), subs))
                h.update(b"\0")
    return model, name, h.hexdigest()


def compare_sample(listfile, res, every):
    """The runs of the sanitized pass against the list: a model the list leaves out must have
    been refused by every configuration it ran."""
    with open(listfile) as fh:
        wk = {" ".join(l.split()[:2]): l.split()[2] for l in fh.read().splitlines()}
    n = bad = 0
    for model in sorted(res):
        for name, digest in sorted(res[model].items()):
            n += 1
            want = wk.get(model + " " + name)
            if want != digest and not (want is None and digest.startswith("refused")):
                bad += 1
                if bad <= 40:
                    print("changed: %s %s: %s -> %s" % (model, name, want or "(absent)", digest))
    if bad:
        print("emit_hashes: %d of %d configurations (a 1/%d sample, sanitized build) differ from %s"
              % (bad, n, every, listfile))
        return 1
    print("emit_hashes: %d configurations (a 1/%d sample, sanitized build) unchanged" % (n, every))
    return 0


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    neuroc, src, listfile = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    update = "--update" in sys.argv[4:]
    build = os.path.dirname(os.path.dirname(neuroc))
    subs = [(build.encode(), b"<build>"), (src.encode(), b"<src>")]
    res = {}
    with tempfile.TemporaryDirectory(prefix="nc-gen-") as gendir:
        every = 3 if os.environ.get("NEUROC_SANITIZED") and not update else 1
        jobs = [(m, n, a) for k, m in enumerate(models(src, gendir))
                for c, (n, a) in enumerate(CONFIGS) if (k + c) % every == 0]
        gsubs = [(gendir.encode() + b"/", b"")] + subs
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
            for model, name, digest in ex.map(lambda j: one(neuroc, src, gsubs, *j), jobs):
                res.setdefault(model.replace(gendir + "/", ""), {})[name] = digest
    if every > 1:
        return compare_sample(listfile, res, every)
    lines = []
    for model in sorted(res):
        if all(d.startswith("refused") for d in res[model].values()):
            continue
        lines += ["%s %s %s" % (model, n, res[model][n]) for n, _ in CONFIGS]
    text = "".join(l + "\n" for l in lines)
    if update:
        with open(listfile, "w") as fh:
            fh.write(text)
        print("emit_hashes: wrote %d lines (%d models) to %s"
              % (len(lines), len(lines) // len(CONFIGS), listfile))
        return 0
    with open(listfile) as fh:
        want = fh.read().splitlines()
    got = text.splitlines()
    if want == got:
        print("emit_hashes: %d configurations of %d models unchanged"
              % (len(got), len(got) // len(CONFIGS)))
        return 0
    wk = {" ".join(l.split()[:2]): l.split()[2] for l in want}
    gk = {" ".join(l.split()[:2]): l.split()[2] for l in got}
    bad = 0
    for k in sorted(set(wk) | set(gk)):
        if wk.get(k) != gk.get(k):
            bad += 1
            if bad <= 40:
                print("changed: %s: %s -> %s" % (k, wk.get(k, "(absent)"), gk.get(k, "(absent)")))
    print("emit_hashes: %d of %d configurations differ from %s "
          "(rerun with --update and commit the list if the change is meant)"
          % (bad, len(gk), listfile))
    return 1


if __name__ == "__main__":
    sys.exit(main())
