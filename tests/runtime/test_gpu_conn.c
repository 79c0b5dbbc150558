/* test_gpu_conn.c -- connectivity built on an OpenCL device (nrt_gpu_conn_build with the
 * kernels of nrt_conn_dev.h) equals nrt_conn_build exactly: status, message, row_ptr and col,
 * for every rule over sizes 1, 7, 1000 and 3000 x 200 (and 200 x 3000), two seeds (1 and
 * 2^40 + 5), same-population views with offsets, autapses and multapses on and off,
 * p = 0, 1e-4, 0.1, 0.5, 1, k from 1 to the admissible maximum, and the error cases; and
 * each build's column index on the device (nrt_gpu_col_index) equals the host's stable
 * counting sort, entry for entry (columns of 3000 synapses take the sort's global steps).
 *
 * The program is the text of nrt_simt.h, nrt_math.h (with its halves nrt_math_d.h and
 * nrt_math_f.h after NRT_MATH_PASTED), nrt_philox.h and nrt_conn_dev.h read from
 * NRT_INCLUDE_DIR, as a generated simulator pastes them. Without an OpenCL device it
 * prints "skipped: no OpenCL device" and exits 77. `--cuda IMAGE` runs the same on a CUDA
 * device with the cubin/fatbin nvcc made of conn_dev.cu (the same headers).
 * `--bench [n [p]]` times one n x n fixed_prob build (default 10000, 0.1) and one
 * fixed_indegree build (k = n p) on the device and on the host, and compares them.
 */
#include "neurort.h"
#include "nrt_gpu.h"
#include "tcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef NRT_INCLUDE_DIR
#error "NRT_INCLUDE_DIR (runtime/include) must be defined"
#endif

static nrt_ctx ctx;
static nrt_gpu *gpu;
static long ncases;

/* Append the file `name` of folder `dir` (NULL: name is the path) to *buf. */
static int append_file(char **buf, size_t *len, const char *dir, const char *name)
{
    char path[4096];
    FILE *f;
    long n;
    char *nb;
    snprintf(path, sizeof path, "%s%s%s", dir ? dir : "", dir ? "/" : "", name);
    f = fopen(path, "rb");
    if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "cannot read %s\n", path);
        if (f)
            fclose(f);
        return 0;
    }
    nb = realloc(*buf, *len + (size_t)n + 2);
    if (!nb || fread(nb + *len, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", path);
        free(nb ? nb : *buf);
        *buf = NULL;
        fclose(f);
        return 0;
    }
    fclose(f);
    *buf = nb;
    *len += (size_t)n;
    (*buf)[(*len)++] = '\n';
    (*buf)[*len] = '\0';
    return 1;
}

/* The device CSR, read back into host memory (row_ptr, col malloc'ed). */
static int read_back(const nrt_dcsr *d, nrt_csr *h)
{
    memset(h, 0, sizeof *h);
    h->n_pre = d->n_pre;
    h->n_post = d->n_post;
    h->nnz = d->nnz;
    h->row_ptr = malloc((size_t)(d->n_pre + 1) * sizeof *h->row_ptr);
    h->col = malloc((size_t)(d->nnz > 0 ? d->nnz : 1) * sizeof *h->col);
    if (!h->row_ptr || !h->col)
        return 0;
    if (nrt_gpu_read(gpu, d->row_ptr, 0, h->row_ptr, (size_t)(d->n_pre + 1) * 8) != NRT_OK)
        return 0;
    if (d->nnz > 0 && nrt_gpu_read(gpu, d->col, 0, h->col, (size_t)d->nnz * 4) != NRT_OK)
        return 0;
    return 1;
}

static const char *rule_str(nrt_rule r)
{
    return r == NRT_ALL_TO_ALL ? "all_to_all" : r == NRT_ONE_TO_ONE ? "one_to_one"
         : r == NRT_FIXED_PROB ? "fixed_prob" : r == NRT_FIXED_INDEGREE ? "fixed_indegree"
         : r == NRT_FIXED_OUTDEGREE ? "fixed_outdegree" : r == NRT_FIXED_TOTAL ? "fixed_total"
         : "?";
}

/* The column index of h on the host, as the C back end and the GPU back ends before
 * nrt_gpu_col_index built it: count per column, prefix sums, fill in synapse order (a
 * stable counting sort). cptr: n_post + 1, csyn and cpre: nnz (at least one) each. */
static void host_col_index(const nrt_csr *h, int64_t *cptr, int64_t *csyn, int32_t *cpre)
{
    int64_t *fill = calloc((size_t)h->n_post + 1, sizeof *fill);
    int64_t i, s, q;
    memset(cptr, 0, (size_t)(h->n_post + 1) * sizeof *cptr);
    for (s = 0; s < h->nnz; s++)
        cptr[h->col[s] + 1]++;
    for (q = 0; q < h->n_post; q++)
        cptr[q + 1] += cptr[q];
    if (!fill)
        return;
    memcpy(fill, cptr, (size_t)(h->n_post + 1) * sizeof *fill);
    for (i = 0; i < h->n_pre; i++)
        for (s = h->row_ptr[i]; s < h->row_ptr[i + 1]; s++) {
            q = fill[h->col[s]]++;
            csyn[q] = s;
            cpre[q] = (int32_t)i;
        }
    free(fill);
}

/* The device's column index of d (nrt_gpu_col_index) against host_col_index of h, entry
 * for entry. */
static void compare_cols(const char *what, const nrt_csr *h, const nrt_dcsr *d)
{
    const size_t np = (size_t)h->n_post + 1, nz = (size_t)(h->nnz > 0 ? h->nnz : 1);
    int64_t *hp = malloc(np * 8), *hs = malloc(nz * 8), *dp = malloc(np * 8), *ds = malloc(nz * 8);
    int32_t *hr = malloc(nz * 4), *dr = malloc(nz * 4);
    nrt_dmem cptr, csyn, cpre;
    int64_t q, bad = -1;
    nrt_status st = nrt_gpu_col_index(&ctx, gpu, d, 9, "column index", &cptr, &csyn, &cpre);
    CHECKF(st == NRT_OK, "%s: column index: %s", what, ctx.errmsg);
    if (st == NRT_OK && hp && hs && dp && ds && hr && dr) {
        host_col_index(h, hp, hs, hr);
        CHECKF(nrt_gpu_read(gpu, cptr, 0, dp, np * 8) == NRT_OK &&
               (h->nnz == 0 || (nrt_gpu_read(gpu, csyn, 0, ds, (size_t)h->nnz * 8) == NRT_OK &&
                                nrt_gpu_read(gpu, cpre, 0, dr, (size_t)h->nnz * 4) == NRT_OK)),
               "%s: cannot read the column index back", what);
        for (q = 0; q < (int64_t)np && bad < 0; q++)
            if (hp[q] != dp[q])
                bad = q;
        CHECKF(bad < 0, "%s: cptr[%lld] host %lld, device %lld", what, (long long)bad,
               (long long)(bad >= 0 ? hp[bad] : 0), (long long)(bad >= 0 ? dp[bad] : 0));
        for (q = 0, bad = -1; q < h->nnz && bad < 0; q++)
            if (hs[q] != ds[q] || hr[q] != dr[q])
                bad = q;
        CHECKF(bad < 0, "%s: column entry %lld host (%lld, %d), device (%lld, %d)", what,
               (long long)bad, (long long)(bad >= 0 ? hs[bad] : 0), bad >= 0 ? hr[bad] : 0,
               (long long)(bad >= 0 ? ds[bad] : 0), bad >= 0 ? dr[bad] : 0);
    }
    nrt_gpu_free(gpu, &cptr);
    nrt_gpu_free(gpu, &csyn);
    nrt_gpu_free(gpu, &cpre);
    free(hp);
    free(hs);
    free(dp);
    free(ds);
    free(hr);
    free(dr);
}

/* Build s on the host and on the device; both must agree exactly, and so must their
 * column indexes. */
static void compare(const nrt_conn_spec *s)
{
    nrt_csr h, dh;
    nrt_dcsr d;
    nrt_status sh, sd;
    char hmsg[sizeof ctx.errmsg];
    char what[256];
    char par[64] = "";
    if (s->rule == NRT_FIXED_PROB)
        snprintf(par, sizeof par, " p=%g", s->p);
    else if (s->rule == NRT_FIXED_INDEGREE || s->rule == NRT_FIXED_OUTDEGREE ||
             s->rule == NRT_FIXED_TOTAL)
        snprintf(par, sizeof par, " k=%lld multapses=%d", (long long)s->k, s->multapses);
    snprintf(what, sizeof what, "%s %lld x %lld%s autapses=%d same_base=%d offsets=%lld/%lld "
             "seed=%llu id=%u", rule_str(s->rule), (long long)s->n_pre, (long long)s->n_post,
             par, s->autapses, s->same_base, (long long)s->pre_offset,
             (long long)s->post_offset, (unsigned long long)s->seed, (unsigned)s->proj_id);
    ncases++;
    ctx.errmsg[0] = '\0';
    sh = nrt_conn_build(&ctx, s, &h);
    memcpy(hmsg, ctx.errmsg, sizeof hmsg);
    ctx.errmsg[0] = '\0';
    sd = nrt_gpu_conn_build(&ctx, gpu, s, &d);
    CHECKF(sh == sd, "%s: status host %d, device %d (%s)", what, (int)sh, (int)sd, ctx.errmsg);
    if (sh != NRT_OK || sd != NRT_OK) {
        CHECKF(strcmp(hmsg, ctx.errmsg) == 0, "%s: message host '%s', device '%s'", what,
               hmsg, ctx.errmsg);
        CHECK(d.row_ptr.h == 0 && d.col.h == 0 && d.nnz == 0);
        nrt_csr_free(&h);
        nrt_gpu_dcsr_free(gpu, &d);
        return;
    }
    CHECKF(d.n_pre == h.n_pre && d.n_post == h.n_post && d.nnz == h.nnz,
           "%s: nnz host %lld, device %lld", what, (long long)h.nnz, (long long)d.nnz);
    if (d.nnz == h.nnz && read_back(&d, &dh)) {
        int64_t i, bad = -1;
        for (i = 0; i <= h.n_pre && bad < 0; i++)
            if (h.row_ptr[i] != dh.row_ptr[i])
                bad = i;
        CHECKF(bad < 0, "%s: row_ptr[%lld] host %lld, device %lld", what, (long long)bad,
               (long long)(bad >= 0 ? h.row_ptr[bad] : 0),
               (long long)(bad >= 0 ? dh.row_ptr[bad] : 0));
        for (i = 0, bad = -1; i < h.nnz && bad < 0; i++)
            if (h.col[i] != dh.col[i])
                bad = i;
        CHECKF(bad < 0, "%s: col[%lld] host %d, device %d", what, (long long)bad,
               bad >= 0 ? h.col[bad] : 0, bad >= 0 ? dh.col[bad] : 0);
        free(dh.row_ptr);
        free(dh.col);
        if (bad < 0)
            compare_cols(what, &h, &d);
    } else {
        CHECKF(0, "%s: cannot read the device CSR back", what);
    }
    nrt_csr_free(&h);
    nrt_gpu_dcsr_free(gpu, &d);
}

/* Views of the spec over one population: different populations; the same view (offsets
 * 0, 0); overlapping views (pre at 5, post at 2); each with autapses on and off. */
static void each_view(nrt_conn_spec *s, void (*run)(nrt_conn_spec *))
{
    static const int64_t offs[3][3] = {{0, 0, 0}, {1, 0, 0}, {1, 5, 2}};
    int v, a;
    for (v = 0; v < 3; v++)
        for (a = 0; a < 2; a++) {
            s->same_base = (int)offs[v][0];
            s->pre_offset = offs[v][1];
            s->post_offset = offs[v][2];
            s->autapses = a;
            run(s);
        }
}

static void run_as_is(nrt_conn_spec *s)
{
    compare(s);
}

static void run_all(nrt_conn_spec *s)
{
    s->rule = NRT_ALL_TO_ALL;
    compare(s);
}

static void run_one(nrt_conn_spec *s)
{
    s->rule = NRT_ONE_TO_ONE;
    compare(s);
}

static void run_prob(nrt_conn_spec *s)
{
    static const double ps[] = {0.0, 1e-4, 0.1, 0.5, 1.0};
    size_t i;
    s->rule = NRT_FIXED_PROB;
    for (i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        s->p = ps[i];
        compare(s);
    }
}

/* k = 0, 1, 10, the admissible maximum and one more (an error without multapses). */
static void run_indegree(nrt_conn_spec *s)
{
    int64_t ks[5], kmax = s->n_pre, j;
    int i, m;
    /* a post whose own neuron is among the pres has one candidate less */
    for (j = 0; j < s->n_post; j++) {
        int64_t self = s->post_offset + j - s->pre_offset;
        if (!s->autapses && s->same_base && self >= 0 && self < s->n_pre)
            kmax = s->n_pre - 1;
    }
    ks[0] = 0;
    ks[1] = 1;
    ks[2] = 10;
    ks[3] = kmax;
    ks[4] = kmax + 1;
    s->rule = NRT_FIXED_INDEGREE;
    for (m = 0; m < 2; m++)
        for (i = 0; i < 5; i++) {
            s->multapses = m;
            s->k = ks[i];
            compare(s);
        }
    s->multapses = 0;
}

/* fixed_outdegree: as fixed_indegree with the roles swapped; fixed_total (multapses only). */
static void run_outdegree_total(nrt_conn_spec *s)
{
    const int64_t ks[4] = {0, 1, 10, s->n_post > 1 ? s->n_post - 1 : 1};
    int m, i;
    s->rule = NRT_FIXED_OUTDEGREE;
    for (m = 0; m < 2; m++)
        for (i = 0; i < 4; i++) {
            s->multapses = m;
            s->k = ks[i];
            compare(s);
        }
    s->rule = NRT_FIXED_TOTAL;
    s->multapses = 1;
    for (i = 0; i < 3; i++) {
        s->k = i == 0 ? 0 : i == 1 ? 1 : 3 * (s->n_pre + s->n_post);
        compare(s);
    }
    s->multapses = 0;
}

static void errors(void)
{
    nrt_conn_spec s;
    memset(&s, 0, sizeof s);
    s.rule = NRT_ONE_TO_ONE;
    s.n_pre = 5;
    s.n_post = 6;
    compare(&s);                                   /* one_to_one size mismatch */
    s.rule = NRT_FIXED_INDEGREE;
    s.k = -1;
    compare(&s);                                   /* negative k */
    s.k = 3;
    s.n_pre = 0;
    compare(&s);                                   /* no pre neuron at all */
    s.n_pre = -1;
    compare(&s);                                   /* invalid size */
    s.n_pre = 5;
    s.n_post = (int64_t)INT32_MAX + 1;
    compare(&s);
    s.n_post = 6;
    s.rule = (nrt_rule)99;
    compare(&s);                                   /* unknown rule */
    s.rule = NRT_ALL_TO_ALL;
    s.n_pre = INT32_MAX;
    s.n_post = INT32_MAX;
    compare(&s);                                   /* too large to address */
}

/* Empty targets and NaN p. */
static void empties(void)
{
    static const int64_t sz[3][2] = {{0, 0}, {0, 9}, {9, 0}};
    nrt_conn_spec s;
    int i, r;
    memset(&s, 0, sizeof s);
    s.seed = 3;
    for (i = 0; i < 3; i++)
        for (r = NRT_ALL_TO_ALL; r <= NRT_FIXED_INDEGREE; r++) {
            s.rule = (nrt_rule)r;
            s.n_pre = sz[i][0];
            s.n_post = sz[i][1];
            s.p = 0.5;
            s.k = 2;
            s.multapses = 1;
            compare(&s);
        }
    s.rule = NRT_FIXED_PROB;
    s.n_pre = s.n_post = 50;
    s.p = -0.5;
    compare(&s);
    s.p = NAN;
    compare(&s);
}

static double now(void)
{
    return nrt_now();
}

/* --bench: the column index of one build on the device (nrt_gpu_col_index) and on the
 * host (host_col_index, with the copy of the synapses to the host and of the index back that
 * the GPU back ends made before) */
static void bench_cols(const nrt_csr *h, const nrt_dcsr *d)
{
    const size_t np = (size_t)h->n_post + 1, nz = (size_t)(h->nnz > 0 ? h->nnz : 1);
    int64_t *rp = malloc(((size_t)h->n_pre + 1) * 8), *cp = malloc(np * 8), *cs = malloc(nz * 8);
    int32_t *col = malloc(nz * 4), *cr = malloc(nz * 4);
    nrt_dmem dp, ds, dr;
    nrt_csr hc = *h;
    double t0 = now(), t1, t2;
    if (nrt_gpu_col_index(&ctx, gpu, d, 0, "column index", &dp, &ds, &dr) != NRT_OK) {
        fprintf(stderr, "bench: %s\n", ctx.errmsg);
        return;
    }
    t1 = now();
    nrt_gpu_free(gpu, &dp);
    nrt_gpu_free(gpu, &ds);
    nrt_gpu_free(gpu, &dr);
    if (rp && cp && cs && col && cr && nrt_gpu_read(gpu, d->row_ptr, 0, rp, ((size_t)h->n_pre + 1) * 8) == NRT_OK &&
        (h->nnz == 0 || nrt_gpu_read(gpu, d->col, 0, col, (size_t)h->nnz * 4) == NRT_OK)) {
        hc.row_ptr = rp;
        hc.col = col;
        host_col_index(&hc, cp, cs, cr);
        if (nrt_gpu_alloc(gpu, &dp, np * 8, "bench") == NRT_OK && nrt_gpu_alloc(gpu, &ds, nz * 8, "bench") == NRT_OK &&
            nrt_gpu_alloc(gpu, &dr, nz * 4, "bench") == NRT_OK)
            (void)(nrt_gpu_write(gpu, dp, 0, cp, np * 8) == NRT_OK && nrt_gpu_write(gpu, ds, 0, cs, nz * 8) == NRT_OK &&
                   nrt_gpu_write(gpu, dr, 0, cr, nz * 4) == NRT_OK && nrt_gpu_sync(gpu) == NRT_OK);
        nrt_gpu_free(gpu, &dp);
        nrt_gpu_free(gpu, &ds);
        nrt_gpu_free(gpu, &dr);
    }
    t2 = now();
    printf("  column index: device %.3f s, host (with the copies) %.3f s\n", t1 - t0, t2 - t1);
    free(rp);
    free(cp);
    free(cs);
    free(col);
    free(cr);
}

static int bench(int64_t n, double p)
{
    nrt_conn_spec s;
    nrt_csr h;
    nrt_dcsr d;
    double t0, t1, t2;
    int r;
    memset(&s, 0, sizeof s);
    s.n_pre = s.n_post = n;
    s.p = p;
    s.k = (int64_t)((double)n * p);
    s.seed = 42;
    s.same_base = 1;
    for (r = 0; r < 2; r++) {
        nrt_status a, b;
        s.rule = r ? NRT_FIXED_INDEGREE : NRT_FIXED_PROB;
        t0 = now();
        a = nrt_gpu_conn_build(&ctx, gpu, &s, &d);
        t1 = now();
        b = nrt_conn_build(&ctx, &s, &h);
        t2 = now();
        if (a != NRT_OK || b != NRT_OK) {
            fprintf(stderr, "bench: %s\n", ctx.errmsg);
            return 1;
        }
        printf("%s %lld x %lld (%s %g): %lld synapses, device %.3f s, host %.3f s\n",
               rule_str(s.rule), (long long)n, (long long)n, r ? "k =" : "p =",
               r ? (double)s.k : p, (long long)h.nnz, t1 - t0, t2 - t1);
        bench_cols(&h, &d);
        compare(&s);
        nrt_csr_free(&h);
        nrt_gpu_dcsr_free(gpu, &d);
    }
    return tcheck_done("test_gpu_conn --bench");
}

int main(int argc, char **argv)
{
    static const int64_t sizes[][2] = {{1, 1}, {7, 7}, {1000, 1000}, {3000, 200}, {200, 3000}};
    static const uint64_t seeds[] = {1, (1ull << 40) + 5};
    const char *files[] = {"nrt_simt.h", "nrt_math.h", "nrt_math_d.h", "nrt_math_f.h", "nrt_philox.h",
                           "nrt_conn_dev.h"};
    const char *api_name = "OpenCL", *image = NULL;
    nrt_api api = NRT_API_OPENCL;
    char *src = NULL;
    size_t len = 0, f, z, e;
    int a, bench_at = 0;
    double t0;

    for (a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--cuda") == 0 && a + 1 < argc) {
            api = NRT_API_CUDA;
            api_name = "CUDA";
            image = argv[++a];
        } else if (strcmp(argv[a], "--bench") == 0) {
            bench_at = a;
            break;
        } else {
            fprintf(stderr, "usage: test_gpu_conn [--cuda IMAGE] [--bench [n [p]]]\n");
            return 2;
        }
    }
    ctx.device = -1;                      /* $NEUROC_DEVICE, else the first */
    if (nrt_gpu_count(&ctx, api) == 0) {
        printf("skipped: no %s device (%s)\n", api_name, ctx.errmsg);
        return 77;
    }
    if (nrt_gpu_open(&ctx, api, &gpu) != NRT_OK) {
        fprintf(stderr, "test_gpu_conn: %s\n", ctx.errmsg);
        return 1;
    }
    if (!nrt_gpu_get_info(gpu)->fp64) {
        printf("skipped: no %s device with double precision\n", api_name);
        nrt_gpu_close(gpu);
        return 77;
    }
    /* OpenCL: the headers' text; CUDA: the image nvcc made of them (conn_dev.cu) */
    if (!image) {
        static const char pasted[] = "#define NRT_MATH_PASTED 1\n";
        src = malloc(sizeof pasted);
        if (!src)
            return 1;
        memcpy(src, pasted, sizeof pasted - 1);
        len = sizeof pasted - 1;
    }
    for (f = 0; f < (image ? 1 : sizeof files / sizeof files[0]); f++)
        if (!append_file(&src, &len, image ? NULL : NRT_INCLUDE_DIR, image ? image : files[f]))
            return 1;
    t0 = now();
    if (nrt_gpu_load(gpu, src, image ? len - 1 : len, "") != NRT_OK) {
        fprintf(stderr, "test_gpu_conn: %s\n", ctx.errmsg);
        return 1;
    }
    free(src);
    fprintf(stderr, "device: %s; program loaded in %.2f s\n", nrt_gpu_get_info(gpu)->name,
            now() - t0);
    if (bench_at) {
        int rc = bench(bench_at + 1 < argc ? atoll(argv[bench_at + 1]) : 10000,
                       bench_at + 2 < argc ? atof(argv[bench_at + 2]) : 0.1);
        nrt_gpu_close(gpu);
        return rc;
    }

    t0 = now();
    errors();
    empties();
    /* both seeds (the second has high bits in its key) on the small sizes; a large size, where
     * the time goes, with one of them, alternating, so each seed meets a large one */
    for (z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
        for (e = 0; e < 2; e++) {
            nrt_conn_spec s;
            if (sizes[z][0] * sizes[z][1] > 10000 && e != (int)(z % 2))
                continue;
            memset(&s, 0, sizeof s);
            s.n_pre = sizes[z][0];
            s.n_post = sizes[z][1];
            s.seed = seeds[e];
            s.proj_id = (uint32_t)(z * 7 + e);
            each_view(&s, run_all);
            each_view(&s, run_prob);
            each_view(&s, run_indegree);
            each_view(&s, run_outdegree_total);
            if (s.n_pre == s.n_post)
                each_view(&s, run_one);
        }
    /* a hash-table rejection set (n_pre / 32 > 4 k) and a large proj_id */
    {
        nrt_conn_spec s;
        memset(&s, 0, sizeof s);
        s.rule = NRT_FIXED_INDEGREE;
        s.n_pre = 5000;
        s.n_post = 300;
        s.k = 20;
        s.seed = 77;
        s.proj_id = 0xFFFFFFu;
        each_view(&s, run_as_is);
        s.rule = NRT_FIXED_OUTDEGREE;
        s.n_pre = 300;
        s.n_post = 5000;
        each_view(&s, run_as_is);
    }
    fprintf(stderr, "%ld builds compared in %.2f s\n", ncases, now() - t0);
    nrt_gpu_close(gpu);
    return tcheck_done("test_gpu_conn");
}
