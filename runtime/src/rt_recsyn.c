/* rt_recsyn.c -- a subset of a projection's synapses for a state recording
 * (`record w of PROJ[pre a:b, post c:d]`, `[sample k]`): which synapses (nrt_syn_select) and
 * the file of their (pre, post) indices beside the recording (nrt_syn_pairs_write, for
 * nrt_rec_synapses in rt_record.c).
 */
#define _POSIX_C_SOURCE 200809L

#include "rt_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Contract: see neurort.h. */
int64_t *nrt_syn_select(nrt_ctx *ctx, const char *file, const nrt_csr *c, const int64_t *pre_post,
                        int64_t nsample, int64_t *n)
{
    int64_t i, s, m = 0, cap;
    int64_t *sel;
    *n = 0;
    if (nsample > 0)
        cap = nsample < c->nnz ? nsample : c->nnz;
    else {
        const int64_t lo = pre_post[0] < c->n_pre ? pre_post[0] : c->n_pre;
        const int64_t hi = pre_post[1] < c->n_pre ? pre_post[1] : c->n_pre;
        cap = hi > lo ? c->row_ptr[hi] - c->row_ptr[lo] : 0;
    }
    sel = nrt_alloc(ctx, (size_t)(cap > 0 ? cap : 1) * sizeof *sel, "a recording's synapses");
    if (!sel)
        return NULL;
    if (nsample > 0) {   /* evenly spaced in the connectivity order: m * nnz / k */
        for (; m < cap; m++)
            sel[m] = m * c->nnz / cap;
    } else {
        for (i = pre_post[0]; i < pre_post[1] && i < c->n_pre; i++)
            for (s = c->row_ptr[i]; s < c->row_ptr[i + 1]; s++)
                if (c->col[s] >= pre_post[2] && c->col[s] < pre_post[3])
                    sel[m++] = s;
    }
    if (m == 0 || m > INT32_MAX) {
        nrt_seterr(ctx, "recording '%s': %s", file, m ? "too many synapses to record"
                   : "the subset holds no synapse of the projection");
        nrt_free(sel);
        return NULL;
    }
    *n = m;
    return sel;
}

/* Contract: see rt_internal.h. */
nrt_status nrt_syn_pairs_write(nrt_ctx *ctx, const char *path, const nrt_csr *c, const int64_t *sel,
                               int64_t n)
{
    char hdr[128];
    FILE *f = fopen(path, "wb");
    size_t hl, total;
    int64_t k, lo, hi;
    int ok, b;
    if (!f) {
        nrt_seterr(ctx, "cannot write '%s': %s", path, strerror(errno));
        return NRT_EIO;
    }
    hl = (size_t)snprintf(hdr, sizeof hdr, "{'descr': [('pre', '<i4'), ('post', '<i4')], "
                          "'fortran_order': False, 'shape': (%lld,), }", (long long)n);
    total = (10 + hl + 1 + 63) / 64 * 64;
    ok = fwrite("\x93NUMPY\x01\x00", 1, 8, f) == 8 && fputc((int)((total - 10) & 0xFF), f) != EOF &&
         fputc((int)((total - 10) >> 8), f) != EOF && fwrite(hdr, 1, hl, f) == hl;
    for (; ok && hl < total - 11; hl++)
        ok = fputc(' ', f) != EOF;
    ok = ok && fputc('\n', f) != EOF;
    for (k = 0; ok && k < n; k++) {
        unsigned char row[8];
        int32_t pre, post;
        lo = 0;
        hi = c->n_pre;   /* the row i with row_ptr[i] <= sel[k] < row_ptr[i + 1] */
        while (hi - lo > 1) {
            const int64_t mid = lo + (hi - lo) / 2;
            if (c->row_ptr[mid] <= sel[k])
                lo = mid;
            else
                hi = mid;
        }
        while (lo + 1 < c->n_pre && c->row_ptr[lo + 1] <= sel[k])   /* past empty rows */
            lo++;
        pre = (int32_t)lo;
        post = c->col[sel[k]];
        for (b = 0; b < 4; b++) {
            row[b] = (unsigned char)((uint32_t)pre >> (8 * b));
            row[4 + b] = (unsigned char)((uint32_t)post >> (8 * b));
        }
        ok = fwrite(row, 1, sizeof row, f) == sizeof row;
    }
    if (fclose(f) != 0)
        ok = 0;
    if (!ok) {
        struct stat sb;
        nrt_seterr(ctx, "cannot write '%s': %s", path, strerror(errno));
        if (lstat(path, &sb) == 0 && S_ISREG(sb.st_mode))
            remove(path);
        return NRT_EIO;
    }
    return NRT_OK;
}
