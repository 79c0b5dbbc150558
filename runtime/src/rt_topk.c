/* rt_topk.c -- k-winners-take-all selection for the C back end (docs/language.md, "Top-k").
 *
 * The generated program gathers the candidates of a population (eligible, key not NaN)
 * into nrt_topk_item records and asks for the k first in the total order
 *   value descending, tie draw descending, neuron index ascending,
 * which is strict (indices are distinct), so the winners are unique. The GPU back ends
 * select the same set by a radix select over the same three fields.
 */
#include <string.h>

#include "neurort.h"

uint64_t nrt_topk_key_f(float x)
{
    uint32_t u;
    if (x == 0)
        x = 0; /* -0 and +0 are one value */
    memcpy(&u, &x, sizeof u);
    return (uint64_t)(u & 0x80000000u ? ~u : u | 0x80000000u);
}

uint64_t nrt_topk_key_d(double x)
{
    uint64_t u;
    if (x == 0)
        x = 0;
    memcpy(&u, &x, sizeof u);
    return u & 0x8000000000000000ull ? ~u : u | 0x8000000000000000ull;
}

/* 1 when a comes before b in the order of the winners. */
static int before(const nrt_topk_item *a, const nrt_topk_item *b)
{
    if (a->v != b->v)
        return a->v > b->v;
    if (a->draw != b->draw)
        return a->draw > b->draw;
    return a->idx < b->idx;
}

static void swap(nrt_topk_item *a, nrt_topk_item *b)
{
    nrt_topk_item t = *a;
    *a = *b;
    *b = t;
}

void nrt_topk_select(nrt_topk_item *it, int64_t n, int64_t k)
{
    if (k <= 0 || k >= n)
        return;
    /* quickselect for position k: everything in it[0..lo) comes before everything in
     * it[lo..n), everything in it(hi..n) after everything in it[0..hi] */
    int64_t lo = 0, hi = n - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (before(&it[mid], &it[lo]))
            swap(&it[mid], &it[lo]);
        if (before(&it[hi], &it[lo]))
            swap(&it[hi], &it[lo]);
        if (before(&it[mid], &it[hi]))
            swap(&it[mid], &it[hi]);
        nrt_topk_item pv = it[hi]; /* the median of the three */
        int64_t store = lo;
        for (int64_t q = lo; q < hi; q++)
            if (before(&it[q], &pv))
                swap(&it[q], &it[store++]);
        swap(&it[store], &it[hi]);
        if (store == k)
            return;
        if (store < k)
            lo = store + 1;
        else
            hi = store - 1;
    }
}

/* Contract: neurort.h. */
int64_t nrt_topk_join(nrt_topk_item *it, int64_t len, const int64_t *tc, int T)
{
    int64_t c = tc[0];
    for (int t = 1; t < T; t++) {
        const int64_t at = len * t / T;
        if (c != at && tc[t])
            memmove(it + c, it + at, (size_t)tc[t] * sizeof *it);
        c += tc[t];
    }
    return c;
}
