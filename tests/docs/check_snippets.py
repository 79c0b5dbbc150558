#!/usr/bin/env python3
"""Keep the documentation true: compile (and run) every ```neuro block of the given files.

usage: check_snippets.py NEUROC FILE.md [FILE.md ...]

Each fenced block whose info string is `neuro` is one snippet:

  * first line `# fragment`          -> not compiled (a piece of a model, shown for reading)
  * first line `# error: SUBSTRING`  -> must FAIL to compile (`neuroc --dump=ir`, exit 1)
                                        with SUBSTRING in the diagnostics
  * contains a `run` statement       -> a complete model: compiled into a simulator, which
                                        is run (`--quiet --out TMP`) and must exit 0
  * anything else                    -> must compile (`neuroc --dump=ir`, exit 0)

A block whose info string is `csv:NAME` (e.g. ```csv:spikes.csv) is a data file that
snippets name (spike files, edge files): it is written as NAME beside the snippets before
any snippet of that Markdown file is checked.

Python standard library only. Exit status 0 when every snippet behaves, 1 otherwise.
"""
import os
import re
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
RUN_LINE = re.compile(r"^\s*run\s+\S")


def snippets(path, want="neuro"):
    """Yield (first line number, text) of each ```neuro block in the Markdown file (with
    want="csv:", (name, text) of each ```csv:NAME data block)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, info = m.group(1), m.group(2)
        start = i + 1
        j = start
        while j < len(lines) and lines[j].strip() != "```":
            j += 1
        if info == want or (want.endswith(":") and info.startswith(want)):
            body = [ln[len(indent):] if ln.startswith(indent) else ln for ln in lines[start:j]]
            yield (info[len(want):] if want != info else start + 1), "\n".join(body) + "\n"
        i = j + 1


def kind_of(text):
    first = text.lstrip("\n").split("\n", 1)[0].strip()
    if first == "# fragment":
        return "fragment", None
    m = re.match(r"#\s*error:\s*(.+)$", first)
    if m:
        return "error", m.group(1).strip()
    if any(RUN_LINE.match(ln) for ln in text.split("\n")):
        return "run", None
    return "compile", None


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, universal_newlines=True)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return None, "timed out after %d s" % timeout


def check(neuroc, where, text, work):
    kind, expect = kind_of(text)
    if kind == "fragment":
        return kind, None
    name = "snippet_%d" % check.counter
    check.counter += 1
    src = os.path.join(work, name + ".neuro")
    with open(src, "w", encoding="utf-8") as f:
        f.write(text)
    if kind == "error":
        rc, out = run([neuroc, src, "--dump=ir"], 60)
        if rc == 0:
            return kind, "compiled, but it must fail with '%s'" % expect
        if rc != 1:
            return kind, "neuroc exited with %s (expected 1):\n%s" % (rc, out)
        if expect not in out:
            return kind, "the diagnostics lack '%s':\n%s" % (expect, out)
        return kind, None
    if kind == "compile":
        rc, out = run([neuroc, src, "--dump=ir"], 60)
        if rc != 0:
            return kind, "does not compile (exit %s):\n%s" % (rc, out)
        return kind, None
    exe = os.path.join(work, name)
    rc, out = run([neuroc, src, "-o", exe], 300)
    if rc != 0:
        return kind, "does not compile (exit %s):\n%s" % (rc, out)
    outdir = os.path.join(work, name + "_out")
    rc, out = run([exe, "--quiet", "--out", outdir], 300)
    if rc != 0:
        return kind, "the simulator exited with %s:\n%s" % (rc, out)
    if not os.path.isfile(os.path.join(outdir, "manifest.json")):
        return kind, "the simulator wrote no manifest.json"
    return kind, None


check.counter = 0


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    neuroc = os.path.abspath(argv[1])
    failures = 0
    counts = {"fragment": 0, "error": 0, "run": 0, "compile": 0}
    with tempfile.TemporaryDirectory(prefix="neuroc-docs-") as work:
        for md in argv[2:]:
            n = 0
            for name, text in snippets(md, "csv:"):
                with open(os.path.join(work, os.path.basename(name)), "w", encoding="utf-8") as f:
                    f.write(text)
            for line, text in snippets(md):
                n += 1
                kind, problem = check(neuroc, "%s:%d" % (md, line), text, work)
                counts[kind] += 1
                if problem:
                    failures += 1
                    print("FAIL %s:%d (%s): %s" % (md, line, kind, problem))
            if n == 0:
                print("note: %s has no ```neuro blocks" % md)
    print("docs_snippets: %d run, %d compiled, %d expected errors, %d fragments; %d failed"
          % (counts["run"], counts["compile"], counts["error"], counts["fragment"], failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
