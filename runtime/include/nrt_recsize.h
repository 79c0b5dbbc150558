/* nrt_recsize.h -- the bytes a recording's file will hold at the end of a run, for
 * `neuroc --explain` and the simulator's --dry-run and free-space check (docs/cli.md §3.9).
 * Header-only, so that the compiler and the runtime compute the same numbers.
 *
 * .npy state and rate files are exact (the header of rt_record.c, a multiple of 64 bytes,
 * plus rows x row bytes); .csv ones are at most (values printed with %.9g take up to 16
 * characters); spike files depend on the activity and are estimated at NRT_ASSUMED_HZ.
 */
#ifndef NRT_RECSIZE_H
#define NRT_RECSIZE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#define NRT_ASSUMED_HZ 10.0       /* the rate a spike recording's size is estimated at */

enum { NRT_SIZE_EXACT, NRT_SIZE_AT_MOST, NRT_SIZE_ESTIMATE };

typedef struct nrt_rec_size {
    double rows, bytes;
    int how;                      /* NRT_SIZE_EXACT, _AT_MOST or _ESTIMATE */
} nrt_rec_size;

static inline int nrt_digits(int64_t x)
{
    int d = 1;
    while (x >= 10) {
        x /= 10;
        d++;
    }
    return d;
}

/* The fixed-length .npy header of rt_record.c for a descr of descr_len characters: the dict
 * "{'descr': D, 'fortran_order': False, 'shape': (N,), }" with room for a 20-digit N. */
static inline double nrt_npy_header_bytes(double descr_len)
{
    const double dl = 71 + descr_len;
    const double v1 = ceil((10 + dl + 1) / 64) * 64;
    return v1 - 10 <= 65535 ? v1 : ceil((12 + dl + 1) / 64) * 64;
}

/* The most characters a .csv time takes for steps up to `total` (rt_record.c prints times
 * with the decimals of dt, or %.17g where dt has no short decimal form). */
static inline double nrt_csv_time_chars(int64_t total, double dt)
{
    double scale = 1;
    for (int d = 0; d <= 9; d++, scale *= 10) {
        const double x = dt * scale;
        if (fabs(x - nearbyint(x)) <= 1e-9 * x)
            return nrt_digits((int64_t)((double)total * dt)) + (d ? 1 + d : 0);
    }
    return 24;
}

/* The size of a recording's file after steps [first, total) of dt ms. kind 's': spikes of
 * nidx neurons; 'v': nvars variables (their names together names_len characters) of nidx
 * neurons or synapses (`estimated`: nidx is an estimate) every `every` steps; 'r': a rate
 * with a bin of `every` steps. csv: the .csv layout, else .npy. A window (`from A to B`)
 * keeps the steps [lo, hi) (hi 0: no window); t0: a state recording starts with the row at
 * t = 0, written by a run from step 0 whose window starts at 0. */
static inline nrt_rec_size nrt_rec_size_of(char kind, int csv, int nvars, double names_len, int64_t nidx,
                                           int64_t every, int64_t first, int64_t total, double dt,
                                           int estimated, int64_t lo, int64_t hi, int t0)
{
    nrt_rec_size s = {0, 0, NRT_SIZE_EXACT};
    const double tw = nrt_csv_time_chars(total, dt);
    const int64_t a = first > lo ? first : lo;
    int64_t b = hi > 0 && hi < total ? hi : total;
    if (b < a)
        b = a;
    if (kind == 's') {
        s.how = NRT_SIZE_ESTIMATE;
        s.rows = floor((double)nidx * NRT_ASSUMED_HZ * (double)(b - a) * dt / 1000.0);
        s.bytes = csv ? 7 + s.rows * (tw + 2 + nrt_digits(nidx > 1 ? nidx - 1 : 0))
                      : nrt_npy_header_bytes(28) + 12 * s.rows;
        return s;
    }
    s.rows = (double)(b / every - a / every);
    if (kind == 'r') {
        s.how = csv ? NRT_SIZE_AT_MOST : NRT_SIZE_EXACT;
        s.bytes = csv ? 13 + s.rows * (tw + 18) : nrt_npy_header_bytes(31) + 16 * s.rows;
        return s;
    }
    if (t0 && first == 0 && lo == 0)
        s.rows += 1;
    const double vals = (double)nvars * (double)nidx;
    if (csv) {
        s.how = NRT_SIZE_AT_MOST;
        s.bytes = 5 + (double)nidx * (names_len + nvars * (3.0 + 20)) + s.rows * (tw + 17 * vals + 1);
    } else {
        s.bytes = nrt_npy_header_bytes(14 + names_len + nvars * (18.0 + nrt_digits(nidx))) +
                  s.rows * 8 * (1 + vals);
    }
    if (estimated)
        s.how = NRT_SIZE_ESTIMATE;
    return s;
}

#endif
