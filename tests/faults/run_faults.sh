#!/usr/bin/env bash
# tests/faults/run_faults.sh NEUROC WORK BACKEND GROUP -- faults of a generated simulator,
# end to end on one back end (docs/robustness.md lists what each group shows):
#   finite   the state check (on by default; --check-finite=K|off) stops where the closed
#            forms of models/blowup.neuro (non-finite) and models/range.neuro (declared
#            ranges) say (also in each instance of a batch)
#   write    an injected full disk ($NEUROC_FAULT_WRITE_AFTER), a real full tmpfs, output
#            folders that cannot be made or written
#   signal   SIGINT and SIGTERM during the run (one, then two; a batch side by side on CUDA),
#            SIGTERM during construction
#   args     invalid command lines: exit 2 with a message, nothing written
#   memory   host memory (C, ulimit -v) or device memory ($NEUROC_FAULT_DEVICE_MEM) exhausted
#   buffers  every neuron firing in every step: no recorded spike lost
# Exit: 0 pass; 1 a check failed; 77 skipped (a GPU back end without a device).
set -u
NEUROC=$1; WORK=$2; BACKEND=$3; GROUP=$4
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-/usr/bin/python3}
CHECK="$HERE/check_faults.py"
tag="faults[$GROUP/$BACKEND]"
fails=0
ok()  { echo "ok   $*"; }
bad() { fails=$((fails + 1)); echo "FAIL $*"; }
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1

# build NAME MODEL [SED-SCRIPT]: $WORK/NAME, the model (edited by sed) for BACKEND
build() {
    sed "${3:-}" "$HERE/models/$2.neuro" >"$WORK/$1.neuro"
    "$NEUROC" "$WORK/$1.neuro" --backend "$BACKEND" -o "$WORK/$1" >"$WORK/$1.build.txt" 2>&1 ||
        { cat "$WORK/$1.build.txt"; echo "$tag: FAILED: neuroc $2"; exit 1; }
}
# expect RC NAME CMD...: run CMD with stderr in $WORK/NAME.err; check its exit status
expect() {
    local want=$1 name=$2; shift 2
    "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"; local rc=$?
    if [ "$rc" = "$want" ]; then ok "$name: exit $want"; else
        bad "$name: exit $rc, want $want"; sed 's/^/    /' "$WORK/$name.err" | tail -5; fi
}
# has NAME TEXT: stderr of NAME has the line TEXT exactly
has() { grep -qxF -- "$2" "$WORK/$1.err" && ok "$1: '$2'" || { bad "$1: no line '$2' in:"; sed 's/^/    /' "$WORK/$1.err" | tail -5; }; }
# grepe NAME REGEX: stderr of NAME matches the extended regex
grepe() { grep -qE -- "$2" "$WORK/$1.err" && ok "$1: /$2/" || { bad "$1: nothing like /$2/ in:"; sed 's/^/    /' "$WORK/$1.err" | tail -5; }; }
py() { "$PY" "$CHECK" "$@" && ok "$*" || bad "$*"; }
# manifest DIR KEY: the manifest's value of KEY, as JSON
manifest() { "$PY" -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1] + "/manifest.json"))[sys.argv[2]]))' "$1" "$2"; }

if [ "$BACKEND" != c ]; then
    if [ "$BACKEND" = cuda ] && [ ! -e /dev/nvidiactl ] && ! nvidia-smi -L >/dev/null 2>&1; then
        echo "$tag: skipped: no CUDA device"; exit 77
    fi
    build probe always
    if ! "$WORK/probe" --list-devices >"$WORK/devices.txt" 2>&1 || [ ! -s "$WORK/devices.txt" ]; then
        echo "$tag: skipped: no $BACKEND device ($(head -n 1 "$WORK/devices.txt"))"; exit 77
    fi
fi
SCHEDULES=default
[ "$BACKEND" != c ] && SCHEDULES="block launch free"
[ "$BACKEND" = cuda ] && SCHEDULES="block launch graph persistent free"

case $GROUP in
finite)
    build blow blowup
    build blowd blowup 's/seed = 3 }/seed = 3; precision = double }/; s/^run 100 ms/run 600 ms/'
    build rng range
    build rngd range 's/seed = 3 }/seed = 3; precision = double }/'
    # V open above, W open below: their infinities in step 125 are non-finite values
    build rngi range 's/range(<= 1000 mV)/range(>= 0 mV)/; s/range(-500 mV, 500 mV)/range(<= 500 mV)/'
    DEF=100   # the default interval (NRT_CHECK_EVERY, every back end)
    # check_one NAME KIND(finite|range) PREC K SIM ARGS...: exit 1, the message and the
    # recordings where the closed form says
    check_one() {
        local name=$1 kind=$2 p=$3 k=$4 sim=$5; shift 5
        expect 1 "$name" "$sim" --out "$WORK/$name" --quiet "$@"
        local args=$k; [ "$kind" = finite ] && args="$p $k"
        if msg=$("$PY" "$CHECK" $kind "$WORK/$name" $args); then
            ok "$name: $(echo "$msg" | head -1)"
            has "$name" "$sim: error: $(echo "$msg" | tail -1)"
        else
            bad "$name: $msg"
        fi
    }
    for mode in $SCHEDULES; do
        [ "$mode" = default ] && mode=; export NEUROC_GPU_MODE=$mode
        for k in 1 10; do
            for p in float double; do
                sim=$WORK/blow; [ $p = double ] && sim=$WORK/blowd
                check_one finite_${p}_${k}${mode:+_$mode} finite $p $k "$sim" --check-finite=$k
                sim=$WORK/rng; [ $p = double ] && sim=$WORK/rngd
                check_one range_${p}_${k}${mode:+_$mode} range $p $k "$sim" --check-finite=$k
            done
        done
        # on by default: no option needed
        check_one finite_default${mode:+_$mode} finite float $DEF "$WORK/blow"
        check_one range_default${mode:+_$mode} range double $DEF "$WORK/rngd"
        expect 1 range_inf${mode:+_$mode} "$WORK/rngi" --out "$WORK/range_inf${mode:+_$mode}" --quiet --check-finite=1
        has range_inf${mode:+_$mode} "$WORK/rngi: error: non-finite value: population P, variable V, neuron 7, step 125 (t = 63 ms)"
    done
    unset NEUROC_GPU_MODE
    expect 1 finite_flag "$WORK/blow" --out "$WORK/finite_flag" --quiet --check-finite
    has finite_flag "$WORK/blow: error: non-finite value: population P, variable x, neuron 7, step 125 (t = 63 ms)"
    for off in --check-finite=off --no-check-finite; do
        expect 0 finite_off "$WORK/blow" --out "$WORK/finite_off" --quiet $off
        [ "$(manifest "$WORK/finite_off" completed_steps)" = 200 ] && ok "$off: all 200 steps run" || bad "finite_off steps ($off)"
        [ "$(manifest "$WORK/finite_off" error)" = null ] && ok "$off: no error" || bad "finite_off error ($off)"
        py outputs "$WORK/finite_off" --full
        expect 0 range_off "$WORK/rng" --out "$WORK/range_off" --quiet $off
    done
    # neuroc --no-check-finite: no check code, so not even --check-finite=1 stops it
    "$NEUROC" "$WORK/blow.neuro" --backend "$BACKEND" --no-check-finite -o "$WORK/blownc" >"$WORK/blownc.build.txt" 2>&1 ||
        bad "neuroc --no-check-finite: $(cat "$WORK/blownc.build.txt")"
    expect 0 finite_compiled_out "$WORK/blownc" --out "$WORK/finite_compiled_out" --quiet --check-finite=1
    [ "$(manifest "$WORK/finite_compiled_out" completed_steps)" = 200 ] && ok "neuroc --no-check-finite: all 200 steps run" || bad "finite_compiled_out steps"
    # a batch whose every instance fails (side by side in one process on CUDA's block
    # schedule, processes elsewhere): each instance stops at the same step with its own
    # error and its recordings up to it; the batch exits 1 and its manifest says so
    # (the model has no projections: CUDA's auto would take the free schedule, which forks)
    BLOCK=; [ "$BACKEND" != c ] && BLOCK=NEUROC_GPU_MODE=block
    expect 1 finite_batch env $BLOCK "$WORK/blow" --out "$WORK/finite_batch" --quiet --check-finite --instances 3
    grepe finite_batch "error: (instance 0: )?non-finite value: population P, variable x, neuron 7, step 125"
    for b in 0 1 2; do
        d=$WORK/finite_batch/instance_$b
        # (the checker holds the manifest's error to the closed form's step and neuron)
        if msg=$("$PY" "$CHECK" finite "$d" float 1); then ok "finite_batch/$b: $(echo "$msg" | head -1)"; else bad "finite_batch/$b: $msg"; fi
    done
    "$PY" -c 'import json,sys; m = json.load(open(sys.argv[1])); s = [i["exit_status"] for i in m["instances"]]; assert s == [1, 1, 1], s; print(m["run_as"])' \
        "$WORK/finite_batch/manifest.json" >"$WORK/finite_batch.runas" && ok "finite_batch: every instance exit 1, run as $(cat "$WORK/finite_batch.runas")" || bad "finite_batch: top manifest"
    if [ "$BACKEND" = cuda ]; then
        [ "$(cat "$WORK/finite_batch.runas")" = "one process" ] && ok "finite_batch: side by side" || bad "finite_batch: ran as $(cat "$WORK/finite_batch.runas")"
        expect 0 batch_dry env $BLOCK "$WORK/blow" --dry-run --instances 4
        grep -q "instances: 4 side by side in one process" "$WORK/batch_dry.out" && ok "batch_dry: the plan counts 4 instances side by side" || bad "batch_dry: $(cat "$WORK/batch_dry.out")"
    fi
    ;;
write)
    build busy busy 's/RATE/200 Hz/; s/LENGTH/1000 ms/'
    build short busy 's/RATE/200 Hz/; s/LENGTH/20 ms/'
    # full after 2.5 MB: src.npy fails at its third 1 MiB flush, mid-run
    expect 1 inject env NEUROC_FAULT_WRITE_AFTER=2500000 "$WORK/busy" --out "$WORK/inject" --quiet
    has inject "$WORK/busy: error: writing src.npy: No space left on device"
    [ "$(grep -c "error:" "$WORK/inject.err")" = 1 ] && ok "inject: one error line" || bad "inject: $(cat "$WORK/inject.err")"
    [ "$(manifest "$WORK/inject" error)" = '"writing src.npy: No space left on device"' ] && ok "inject: manifest names the error" || bad "inject: manifest error $(manifest "$WORK/inject" error)"
    [ "$(manifest "$WORK/inject" interrupted)" = true ] && ok "inject: manifest interrupted" || bad "inject: interrupted"
    py outputs "$WORK/inject"
    "$PY" -c 'import json,sys; m = json.load(open(sys.argv[1])); r = [x for x in m["recordings"] if x["file"] == "src.npy"][0]; assert r["rows"] == 2 * (2**20 // 12), r' \
        "$WORK/inject/manifest.json" && ok "inject: src.npy keeps its first two flushes" || bad "inject: src.npy rows"
    "$PY" -c 'import json,sys; m = json.load(open(sys.argv[1])); assert m["timing_s"]["simulate"] > 0, m["timing_s"]' \
        "$WORK/inject/manifest.json" && ok "inject: timing_s.simulate is the time the steps took" || bad "inject: timing_s.simulate $(manifest "$WORK/inject" timing_s)"
    # the manifest counts the spikes of the completed steps, not of the step that failed
    expect 0 busy_full "$WORK/busy" --out "$WORK/busy_full" --quiet
    py counts "$WORK/inject" "$WORK/busy_full"
    # full before the first flush: the file keeps its header, 0 rows
    expect 1 inject0 env NEUROC_FAULT_WRITE_AFTER=400 "$WORK/busy" --out "$WORK/inject0" --quiet
    has inject0 "$WORK/busy: error: writing src.npy: No space left on device"
    py outputs "$WORK/inject0"
    # full while the first headers are written (src.npy's is 128 bytes, then p.csv's
    # "t_ms,i"): the file whose header did not fit is not left on disk, every other is whole
    for n in 0 5 100 130; do
        expect 1 inject_h$n env NEUROC_FAULT_WRITE_AFTER=$n "$WORK/short" --out "$WORK/inject_h$n" --quiet
        want=src.npy; [ $n = 130 ] && want=p.csv
        has inject_h$n "$WORK/short: error: writing $want: No space left on device"
        [ ! -e "$WORK/inject_h$n/$want" ] && ok "inject_h$n: no $want" || bad "inject_h$n: $want left, $(wc -c <"$WORK/inject_h$n/$want") bytes"
        py headers "$WORK/inject_h$n"
        py outputs "$WORK/inject_h$n"
    done
    # full at the last flush: every step ran, the manifest says what was lost
    expect 1 inject_end env NEUROC_FAULT_WRITE_AFTER=30000 "$WORK/short" --out "$WORK/inject_end" --quiet
    grepe inject_end "^$WORK/short: error: writing [a-z]+\.(npy|csv): No space left on device$"
    [ "$(manifest "$WORK/inject_end" completed_steps)" = 200 ] && ok "inject_end: all steps ran" || bad "inject_end steps"
    py outputs "$WORK/inject_end"
    expect 2 inject_bad env NEUROC_FAULT_WRITE_AFTER=lots "$WORK/short" --out "$WORK/inject_bad"
    has inject_bad "$WORK/short: error: \$NEUROC_FAULT_WRITE_AFTER='lots' is not a number of bytes"
    expect 2 stall_bad env NEUROC_FAULT_CLUSTER_STALL=-5 "$WORK/short" --out "$WORK/stall_bad"
    has stall_bad "$WORK/short: error: \$NEUROC_FAULT_CLUSTER_STALL='-5' is not a step number"
    # a real full file system: a 3 MiB tmpfs in a private mount namespace (root or unshare)
    mkdir -p "$WORK/mnt"
    UNSHARE="unshare -rm" # not root: a user namespace too (root inside it may mount)
    [ "$(id -u)" = 0 ] && UNSHARE="unshare -m"
    if $UNSHARE true 2>/dev/null; then
        $UNSHARE bash -c 'mount -t tmpfs -o size=3m tmpfs "$1/mnt" || exit 99
            "$1/busy" --out "$1/mnt/o" --quiet 2>"$1/tmpfs.err"; echo $? >"$1/tmpfs.rc"
            cp -a "$1/mnt/o" "$1/tmpfs"' _ "$WORK"
        [ "$(cat "$WORK/tmpfs.rc" 2>/dev/null)" = 1 ] && ok "tmpfs: exit 1" || bad "tmpfs: exit $(cat "$WORK/tmpfs.rc" 2>/dev/null)"
        grepe tmpfs "^$WORK/busy: error: writing [a-z]+\.(npy|csv): No space left on device$"
        py npyfiles "$WORK/tmpfs"
        if [ -e "$WORK/tmpfs/manifest.json" ]; then py outputs "$WORK/tmpfs"; else ok "tmpfs: no room for the manifest (said: $(tail -1 "$WORK/tmpfs.err"))"; fi
        $UNSHARE bash -c 'mkdir -p "$1/ro" && mount -t tmpfs -o ro tmpfs "$1/ro" || exit 99
            "$1/short" --out "$1/ro" --quiet' _ "$WORK" 2>"$WORK/readonly.err"
        grepe readonly "^$WORK/short: error: cannot open recording '$WORK/ro/src.npy' for writing: Read-only file system$"
    else
        echo "$tag: no private mount namespace here: the tmpfs and read-only checks are skipped"
    fi
    # no room for the manifest (its temporary name is taken by a folder): the old one of an
    # earlier run into the same folder is gone, not left describing other files
    expect 0 again "$WORK/short" --out "$WORK/again" --quiet
    mkdir "$WORK/again/manifest.json.tmp"
    expect 1 again2 "$WORK/short" --out "$WORK/again" --quiet
    has again2 "$WORK/short: error: cannot write '$WORK/again/manifest.json.tmp': Is a directory"
    [ ! -e "$WORK/again/manifest.json" ] && ok "again2: no stale manifest" || bad "again2: a manifest of the earlier run is left"
    py npyfiles "$WORK/again"
    : >"$WORK/afile"
    expect 1 notdir "$WORK/short" --out "$WORK/afile/sub" --quiet
    has notdir "$WORK/short: error: cannot create output folder '$WORK/afile/sub': Not a directory"
    expect 1 isfile "$WORK/short" --out "$WORK/afile" --quiet
    has isfile "$WORK/short: error: cannot create output folder '$WORK/afile': Not a directory"
    expect 1 proc "$WORK/short" --out /proc/neuroc_forbidden --quiet
    grepe proc "^$WORK/short: error: cannot create output folder '/proc/neuroc_forbidden': "
    ;;
signal)
    build long busy 's/RATE/20 Hz/; s/LENGTH/1000 s/' # far longer than any device needs to reach the kill
    for sig in INT TERM; do
        rm -rf "$WORK/sig$sig"
        "$WORK/long" --out "$WORK/sig$sig" --quiet 2>"$WORK/sig$sig.err" & pid=$!
        for _ in $(seq 600); do [ -e "$WORK/sig$sig/src.npy" ] && break; sleep 0.1; done
        sleep 1; kill -$sig $pid; wait $pid; rc=$?
        [ $rc = 130 ] && ok "SIG$sig: exit 130" || bad "SIG$sig: exit $rc"
        [ "$(manifest "$WORK/sig$sig" signal)" = "\"SIG$sig\"" ] && ok "SIG$sig: manifest names it" || bad "SIG$sig: manifest signal"
        n=$(manifest "$WORK/sig$sig" completed_steps)
        [ "$n" -gt 0 ] && [ "$n" -lt 10000000 ] && ok "SIG$sig: stopped after step $n" || bad "SIG$sig: completed $n"
        py outputs "$WORK/sig$sig" --full
    done
    # a batch side by side (CUDA block): one SIGINT stops every instance after the same step
    if [ "$BACKEND" = cuda ]; then
        "$WORK/long" --out "$WORK/sigbatch" --quiet --instances 3 2>"$WORK/sigbatch.err" & pid=$!
        for _ in $(seq 600); do [ -e "$WORK/sigbatch/instance_2/src.npy" ] && break; sleep 0.1; done
        sleep 1; kill -INT $pid; wait $pid; rc=$?
        [ $rc = 130 ] && ok "batch SIGINT: exit 130" || bad "batch SIGINT: exit $rc"
        [ "$(manifest "$WORK/sigbatch" interrupted)" = true ] && [ "$(manifest "$WORK/sigbatch" run_as)" = '"one process"' ] &&
            ok "batch SIGINT: the batch's manifest says interrupted, side by side" || bad "batch SIGINT: top manifest"
        n0=$(manifest "$WORK/sigbatch/instance_0" completed_steps)
        for b in 0 1 2; do
            d=$WORK/sigbatch/instance_$b
            [ "$(manifest "$d" signal)" = '"SIGINT"' ] && [ "$(manifest "$d" completed_steps)" = "$n0" ] &&
                ok "batch SIGINT: instance $b stopped after step $n0" || bad "batch SIGINT: instance $b"
            py outputs "$d" --full
        done
    fi
    # a second signal terminates at once: the files hold what their last flush wrote
    "$WORK/long" --out "$WORK/sig2" --quiet 2>/dev/null & pid=$!
    for _ in $(seq 600); do [ -e "$WORK/sig2/src.npy" ] && break; sleep 0.1; done
    sleep 1; kill -INT $pid; kill -INT $pid; wait $pid; rc=$?
    [ $rc = 130 ] && ok "two SIGINTs: exit 130" || bad "two SIGINTs: exit $rc"
    py npyfiles "$WORK/sig2"
    build slow slowbuild
    # SIGTERM sent by the simulator itself when construction starts (any device), and on C,
    # whose construction is slow enough to aim at, by kill 0.3 s after the start
    expect 130 sigbuild env NEUROC_FAULT_BUILD_SIGNAL=TERM "$WORK/slow" --out "$WORK/sigbuild" --quiet
    kinds=sigbuild
    if [ "$BACKEND" = c ]; then
        "$WORK/slow" --out "$WORK/sigkill" --quiet 2>"$WORK/sigkill.err" & pid=$!
        sleep 0.3; kill -TERM $pid; wait $pid; rc=$?
        [ $rc = 130 ] && ok "sigkill: SIGTERM in construction: exit 130" || bad "sigkill: exit $rc"
        kinds="sigbuild sigkill"
    fi
    for k in $kinds; do
        [ "$(manifest "$WORK/$k" completed_steps)" = 0 ] && ok "$k: no step ran" || bad "$k: $(manifest "$WORK/$k" completed_steps) steps"
        [ "$(manifest "$WORK/$k" signal)" = '"SIGTERM"' ] && ok "$k: manifest names SIGTERM" || bad "$k: signal"
        py outputs "$WORK/$k" --full
    done
    expect 2 sigbad env NEUROC_FAULT_BUILD_SIGNAL=HUP "$WORK/slow" --out "$WORK/sigbad"
    has sigbad "$WORK/slow: error: \$NEUROC_FAULT_BUILD_SIGNAL='HUP' is not INT or TERM"
    ;;
args)
    build short busy 's/RATE/200 Hz/; s/LENGTH/20 ms/'
    S=$WORK/short; O=$WORK/never
    n=0
    while IFS='|' read -r args text; do
        n=$((n + 1))
        # shellcheck disable=SC2086
        expect 2 "arg$n" $S --out "$O" $args
        has "arg$n" "$S: error: $text"
    done <<EOF
--frobnicate|unknown option '--frobnicate' (try --help)
extra|unexpected argument 'extra' (try --help)
--seed banana|invalid seed 'banana' for '--seed' (expected a decimal integer from 0 to 18446744073709551615)
--seed -1|invalid seed '-1' for '--seed' (expected a decimal integer from 0 to 18446744073709551615)
--seed 18446744073709551616|invalid seed '18446744073709551616' for '--seed' (expected a decimal integer from 0 to 18446744073709551615)
--seed|option '--seed' needs a value (try --help)
--check-finite=0|invalid interval '0' for '--check-finite' (expected a number of steps, at least 1, or 'off')
--check-finite=x|invalid interval 'x' for '--check-finite' (expected a number of steps, at least 1, or 'off')
--check-finite=|invalid interval '' for '--check-finite' (expected a number of steps, at least 1, or 'off')
--check-finite=Off|invalid interval 'Off' for '--check-finite' (expected a number of steps, at least 1, or 'off')
-q -x|unknown option '-x' (try --help)
EOF
    expect 2 out_missing "$S" --out
    has out_missing "$S: error: option '--out' needs a value (try --help)"
    expect 2 out_empty "$S" --out=
    has out_empty "$S: error: option '--out' needs a non-empty folder name"
    if [ "$BACKEND" = c ]; then
        expect 2 device_c "$S" --out "$O" --device 1
        has device_c "$S: error: option '--device': the C back end has no devices (--device and --list-devices are options of CUDA and OpenCL simulators)"
    else
        expect 2 device_bad "$S" --out "$O" --device x
        has device_bad "$S: error: invalid device 'x' for '--device' (expected an index from --list-devices)"
        expect 1 device_none "$S" --out "$WORK/device_none" --device 99 # parsed; no such device
        grepe device_none "^$S: error: .*99"
        expect 2 mode_bad env NEUROC_GPU_MODE=fastest "$S" --out "$WORK/mode_bad" # read once the device is open
        has mode_bad "$S: error: NEUROC_GPU_MODE='fastest' is not a schedule (block, launch, graph, persistent, free, cluster)"
        if [ "$BACKEND" = cuda ]; then
            # over 20,000 neurons: a CUDA program without nc_k_block (simt.c, block_fits)
            build wide busy 's/RATE/200 Hz/; s/LENGTH/20 ms/; s/\[200\]/[30000]/'
            expect 2 mode_noblock env NEUROC_GPU_MODE=block "$WORK/wide" --out "$WORK/mode_noblock"
            has mode_noblock "$WORK/wide: error: this simulator has no block schedule (a network of over 20,000 neurons or 4e6 synapses, or with procedural projections; build it with --gpu-mode block to have one)"
        fi
        expect 2 mode_nofree env NEUROC_GPU_MODE=free "$S" --out "$WORK/mode_nofree"
        has mode_nofree "$S: error: the free schedule takes a model without projections or top-k, in one process"
    fi
    [ ! -e "$O" ] && ok "no output folder after a bad command line" || bad "$O was created"
    expect 0 help "$S" --help
    grep -q -- "--check-finite\[=K|off\]" "$WORK/help.out" && ok "--help lists --check-finite" || bad "--help lacks --check-finite"
    ;;
memory)
    build short busy 's/RATE/200 Hz/; s/LENGTH/20 ms/'
    if [ "$BACKEND" = c ] && [ -n "${NEUROC_SANITIZED:-}" ]; then
        echo "host memory (ulimit -v): skipped: sanitizer build (ASan reserves terabytes of address space)"
    elif [ "$BACKEND" = c ]; then
        build big busy 's/RATE/200 Hz/; s/LENGTH/20 ms/; s/fixed_prob(0.05)/all_to_all/; s/\[200\]/[20000]/'
        (ulimit -v 200000; exec "$WORK/big" --out "$WORK/hostmem" --quiet) 2>"$WORK/hostmem.err"; rc=$?
        [ $rc = 1 ] && ok "host memory: exit 1" || bad "host memory: exit $rc"
        grepe hostmem "^$WORK/big: error: out of memory allocating .* \([0-9]+ bytes\)"
        grep -q '"error": "out of memory allocating' "$WORK/hostmem/manifest.json" && ok "hostmem: manifest names it" || bad "hostmem manifest"
    else
        # a plan beyond the device's real memory: stops before allocating anything
        build huge busy 's/RATE/200 Hz/; s/LENGTH/20 ms/; s/fixed_prob(0.05)/all_to_all/; s/\[200\]/[200000]/; s/\[2000\]/[200000]/'
        expect 1 huge "$WORK/huge" --out "$WORK/huge_out" --quiet
        grepe huge "^$WORK/huge: error: the model needs about .* of device memory, more than 90% of the device's .* \(largest: projection drive; see --dry-run\); a static projection with 'storage = procedural' keeps no synapses$"
        plan=$("$WORK/short" --dry-run | sed -n 's/^  total  *\([0-9]*\) bytes.*/\1/p')
        [ -n "$plan" ] && ok "memory plan: $plan bytes" || bad "no total in --dry-run"
        expect 0 dry env NEUROC_FAULT_DEVICE_MEM=$((plan * 2)) "$WORK/short" --dry-run
        grep -q "device memory: " "$WORK/dry.out" && ok "--dry-run shows the device memory" || bad "dry: $(cat "$WORK/dry.out")"
        expect 1 plan env NEUROC_FAULT_DEVICE_MEM=$((plan)) "$WORK/short" --out "$WORK/plan" --quiet
        grepe plan "^$WORK/short: error: the model needs about .* of device memory, more than 90% of the device's .* \(largest: projection drive; see --dry-run\)"
        # room for the plan (synapses, states) but not for the recording buffers
        expect 1 devmem env NEUROC_FAULT_DEVICE_MEM=$((plan * 2)) "$WORK/short" --out "$WORK/devmem" --quiet
        grepe devmem "^$WORK/short: error: out of device memory allocating [^(]+ \([0-9.]+ [KMG]?i?B asked, [0-9.]+ [KMG]?i?B of [0-9.]+ [KMG]?i?B free; \\\$NEUROC_FAULT_DEVICE_MEM\)$"
        [ "$(manifest "$WORK/devmem" completed_steps)" = 0 ] && ok "devmem: no step ran" || bad "devmem steps"
        grep -q '"error": "out of device memory allocating' "$WORK/devmem/manifest.json" && ok "devmem: manifest names it" || bad "devmem manifest"
        expect 2 devmem_bad env NEUROC_FAULT_DEVICE_MEM=1e9 "$WORK/short" --out "$WORK/devmem_bad"
        has devmem_bad "$WORK/short: error: \$NEUROC_FAULT_DEVICE_MEM='1e9' is not a number of bytes"
    fi
    ;;
buffers)
    build all always
    for mode in $SCHEDULES; do
        [ "$mode" = default ] && mode=
        expect 0 "all${mode:+_$mode}" env NEUROC_GPU_MODE=$mode "$WORK/all" --out "$WORK/out_all$mode" --quiet
        py always "$WORK/out_all$mode" 200 2500
    done
    ;;
*)
    echo "$tag: unknown group"; exit 1 ;;
esac
echo "$tag: $fails failed"
[ $fails = 0 ]
