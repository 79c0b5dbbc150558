#!/usr/bin/env python3
"""Run docs/tutorial.md as written, so that the tutorial never goes stale.

usage: run_tutorial.py NEUROC TUTORIAL.md [--install BUILD_DIR CMAKE]

First the facts the tutorial states that can be checked without running it:
  - every simulator run it shows (in ```sh blocks and in `./name ...` in the text) that
    writes a folder another run also writes is the same run: a run with other arguments
    (`./first --seed 2`) must have its own --out, or it replaces what a later step reads.
Then, in an empty temporary folder, in the order of the file:
  ```neuro:NAME   the block is written to NAME (the commands that follow compile it);
  ```sh           the block runs in bash (set -euo pipefail) with NEUROC's folder first on
                  PATH, or with --install, the PATH the `sh path` block leaves (before it,
                  the caller's PATH: neuroc is found only the way the tutorial says); it
                  must exit 0;
  ```sh install   shown only (installing system packages): not run;
  ```sh path      with --install: BUILD_DIR is installed (CMAKE --install) under a fresh
                  folder standing for the checkout, at the prefix scripts/quickstart.sh
                  uses; the block runs there with NEUROC's folder not on PATH, and the
                  PATH it leaves must find that installed neuroc: later blocks run with it.
                  Without --install: skipped;
  ```sh plot      runs when the simulator built by the tutorial has --plot, else
                  "skipped: --plot not built";
  ```sh opencl    runs when an OpenCL driver is registered (/etc/OpenCL/vendors/*.icd or
                  $OCL_ICD_VENDORS), else "skipped: no OpenCL driver";
  ```sh gpu       runs when an NVIDIA GPU answers nvidia-smi -L, else "skipped: no CUDA device".
Every block finds `python3` as the interpreter running this script (the tests' Python, the
one with numpy that the tutorial's install step gives), whatever comes first on PATH.
Python standard library only. Exit status 0 when every block that runs succeeds.
"""
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```(\S*)(?:\s+(\S+))?\s*$")


def blocks(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j].strip() != "```":
            j += 1
        yield i + 1, m.group(1), m.group(2), "\n".join(lines[i + 1:j]) + "\n"
        i = j + 1


def have_opencl():
    vendors = os.environ.get("OCL_ICD_VENDORS", "/etc/OpenCL/vendors")
    return bool(glob.glob(os.path.join(vendors, "*.icd")) or os.environ.get("OCL_ICD_FILENAMES"))


def have_cuda():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    return subprocess.run([smi, "-L"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


def has_plot(work):
    sims = [os.path.join(work, f) for f in os.listdir(work)
            if os.access(os.path.join(work, f), os.X_OK) and os.path.isfile(os.path.join(work, f))]
    for s in sims:
        p = subprocess.run([s, "--help"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           universal_newlines=True)
        if "--plot" in p.stdout:
            return True
    return False


def commands(md):
    """(line, command text) of every shell command the tutorial shows: the lines of its
    ```sh blocks but those that install packages, and `./name ...` code in its text."""
    with open(md, encoding="utf-8") as f:
        lines = f.read().split("\n")
    fenced = set()
    for line, info, tag, text in blocks(md):
        n = text.count("\n")
        fenced.update(range(line, line + n + 1))
        if info == "sh" and tag != "install":
            for k, cmd in enumerate(text.split("\n")):
                yield line + 1 + k, cmd
    for k, ln in enumerate(lines):
        if k + 1 not in fenced:
            for m in re.finditer(r"`(\./[^`]+)`", ln):
                yield k + 1, m.group(1)


def check_outputs(md):
    """Runs of one simulator that write the same folder must be the same run. Returns the
    number of failures (printed)."""
    shown = list(commands(md))
    sims = set()
    for _, cmd in shown:
        m = re.search(r"\bneuroc\b.*\s-o\s+(\S+)", cmd)
        if m:
            sims.add(m.group(1))
    writers = {}                  # folder -> {arguments: line}
    for line, cmd in shown:
        for seg in re.split(r"\|\||&&|[|;]|\bdo\b|\bthen\b", cmd):
            try:
                argv = shlex.split(seg, comments=True)
            except ValueError:
                continue
            if not argv or not argv[0].startswith("./") or argv[0][2:] not in sims:
                continue
            if {"--help", "--list-devices", "--dry-run"} & set(argv):
                continue          # these write no folder
            args, out, i = [], argv[0][2:] + "_out", 1
            while i < len(argv):
                if argv[i] == "--out" and i + 1 < len(argv):
                    out, i = argv[i + 1], i + 2
                    continue
                if argv[i].startswith(">"):
                    break
                if argv[i] not in ("--quiet", "--plot"):
                    args.append(argv[i])
                i += 1
            writers.setdefault(out, {}).setdefault(" ".join(args), line)
    failed = 0
    for out, runs in sorted(writers.items()):
        if len(runs) > 1:
            where = ", ".join("line %d (%s)" % (ln, a or "no arguments") for a, ln in sorted(runs.items(), key=lambda r: r[1]))
            print("FAIL: runs with different arguments write the same folder %s: %s; "
                  "give each its own --out" % (out, where))
            failed += 1
    return failed


def quickstart_prefix(md):
    """The install prefix of scripts/quickstart.sh, relative to the checkout ("_install")."""
    script = os.path.join(os.path.dirname(os.path.dirname(md)), "scripts", "quickstart.sh")
    with open(script, encoding="utf-8") as f:
        m = re.search(r'--install\s+\S+\s+--prefix\s+"\$PWD/([^"]+)"', f.read())
    if not m:
        sys.exit("run_tutorial.py: no 'cmake --install build --prefix \"$PWD/...\"' in " + script)
    return m.group(1)


def run_path_block(text, work, install, md, where):
    """Install the build as scripts/quickstart.sh does, run the tutorial's PATH line in the
    stand-in checkout, and return that PATH if it finds the installed neuroc, else None."""
    build, cmake = install
    if not os.path.exists(cmake):   # a build carried to another machine (the GPU's)
        cmake = shutil.which("cmake") or cmake
    checkout = os.path.join(work, ".checkout")
    prefix = os.path.join(checkout, quickstart_prefix(md))
    subprocess.run([cmake, "--install", build, "--prefix", prefix], check=True,
                   stdout=subprocess.DEVNULL)
    env = dict(os.environ)
    p = subprocess.run(["bash", "-c", "set -euo pipefail\n" + text + '\nprintf %s "$PATH"'],
                       cwd=checkout, env=env, stdout=subprocess.PIPE, universal_newlines=True)
    found = shutil.which("neuroc", path=p.stdout) if p.returncode == 0 else None
    want = os.path.join(prefix, "bin", "neuroc")
    if not found or os.path.realpath(found) != os.path.realpath(want):
        print("FAIL %s: after the tutorial's PATH line, 'neuroc' is %s, not the one "
              "scripts/quickstart.sh installs (%s)" % (where, found, want))
        return None
    print("---- %s: PATH line run in the checkout; neuroc is %s" % (where, want))
    return p.stdout


def main():
    neuroc, md = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    install = None
    if len(sys.argv) == 6 and sys.argv[3] == "--install":
        install = (os.path.abspath(sys.argv[4]), sys.argv[5])
    env = dict(os.environ)
    if not install:
        env["PATH"] = os.path.dirname(neuroc) + os.pathsep + env.get("PATH", "")
    ran = skipped = 0
    failed = check_outputs(md)
    with tempfile.TemporaryDirectory(prefix="neuroc-tutorial-") as work:
        pybin = os.path.join(work, ".python")
        os.mkdir(pybin)
        os.symlink(sys.executable, os.path.join(pybin, "python3"))
        for line, info, tag, text in blocks(md):
            where = "%s:%d" % (os.path.basename(md), line)
            if info.startswith("neuro:"):
                with open(os.path.join(work, info[len("neuro:"):]), "w", encoding="utf-8") as f:
                    f.write(text)
                continue
            if info != "sh":
                continue
            reason = None
            if tag == "install":
                reason = "installs system packages (not run)"
            elif tag == "path" and not install:
                reason = "skipped: no --install BUILD_DIR CMAKE"
            elif tag == "path":
                path = run_path_block(text, work, install, md, where)
                if path is None:
                    failed += 1
                    break
                env["PATH"] = path
                ran += 1
                continue
            elif tag == "plot" and not has_plot(work):
                reason = "skipped: --plot not built"
            elif tag == "opencl" and not have_opencl():
                reason = "skipped: no OpenCL driver"
            elif tag == "gpu" and not have_cuda():
                reason = "skipped: no CUDA device"
            elif tag not in (None, "install", "path", "plot", "opencl", "gpu"):
                print("FAIL %s: unknown block tag '%s'" % (where, tag))
                failed += 1
                continue
            if reason:
                print("---- %s: %s" % (where, reason))
                skipped += 1
                continue
            print("---- %s: running\n%s" % (where, text.rstrip()))
            sys.stdout.flush()
            try:
                block_env = dict(env, PATH=pybin + os.pathsep + env.get("PATH", ""))
                p = subprocess.run(["bash", "-c", "set -euo pipefail\n" + text], cwd=work, env=block_env,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   universal_newlines=True, timeout=600)
                out, rc = p.stdout, p.returncode
            except subprocess.TimeoutExpired:
                out, rc = "timed out after 600 s", None
            print("\n".join("     | " + ln for ln in out.rstrip().split("\n")))
            ran += 1
            if rc != 0:
                print("FAIL %s: exit status %s" % (where, rc))
                failed += 1
    print("docs_tutorial: %d blocks run, %d skipped; %d failed" % (ran, skipped, failed))
    return 1 if failed or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
