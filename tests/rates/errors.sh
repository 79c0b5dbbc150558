#!/bin/sh
# errors.sh NEUROC WORKDIR
# Rate recordings refused with a clear message at the model's location: a bin that is not a
# whole number of steps, zero or not a time, 'every' with 'bin' (a syntax error), 'bin' on spikes or states, a
# misspelt 'bin', a list of neurons, a target that never spikes, a projection, an .h5 file;
# and a simulator refusing a checkpoint or a resumed run whose step falls inside a bin.
set -u
NEUROC=$1; WORK=$2
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$WORK"; mkdir -p "$WORK"; cd "$WORK"
fails=0
expect() {   # expect NAME 'record line' 'message part'
    printf 'import "stdlib/neurons.neuro"\nimport "stdlib/receptors.neuro"\nimport "stdlib/synapses.neuro"\nsim { dt = 0.1 ms }\npopulation P = LIF[10]\npopulation Q = Poisson(rate = 5 Hz)[4]\nneuron Quiet { state { x: 1 = 0 } }\npopulation S = Quiet[3]\nprojection J = Q -> P { synapse = Static; receptor = ExpCurr(tau = 5 ms) -> I_syn; connect = all_to_all; w = 1 pA }\n%s\nrun 10 ms\n' "$2" > "$1.neuro"
    if "$NEUROC" "$1.neuro" -o "$1" >"$1.out" 2>&1; then
        echo "FAIL $1: compiled"; fails=$((fails + 1)); return
    fi
    if grep -q "^$1.neuro:10:[0-9]*: error: .*$3" "$1.out" && [ "$(grep -c error: "$1.out")" = 1 ]; then
        echo "ok   $1: $(grep -m1 error: "$1.out")"
    else
        echo "FAIL $1: expected only '$3' at line 10:"; cat "$1.out"; fails=$((fails + 1))
    fi
}
expect frac   'record rate of P bin 0.25 ms to "r.npy"'          'the rate bin is not a whole number of steps'
expect zero   'record rate of P bin 0 ms to "r.npy"'             'the rate bin must be at least one step'
expect nodim  'record rate of P bin 3 to "r.npy"'                'the rate bin must be a time'
expect every  'record rate of P every 1 ms bin 1 ms to "r.npy"'  "unexpected identifier 'bin'"
expect spikes 'record spikes of P bin 1 ms to "r.npy"'           "'bin' belongs to a population rate"
expect state  'record V of P bin 1 ms to "r.npy"'                "'bin' belongs to a population rate"
expect word   'record rate of P bim 1 ms to "r.npy"'             "unexpected 'bim' in 'record'"
expect list   'record rate of P[0, 3] bin 1 ms to "r.npy"'       'not a list of neurons'
expect quiet  'record rate of S bin 1 ms to "r.npy"'             "never spikes"
expect proj   'record rate of J bin 1 ms to "r.npy"'             "not projection 'J'"
expect h5     'record rate of P bin 1 ms to "r.h5"'              "only spikes can be recorded to '.h5'"

# checkpoints inside a bin (tick.neuro: bins of 1, 5, 7, 10, 30 and 200 steps)
"$NEUROC" "$HERE/models/tick.neuro" -o tick >/dev/null 2>&1 || { echo "FAIL neuroc tick"; exit 1; }
if ./tick --quiet --out o1 --checkpoint ck --checkpoint-at 3.5ms >o1.txt 2>&1; then
    echo "FAIL a checkpoint inside a bin was taken"; fails=$((fails + 1))
elif grep -q "the checkpoint at step 35 falls inside a bin of 10 steps" o1.txt; then
    echo "ok   $(cat o1.txt)"
else
    cat o1.txt; echo "FAIL the refusal of a checkpoint inside a bin"; fails=$((fails + 1))
fi
echo "fails: $fails"
[ "$fails" = 0 ]
