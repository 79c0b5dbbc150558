/* nrt_space.h -- lattice neighbourhoods for `within R`, shared by every back end.
 *
 * A projection's row function (generated, codegen/cg_build.c cg_conn_row) visits only the
 * post-grid cells that may lie within R of the presynaptic neuron: per axis, the coordinates
 * nrt_space_span returns, in ascending order. The span is a superset (one cell of margin on
 * each side); the exact test dist <= R is part of the rule's condition, computed by the
 * model's own arithmetic, so the spans' rounding never decides a synapse. Included by
 * generated C and CUDA and pasted into OpenCL programs, like nrt_philox.h.
 */
#ifndef NRT_SPACE_H
#define NRT_SPACE_H

#if defined(__OPENCL_VERSION__)
#define NRT_SPACE_FN static inline
#define NRT_I64 long
#elif defined(__CUDACC__)
#include <math.h>
#include <stdint.h>
#define NRT_SPACE_FN static inline __host__ __device__
#define NRT_I64 int64_t
#else
#include <math.h>
#include <stdint.h>
#define NRT_SPACE_FN static inline
#define NRT_I64 int64_t
#endif

/* Cells [a0, b0) then [a1, b1) of one axis, ascending and disjoint (either may be empty). */
typedef struct nrt_span {
    NRT_I64 a0, b0, a1, b1;
} nrt_span;

/* The cells c of an axis of n cells of spacing s (centres at (c + 0.5) s) whose centre may be
 * within r of coordinate x; periodic: the axis wraps around at n s. */
NRT_SPACE_FN nrt_span nrt_space_span(double x, double r, NRT_I64 n, double s, int periodic)
{
    nrt_span p;
    const double lo = floor((x - r) / s - 0.5) - 1.0, hi = floor((x + r) / s - 0.5) + 1.0;
    p.a0 = 0;
    p.b0 = 0;
    p.a1 = 0;
    p.b1 = 0;
    if (!(hi >= lo))
        return p;
    if (periodic) {
        NRT_I64 l, h, shift;
        if (hi - lo + 1.0 >= (double)n) {
            p.b0 = n;
            return p;
        }
        l = (NRT_I64)lo;
        h = (NRT_I64)hi;
        shift = l >= 0 ? -(l / n) * n : ((-l + n - 1) / n) * n;   /* l + shift in [0, n) */
        l += shift;
        h += shift;
        if (h < n) {
            p.a0 = l;
            p.b0 = h + 1;
        } else {
            p.b0 = h - n + 1;
            p.a1 = l;
            p.b1 = n;
        }
        return p;
    }
    p.a0 = lo < 0.0 ? 0 : lo >= (double)n ? n : (NRT_I64)lo;
    p.b0 = hi < 0.0 ? 0 : hi >= (double)n ? n : (NRT_I64)hi + 1;
    if (p.b0 < p.a0)
        p.b0 = p.a0;
    return p;
}

#endif
