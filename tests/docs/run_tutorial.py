#!/usr/bin/env python3
"""Run docs/tutorial.md as written, so that the tutorial never goes stale.

usage: run_tutorial.py NEUROC TUTORIAL.md

In an empty temporary folder, in the order of the file:
  ```neuro:NAME   the block is written to NAME (the commands that follow compile it);
  ```sh           the block runs in bash (set -euo pipefail) with NEUROC's folder first on
                  PATH; it must exit 0;
  ```sh install   shown only (installing system packages): not run;
  ```sh plot      runs when the simulator built by the tutorial has --plot, else
                  "skipped: --plot not built";
  ```sh opencl    runs when an OpenCL driver is registered (/etc/OpenCL/vendors/*.icd or
                  $OCL_ICD_VENDORS), else "skipped: no OpenCL driver";
  ```sh gpu       runs when an NVIDIA GPU answers nvidia-smi -L, else "skipped: no CUDA device".
Python standard library only. Exit status 0 when every block that runs succeeds.
"""
import glob
import os
import re
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


def main():
    neuroc, md = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(neuroc) + os.pathsep + env.get("PATH", "")
    ran = skipped = failed = 0
    with tempfile.TemporaryDirectory(prefix="neuroc-tutorial-") as work:
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
            elif tag == "plot" and not has_plot(work):
                reason = "skipped: --plot not built"
            elif tag == "opencl" and not have_opencl():
                reason = "skipped: no OpenCL driver"
            elif tag == "gpu" and not have_cuda():
                reason = "skipped: no CUDA device"
            elif tag not in (None, "install", "plot", "opencl", "gpu"):
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
                p = subprocess.run(["bash", "-c", "set -euo pipefail\n" + text], cwd=work, env=env,
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
