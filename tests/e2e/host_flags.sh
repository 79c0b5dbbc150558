#!/bin/sh
# host_flags.sh NEUROC WORKDIR -- the C back end's host flags (codegen/cg_build.c,
# cg_host_cflags) change speed, never a value.
#   1. neuroc's C compiler command line has -ffp-contract=off, and -mfma on an x86 with FMA.
#   2. HH (exp, exprel, pow(n, 4)), TraubMiles and AdEx, in double and in float, built with
#      the default flags and with --cflags -mno-avx (no AVX, FMA, AVX2 or AVX-512: fma() is a
#      libm call, the loops use SSE2) record the same state, byte for byte, every step.
#   3. Where there is an OpenCL device (PoCL here), the OpenCL program records the same bytes.
# Exit: 0 pass; 3 compile failed; 4 run failed; 1 flags or outputs differ.
set -u
if [ $# -ne 2 ]; then
    echo "usage: $0 NEUROC WORKDIR" >&2
    exit 2
fi
NEUROC=$1; WORK=$2
tag="host_flags"
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
for prec in double float; do
    cat >"$WORK/m_$prec.neuro" <<MODEL
import "stdlib/neurons.neuro"
sim { dt = 0.01 ms; precision = $prec }
population hh = HH[64]
population tm = TraubMiles[64]
population ad = AdEx[64]
stimulus dc -> hh.I_ext = 40 [uA/cm^2] * i / 64
stimulus dc2 -> tm.I_syn = 1 nA * i / 64
stimulus dc3 -> ad.I_syn = 1 nA * i / 64
record V, m, h, n of hh every 0.01 ms to "hh.npy"
record V, m, h, n of tm every 0.01 ms to "tm.npy"
record V, w of ad every 0.01 ms to "ad.npy"
record spikes of hh to "hh_spikes.npy"
run 20 ms
MODEL
done
# 1. the command line
"$NEUROC" "$WORK/m_double.neuro" --backend c --no-cache -v -o "$WORK/sim_v" >"$WORK/v.txt" 2>&1 || {
    cat "$WORK/v.txt" >&2; echo "$tag: FAILED: neuroc" >&2; exit 3; }
if ! grep -q -- ' -ffp-contract=off ' "$WORK/v.txt"; then
    echo "$tag: FAILED: the C compiler runs without -ffp-contract=off" >&2
    exit 1
fi
case "$(uname -m)" in
x86_64|i?86)
    if grep -qw fma /proc/cpuinfo 2>/dev/null && ! grep -q -- ' -mfma' "$WORK/v.txt"; then
        echo "$tag: FAILED: this CPU has FMA but the C compiler runs without -mfma" >&2
        exit 1
    fi ;;
esac
# 2. the same bits with and without the host's instructions (a sanitizer build keeps its own
# flags before --cflags)
for prec in double float; do
    for v in host plain; do
        if [ $v = host ]; then set --; else set -- --cflags -mno-avx; fi
        "$NEUROC" "$WORK/m_$prec.neuro" --backend c -o "$WORK/sim_${prec}_$v" "$@" ||
            { echo "$tag: FAILED: neuroc ($prec, $v)" >&2; exit 3; }
        "$WORK/sim_${prec}_$v" --quiet --out "$WORK/out_${prec}_$v" ||
            { echo "$tag: FAILED: run ($prec, $v)" >&2; exit 4; }
    done
    for f in hh.npy tm.npy ad.npy hh_spikes.npy; do
        cmp "$WORK/out_${prec}_host/$f" "$WORK/out_${prec}_plain/$f" ||
            { echo "$tag: FAILED: $f ($prec) differs with the host's flags" >&2; exit 1; }
    done
    if [ "$(wc -c <"$WORK/out_${prec}_host/hh_spikes.npy")" -le 200 ]; then
        echo "$tag: FAILED: HH ($prec) did not spike" >&2
        exit 1
    fi
done
# 3. OpenCL
for prec in double float; do
    "$NEUROC" "$WORK/m_$prec.neuro" --backend opencl -o "$WORK/sim_${prec}_cl" ||
        { echo "$tag: FAILED: neuroc --backend opencl ($prec)" >&2; exit 3; }
    if ! "$WORK/sim_${prec}_cl" --list-devices >"$WORK/devices.txt" 2>&1 || [ ! -s "$WORK/devices.txt" ]; then
        echo "$tag: ok (C only: no OpenCL device)"
        exit 0
    fi
    "$WORK/sim_${prec}_cl" --quiet --out "$WORK/out_${prec}_cl" ||
        { echo "$tag: FAILED: the OpenCL run ($prec)" >&2; exit 4; }
    for f in hh.npy tm.npy ad.npy hh_spikes.npy; do
        cmp "$WORK/out_${prec}_host/$f" "$WORK/out_${prec}_cl/$f" ||
            { echo "$tag: FAILED: $f ($prec) differs between C and OpenCL" >&2; exit 1; }
    done
done
echo "$tag: ok"
