#!/usr/bin/env bash
# The compile cache (codegen/cache.c): a second build of an unchanged model hits (neuroc -v
# says so) and gives the same executable, which runs; a changed parameter misses; a damaged
# entry is noticed, rebuilt and replaced; --no-cache and NEUROC_CACHE=off bypass it;
# parallel builds into one cache all succeed and leave no temporary files; the CUDA arch of
# the GPU is asked of nvidia-smi once per GPU.
#   test_cache.sh NEUROC MODEL WORK_DIR
set -u
NEUROC=$1; MODEL=$2; WORK=$3
fails=0
ok()  { echo "ok   $*"; }
# same A B: the executables are the same build. Under a sanitizer build ($NEUROC_SANITIZED)
# ASan's metadata names the temporary build folder, so two compiles differ in those bytes:
# the sizes must match (the folder names have one length).
same() {
    if [ -n "${NEUROC_SANITIZED:-}" ]; then
        [ "$(wc -c <"$1")" = "$(wc -c <"$2")" ]
    else
        cmp -s "$1" "$2"
    fi
}
bad() { fails=$((fails + 1)); echo "FAIL $*"; }
rm -rf "$WORK"; mkdir -p "$WORK"
export NEUROC_CACHE=$WORK/cache
sed 's/STEPS/50 ms/' "$MODEL" >"$WORK/m.neuro"
build() { # out [options] -> stderr in $WORK/err
    local out=$1; shift
    "$NEUROC" "$WORK/m.neuro" --backend c -v -o "$WORK/$out" "$@" 2>"$WORK/err" >/dev/null
}
entries() { find "$WORK/cache" -type f 2>/dev/null | wc -l; }

build a || bad "cold build: $(tail -3 "$WORK/err")"
grep -q "^neuroc: cache miss: $WORK/cache/[0-9a-f]\{32\}$" "$WORK/err" && ok "cold build misses" || bad "cold build misses"
grep -q '"cache": "miss"' "$WORK/a.build.json" && ok "a.build.json says miss" || bad "a.build.json: $(cat "$WORK/a.build.json")"
[ "$(entries)" = 1 ] && ok "one entry stored" || bad "entries after the cold build: $(entries)"
entry=$(find "$WORK/cache" -type f)

build b || bad "second build"
grep -q "^neuroc: cache hit: $entry$" "$WORK/err" && ok "second build hits" || bad "second build hits: $(cat "$WORK/err")"
grep -q "^cc \|-std=c11" "$WORK/err" && bad "a hit ran the C compiler" || ok "a hit runs no compiler"
cmp -s "$WORK/a" "$WORK/b" && ok "identical executable" || bad "hit differs from the cold build"
[ -x "$WORK/b" ] && "$WORK/b" --quiet --out "$WORK/out_b" && [ -s "$WORK/out_b/manifest.json" ] \
    && ok "the cached executable runs" || bad "the cached executable runs"

sed -i 's/rate = 50 Hz/rate = 60 Hz/' "$WORK/m.neuro"
build c || bad "changed build"
grep -q "cache miss" "$WORK/err" && ok "a changed parameter misses" || bad "a changed parameter misses"
[ "$(entries)" = 2 ] && ok "two entries" || bad "entries after the change: $(entries)"
sed -i 's/rate = 60 Hz/rate = 50 Hz/' "$WORK/m.neuro"

# damage the entry: one byte in the middle of the executable, then a truncated entry
size=$(stat -c %s "$entry")
printf '\x5a' | dd of="$entry" bs=1 seek=$((size / 2)) conv=notrunc status=none
build d || bad "build over a damaged entry"
grep -q "cache entry '$entry' is damaged; rebuilding it" "$WORK/err" && ok "damaged entry noticed" || bad "damaged entry noticed: $(cat "$WORK/err")"
same "$WORK/a" "$WORK/d" && ok "rebuilt executable identical to the cold one" || bad "rebuild differs"
build e && grep -q "cache hit" "$WORK/err" && same "$WORK/a" "$WORK/e" && ok "damaged entry replaced" || bad "damaged entry replaced"
truncate -s $((size - 100)) "$entry"
build f && grep -q "is damaged" "$WORK/err" && same "$WORK/a" "$WORK/f" && ok "truncated entry rebuilt" || bad "truncated entry rebuilt"

build g --no-cache && ! grep -q "neuroc: cache" "$WORK/err" && ok "--no-cache bypasses" || bad "--no-cache bypasses: $(cat "$WORK/err")"
grep -q '"cache": "off"' "$WORK/g.build.json" && ok "g.build.json says off" || bad "g.build.json"
NEUROC_CACHE=off build h && ! grep -q "neuroc: cache" "$WORK/err" && ok "NEUROC_CACHE=off bypasses" || bad "NEUROC_CACHE=off"

# parallel builds of a new model into one cache
sed -i 's/rate = 50 Hz/rate = 70 Hz/' "$WORK/m.neuro"
pids=""
for i in 1 2 3 4; do
    "$NEUROC" "$WORK/m.neuro" --backend c -o "$WORK/p$i" 2>"$WORK/perr$i" >/dev/null & pids="$pids $!"
done
prc=0
for p in $pids; do wait "$p" || prc=1; done
[ $prc = 0 ] && ok "parallel builds succeed" || bad "parallel builds: $(cat "$WORK"/perr*)"
same "$WORK/p1" "$WORK/p2" && same "$WORK/p1" "$WORK/p3" && same "$WORK/p1" "$WORK/p4" \
    && ok "parallel builds identical" || bad "parallel builds identical"
[ "$(entries)" = 3 ] && ok "one entry for the parallel model" || bad "entries: $(find "$WORK/cache" -type f)"
find "$WORK/cache" "$WORK" -maxdepth 1 -name "*tmp-*" | grep -q . && bad "temporary files left" || ok "no temporary files left"
build q && grep -q "cache hit" "$WORK/err" && ok "parallel entry is whole" || bad "parallel entry is whole"

# the CUDA arch of the machine's GPU (nvidia-smi, when no --gpu-arch) is kept in the cache
# under the GPU's identity (/proc/driver/nvidia/gpus/*/information): asked once per GPU, not
# on later builds, again for another GPU and with --no-cache. A fake nvidia-smi counts its
# calls, a fake nvcc writes its command line (and fails: no device program is needed).
S=$WORK/smi
mkdir -p "$S/bin" "$S/proc/0000:01:00.0"
printf '#!/bin/sh\necho run >>"%s"\necho "$SMI_CC"\n' "$S/log" >"$S/bin/nvidia-smi"
printf '#!/bin/sh\n[ "$1" = --version ] || echo "$@" >"%s"\nexit 1\n' "$S/nvcc_args" >"$S/bin/nvcc"
chmod +x "$S/bin/nvidia-smi" "$S/bin/nvcc"
printf 'Model: \t\t NVIDIA A\nGPU UUID: \t GPU-1\n' >"$S/proc/0000:01:00.0/information"
arch_build() { # nvidia-smi's answer, [options] -> the -arch nvcc got
    local smi=$1; shift
    rm -f "$S/nvcc_args"
    SMI_CC=$smi NEUROC_NVIDIA_PROC=$S/proc NVCC=$S/bin/nvcc PATH="$S/bin:$PATH" \
        "$NEUROC" "$WORK/m.neuro" --backend cuda -o "$S/sim" "$@" >/dev/null 2>&1
    grep -o -- '-arch=sm_[0-9]*' "$S/nvcc_args" 2>/dev/null
}
asked() { wc -l <"$S/log" 2>/dev/null || echo 0; }
[ "$(arch_build 8.6)" = -arch=sm_86 ] && [ "$(asked)" = 1 ] && ok "the GPU's arch from nvidia-smi" \
    || bad "the GPU's arch from nvidia-smi: $(arch_build 8.6), asked $(asked)"
[ "$(arch_build 9.0)" = -arch=sm_86 ] && [ "$(asked)" = 1 ] && ok "the arch kept: nvidia-smi not asked again" \
    || bad "the arch kept: $(arch_build 9.0), asked $(asked)"
printf 'Model: \t\t NVIDIA B\nGPU UUID: \t GPU-2\n' >"$S/proc/0000:01:00.0/information"
[ "$(arch_build 9.0)" = -arch=sm_90 ] && [ "$(asked)" = 2 ] && ok "another GPU asks again" \
    || bad "another GPU asks again: $(arch_build 9.0), asked $(asked)"
[ "$(arch_build 9.0 --no-cache)" = -arch=sm_90 ] && [ "$(asked)" = 3 ] && ok "--no-cache asks nvidia-smi" \
    || bad "--no-cache asks nvidia-smi: asked $(asked)"

echo "$fails failed"
[ $fails = 0 ]
