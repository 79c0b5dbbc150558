/* rt_gpu_conn.c -- connectivity on the device: nrt_gpu_conn_build / nrt_gpu_dcsr_free.
 *
 * Builds a projection's synapses in device memory with the kernels of nrt_conn_dev.h (which
 * the loaded program must contain), following rt_conn.c's specification to the letter: the
 * result equals nrt_conn_build's CSR for the same spec, entry for entry. The spec is checked
 * by nrt_conn_check, shared with nrt_conn_build, so both reject the same specs with the same
 * messages. Where the synapse count is not known in advance (fixed_prob, fixed_indegree) the
 * per-row counts are read back and prefix-summed here, on the host: load time, and one
 * pass over n_pre numbers. Device memory is named after what it holds, so an allocation
 * failure says which array of the projection did not fit. nrt_gpu_col_index builds a
 * projection's column index from its CSR on the device, with no copy to the host.
 */
#include "nrt_gpu.h"
#include "nrt_philox.h"
#include "rt_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROW_GROUP 64      /* work-items per group for the one-row-or-post-each kernels */
#define FLAT_GROUP 256    /* for the one-synapse-each kernels and the row sort */
#define SET_BUDGET ((size_t)256 << 20) /* bytes of rejection sets (fixed_indegree) at most */

/* One build: the device, the spec and its derived numbers. */
typedef struct build {
    nrt_ctx *ctx;
    nrt_gpu *g;
    const nrt_conn_spec *s;
    int excl;                 /* autapses are dropped */
    int64_t d;                /* pre_offset - post_offset */
    uint32_t key0, stream;
    size_t max_groups;        /* launch size cap for the striding kernels */
    size_t max_group;         /* the device's largest group (0: unknown) */
} build;

static nrt_kernel *kernel(build *b, const char *name, int nargs)
{
    return nrt_gpu_kernel(b->g, name, nargs);
}

/* Launch k over n items (work-items, or groups when per_group), groups of `group`. */
static nrt_status launch(build *b, nrt_kernel *k, int64_t n, size_t group, int per_group)
{
    size_t groups;
    if (b->max_group > 0 && group > b->max_group)
        group = b->max_group;
    groups = per_group ? (size_t)n : (size_t)((n + (int64_t)group - 1) / (int64_t)group);
    if (groups > b->max_groups)
        groups = b->max_groups;
    if (groups == 0)
        groups = 1;
    return nrt_gpu_launch(k, groups, group, 0);
}

/* Device memory of n elements of `size` bytes (at least one element), zeroed. */
static nrt_status dalloc(build *b, nrt_dmem *m, int64_t n, size_t size, const char *what)
{
    return nrt_gpu_alloc(b->g, m, (size_t)(n > 0 ? n : 1) * size, what);
}

/* The arguments every rule kernel ends with: excl, d (and before them key0, stream). */
static nrt_status args_tail(build *b, nrt_kernel *k, int at, int keys)
{
    nrt_status st = NRT_OK;
    if (keys) {
        st = nrt_gpu_arg_i32(k, at++, (int32_t)b->key0);
        if (st == NRT_OK)
            st = nrt_gpu_arg_i32(k, at++, (int32_t)b->stream);
    }
    if (st == NRT_OK)
        st = nrt_gpu_arg_i32(k, at++, b->excl);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(k, at, b->d);
    return st;
}

/* all_to_all (and fixed_prob with p >= 1): row_ptr in closed form, one synapse per item. */
static nrt_status build_all(build *b, nrt_dcsr *out)
{
    const int64_t np = b->s->n_pre, nq = b->s->n_post;
    int64_t lo = b->d < 0 ? -b->d : 0, hi = nq - b->d < np ? nq - b->d : np;
    nrt_kernel *kr = kernel(b, "nrt_conn_all_rows", 5);
    nrt_kernel *kf = kernel(b, "nrt_conn_all_fill", 6);
    nrt_status st;
    if (!kr || !kf)
        return NRT_EDEVICE;
    out->nnz = np * nq - (b->excl && hi > lo ? hi - lo : 0);
    st = dalloc(b, &out->col, out->nnz, sizeof(int32_t), "connectivity columns");
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(kr, 0, out->row_ptr);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(kr, 1, np);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(kr, 2, nq);
    if (st == NRT_OK)
        st = args_tail(b, kr, 3, 0);
    if (st == NRT_OK)
        st = launch(b, kr, np + 1, FLAT_GROUP, 0);
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(kf, 0, out->row_ptr);
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(kf, 1, out->col);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(kf, 2, np);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(kf, 3, nq);
    if (st == NRT_OK)
        st = args_tail(b, kf, 4, 0);
    if (st == NRT_OK && np * nq > 0)
        st = launch(b, kf, np * nq, FLAT_GROUP, 0);
    return st;
}

static nrt_status build_one(build *b, nrt_dcsr *out)
{
    const int64_t n = b->s->n_pre;
    nrt_kernel *k = kernel(b, "nrt_conn_one_fill", 3);
    nrt_status st;
    if (!k)
        return NRT_EDEVICE;
    out->nnz = n;
    st = dalloc(b, &out->col, n, sizeof(int32_t), "connectivity columns");
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(k, 0, out->row_ptr);
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(k, 1, out->col);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(k, 2, n);
    if (st == NRT_OK)
        st = launch(b, k, n + 1, FLAT_GROUP, 0);
    return st;
}

/* Read the n_pre row counts of `count` (uint32), prefix-sum them into row_ptr on the
 * device and set out->nnz. `total` >= 0: the sum they must reach (a row longer than 2^32 - 1
 * wraps its count, and then the sum falls short). */
static nrt_status rows_from_counts(build *b, nrt_dmem count, int64_t total, nrt_dcsr *out)
{
    const int64_t np = b->s->n_pre;
    uint32_t *c = nrt_alloc(b->ctx, (size_t)(np > 0 ? np : 1) * sizeof *c,
                            "connectivity row counts");
    int64_t *rp = nrt_alloc(b->ctx, (size_t)(np + 1) * sizeof *rp,
                            "connectivity row pointers");
    nrt_status st = NRT_ENOMEM;
    int64_t i;
    if (c && rp) {
        st = np > 0 ? nrt_gpu_read(b->g, count, 0, c, (size_t)np * sizeof *c) : NRT_OK;
        if (st == NRT_OK) {
            rp[0] = 0;
            for (i = 0; i < np; i++)
                rp[i + 1] = rp[i] + (int64_t)c[i];
            out->nnz = rp[np];
            if (total >= 0 && out->nnz != total) {
                nrt_seterr(b->ctx, "projection %u: a presynaptic neuron has "
                           "more than %u synapses, more than the device build can count",
                           (unsigned)b->s->proj_id, 0xFFFFFFFFu);
                st = NRT_EINVAL;
            }
        }
        if (st == NRT_OK)
            st = nrt_gpu_write(b->g, out->row_ptr, 0, rp, (size_t)(np + 1) * sizeof *rp);
    }
    nrt_free(c);
    nrt_free(rp);
    return st;
}

/* After a count pass (st its status): the row pointers from the per-row counts (freed), the
 * column array, and the fill kernel kf's first two arguments (row_ptr, col). */
static nrt_status rows_and_columns(build *b, nrt_status st, nrt_dmem *count, nrt_kernel *kf, nrt_dcsr *out)
{
    if (st == NRT_OK)
        st = rows_from_counts(b, *count, -1, out);
    nrt_gpu_free(b->g, count);
    if (st == NRT_OK)
        st = dalloc(b, &out->col, out->nnz, sizeof(int32_t), "connectivity columns");
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(kf, 0, out->row_ptr);
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(kf, 1, out->col);
    return st;
}

/* fixed_prob, 0 < p < 1: count pass, host prefix sum, fill pass (both walk every row). */
static nrt_status build_prob(build *b, nrt_dcsr *out)
{
    const int64_t np = b->s->n_pre, nq = b->s->n_post;
    const double lq = log1p(-b->s->p);
    nrt_kernel *kc = kernel(b, "nrt_conn_prob_count", 8);
    nrt_kernel *kf = kernel(b, "nrt_conn_prob_fill", 9);
    nrt_dmem count = {0, 0};
    nrt_status st;
    if (!kc || !kf)
        return NRT_EDEVICE;
    st = dalloc(b, &count, np, sizeof(int32_t), "connectivity row counts");
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(kc, 0, count);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(kc, 1, np);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(kc, 2, nq);
    if (st == NRT_OK)
        st = nrt_gpu_arg_f64(kc, 3, lq);
    if (st == NRT_OK)
        st = args_tail(b, kc, 4, 1);
    if (st == NRT_OK)
        st = launch(b, kc, np, ROW_GROUP, 0);
    st = rows_and_columns(b, st, &count, kf, out);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(kf, 2, np);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(kf, 3, nq);
    if (st == NRT_OK)
        st = nrt_gpu_arg_f64(kf, 4, lq);
    if (st == NRT_OK)
        st = args_tail(b, kf, 5, 1);
    if (st == NRT_OK)
        st = launch(b, kf, np, ROW_GROUP, 0);
    return st;
}

/* Draw k partners among n_cand candidates for each of n_items items (nrt_conn_indeg_draw:
 * fixed_indegree's posts drawing pres, or with the roles swapped and d negated,
 * fixed_outdegree's pres drawing posts) into dst[item * k ..], in draw order. */
static nrt_status draw_partners(build *b, nrt_dmem dst, int64_t n_cand, int64_t n_items,
                                int64_t k, int64_t d)
{
    const nrt_conn_spec *s = b->s;
    nrt_kernel *kd = kernel(b, "nrt_conn_indeg_draw", 12);
    nrt_dmem sets = {0, 0};
    int64_t words = 0, items = 0, groups, group = ROW_GROUP;
    int hash_bits = 0;
    nrt_status st;
    if (!kd)
        return NRT_EDEVICE;
    if (!s->multapses) {
        /* a set per work-item: n_cand bits, or a hash table of 2^hash_bits >= 2k words */
        int64_t bitmap = (n_cand + 31) / 32, table = 2;
        hash_bits = 1;
        while (table < 2 * k) {
            table <<= 1;
            hash_bits++;
        }
        if (bitmap <= table) {
            words = bitmap;
            hash_bits = 0;
        } else {
            words = table;
        }
        /* as many sets as SET_BUDGET holds (at least one) */
        items = (int64_t)(SET_BUDGET / ((size_t)words * sizeof(uint32_t)));
        if (items < 1)
            items = 1;
        if (items < group)
            group = items;
    }
    if (b->max_group > 0 && group > (int64_t)b->max_group)
        group = (int64_t)b->max_group;
    /* the draw launch: a work-item per item, within max_groups and the sets */
    groups = (n_items + group - 1) / group;
    if (groups > (int64_t)b->max_groups)
        groups = (int64_t)b->max_groups;
    if (!s->multapses && groups > items / group)
        groups = items / group;
    st = dalloc(b, &sets, s->multapses ? 1 : groups * group * words, sizeof(uint32_t),
                "partner marks");
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(kd, 0, dst);
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(kd, 1, sets);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(kd, 2, words);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i32(kd, 3, hash_bits);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(kd, 4, n_cand);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(kd, 5, n_items);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(kd, 6, k);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i32(kd, 7, s->multapses != 0);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i32(kd, 8, (int32_t)b->key0);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i32(kd, 9, (int32_t)b->stream);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i32(kd, 10, b->excl);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(kd, 11, d);
    if (st == NRT_OK)
        st = nrt_gpu_launch(kd, (size_t)groups, (size_t)group, 0);
    if (st == NRT_OK)
        st = nrt_gpu_sync(b->g);      /* before the sets go */
    nrt_gpu_free(b->g, &sets);
    return st;
}

/* Sort every row of out ascending: a group per row, of an eighth of the mean row length
 * (32..256). */
static nrt_status sort_rows(build *b, nrt_dcsr *out)
{
    const int64_t np = b->s->n_pre;
    nrt_kernel *ks = kernel(b, "nrt_conn_sort_rows", 3);
    int64_t sort_group = 32;
    nrt_status st;
    if (!ks)
        return NRT_EDEVICE;
    while (sort_group < FLAT_GROUP && np > 0 && sort_group * 8 < out->nnz / np)
        sort_group <<= 1;
    st = nrt_gpu_arg_mem(ks, 0, out->row_ptr);
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(ks, 1, out->col);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(ks, 2, np);
    if (st == NRT_OK && np > 0)
        st = launch(b, ks, np, (size_t)sort_group, 1);
    return st;
}

/* Rows from the partners of every post on the device (pair e = j * k + a has pre pres[e]):
 * count per pre, host prefix sum, scatter, sort each row. */
static nrt_status rows_from_pairs(build *b, nrt_dmem pres, int64_t total, int64_t k, nrt_dcsr *out)
{
    const int64_t np = b->s->n_pre;
    nrt_kernel *kc = kernel(b, "nrt_conn_indeg_count", 3);
    nrt_kernel *kf = kernel(b, "nrt_conn_indeg_fill", 6);
    nrt_dmem count = {0, 0};
    nrt_status st;
    if (!kc || !kf)
        return NRT_EDEVICE;
    st = dalloc(b, &count, np, sizeof(int32_t), "connectivity row counts");
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(kc, 0, pres);
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(kc, 1, count);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(kc, 2, total);
    if (st == NRT_OK)
        st = launch(b, kc, total, FLAT_GROUP, 0);
    if (st == NRT_OK)
        st = rows_from_counts(b, count, total, out);
    /* scatter, with count zeroed again as the row cursors */
    if (st == NRT_OK)
        st = dalloc(b, &out->col, out->nnz, sizeof(int32_t), "connectivity columns");
    if (st == NRT_OK && np > 0)
        st = nrt_gpu_fill32(b->g, count, 0, 0, (size_t)np * sizeof(int32_t));
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(kf, 0, pres);
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(kf, 1, out->row_ptr);
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(kf, 2, count);
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(kf, 3, out->col);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(kf, 4, total);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(kf, 5, k);
    if (st == NRT_OK)
        st = launch(b, kf, total, FLAT_GROUP, 0);
    if (st == NRT_OK)
        st = sort_rows(b, out);
    if (st == NRT_OK)
        st = nrt_gpu_sync(b->g);      /* before the scratch buffers go */
    nrt_gpu_free(b->g, &count);
    return st;
}

/* fixed_indegree, k > 0 and n_post > 0 (nrt_conn_check made k admissible): draw per post,
 * then rows from the (pre, post) pairs. */
static nrt_status build_indegree(build *b, nrt_dcsr *out)
{
    const nrt_conn_spec *s = b->s;
    const int64_t total = s->k * s->n_post;
    nrt_dmem pres = {0, 0};
    nrt_status st = dalloc(b, &pres, total, sizeof(int32_t), "fixed_indegree partner lists");
    if (st == NRT_OK)
        st = draw_partners(b, pres, s->n_pre, s->n_post, s->k, b->d);
    if (st == NRT_OK)
        st = rows_from_pairs(b, pres, total, s->k, out);
    nrt_gpu_free(b->g, &pres);
    return st;
}

/* fixed_outdegree, k > 0 and n_pre > 0: row i is drawn straight into col[i * k ..] (the
 * in-degree draw with the roles swapped), row_ptr[i] = i * k, then each row is sorted. */
static nrt_status build_outdegree(build *b, nrt_dcsr *out)
{
    const nrt_conn_spec *s = b->s;
    nrt_kernel *kr = kernel(b, "nrt_conn_all_rows", 5);
    nrt_status st;
    if (!kr)
        return NRT_EDEVICE;
    out->nnz = s->k * s->n_pre;
    st = dalloc(b, &out->col, out->nnz, sizeof(int32_t), "connectivity columns");
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(kr, 0, out->row_ptr);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(kr, 1, s->n_pre);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(kr, 2, s->k);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i32(kr, 3, 0);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(kr, 4, 0);
    if (st == NRT_OK)
        st = launch(b, kr, s->n_pre + 1, FLAT_GROUP, 0);
    if (st == NRT_OK)
        st = draw_partners(b, out->col, s->n_post, s->n_pre, s->k, -b->d);
    if (st == NRT_OK)
        st = sort_rows(b, out);
    return st;
}

/* fixed_total, k > 0: the row lengths from the host (nrt_conn_total_rows, the same
 * multinomial split as nrt_conn_build), then a work-item per synapse draws its post. */
static nrt_status build_total(build *b, nrt_dcsr *out)
{
    const nrt_conn_spec *s = b->s;
    nrt_kernel *kf = kernel(b, "nrt_conn_total_fill", 8);
    int64_t *rp;
    nrt_status st;
    if (!kf)
        return NRT_EDEVICE;
    rp = nrt_alloc(b->ctx, (size_t)(s->n_pre + 1) * sizeof *rp, "fixed_total row pointers");
    if (!rp)
        return NRT_ENOMEM;
    st = nrt_conn_total_rows(b->ctx, s, rp);
    if (st == NRT_OK)
        st = nrt_gpu_write(b->g, out->row_ptr, 0, rp, (size_t)(s->n_pre + 1) * sizeof *rp);
    nrt_free(rp);
    out->nnz = s->k;
    if (st == NRT_OK)
        st = dalloc(b, &out->col, out->nnz, sizeof(int32_t), "connectivity columns");
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(kf, 0, out->row_ptr);
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(kf, 1, out->col);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(kf, 2, s->n_pre);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(kf, 3, s->n_post);
    if (st == NRT_OK)
        st = args_tail(b, kf, 4, 1);
    if (st == NRT_OK)
        st = launch(b, kf, s->k, FLAT_GROUP, 0);
    return st;
}

/* PAIRS: the model's kernels nc_rows_count_<name> (count, n_pre, key0) and
 * nc_rows_fill_<name> (row_ptr, col, n_pre, key0), a work-item per row. */
static nrt_status build_pairs(build *b, nrt_dcsr *out)
{
    const int64_t np = b->s->n_pre;
    char name[160]; /* nc_rows_fill_ and a C name of at most 128 bytes (cg_kname) */
    nrt_kernel *kc, *kf;
    nrt_dmem count = {0, 0};
    nrt_status st;
    if (!b->s->row_kernels) {
        nrt_seterr(b->ctx, "projection %u: no row kernels for its pairs", (unsigned)b->s->proj_id);
        return NRT_EINVAL;
    }
    snprintf(name, sizeof name, "nc_rows_count_%s", b->s->row_kernels);
    kc = kernel(b, name, 3);
    snprintf(name, sizeof name, "nc_rows_fill_%s", b->s->row_kernels);
    kf = kernel(b, name, 4);
    if (!kc || !kf)
        return NRT_EDEVICE;
    st = dalloc(b, &count, np, sizeof(int32_t), "connectivity row counts");
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(kc, 0, count);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(kc, 1, np);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i32(kc, 2, (int32_t)b->key0);
    if (st == NRT_OK)
        st = launch(b, kc, np, ROW_GROUP, 0);
    st = rows_and_columns(b, st, &count, kf, out);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(kf, 2, np);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i32(kf, 3, (int32_t)b->key0);
    if (st == NRT_OK)
        st = launch(b, kf, np, ROW_GROUP, 0);
    return st;
}

/* Contract: see nrt_gpu.h. *out is overwritten (not freed first); on error it is left
 * empty (all zero) with errmsg set: the messages of nrt_conn_build for invalid specs,
 * the device layer's for allocations (naming the array) and launches. Returns when the
 * device has finished the build. */
nrt_status nrt_gpu_conn_build(nrt_ctx *ctx, nrt_gpu *g, const nrt_conn_spec *spec, nrt_dcsr *out)
{
    const nrt_gpu_info *info;
    nrt_status st;
    build b;
    if (!g || !spec || !out) {
        nrt_seterr(ctx, "nrt_gpu_conn_build: NULL argument");
        return NRT_EINVAL;
    }
    nrt_fault_build(ctx); /* $NEUROC_FAULT_BUILD_SIGNAL */
    memset(out, 0, sizeof *out);
    st = nrt_conn_check(ctx, spec);
    if (st != NRT_OK)
        return st;
    info = nrt_gpu_get_info(g);
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    b.g = g;
    b.s = spec;
    b.excl = !spec->autapses && spec->same_base;
    b.d = spec->pre_offset - spec->post_offset;
    b.key0 = nrt_seed_key(spec->seed);
    b.stream = (NRT_STREAM_CONNECT << 24) | (spec->proj_id & 0xFFFFFFu);
    b.max_group = (size_t)(info && info->max_group_size > 0 ? info->max_group_size : 0);
    b.max_groups = (size_t)(info && info->compute_units > 0 ? info->compute_units : 16) * 32;
    out->n_pre = spec->n_pre;
    out->n_post = spec->n_post;
    st = nrt_gpu_alloc(g, &out->row_ptr, (size_t)(spec->n_pre + 1) * sizeof(int64_t),
                       "connectivity row pointers");
    if (st == NRT_OK) {
        switch (spec->rule) {
        case NRT_ALL_TO_ALL:
            st = build_all(&b, out);
            break;
        case NRT_ONE_TO_ONE:
            st = build_one(&b, out);
            break;
        case NRT_FIXED_PROB:
            if (spec->p >= 1.0)
                st = build_all(&b, out);
            else if (spec->p > 0.0 && spec->n_pre > 0 && spec->n_post > 0)
                st = build_prob(&b, out);
            else              /* no synapses: row_ptr is zero already */
                st = dalloc(&b, &out->col, 0, sizeof(int32_t), "connectivity columns");
            break;
        case NRT_FIXED_INDEGREE:
            if (spec->k > 0 && spec->n_post > 0)
                st = build_indegree(&b, out);
            else
                st = dalloc(&b, &out->col, 0, sizeof(int32_t), "connectivity columns");
            break;
        case NRT_FIXED_OUTDEGREE:
            if (spec->k > 0 && spec->n_pre > 0)
                st = build_outdegree(&b, out);
            else
                st = dalloc(&b, &out->col, 0, sizeof(int32_t), "connectivity columns");
            break;
        case NRT_FIXED_TOTAL:
            if (spec->k > 0)
                st = build_total(&b, out);
            else
                st = dalloc(&b, &out->col, 0, sizeof(int32_t), "connectivity columns");
            break;
        case NRT_PAIRS:
            st = build_pairs(&b, out);
            break;
        }
    }
    if (st == NRT_OK)
        st = nrt_gpu_sync(g);   /* the CSR is complete (and device faults reported) here */
    if (st != NRT_OK) {
        nrt_gpu_dcsr_free(g, out);
        return st;
    }
    return NRT_OK;
}

/* The column kernels: count per column, scan into cptr, check the total, scatter, sort
 * every column (count: n_post zeroed int32 of scratch). */
static nrt_status col_kernels(build *b, const nrt_dcsr *c, nrt_dmem count, nrt_dmem cptr,
                              nrt_dmem csyn, nrt_dmem cpre)
{
    nrt_kernel *kc = kernel(b, "nrt_conn_indeg_count", 3);
    nrt_kernel *ks = kernel(b, "nrt_conn_col_scan", 3);
    nrt_kernel *kf = kernel(b, "nrt_conn_col_fill", 7);
    nrt_kernel *ko = kernel(b, "nrt_conn_sort_cols", 4);
    size_t scan_group = 256;  /* NRT_SCAN_GROUP */
    int64_t sort_group = 32, total = 0;
    nrt_status st;
    if (!kc || !ks || !kf || !ko)
        return NRT_EDEVICE;
    if (b->max_group > 0 && scan_group > b->max_group)
        scan_group = b->max_group;
    st = nrt_gpu_arg_mem(kc, 0, c->col);
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(kc, 1, count);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(kc, 2, c->nnz);
    if (st == NRT_OK && c->nnz > 0)
        st = launch(b, kc, c->nnz, FLAT_GROUP, 0);
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(ks, 0, count);
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(ks, 1, cptr);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(ks, 2, c->n_post);
    if (st == NRT_OK)
        st = nrt_gpu_launch(ks, 1, scan_group, 0);
    if (st == NRT_OK)
        st = nrt_gpu_read(b->g, cptr, (size_t)c->n_post * sizeof(int64_t), &total, sizeof total);
    if (st == NRT_OK && total != c->nnz) {
        nrt_seterr(b->ctx, "projection %u: a postsynaptic neuron has more than %u synapses, "
                   "more than the device's column index can count", (unsigned)b->s->proj_id,
                   0xFFFFFFFFu);
        st = NRT_EINVAL;
    }
    if (st == NRT_OK && c->n_post > 0)
        st = nrt_gpu_fill32(b->g, count, 0, 0, (size_t)c->n_post * sizeof(int32_t));
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(kf, 0, c->row_ptr);
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(kf, 1, c->col);
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(kf, 2, cptr);
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(kf, 3, count);
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(kf, 4, csyn);
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(kf, 5, cpre);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(kf, 6, c->n_pre);
    if (st == NRT_OK && c->nnz > 0)
        st = launch(b, kf, c->n_pre, ROW_GROUP, 0);
    /* a group per column, of an eighth of the mean column length (32..256) */
    while (sort_group < FLAT_GROUP && c->n_post > 0 && sort_group * 8 < c->nnz / c->n_post)
        sort_group <<= 1;
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(ko, 0, cptr);
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(ko, 1, csyn);
    if (st == NRT_OK)
        st = nrt_gpu_arg_mem(ko, 2, cpre);
    if (st == NRT_OK)
        st = nrt_gpu_arg_i64(ko, 3, c->n_post);
    if (st == NRT_OK && c->nnz > 0)
        st = launch(b, ko, c->n_post, (size_t)sort_group, 1);
    return st;
}

/* Contract: see nrt_gpu.h. Allocates *cptr, *csyn, *cpre (overwritten, not freed first);
 * on error they are freed again (zeroed) with errmsg set. Returns when the device has
 * finished. */
nrt_status nrt_gpu_col_index(nrt_ctx *ctx, nrt_gpu *g, const nrt_dcsr *c, uint32_t proj_id,
                             const char *what, nrt_dmem *cptr, nrt_dmem *csyn, nrt_dmem *cpre)
{
    const nrt_gpu_info *info;
    nrt_conn_spec spec;
    nrt_dmem count = {0, 0};
    nrt_status st;
    build b;
    if (!g || !c || !cptr || !csyn || !cpre || !what) {
        nrt_seterr(ctx, "nrt_gpu_col_index: NULL argument");
        return NRT_EINVAL;
    }
    memset(cptr, 0, sizeof *cptr);
    memset(csyn, 0, sizeof *csyn);
    memset(cpre, 0, sizeof *cpre);
    info = nrt_gpu_get_info(g);
    memset(&spec, 0, sizeof spec);
    spec.proj_id = proj_id;
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    b.g = g;
    b.s = &spec;
    b.max_group = (size_t)(info && info->max_group_size > 0 ? info->max_group_size : 0);
    b.max_groups = (size_t)(info && info->compute_units > 0 ? info->compute_units : 16) * 32;
    st = dalloc(&b, cptr, c->n_post + 1, sizeof(int64_t), what);
    if (st == NRT_OK)
        st = dalloc(&b, csyn, c->nnz, sizeof(int64_t), what);
    if (st == NRT_OK)
        st = dalloc(&b, cpre, c->nnz, sizeof(int32_t), what);
    if (st == NRT_OK)
        st = dalloc(&b, &count, c->n_post, sizeof(int32_t), what);
    if (st == NRT_OK)
        st = col_kernels(&b, c, count, *cptr, *csyn, *cpre);
    if (st == NRT_OK)
        st = nrt_gpu_sync(g);   /* before the cursors go; device faults reported here */
    nrt_gpu_free(g, &count);
    if (st != NRT_OK) {
        nrt_gpu_free(g, cptr);
        nrt_gpu_free(g, csyn);
        nrt_gpu_free(g, cpre);
    }
    return st;
}

/* Contract: frees both buffers and zeroes *c; an empty or already freed one is fine. */
void nrt_gpu_dcsr_free(nrt_gpu *g, nrt_dcsr *c)
{
    if (!c)
        return;
    if (g) {
        nrt_gpu_free(g, &c->row_ptr);
        nrt_gpu_free(g, &c->col);
    }
    memset(c, 0, sizeof *c);
}
