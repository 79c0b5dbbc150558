/* rt_recsyn.c -- synapse tables written as record .npy files: a subset of a projection's
 * synapses for a state recording (`record w of PROJ[pre a:b, post c:d]`, `[sample k]`): which
 * synapses (nrt_syn_select) and the file of their (pre, post) indices beside the recording
 * (nrt_syn_pairs_write, for nrt_rec_synapses in rt_record.c); and a whole projection as built
 * (nrt_conn_save, --save-connectivity). A file that cannot be written whole is removed again.
 */
#define _POSIX_C_SOURCE 200809L

#include "rt_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

/* path opened for writing, with the header of an .npy (version 1.0, padded to 64 bytes) of
 * `rows` records of the structured type `descr`; *ok is 0 when a write failed. NULL, with
 * errmsg, when it cannot be opened. */
static FILE *npy_begin(nrt_ctx *ctx, const char *path, const char *descr, int64_t rows, int *ok)
{
    char hdr[160];
    FILE *f = fopen(path, "wb");
    size_t hl, total;
    if (!f) {
        nrt_seterr(ctx, "cannot write '%s': %s", path, strerror(errno));
        return NULL;
    }
    hl = (size_t)snprintf(hdr, sizeof hdr, "{'descr': %s, 'fortran_order': False, 'shape': (%lld,), }",
                          descr, (long long)rows);
    total = (10 + hl + 1 + 63) / 64 * 64;
    *ok = fwrite("\x93NUMPY\x01\x00", 1, 8, f) == 8 && fputc((int)((total - 10) & 0xFF), f) != EOF &&
          fputc((int)((total - 10) >> 8), f) != EOF && fwrite(hdr, 1, hl, f) == hl;
    for (; *ok && hl < total - 11; hl++)
        *ok = fputc(' ', f) != EOF;
    *ok = *ok && fputc('\n', f) != EOF;
    return f;
}

/* Closes f; when a write failed (ok == 0) or the close does, errmsg and the file removed: no
 * .npy whose header lies about its rows. */
static nrt_status npy_end(nrt_ctx *ctx, FILE *f, const char *path, int ok)
{
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

/* Contract: see rt_internal.h. */
nrt_status nrt_syn_pairs_write(nrt_ctx *ctx, const char *path, const nrt_csr *c, const int64_t *sel,
                               int64_t n)
{
    int64_t k, lo, hi;
    int ok, b;
    FILE *f = npy_begin(ctx, path, "[('pre', '<i4'), ('post', '<i4')]", n, &ok);
    if (!f)
        return NRT_EIO;
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
    return npy_end(ctx, f, path, ok);
}

/* A round of nrt_conn_save: the synapses [s0, s0 + n) as 20-byte records at buf, on the pool
 * (C simulators and GPU programs' hosts: --threads), part t of T the synapses
 * [s0 + n t / T, s0 + n (t + 1) / T) at their fixed places: the bytes of one thread. */
typedef struct save_job {
    const nrt_csr *c;
    const void *w;
    int wsize;
    const int32_t *delay;
    int64_t s0, n;
    unsigned char *buf;
} save_job;

enum { SAVE_ROUND = 1 << 18, SAVE_REC = 20 };   /* synapses a round (5 MiB), bytes a record */

static void save_part(void *arg, int t, int T)
{
    const save_job *jb = arg;
    const nrt_csr *c = jb->c;
    const int64_t a = jb->s0 + jb->n * t / T, e = jb->s0 + jb->n * (t + 1) / T;
    int64_t lo = 0, hi = c->n_pre;   /* the row i with row_ptr[i] <= a < row_ptr[i + 1] */
    if (a >= e)
        return;
    while (hi - lo > 1) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (c->row_ptr[mid] <= a)
            lo = mid;
        else
            hi = mid;
    }
    for (int64_t s = a, i = lo; s < e; s++) {
        unsigned char *rec = jb->buf + SAVE_REC * (s - jb->s0);
        while (c->row_ptr[i + 1] <= s)   /* past the row's end, and empty rows */
            i++;
        const int32_t pre = (int32_t)i, post = c->col[s], d = jb->delay ? jb->delay[s] : 1;
        const double wv = jb->wsize == 4 ? (double)((const float *)jb->w)[s] : ((const double *)jb->w)[s];
        uint64_t u;
        int b;
        memcpy(&u, &wv, sizeof u);
        for (b = 0; b < 4; b++) {
            rec[b] = (unsigned char)((uint32_t)pre >> (8 * b));
            rec[4 + b] = (unsigned char)((uint32_t)post >> (8 * b));
            rec[16 + b] = (unsigned char)((uint32_t)d >> (8 * b));
        }
        for (b = 0; b < 8; b++)
            rec[8 + b] = (unsigned char)(u >> (8 * b));
    }
}

/* Contract: neurort.h. The records are made in rounds of SAVE_ROUND synapses on the pool
 * (one record at a time where the round's buffer cannot be had) and written in order. */
nrt_status nrt_conn_save(nrt_ctx *ctx, const char *name, const nrt_csr *c, const void *w,
                         int wsize, const int32_t *delay)
{
    char path[4600];
    unsigned char one[SAVE_REC];
    int ok;
    FILE *f;
    snprintf(path, sizeof path, "%s/connectivity_%s.npy", ctx->out_dir, name);
    f = npy_begin(ctx, path, "[('pre', '<i4'), ('post', '<i4'), ('w', '<f8'), ('delay', '<i4')]", c->nnz, &ok);
    if (!f)
        return NRT_EIO;
    const int64_t round = c->nnz < SAVE_ROUND ? c->nnz : SAVE_ROUND;
    save_job jb = {c, w, wsize, delay, 0, 0, round > 1 ? malloc((size_t)round * SAVE_REC) : NULL};
    const int64_t step = jb.buf ? round : 1;
    if (!jb.buf)
        jb.buf = one;
    for (; ok && jb.s0 < c->nnz; jb.s0 += step) {
        jb.n = c->nnz - jb.s0 < step ? c->nnz - jb.s0 : step;
        nrt_pool_run(save_part, &jb, (double)jb.n);
        ok = fwrite(jb.buf, SAVE_REC, (size_t)jb.n, f) == (size_t)jb.n;
    }
    if (jb.buf != one)
        free(jb.buf);
    if (npy_end(ctx, f, path, ok) != NRT_OK)
        return NRT_EIO;
    if (nrt_grow((void **)&ctx->conn_saved, &ctx->cap_conn_saved, ctx->nconn_saved,
                  sizeof *ctx->conn_saved) != 0) {   /* listed in manifest.json */
        nrt_seterr(ctx, "out of memory listing the connectivity file %s", path);
        return NRT_ENOMEM;
    }
    ctx->conn_saved[ctx->nconn_saved].name = name;
    ctx->conn_saved[ctx->nconn_saved].synapses = c->nnz;
    ctx->nconn_saved++;
    return NRT_OK;
}
