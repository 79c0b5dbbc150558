/* test_topk.c -- nrt_topk_select and the order-preserving keys against a full sort:
 * random and adversarial inputs (all values equal, sorted, reversed, many ties in value and
 * draw), every k from 0 to n for small n; keys of float and double agree with < on values,
 * -0 = +0, infinities at the ends.
 */
#include "neurort.h"
#include "tcheck.h"

#include <stdlib.h>
#include <string.h>

static int cmp_order(const void *pa, const void *pb)
{
    const nrt_topk_item *a = pa, *b = pb;
    if (a->v != b->v)
        return a->v > b->v ? -1 : 1;
    if (a->draw != b->draw)
        return a->draw > b->draw ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* it[0..k) after selection is, as a set, the first k of the sorted order */
static void check_select(nrt_topk_item *it, int64_t n, int64_t k, const char *what)
{
    nrt_topk_item *ref = malloc((size_t)(n ? n : 1) * sizeof *ref);
    unsigned char *in = calloc((size_t)(n ? n : 1), 1);
    memcpy(ref, it, (size_t)n * sizeof *ref);
    qsort(ref, (size_t)n, sizeof *ref, cmp_order);
    nrt_topk_select(it, n, k);
    int64_t kk = k < n ? k : n;
    for (int64_t q = 0; q < kk; q++)
        in[it[q].idx] = 1;
    int ok = 1;
    for (int64_t q = 0; q < kk; q++)
        ok &= in[ref[q].idx];
    CHECKF(ok, "%s: n %lld k %lld: the selected set is not the first k", what, (long long)n, (long long)k);
    free(ref);
    free(in);
}

static void fill(nrt_topk_item *it, int64_t n, int kind, uint32_t *s)
{
    for (int64_t q = 0; q < n; q++) {
        it[q].idx = (uint32_t)q;
        switch (kind) {
        case 0: it[q].v = lcg(s); it[q].draw = lcg(s); break;           /* random */
        case 1: it[q].v = 7; it[q].draw = 7; break;                      /* all equal: index decides */
        case 2: it[q].v = (uint64_t)q; it[q].draw = 0; break;            /* sorted ascending */
        case 3: it[q].v = (uint64_t)(n - q); it[q].draw = 0; break;      /* descending */
        default: it[q].v = lcg(s) % 3; it[q].draw = lcg(s) % 4; break;   /* ties in value and draw */
        }
    }
}

int main(void)
{
    uint32_t s = 12345;
    nrt_topk_item it[200];
    for (int kind = 0; kind < 5; kind++)
        for (int64_t n = 0; n <= 40; n += 7)
            for (int64_t k = 0; k <= n + 1; k++) {
                fill(it, n, kind, &s);
                check_select(it, n, k, "small");
            }
    int64_t big = 100000;
    nrt_topk_item *b = malloc((size_t)big * sizeof *b);
    for (int kind = 0; kind < 5; kind++) {
        fill(b, big, kind, &s);
        check_select(b, big, 317, "large");
        fill(b, big, kind, &s);
        check_select(b, big, big / 2, "large");
    }
    free(b);

    const float vf[] = {-INFINITY, -3.5f, -1e-30f, -0.0f, 0.0f, 1e-45f, 2.0f, 3e38f, INFINITY};
    for (size_t i = 0; i + 1 < sizeof vf / sizeof vf[0]; i++) {
        uint64_t a = nrt_topk_key_f(vf[i]), c = nrt_topk_key_f(vf[i + 1]);
        CHECKF(vf[i] < vf[i + 1] ? a < c : a == c, "float keys of %g and %g", vf[i], vf[i + 1]);
    }
    const double vd[] = {-INFINITY, -1e300, -2.5, -0.0, 0.0, 5e-324, 1.0, 1.0000000000000002, INFINITY};
    for (size_t i = 0; i + 1 < sizeof vd / sizeof vd[0]; i++) {
        uint64_t a = nrt_topk_key_d(vd[i]), c = nrt_topk_key_d(vd[i + 1]);
        CHECKF(vd[i] < vd[i + 1] ? a < c : a == c, "double keys of %g and %g", vd[i], vd[i + 1]);
    }
    return tcheck_done("test_topk");
}
