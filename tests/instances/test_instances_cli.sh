#!/usr/bin/env bash
# The simulator's --instances option: bad values refused, B = 1 unchanged, --dry-run,
# --help, a failing instance, the seed rule's wrap-around, and SIGINT stopping a batch.
#   test_instances_cli.sh NEUROC WORK_DIR
set -u
NEUROC=$1; WORK=$2
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
fails=0; passes=0
ok()   { passes=$((passes + 1)); echo "ok   $*"; }
bad()  { fails=$((fails + 1)); echo "FAIL $*"; }
expect_rc() { # want cmd...
    local want=$1; shift
    "$@" >"$WORK/out.txt" 2>"$WORK/err.txt"; local rc=$?
    if [ "$rc" = "$want" ]; then ok "exit $want: $*"; else bad "exit $rc (want $want): $*"; sed 's/^/    /' "$WORK/err.txt" | head -5; fi
}
json() { # file python-expression-over-m
    "$PYTHON" -c "import json,sys; m=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"
}
rm -rf "$WORK"; mkdir -p "$WORK"
sed 's/STEPS/200 ms/' "$HERE/../cli/tiny.neuro" >"$WORK/tiny.neuro"
sed 's/STEPS/3000 s/' "$HERE/../cli/tiny.neuro" >"$WORK/long.neuro" # far longer than the 1 s before the signal
"$NEUROC" "$WORK/tiny.neuro" -o "$WORK/sim" --backend c 2>/dev/null || { echo "FAIL neuroc"; exit 1; }
"$NEUROC" "$WORK/long.neuro" -o "$WORK/long" --backend c 2>/dev/null || { echo "FAIL neuroc"; exit 1; }

# bad values: exit 2, the value and the range named, nothing written
for v in 0 -1 abc "" 1000001 3x; do
    expect_rc 2 "$WORK/sim" --instances "$v" --out "$WORK/bad"
    grep -q "invalid number of instances '$v' for '--instances' (expected a decimal integer from 1 to 1000000)" "$WORK/err.txt" &&
        ok "--instances '$v' refused with its value" || bad "--instances '$v' message: $(cat "$WORK/err.txt")"
done
expect_rc 2 "$WORK/sim" --instances
grep -q "option '--instances' needs a value" "$WORK/err.txt" && ok "missing value named" || bad "missing value: $(cat "$WORK/err.txt")"
for v in 0 x; do
    expect_rc 2 "$WORK/sim" --instances 2 --jobs "$v" --out "$WORK/bad"
    grep -q "invalid number of jobs '$v' for '--jobs' (expected a decimal integer from 1 to 1000000)" "$WORK/err.txt" &&
        ok "--jobs '$v' refused with its value" || bad "--jobs '$v' message: $(cat "$WORK/err.txt")"
done
[ ! -e "$WORK/bad" ] && ok "a refused command line writes nothing" || bad "$WORK/bad was created"

expect_rc 0 "$WORK/sim" --help
grep -q -- "--instances B" "$WORK/out.txt" && grep -q -- "--jobs J" "$WORK/out.txt" &&
    ok "--help lists --instances and --jobs" || bad "--help lacks --instances or --jobs"

# --sweep: refused where it cannot be (the rest: the sweep tests of run_instances.sh)
expect_rc 2 "$WORK/sim" --sweep P.tau_m=10ms,20ms --out "$WORK/bad"
grep -q "unknown run-time parameter 'P.tau_m': this model has none" "$WORK/err.txt" &&
    ok "--sweep on a model without run-time parameters refused" || bad "--sweep without parameters: $(cat "$WORK/err.txt")"
"$NEUROC" "$HERE/../set/lif_tau.neuro" -o "$WORK/tau" --backend c 2>/dev/null || { echo "FAIL neuroc lif_tau"; exit 1; }
expect_rc 0 "$WORK/tau" --help
grep -q -- "--sweep NAME=V0,V1,..." "$WORK/out.txt" && ok "--help lists --sweep" || bad "--help lacks --sweep"
expect_rc 2 "$WORK/tau" --sweep P.tau_m=10ms,20ms --instances 3 --out "$WORK/bad"
grep -q "'--sweep' gives 2 values but '--instances' asks for 3 instances" "$WORK/err.txt" &&
    ok "--sweep against --instances counted" || bad "--sweep count: $(cat "$WORK/err.txt")"
expect_rc 2 "$WORK/tau" --sweep P.tau_m=10ms,20mV --out "$WORK/bad"
grep -q "'--set P.tau_m=20mV': 'P.tau_m' is a time (ms), but 'mV' is a voltage" "$WORK/err.txt" &&
    ok "--sweep checks each value's unit" || bad "--sweep unit: $(cat "$WORK/err.txt")"
for v in "P.tau_m=10ms," "P.tau_m=" "=1ms" "P.tau_m"; do
    expect_rc 2 "$WORK/tau" --sweep "$v" --out "$WORK/bad"
    grep -qE "invalid '--sweep|invalid value" "$WORK/err.txt" && ok "--sweep '$v' refused" || bad "--sweep '$v': $(cat "$WORK/err.txt")"
done
[ ! -e "$WORK/bad" ] && ok "a refused --sweep writes nothing" || bad "$WORK/bad was created"
expect_rc 0 "$WORK/tau" --sweep P.tau_m=20ms --out "$WORK/sw1" --quiet
expect_rc 0 "$WORK/tau" --set P.tau_m=20ms --out "$WORK/set1" --quiet
[ ! -e "$WORK/sw1/instance_0" ] && cmp -s "$WORK/sw1/spikes.csv" "$WORK/set1/spikes.csv" &&
    ok "--sweep with one value = the plain run with --set" || bad "--sweep of one value"

# B = 1: the layout of a plain run, the same files
expect_rc 0 "$WORK/sim" --instances 1 --seed 11 --out "$WORK/one" --quiet
expect_rc 0 "$WORK/sim" --seed 11 --out "$WORK/plain" --quiet
[ ! -e "$WORK/one/instance_0" ] && json "$WORK/one/manifest.json" '"instances" not in m and m["seed"] == 11' &&
    ok "--instances 1 writes a plain run's folder" || bad "--instances 1 layout"
cmp -s "$WORK/one/spikes.npy" "$WORK/plain/spikes.npy" && cmp -s "$WORK/one/v.csv" "$WORK/plain/v.csv" &&
    ok "--instances 1 = the plain run" || bad "--instances 1 differs from the plain run"

# --dry-run: the plan of one instance, and the instances line (J at a time: J times the
# total at once); no files
expect_rc 0 "$WORK/sim" --dry-run --out "$WORK/dry1"
grep "^  total" "$WORK/out.txt" >"$WORK/total1.txt"
one=$(awk '/^  total/ {print $2}' "$WORK/out.txt")
expect_rc 0 "$WORK/sim" --dry-run --instances 4 --jobs 3 --out "$WORK/dry4"
grep -q "^  instances: 4, a process each, 3 at a time: at most $((3 * one)) bytes (.*) at once$" "$WORK/out.txt" &&
    ok "--dry-run: 3 at a time take 3 x $one bytes" || bad "--dry-run instances line: $(cat "$WORK/out.txt")"
grep "^  total" "$WORK/out.txt" | cmp -s - "$WORK/total1.txt" && [ -s "$WORK/total1.txt" ] &&
    ok "--dry-run: the total is one instance's" || bad "--dry-run total differs"
expect_rc 0 "$WORK/sim" --dry-run --instances 2 --jobs 8
grep -q "^  instances: 2, a process each, 2 at a time: at most $((2 * one)) bytes" "$WORK/out.txt" &&
    ok "--dry-run: --jobs beyond B counts B" || bad "--dry-run jobs > B: $(cat "$WORK/out.txt")"

# --jobs 3: instances side by side, each still its single run
expect_rc 0 "$WORK/sim" --instances 3 --jobs 3 --seed 20 --out "$WORK/par" --quiet
same=0
for b in 0 1 2; do
    "$WORK/sim" --seed $((20 + b)) --out "$WORK/par_single_$b" --quiet &&
        cmp -s "$WORK/par/instance_$b/spikes.npy" "$WORK/par_single_$b/spikes.npy" &&
        cmp -s "$WORK/par/instance_$b/v.csv" "$WORK/par_single_$b/v.csv" && same=$((same + 1))
done
[ $same = 3 ] && ! cmp -s "$WORK/par/instance_0/spikes.npy" "$WORK/par/instance_1/spikes.npy" &&
    ok "--jobs 3: each instance = its single run" || bad "--jobs 3: $same of 3 identical"
json "$WORK/par/manifest.json" '[i["index"] for i in m["instances"]] == [0, 1, 2] and [i["seed"] for i in m["instances"]] == [20, 21, 22]' &&
    ok "--jobs 3: the manifest lists the instances in order" || bad "--jobs 3 manifest: $(cat "$WORK/par/manifest.json")"
[ ! -e "$WORK/dry1" ] && [ ! -e "$WORK/dry4" ] && ok "--dry-run writes nothing" || bad "--dry-run wrote a folder"

# the seed rule wraps modulo 2^64
expect_rc 0 "$WORK/sim" --instances 2 --seed 18446744073709551615 --out "$WORK/wrap" --quiet
json "$WORK/wrap/manifest.json" '[i["seed"] for i in m["instances"]] == [18446744073709551615, 0]' &&
    json "$WORK/wrap/instance_1/manifest.json" 'm["seed"] == 0' &&
    ok "seed + index wraps to 0" || bad "seed wrap: $(cat "$WORK/wrap/manifest.json")"

# a failing instance: the others still run, the batch exits 1, the manifest says which
mkdir -p "$WORK/fail" && : >"$WORK/fail/instance_1"
expect_rc 1 "$WORK/sim" --instances 3 --out "$WORK/fail"
grep -q "cannot create output folder '.*instance_1'" "$WORK/err.txt" && ok "the failing instance's error is printed" ||
    bad "failing instance message: $(cat "$WORK/err.txt")"
json "$WORK/fail/manifest.json" '[i["exit_status"] for i in m["instances"]] == [0, 1, 0] and not m["interrupted"]' &&
    [ -s "$WORK/fail/instance_2/spikes.npy" ] && ok "instances 0 and 2 ran, 1 failed" ||
    bad "failing instance manifest: $(cat "$WORK/fail/manifest.json")"

# SIGINT to the batch: the running instance stops after its step with valid files, no
# further instance starts, exit 130
"$WORK/long" --instances 3 --out "$WORK/int" --quiet 2>"$WORK/int.err" &
pid=$!
for _ in $(seq 50); do [ -d "$WORK/int/instance_0" ] && break; sleep 0.1; done
sleep 1
kill -INT $pid
wait $pid; rc=$?
[ $rc = 130 ] && ok "SIGINT: exit 130" || bad "SIGINT: exit $rc ($(cat "$WORK/int.err"))"
json "$WORK/int/manifest.json" 'm["interrupted"] and len(m["instances"]) == 1 and m["instances"][0]["exit_status"] == 130' &&
    json "$WORK/int/instance_0/manifest.json" 'm["interrupted"] and 0 < m["completed_steps"] < m["total_steps"]' &&
    [ ! -e "$WORK/int/instance_1" ] && ok "SIGINT: instance 0 stopped and flushed, no instance 1" ||
    bad "SIGINT manifests: $(cat "$WORK/int/manifest.json")"
"$PYTHON" - "$WORK/int/instance_0/spikes.npy" <<'PY' &&
import ast, os, sys
raw = open(sys.argv[1], "rb").read()
hlen = int.from_bytes(raw[8:10], "little")
rows = ast.literal_eval(raw[10:10 + hlen].decode("latin1"))["shape"][0]
sys.exit(0 if raw[:6] == b"\x93NUMPY" and rows > 0 and len(raw) == 10 + hlen + 12 * rows else 1)
PY
    ok "SIGINT: the interrupted instance's .npy is valid" || bad "SIGINT: spikes.npy unreadable"

# SIGINT with --jobs 2: both running instances stop and flush, the third never starts
"$WORK/long" --instances 3 --jobs 2 --out "$WORK/int2" --quiet 2>"$WORK/int2.err" &
pid=$!
for _ in $(seq 50); do [ -d "$WORK/int2/instance_1" ] && break; sleep 0.1; done
sleep 1
kill -INT $pid
wait $pid; rc=$?
[ $rc = 130 ] && json "$WORK/int2/manifest.json" 'm["interrupted"] and [i["exit_status"] for i in m["instances"]] == [130, 130]' &&
    json "$WORK/int2/instance_1/manifest.json" 'm["interrupted"] and 0 < m["completed_steps"] < m["total_steps"]' &&
    [ ! -e "$WORK/int2/instance_2" ] && ok "SIGINT with --jobs 2: both stopped, no third" ||
    bad "SIGINT --jobs 2: exit $rc, $(cat "$WORK/int2/manifest.json")"

echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
