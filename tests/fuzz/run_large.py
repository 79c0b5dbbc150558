#!/usr/bin/env python3
"""run_large.py -- run neuroc on the large generated models of gen_large.py.

  run_large.py NEUROC WORK KIND [N [SEED]]   one kind (N: gen_large.py's for it)
  run_large.py NEUROC WORK --all [SEEDS]     every kind, seeds 1..SEEDS (campaign.sh)

neuroc runs `--dump=ir` under a memory limit (4 GiB of address space) and a time limit
(120 s; CTest's TIMEOUT is lower). The outcome must be the kind's: "ok" is exit 0 with IR,
"error: TEXT" is exit 1 with TEXT in the diagnostics. A signal, another exit status or
another outcome fails. The limits guard against crashes and unbounded memory; CTest's
TIMEOUT is what catches quadratic time (tests/fuzz/CMakeLists.txt).
"""
import os
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_large  # noqa: E402

MEM = 4 << 30
LIMIT_S = 120


def limits():
    if not os.environ.get('NEUROC_LARGE_NO_RLIMIT'):     # ASan reserves terabytes
        resource.setrlimit(resource.RLIMIT_AS, (MEM, MEM))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def emit_all(neuroc, path, work):
    """Emit the sources of every back end (their printers recurse too); 0 if all did."""
    rc = 0
    for be in ('c', 'cuda', 'opencl'):
        out = os.path.join(work, 'emit_' + be)
        p = subprocess.run([neuroc, '--backend', be, '--emit-only', out, path], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, preexec_fn=limits, timeout=LIMIT_S)
        if p.returncode != 0:
            print('FAIL --backend %s --emit-only: exit %d; %s' % (be, p.returncode,
                  p.stderr.decode('utf-8', 'replace')[:300]))
            rc = 1
    return rc


def run_one(neuroc, work, kind, n, seed):
    gen, _, want = gen_large.KINDS[kind]
    path = os.path.join(work, '%s_%d_%d.neuro' % (kind, n, seed))
    with open(path, 'w') as f:
        f.write(gen(n, gen_large.random.Random(seed)))
    t0 = time.time()
    try:
        p = subprocess.run([neuroc, '--dump=ir', path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           preexec_fn=limits, timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        print('FAIL %s n=%d seed=%d: no result in %d s' % (kind, n, seed, LIMIT_S))
        return 1
    dt = time.time() - t0
    err = p.stderr.decode('utf-8', 'replace')
    first = err.splitlines()[0][:200] if err else ''
    if want == 'ok':
        good = p.returncode == 0 and p.stdout.startswith(b'model ')
    else:
        good = p.returncode == 1 and want in err
    print('%s %s n=%d seed=%d: exit %d in %.2f s, %d bytes; %s' % ('ok  ' if good else 'FAIL', kind, n, seed,
          p.returncode, dt, os.path.getsize(path), first))
    if not good:
        print('  expected: %s' % want)
    elif kind.endswith('_ok'):
        good = emit_all(neuroc, path, work) == 0
    os.unlink(path)
    return 0 if good else 1


def main(argv):
    if len(argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    neuroc, work = argv[1], argv[2]
    os.makedirs(work, exist_ok=True)
    if argv[3] == '--all':
        seeds = int(argv[4]) if len(argv) > 4 else 1
        rc = 0
        for seed in range(1, seeds + 1):
            for kind, (_, n, _) in gen_large.KINDS.items():
                rc |= run_one(neuroc, work, kind, n, seed)
        return rc
    kind = argv[3]
    n = int(argv[4]) if len(argv) > 4 else gen_large.KINDS[kind][1]
    seed = int(argv[5]) if len(argv) > 5 else 1
    return run_one(neuroc, work, kind, n, seed)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
