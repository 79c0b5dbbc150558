#!/usr/bin/env python3
"""gen_large.py -- large generated models, for the size-driven failures a small fuzzer
input cannot reach (docs/robustness.md, "Fuzzing"): long lines, long operator chains,
many declarations, huge files. Deterministic: the same KIND, N and SEED give the same
bytes.

  gen_large.py KIND N [SEED] > model.neuro      one model
  gen_large.py --list                           the kinds, one a line, with the N that
                                                CTest and campaign.sh use

Each kind says what neuroc must do with it: "ok" (an IR model) or "error: TEXT" (exit 1
with TEXT in a diagnostic), never a crash, a hang or memory without bound.
"""
import random
import sys

HDR = ('import "stdlib/neurons.neuro"\nimport "stdlib/receptors.neuro"\n'
       'import "stdlib/synapses.neuro"\nsim { dt = 0.1 ms }\n')
OPS = ['+', '-', '*', '/']
TOO_DEEP = 'error: expression too deeply nested'
TOO_LARGE = 'error: expression too large'


def chain(n, rng):
    """const c = t1 op t2 op ... (n terms, left-associative, on one line)"""
    terms = ['%d' % rng.randint(1, 9)]
    for _ in range(n - 1):
        terms.append('%s %d' % (rng.choice(OPS[:3]), rng.randint(1, 9)))
    return 'sim { dt = 0.1 ms }\nconst c = ' + ' '.join(terms) + '\nrun 1 ms\n'


def chain_dyn(n, rng):
    """a neuron whose dynamics are a chain of n terms over a state and parameters"""
    terms = ' + '.join('%s * V' % rng.choice(['a', 'b']) for _ in range(n))
    return (HDR + 'neuron N {\n  param { a: 1/ms = 0.001 [1/ms]; b: 1/ms = 0.002 [1/ms] }\n'
            '  state { V: mV = 1 mV }\n  dynamics { V\' = -(' + terms + ') }\n'
            '  spike when V > 10 mV\n}\npopulation P = N[2]\nset P.a = 0.003 [1/ms]\nrun 1 ms\n')


def unit_chain(n, rng):
    """a declared unit of n factors: mV * ms / ms * ms / ms ..."""
    u = 'mV' + ''.join(rng.choice([' * ms / ms', ' / ms * ms']) for _ in range(n // 2))
    return HDR + 'const c: ' + u + ' = 1 mV\nrun 1 ms\n'


def let_chain(n, rng):
    """a function body of n lets, each the previous plus one: deep only once inlined"""
    body = ''.join('  let a%d = a%d + %d\n' % (i + 1, i, rng.randint(1, 9)) for i in range(n))
    return (HDR + 'func f(a0: 1): 1 {\n' + body + '  return a%d\n}\n' % n +
            'neuron N {\n  state { V: mV = 0 mV }\n  on spike { V = f(V / 1 mV) * 1 mV }\n'
            '  spike when V > 1 mV\n}\npopulation P = N[2]\nrun 1 ms\n')


def derived_dag(n, rng):
    """derived values, each the previous one twice: exponential once inlined"""
    ds = ''.join('    d%d: 1 = d%d * d%d\n' % (i + 1, i, i) for i in range(n))
    return (HDR + 'neuron N {\n  param { d0: 1 = 1 }\n  derived {\n' + ds + '  }\n'
            '  state { V: mV = 0 mV }\n  on spike { V = V * d%d }\n  spike when V > 1 mV\n}\n' % n +
            'population P = N[2]\nset P.d0 = 2\nrun 1 ms\n')


def long_line(n, rng):
    """n constants on one line (about 20 bytes each)"""
    return HDR + '; '.join('const c%d = %d ms' % (i, rng.randint(0, 999)) for i in range(n)) + '\nrun 1 ms\n'


def consts(n, rng):
    """n constants, each using one declared before it"""
    out = [HDR, 'const c0 = 1 ms\n']
    for i in range(1, n):
        out.append('const c%d = c%d + %d ms\n' % (i, rng.randrange(i), rng.randint(0, 9)))
    out.append('run 1 ms\n')
    return ''.join(out)


def pops(n, rng):
    """n populations, a projection from each to the next, a record of every tenth"""
    out = [HDR]
    for i in range(n):
        out.append('population P%d = LIF(I_e = %d pA)[%d]\n' % (i, rng.randint(300, 500), rng.randint(1, 3)))
    for i in range(n):
        out.append('projection J%d = P%d -> P%d { synapse = Static; receptor = ExpCurr(tau = %d ms) -> I_syn; '
                   'connect = all_to_all; w = %d pA }\n' % (i, i, (i + 1) % n, rng.randint(1, 9), rng.randint(1, 99)))
    for i in range(0, n, 10):
        out.append('record spikes of P%d to "s%d.csv"\n' % (i, i))
    out.append('run 1 ms\n')
    return ''.join(out)


def projs(n, rng):
    """n projections onto one population (receptors of a few kinds: merged groups)"""
    out = [HDR, 'population P = LIF(I_e = 400 pA)[100]\n']
    for i in range(n):
        out.append('projection J%d = P -> P { synapse = Static; receptor = ExpCurr(tau = %d ms) -> I_syn; '
                   'connect = one_to_one; w = 1 pA }\n' % (i, rng.randint(1, 7)))
    out.append('run 1 ms\n')
    return ''.join(out)


def states(n, rng):
    """a neuron of n states, each decaying, in one population"""
    decl = '; '.join('x%d: mV = %d mV' % (i, rng.randint(0, 9)) for i in range(n))
    return (HDR + 'neuron N {\n  state { V: mV = 0 mV; ' + decl + ' }\n'
            '  spike when V > 1 mV\n}\npopulation P = N[2]\nrun 1 ms\n')


def big_file(n, rng):
    """about n MB: comment lines and constants, a small network at the end"""
    line = '# ' + 'x' * 76 + '\n'
    out = [HDR]
    size = 0
    i = 0
    while size < n * 1000000:
        block = line * 100 + 'const k%d = %d mV\n' % (i, rng.randint(0, 99))
        out.append(block)
        size += len(block)
        i += 1
    out.append('population P = LIF(E_L = k0)[10]\nrun 1 ms\n')
    return ''.join(out)


def deep_ok(n, rng):
    """the deepest expressions accepted, in a neuron's dynamics (run_large.py also emits C,
    CUDA and OpenCL for it: every back end's printers recurse)"""
    terms = ' + '.join('%s * V' % rng.choice(['a', 'b']) for _ in range(n - 6))
    return (HDR + 'neuron N {\n  param { a: 1/ms = 0.001 [1/ms]; b: 1/ms = 0.002 [1/ms] }\n'
            '  state { V: mV = 1 mV; U: mV = 0 mV }\n'
            '  dynamics { V\' = -(' + terms + ')\n    U\' = (V - U) * (' + terms.replace('V', 'U') + ') / 1 mV }\n'
            '  spike when V > 10 mV\n}\npopulation P = N[2]\nset P.a = 0.003 [1/ms]\n'
            'record V of P to "v.csv"\nrun 1 ms\n')


# kind -> (generator, N for CTest and campaign.sh, expected outcome)
KINDS = {
    'chain': (chain, 100000, TOO_DEEP),
    'chain_ok': (chain, 1000, 'ok'),
    'chain_dyn': (chain_dyn, 30000, TOO_DEEP),
    'deep_ok': (deep_ok, 1000, 'ok'),
    'unit_chain': (unit_chain, 30000, TOO_DEEP),
    'let_chain': (let_chain, 30000, TOO_DEEP),
    'derived_dag': (derived_dag, 200, TOO_LARGE),
    'long_line': (long_line, 250000, 'ok'),
    'consts': (consts, 400000, 'ok'),
    'pops': (pops, 20000, 'ok'),
    'projs': (projs, 20000, 'ok'),
    'states': (states, 30000, 'ok'),
    'big_file': (big_file, 50, 'ok'),
}


def main(argv):
    if len(argv) >= 2 and argv[1] == '--list':
        for k, (_, n, want) in KINDS.items():
            print('%s %d %s' % (k, n, want))
        return 0
    if len(argv) < 3 or argv[1] not in KINDS:
        sys.stderr.write(__doc__)
        return 2
    gen = KINDS[argv[1]][0]
    rng = random.Random(int(argv[3]) if len(argv) > 3 else 1)
    sys.stdout.write(gen(int(argv[2]), rng))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
