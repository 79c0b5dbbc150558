#!/usr/bin/env python3
"""Keep docs/outputs.md true: compile and run its model, run its Python snippets in the
output folder, and check that its first table names every file the run wrote.

usage: check_outputs_doc.py NEUROC docs/outputs.md WORKDIR

The ```neuro block is the model, run as the page says (`--out out --save-connectivity
--plot`). Each ```python block (run with python/ on PYTHONPATH, for the neuroc package), unless its first line is `# fragment`, must run without an
exception (its asserts hold) with the output folder as its working directory. Needs NumPy:
exit 77 (skip) without it.
"""
import os
import re
import subprocess
import sys

FENCE = re.compile(r"^```(\S*)\s*$")


def blocks(path):
    out, cur, info = [], None, None
    for line in open(path, encoding="utf-8").read().split("\n"):
        m = FENCE.match(line)
        if m and cur is None:
            cur, info = [], m.group(1)
        elif line.strip() == "```" and cur is not None:
            out.append((info, "\n".join(cur) + "\n"))
            cur = None
        elif cur is not None:
            cur.append(line)
    return out


def main():
    neuroc, doc, work = sys.argv[1:4]
    try:
        import numpy  # noqa: F401
    except ImportError:
        print("skipped: no NumPy for the Python snippets of docs/outputs.md")
        return 77
    os.makedirs(work, exist_ok=True)
    bl = blocks(doc)
    model = [t for i, t in bl if i == "neuro"]
    fails = 0
    if len(model) != 1:
        print("FAIL: docs/outputs.md needs exactly one ```neuro block")
        return 1
    src = os.path.join(work, "outputs_doc.neuro")
    with open(src, "w") as f:
        f.write(model[0])
    sim = os.path.join(work, "sim")
    subprocess.run([neuroc, src, "-o", sim], check=True, stderr=subprocess.DEVNULL)
    out = os.path.join(work, "out")
    subprocess.run([sim, "--out", out, "--save-connectivity", "--plot", "--quiet"], check=True)
    # the neuroc package's snippets import it from the source tree (python/)
    pkg = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(doc))), "python")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (pkg, os.environ.get("PYTHONPATH")) if p))
    n = 0
    for info, text in bl:
        if info != "python" or text.lstrip().startswith("# fragment"):
            continue
        n += 1
        r = subprocess.run([sys.executable, "-c", text], cwd=out, capture_output=True, text=True,
                           env=env)
        first = text.strip().split("\n")[1 if text.startswith("import") else 0][:60]
        if r.returncode != 0:
            fails += 1
            print("FAIL: python snippet %d (%s...):\n%s" % (n, first, r.stderr[-2000:]))
        else:
            print("ok    python snippet %d runs (%s...)" % (n, first))
    table = open(doc, encoding="utf-8").read().split("## Spikes")[0]
    named = set(re.findall(r"`([^`\s]+\.(?:npy|csv|svg|html|json))`", table))
    for f in sorted(os.listdir(out)):
        if f not in named:
            fails += 1
            print("FAIL: %s is written but not listed in docs/outputs.md's table" % f)
    print("ok    the table lists all %d files written" % len(os.listdir(out)) if not fails else "")
    print("%d failure(s)" % fails if fails else "all checks passed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
