#!/usr/bin/env python3
"""Keep tools/editors/ true to the language.

usage: check_editors.py SOURCE_DIR

  * every JSON file of the VS Code extension parses; package.json points at the grammar;
  * the TextMate grammar's keyword patterns name exactly the keywords of grammar/lexer.re,
    and its builtin-function pattern every function of compiler/ir.c (ir_builtin_name);
  * its regexes compile (Python's re, close to Oniguruma for these) and highlight a sample
    line as a user expects: the number and unit of `-65 mV`, the prime of `V' =`;
  * the Vim syntax file's `syn keyword` lists name exactly the lexer's keywords (and the
    builtins); where vim is installed, it is loaded headless on a sample model and the
    syntax groups at chosen places are checked; otherwise that part says it is skipped.
Python standard library only. Exit status 0 when everything holds.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

fails = 0


def check(cond, what):
    global fails
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        fails += 1


def lexer_keywords(src):
    with open(os.path.join(src, "grammar", "lexer.re"), encoding="utf-8") as f:
        kws = set(re.findall(r'^\s*"([a-z_]+)"\s*\{\s*KW\(TK_', f.read(), re.M))
    return kws


def ir_builtins(src):
    with open(os.path.join(src, "compiler", "ir.c"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"ir_builtin_name\[IF__COUNT\]\s*=\s*\{(.*?)\};", text, re.S)
    return set(re.findall(r'"([a-z0-9_]+)"', m.group(1)))


def alternation_words(pattern):
    words = set()
    for group in re.findall(r"\\b\(([a-z0-9_|]+)\)\\b", pattern):
        words.update(group.split("|"))
    return words


def main():
    src = os.path.abspath(sys.argv[1])
    ed = os.path.join(src, "tools", "editors")
    kws, builtins = lexer_keywords(src), ir_builtins(src)
    check(len(kws) > 40 and "runtime" in kws, "grammar/lexer.re: %d keywords" % len(kws))

    # VS Code
    vs = os.path.join(ed, "vscode")
    with open(os.path.join(vs, "package.json"), encoding="utf-8") as f:
        pkg = json.load(f)
    with open(os.path.join(vs, "language-configuration.json"), encoding="utf-8") as f:
        json.load(f)
    gpath = os.path.normpath(os.path.join(vs, pkg["contributes"]["grammars"][0]["path"]))
    with open(gpath, encoding="utf-8") as f:
        tm = json.load(f)
    check(pkg["contributes"]["languages"][0]["extensions"] == [".neuro"] and tm["scopeName"] == "source.neuro",
          "package.json: .neuro files use source.neuro")
    kwpats = tm["repository"]["keywords"]["patterns"]
    tmkw = set()
    for p in kwpats:
        if p["name"] != "constant.language.builtin.neuro":
            tmkw |= alternation_words(p["match"])
    check(tmkw == kws, "TextMate keywords = lexer keywords%s" %
          ("" if tmkw == kws else ": missing %s, extra %s" % (sorted(kws - tmkw), sorted(tmkw - kws))))
    tmfn = alternation_words(tm["repository"]["builtins"]["match"])
    check(builtins <= tmfn, "TextMate builtins include compiler/ir.c's %d functions%s" %
          (len(builtins), "" if builtins <= tmfn else ": missing %s" % sorted(builtins - tmfn)))
    regexes = {}
    for name, rule in tm["repository"].items():
        for r in [rule] + rule.get("patterns", []):
            for key in ("match", "begin", "end"):
                if key in r:
                    try:
                        regexes[(name, r.get("name", ""), key)] = re.compile(r[key])
                    except re.error as e:
                        check(False, "TextMate %s.%s does not compile: %s" % (name, key, e))
    q = re.compile(tm["repository"]["quantity"]["match"])
    m = q.search("  V_reset: mV = -65 mV")
    check(m is not None and m.group(1) == "65" and m.group(2) == "mV", "TextMate: '-65 mV' is a number and a unit")
    m = q.search("g = 0.5 nS/um^2 + x")
    check(m is not None and m.group(2) == "nS/um^2", "TextMate: '0.5 nS/um^2' unit captured whole")
    m = q.search("tau_m1 = 3")
    check(m is not None and m.group(1) == "3" and m.group(2) is None, "TextMate: digits inside a name are not a number")
    m = re.compile(tm["repository"]["derivative"]["match"]).search("    V' = (E_L - V) / tau_m")
    check(m is not None and m.group(1) == "V", "TextMate: the state of V' = ...")

    # Vim
    vim_file = os.path.join(ed, "vim", "syntax", "neuro.vim")
    groups = {}
    with open(vim_file, encoding="utf-8") as f:
        for line in f:
            w = line.split()
            if len(w) > 3 and w[0] == "syn" and w[1] == "keyword":
                groups.setdefault(w[2], set()).update(w[3:])
    vkw = set()
    for g, words in groups.items():
        if g not in ("neuroBuiltin", "neuroConstant"):
            vkw |= words
    check(vkw == kws, "Vim keywords = lexer keywords%s" %
          ("" if vkw == kws else ": missing %s, extra %s" % (sorted(kws - vkw), sorted(vkw - kws))))
    check(builtins <= groups.get("neuroBuiltin", set()), "Vim builtins include compiler/ir.c's functions")
    vim = shutil.which("vim")
    if not vim:
        print("skipped: vim not installed (the Vim syntax file was not loaded)")
    else:
        with tempfile.TemporaryDirectory(prefix="neuroc-vim-") as work:
            model = os.path.join(work, "m.neuro")
            with open(model, "w", encoding="utf-8") as f:
                f.write('# a comment\nneuron N {\n  param { tau: ms = 10 ms }\n  state { V: mV = -65 mV }\n'
                        "  dynamics { V' = -V / tau }\n}\nruntime P.tau\n")
            out = os.path.join(work, "groups.txt")
            probes = [(1, 3, "neuroComment"), (2, 1, "neuroDecl"), (2, 8, "neuroModelName"),
                      (3, 21, "neuroNumber"), (3, 24, "neuroUnit"), (4, 20, "neuroNumber"),
                      (4, 23, "neuroUnit"), (5, 15, "neuroPrime"), (7, 1, "neuroDecl")]
            expr = " . ',' . ".join('synIDattr(synID(%d, %d, 1), "name")' % (l, c) for l, c, _ in probes)
            cmd = [vim, "-N", "-u", "NONE", "-i", "NONE", "-Es",
                   "--cmd", "set rtp^=" + os.path.join(ed, "vim"),
                   "-c", "filetype on", "-c", "syntax on", "-c", "edit " + model,
                   "-c", "call writefile([&filetype . ',' . %s], '%s')" % (expr, out), "-c", "qa!"]
            subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=60)
            got = open(out).read().strip().split(",") if os.path.exists(out) else []
            check(got[:1] == ["neuro"], "vim: ftdetect sets filetype=neuro for .neuro (%s)" % got[:1])
            for (l, c, want), have in zip(probes, got[1:]):
                check(have == want, "vim: line %d col %d is %s (%s)" % (l, c, want, have))
            check(len(got) == len(probes) + 1, "vim: every probe answered")
    print("check_editors: %s" % ("PASSED" if fails == 0 else "%d FAILED" % fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
