#!/bin/sh
# units.sh NEUROC WORKDIR -- `--set` takes the unit syntax of the language and speaks in the
# units the model declared (docs/cli.md §2): a Poisson rate declared in Hz is set with
# `10Hz`, `10 Hz` or `0.01[1/ms]`, each giving the bits of `rate = 10 Hz` compiled into the
# model (the same spikes); a bare number's hint is `inp.rate=10Hz` (was `101/ms`, 10 kHz);
# C hexadecimal floats are refused; --help and manifest.json show 5 Hz, not 0.005 1/ms.
set -u
NEUROC=$1; WORK=$2
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
fails=0
ok()  { echo "ok   $*"; }
bad() { fails=$((fails + 1)); echo "FAIL $*"; }
rm -rf "$WORK"; mkdir -p "$WORK"
sed 's/RATE/5 Hz/; s/RUNTIME/runtime inp.rate, P.t_ref/' "$HERE/units.neuro" >"$WORK/rt.neuro"
sed 's/RATE/10 Hz/; s/RUNTIME//' "$HERE/units.neuro" >"$WORK/fixed.neuro"
"$NEUROC" "$WORK/rt.neuro" -o "$WORK/rt" --backend c 2>/dev/null || { echo "FAIL neuroc rt"; exit 1; }
"$NEUROC" "$WORK/fixed.neuro" -o "$WORK/fixed" --backend c 2>/dev/null || { echo "FAIL neuroc fixed"; exit 1; }
"$WORK/fixed" --quiet --out "$WORK/fixed_out" || bad "fixed run"
n=0
for v in 10Hz "10 Hz" "0.01[1/ms]" "0.01 [1/ms]" "0.01 kHz"; do
    n=$((n + 1))
    if "$WORK/rt" --quiet --out "$WORK/o$n" --set "inp.rate=$v" 2>"$WORK/o$n.err"; then
        cmp -s "$WORK/o$n/s.npy" "$WORK/fixed_out/s.npy" && ok "--set inp.rate=$v: the spikes of rate = 10 Hz" ||
            bad "--set inp.rate=$v: other spikes than rate = 10 Hz in the source"
    else
        bad "--set inp.rate=$v: exit $?: $(cat "$WORK/o$n.err")"
    fi
done
"$PYTHON" -c "import json,sys; p = json.load(open(sys.argv[1]))['parameters']; sys.exit(p != {'inp.rate': {'value': 10, 'unit': 'Hz'}, 'P.t_ref': {'value': 2, 'unit': 'ms'}})" \
    "$WORK/o1/manifest.json" && ok "manifest.json: inp.rate = 10 Hz" || bad "manifest.json parameters: $(grep parameters "$WORK/o1/manifest.json")"
# expect STATUS TEXT ARGS...: the simulator exits with STATUS and its stderr contains TEXT
expect() {
    want=$1 text=$2; shift 2
    "$WORK/rt" --quiet --out "$WORK/bad" "$@" >"$WORK/bad.out" 2>"$WORK/bad.err"; rc=$?
    if [ $rc = "$want" ] && grep -qF -- "$text" "$WORK/bad.err"; then ok "$*: exit $rc, '$text'"; else
        bad "$*: exit $rc, wanted $want and '$text' in: $(cat "$WORK/bad.err")"; fi
}
expect 2 "'inp.rate' is a rate (Hz) and needs a unit, e.g. inp.rate=10Hz" --set inp.rate=10
expect 2 "invalid value '0x10Hz' for 'inp.rate'" --set inp.rate=0x10Hz
expect 2 "invalid value '0x1p3ms' for 'P.t_ref'" --set P.t_ref=0x1p3ms
expect 2 "invalid value '0X1.8p1 ms' for 'P.t_ref'" --set "P.t_ref=0X1.8p1 ms"
expect 2 "e.g. --set P.t_ref=2ms" --set P.t_ref=abc
expect 2 "invalid unit in '--set inp.rate=1[1/ms': expected '[unit]' at the end" --set "inp.rate=1[1/ms"
expect 2 "'inp.rate' is a rate (Hz), but 'ms' is a time" --set inp.rate=2ms
expect 2 "'inp.rate' is a rate (Hz) and needs a unit, e.g. inp.rate=3Hz" --sweep inp.rate=5Hz,3 --instances 2
"$WORK/rt" --help >"$WORK/help.txt" 2>&1
grep -qE "^  inp\.rate +5 Hz$" "$WORK/help.txt" && grep -qE "^  P\.t_ref +2 ms$" "$WORK/help.txt" &&
    ok "--help: inp.rate 5 Hz, P.t_ref 2 ms" || bad "--help: $(tail -3 "$WORK/help.txt")"
[ $fails = 0 ] && echo "set units: all passed" || echo "set units: $fails failed"
[ $fails = 0 ]
