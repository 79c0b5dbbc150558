#!/usr/bin/env python3
"""The progress display of a simulator: a bar redrawn in place on a terminal, plain lines
otherwise, nothing with --quiet.

usage: check_progress.py SIM WORKDIR

SIM must run for well over 3 s of wall time; each run is stopped with SIGINT after about
3.5 s (the display starts after 2 s), so the summary that follows is checked too.
"""
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time

FAILS = []
PLAIN = re.compile(r"^ *\d+\.\d%  t = [\d.]+ / [\d.]+ ms  wall [\d.]+ (ms|s)(  RTF [\d.e+-]+)?$")
BAR = re.compile(r"\r\[([#-]{24})\] +(\d+\.\d)%  t = [\d.]+ / [\d.]+ ms  wall [^\r]*?"
                 r"(  RTF [\d.e+-]+  left [^\r]*?)?\x1b\[K")


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        FAILS.append(what)


def on_terminal(sim, out):
    """Run sim with stderr (and stdout) on a pseudo-terminal; its output after SIGINT."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(sim, [sim, "--out", out])
    buf, t0, sent = b"", time.time(), False
    while True:
        if not sent and time.time() - t0 > 3.5:
            os.kill(pid, signal.SIGINT)
            sent = True
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            buf += chunk
        elif sent and os.waitpid(pid, os.WNOHANG)[0] == pid:
            break
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
    return buf.decode("utf-8", "replace")


def piped(sim, out, *extra):
    p = subprocess.Popen([sim, "--out", out, *extra], stderr=subprocess.PIPE, stdout=subprocess.PIPE)
    time.sleep(3.5)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    return p.returncode, err.decode()


def main():
    sim, work = sys.argv[1], sys.argv[2]
    text = on_terminal(sim, os.path.join(work, "tty"))
    bars = BAR.findall(text)
    check(len(bars) >= 1, "terminal: %d progress bar(s) drawn in place" % len(bars))
    for fill, pct, _ in bars:
        # the bar is drawn from the exact fraction, printed to 0.1 %: either rounding of a
        # fraction within 0.05 % of the printed one is right
        ok = {int((float(pct) + d) / 100 * 24 + 0.5) for d in (-0.05, 0.05)}
        check(fill.count("#") in ok, "terminal: bar %s matches %s%%" % (fill, pct))
    summary = text[text.rfind("\x1b[K") + 3:] if bars else text
    check(summary.lstrip("\r").startswith("\n") or summary.startswith("\r\n"),
          "terminal: the summary starts on a fresh line")
    check("stopped early" in text, "terminal: the summary says the run stopped early")

    rc, err = piped(sim, os.path.join(work, "pipe"))
    lines = err.splitlines()
    prog = [ln for ln in lines if "%  t = " in ln]
    check(rc == 130, "not a terminal: exit status %d after SIGINT" % rc)
    check("\r" not in err and "\x1b" not in err, "not a terminal: no carriage returns or escapes")
    check(len(prog) >= 1 and all(PLAIN.match(ln) for ln in prog),
          "not a terminal: %d plain progress line(s): %r" % (len(prog), prog[:2]))

    rc, err = piped(sim, os.path.join(work, "quiet"), "--quiet")
    check(rc == 130 and err == "", "--quiet: nothing printed (exit %d, %d bytes)" % (rc, len(err)))
    print("%d check(s) failed" % len(FAILS) if FAILS else "all checks passed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
