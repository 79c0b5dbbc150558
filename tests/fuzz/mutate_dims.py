#!/usr/bin/env python3
"""mutate_dims.py -- dimension mutation (docs/robustness.md, "Fuzzing"): in a model that
compiles, swap the unit of one physical literal for a unit of another dimension (mV -> ms,
pA -> nS, ...); neuroc must reject the mutant with a dimension error.

  mutate_dims.py NEUROC WORK [--sample K] [--seed S] MODEL...

Every literal `<number> <unit>` outside comments and strings whose unit is in SWAP is one
mutant; --sample K keeps K of them, drawn with seed S (CTest), else all (campaign.sh). Each
model is copied into WORK first (imports resolve through -I and the stdlib) and skipped if
the copy does not compile (a data file beside it, for instance). A mutant passes when neuroc
exits 1 with a dimension error (DIM_ERROR). It is skipped (the swap kept the dimensions
consistent) when the literal is zero, which matches every dimension. Anything else fails:
a mutant accepted, or rejected for another reason, or a crash. Exit status 1 if any failed.
"""
import os
import random
import re
import subprocess
import sys

# unit -> a unit of another dimension
SWAP = {
    'mV': 'ms', 'V': 's', 'ms': 'mV', 's': 'mV', 'pA': 'nS', 'nA': 'mV', 'nS': 'pA', 'uS': 'ms',
    'pF': 'ms', 'nF': 'pA', 'Hz': 'mV', 'um': 'ms', 'mm': 'pA', 'MOhm': 'pF', 'GOhm': 'nS',
}
# what a dimension error says ("dimension mismatch in ...", "... has dimension mV, expected
# ms", "the run length must be a time (...), got mV", "dt must be a positive time")
DIM_ERROR = re.compile(r'error: .*(dimension|must be a (positive )?(time|length)|needs a positive|, got |'
                       r' but port .* is )')
NUM = r'(?<![A-Za-z0-9_.])((?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)'
LIT = re.compile(NUM + r'([ \t]*)(' + '|'.join(sorted(SWAP, key=len, reverse=True)) + r')(?![A-Za-z0-9_])')


def code_spans(text):
    """(start, end) of each line's code: the text before a comment, strings blanked."""
    out = []
    pos = 0
    for line in text.split('\n'):
        code = []
        in_str = False
        for i, c in enumerate(line):
            if in_str:
                code.append(' ')
                if c == '\\':
                    continue
                if c == '"':
                    in_str = False
            elif c == '"':
                in_str = True
                code.append(' ')
            elif c == '#':
                break
            else:
                code.append(c)
        out.append((pos, ''.join(code)))
        pos += len(line) + 1
    return out


def literals(text):
    """(start, end, number, unit) of each swappable literal."""
    found = []
    for pos, code in code_spans(text):
        for m in LIT.finditer(code):
            found.append((pos + m.start(3), pos + m.end(3), m.group(1), m.group(3)))
    return found


def run(neuroc, path, incdir):
    p = subprocess.run([neuroc, '--dump=ir', '-I', incdir, path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    return p.returncode, p.stderr.decode('utf-8', 'replace')


def main(argv):
    args = argv[1:]
    if len(args) < 3:
        sys.stderr.write(__doc__)
        return 2
    neuroc, work = args[0], args[1]
    sample, seed, models = None, 1, []
    i = 2
    while i < len(args):
        if args[i] == '--sample':
            sample = int(args[i + 1])
            i += 2
        elif args[i] == '--seed':
            seed = int(args[i + 1])
            i += 2
        else:
            models.append(args[i])
            i += 1
    os.makedirs(work, exist_ok=True)
    cands = []                    # (model, text, literal)
    for model in sorted(set(models)):
        with open(model, encoding='utf-8', errors='replace') as f:
            text = f.read()
        copy = os.path.join(work, 'orig.neuro')
        with open(copy, 'w') as f:
            f.write(text)
        rc, _ = run(neuroc, copy, os.path.dirname(os.path.abspath(model)))
        if rc != 0:
            continue
        for lit in literals(text):
            cands.append((model, text, lit))
    if sample is not None and sample < len(cands):
        cands = random.Random(seed).sample(cands, sample)
    npass = nskip = nfail = 0
    for model, text, (b, e, num, unit) in cands:
        if float(num) == 0:
            nskip += 1
            continue
        mutant = text[:b] + SWAP[unit] + text[e:]
        path = os.path.join(work, 'mutant.neuro')
        with open(path, 'w') as f:
            f.write(mutant)
        rc, err = run(neuroc, path, os.path.dirname(os.path.abspath(model)))
        line = text.count('\n', 0, b) + 1
        where = '%s:%d: %s %s -> %s' % (model, line, num, unit, SWAP[unit])
        if rc == 1 and DIM_ERROR.search(err):
            npass += 1
            continue
        nfail += 1
        first = err.strip().splitlines()[0] if err.strip() else '(no diagnostic)'
        print('FAIL %s: exit %d: %s' % (where, rc, first[:200]))
    print('%d mutants: %d rejected with a dimension error, %d skipped (zero), %d failed'
          % (npass + nskip + nfail, npass, nskip, nfail))
    return 1 if nfail else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
