/* nrt_philox.h -- the counter-based random number generator shared by every back end.
 *
 * Philox4x32-10 (Salmon, Moraes, Dror & Shaw, SC'11). This one header is included by the
 * runtime, by generated C, by generated CUDA (functions become __host__ __device__) and,
 * as text, by generated OpenCL C, so every back end draws the same numbers for the same seed.
 *
 * Keying convention (the contract every back end follows):
 *   key = { fold(seed), stream }           stream = NRT_STREAM_<KIND> << 24 | object id
 *   ctr = { element, sub, step, site }     element: neuron or presynaptic row index;
 *                                          sub: draw index within the element (synapse rank,
 *                                               skip count, redraw); step: time step (0 at load);
 *                                          site: the call site of a draw in the model's code.
 * One call yields four 32-bit words; a uniform uses one, a normal uses two.
 */
#ifndef NRT_PHILOX_H
#define NRT_PHILOX_H

#if defined(__OPENCL_VERSION__)
#define NRT_U32 uint
#define NRT_U64 ulong
#define NRT_RNG_FN static inline
#elif defined(__CUDACC__)
#include <stdint.h>
#define NRT_U32 uint32_t
#define NRT_U64 uint64_t
#define NRT_RNG_FN static inline __host__ __device__
#else
#include <stdint.h>
#define NRT_U32 uint32_t
#define NRT_U64 uint64_t
#define NRT_RNG_FN static inline
#endif

/* Stream kinds (bits 24..31 of key[1]); the low 24 bits name the population/projection. */
#define NRT_STREAM_NEURON_INIT   1u   /* per-neuron initialisers of a population */
#define NRT_STREAM_NEURON_STEP   2u   /* draws in dynamics / spike conditions / handlers */
#define NRT_STREAM_CONNECT       3u   /* connectivity generation of a projection */
#define NRT_STREAM_SYNAPSE_INIT  4u   /* per-synapse w, delay and state initialisers */
#define NRT_STREAM_RECEPTOR_INIT 5u   /* per-neuron receptor state initialisers */
#define NRT_STREAM_STIMULUS      6u   /* draws in stimulus expressions */
#define NRT_STREAM_TIEBREAK      7u   /* top-k tie breaking */
#define NRT_STREAM_SET           8u   /* draws in `set` between runs: the low 24 bits number the
                                         set statement; element = neuron (base index) or
                                         presynaptic row, sub = 0 or the synapse's rank in
                                         its row, step = the step of the phase boundary */


typedef struct nrt_u32x4 {
    NRT_U32 v[4];
} nrt_u32x4;

NRT_RNG_FN NRT_U32 nrt_mulhilo32(NRT_U32 a, NRT_U32 b, NRT_U32 *hi)
{
    NRT_U64 p = (NRT_U64)a * (NRT_U64)b;
    *hi = (NRT_U32)(p >> 32);
    return (NRT_U32)p;
}

/* Philox4x32 with 10 rounds: out = bijection_key(ctr). */
NRT_RNG_FN nrt_u32x4 nrt_philox4x32_10(nrt_u32x4 c, NRT_U32 k0, NRT_U32 k1)
{
    int r;
    for (r = 0; r < 10; r++) {
        NRT_U32 hi0, hi1;
        NRT_U32 lo0 = nrt_mulhilo32(0xD2511F53u, c.v[0], &hi0);
        NRT_U32 lo1 = nrt_mulhilo32(0xCD9E8D57u, c.v[2], &hi1);
        nrt_u32x4 n;
        n.v[0] = hi1 ^ c.v[1] ^ k0;
        n.v[1] = lo1;
        n.v[2] = hi0 ^ c.v[3] ^ k1;
        n.v[3] = lo0;
        c = n;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    return c;
}

/* Fold a 64-bit seed into key[0]. */
NRT_RNG_FN NRT_U32 nrt_seed_key(NRT_U64 seed)
{
    return (NRT_U32)(seed ^ (seed >> 32));
}

NRT_RNG_FN nrt_u32x4 nrt_rng(NRT_U32 seedkey, NRT_U32 stream, NRT_U32 element, NRT_U32 sub,
                             NRT_U32 step, NRT_U32 site)
{
    nrt_u32x4 c;
    c.v[0] = element;
    c.v[1] = sub;
    c.v[2] = step;
    c.v[3] = site;
    return nrt_philox4x32_10(c, seedkey, stream);
}

/* Uniform in (0, 1], 24 bits: exact in float and double, never 0 (safe for log). */
NRT_RNG_FN double nrt_u01(NRT_U32 x)
{
    return ((double)(x >> 8) + 1.0) * (1.0 / 16777216.0);
}

/* Uniform in (0, 1] with 53 bits from two words (used where 24 bits are too coarse,
 * for example geometric skips at small probabilities). */
NRT_RNG_FN double nrt_u01_53(NRT_U32 hi, NRT_U32 lo)
{
    NRT_U64 m = ((NRT_U64)(hi >> 5) << 26) | (NRT_U64)(lo >> 6);  /* 27 + 26 = 53 bits */
    return ((double)m + 1.0) * (1.0 / 9007199254740992.0);
}

/* Integer uniform in [0, n) from one word, by multiply-shift (bias < n / 2^32). */
NRT_RNG_FN NRT_U32 nrt_below(NRT_U32 x, NRT_U32 n)
{
    return (NRT_U32)(((NRT_U64)x * (NRT_U64)n) >> 32);
}

#endif
