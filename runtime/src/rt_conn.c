/* rt_conn.c -- connectivity construction: a projection's synapses as CSR by presynaptic row.
 *
 * The draws are specified exactly (below) so that a GPU back end, which builds rows or
 * columns in parallel, produces the same synapses, in the same order, for the same seed.
 *
 * SPECIFICATION (every back end must follow it to the letter)
 *   key0   = nrt_seed_key(spec->seed)
 *   stream = (NRT_STREAM_CONNECT << 24) | (proj_id & 0xFFFFFF)
 *   draw   = nrt_rng(key0, stream, element, sub, 0, 0)      (step = site = 0 at load time)
 *   autapse(i, j) := !autapses && same_base && pre_offset + i == post_offset + j
 *
 *   ALL_TO_ALL      every pair (i, j), i < n_pre, j < n_post, except autapse(i, j).
 *   ONE_TO_ONE      n_pre must equal n_post (else NRT_EINVAL); synapse i -> i for every i
 *                   (the autapse flag does not apply: one_to_one asks for i -> i).
 *   FIXED_PROB      p >= 1: as ALL_TO_ALL.  p <= 0 (or NaN): no synapses.  Otherwise, for
 *                   every row i independently (geometric skips):
 *                       j = -1, c = 0
 *                       loop: x = draw(element = i, sub = c); c = c + 1
 *                             for u in (nrt_u01_53(x.v[0], x.v[1]),
 *                                       nrt_u01_53(x.v[2], x.v[3])):
 *                                 s = floor(nrt_log(u) / log1p(-p))      (double, >= 0)
 *                                 j = j + 1 + s;  if j >= n_post: row i is done
 *                                 else synapse (i, j) unless autapse(i, j)
 *                   Autapses are dropped after generation, never redrawn. The test
 *                   "s >= n_post => row done" is made before converting s to an integer, so
 *                   huge skips cannot overflow (the result is the same as with exact j).
 *                   nrt_log (nrt_math.h) is built from IEEE-754 +, -, *, / alone (no
 *                   contraction), so every back end gets the same bits; log1p(-p) is the C
 *                   library's, computed once on the host (GPU builds pass it to the kernels).
 *   FIXED_INDEGREE  for every post j (ascending): accepted = 0, r = 0
 *                       while accepted < k: x = draw(element = j, sub = r); r = r + 1
 *                           for w in x.v[0], x.v[1], x.v[2], x.v[3], stopping once
 *                           accepted == k:
 *                               pre = nrt_below(w, n_pre)
 *                               reject if autapse(pre, j), or if !multapses and pre was
 *                               already accepted for this j; else accept (pre, j)
 *                   k larger than the number of admissible pre neurons (n_pre, less one
 *                   when the autapse of j is excluded; any admissible one with multapses)
 *                   is NRT_EINVAL. The CSR is then built by a stable counting sort on pre,
 *                   visiting posts in ascending order, so each row's posts ascend and
 *                   repeated pairs (multapses) sit next to each other.
 *   FIXED_OUTDEGREE for every pre i: FIXED_INDEGREE with the roles swapped (draw element i,
 *                   partners post = nrt_below(w, n_post), reject autapse(i, post), and
 *                   repeats without multapses); then row i is sorted ascending.
 *   FIXED_TOTAL     multapses only; row by row, so that a procedural projection can
 *                   regenerate any row. a(i) = n_post less one when autapse(i, i + d) for a
 *                   post i + d in range (d = pre_offset - post_offset): row i's admissible
 *                   posts. First the row lengths, a multinomial split of k over the rows with
 *                   weights a(i), as conditional binomials (nrt_binomial, rt_binom.c):
 *                       left = k, A = sum of a(i)
 *                       for every row i (ascending): c(i) = nrt_binomial(key0, stream, i,
 *                           left, a(i) / A); left -= c(i); A -= a(i)
 *                   (nrt_conn_total_rows; the host computes them for every back end). Then
 *                   synapse r < c(i) of row i, in this order (rows are NOT sorted):
 *                       x = draw(element = i, sub = r / 4); w = x.v[r % 4]
 *                       post = nrt_below(w, a(i)), plus one when autapse(i, i + d) excludes
 *                       a post i + d <= post
 *                   so each synapse's pair is uniform over the admissible pairs, independently
 *                   (k < 2^32; with k > 0 and no admissible pair: NRT_EINVAL).
 *   PAIRS           row i is what spec->row(i, key0, out) writes: the generated program
 *                   visits row i's candidate posts in ascending order (all of POST, or the
 *                   lattice box around i for `within`) and keeps j when it is not an autapse
 *                   to drop, the rule's condition holds and, with a probability p(i, j),
 *                       x = draw(element = i, sub = j): nrt_u01_53(x.v[0], x.v[1]) <= p
 *                   (codegen/cg_conn.c, cg_conn_row). Each pair has its own draw, so rows
 *                   and pairs can be visited in any order. Two passes: count, then fill.
 *   Output: row_ptr (n_pre + 1 int64), col (nnz int32, post index local to the post target).
 *   The device build (rt_gpu_conn.c, kernels in nrt_conn_dev.h) follows the same text and
 *   shares nrt_conn_check, so both accept and reject the same specs with the same messages.
 */
#include "rt_internal.h"
#include "nrt_philox.h"
#include "nrt_math.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *rule_name(nrt_rule r)
{
    switch (r) {
    case NRT_ALL_TO_ALL: return "all_to_all";
    case NRT_ONE_TO_ONE: return "one_to_one";
    case NRT_FIXED_PROB: return "fixed_prob";
    case NRT_FIXED_INDEGREE: return "fixed_indegree";
    case NRT_FIXED_OUTDEGREE: return "fixed_outdegree";
    case NRT_FIXED_TOTAL: return "fixed_total";
    case NRT_PAIRS: return "pairs";
    }
    return "?";
}

static int is_autapse(const nrt_conn_spec *s, int64_t i, int64_t j)
{
    return !s->autapses && s->same_base && s->pre_offset + i == s->post_offset + j;
}

/* Allocate row_ptr (zeroed) and col (cap entries). */
static nrt_status csr_alloc(nrt_ctx *ctx, nrt_csr *out, int64_t n_pre, int64_t cap)
{
    out->row_ptr = nrt_alloc(ctx, (size_t)(n_pre + 1) * sizeof *out->row_ptr,
                             "connectivity row pointers");
    if (!out->row_ptr)
        return NRT_ENOMEM;
    out->col = nrt_alloc(ctx, (size_t)cap * sizeof *out->col, "connectivity columns");
    if (!out->col) {
        nrt_csr_free(out);
        return NRT_ENOMEM;
    }
    return NRT_OK;
}

static nrt_status build_all(nrt_ctx *ctx, const nrt_conn_spec *s, nrt_csr *out)
{
    int64_t i, j, nnz = 0, cap;
    cap = s->n_pre * s->n_post;
    if (csr_alloc(ctx, out, s->n_pre, cap) != NRT_OK)
        return NRT_ENOMEM;
    for (i = 0; i < s->n_pre; i++) {
        out->row_ptr[i] = nnz;
        for (j = 0; j < s->n_post; j++)
            if (!is_autapse(s, i, j))
                out->col[nnz++] = (int32_t)j;
    }
    out->row_ptr[s->n_pre] = nnz;
    out->nnz = nnz;
    return NRT_OK;
}

static nrt_status build_one(nrt_ctx *ctx, const nrt_conn_spec *s, nrt_csr *out)
{
    int64_t i;
    if (csr_alloc(ctx, out, s->n_pre, s->n_pre) != NRT_OK)
        return NRT_ENOMEM;
    for (i = 0; i < s->n_pre; i++) {
        out->row_ptr[i] = i;
        out->col[i] = (int32_t)i;
    }
    out->row_ptr[s->n_pre] = s->n_pre;
    out->nnz = s->n_pre;
    return NRT_OK;
}

/* nrt_log's fma() as one instruction where the CPU has FMA (the clone is picked when the
 * program loads, by an ifunc resolver: not under AddressSanitizer, whose run-time may not be
 * up yet), a libm call elsewhere: the same bits either way */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__) && \
    !defined(__SANITIZE_ADDRESS__)
#define NRT_FMA_CLONES __attribute__((target_clones("fma", "default")))
#else
#define NRT_FMA_CLONES
#endif

/* fixed_prob's row i (geometric skips drawn from the row's own stream, so rows are
 * independent): its columns into col (NULL: only counted); returns their count. Always
 * inlined, so that it takes its caller's clone (fma as one instruction, not a libm call). */
static inline __attribute__((always_inline)) int64_t prob_row(const nrt_conn_spec *s, uint32_t key0, uint32_t stream, double lq, int64_t i,
                               int32_t *col)
{
    const double np = (double)s->n_post;
    int64_t j = -1, n = 0;
    for (uint32_t c = 0;; c++) {
        nrt_u32x4 x = nrt_rng(key0, stream, (uint32_t)i, c, 0, 0);
        for (int h = 0; h < 2; h++) {
            double u = nrt_u01_53(x.v[2 * h], x.v[2 * h + 1]);
            double skip = floor(nrt_log(u) / lq);
            if (skip >= np)
                return n;
            j += 1 + (int64_t)skip;
            if (j >= s->n_post)
                return n;
            if (is_autapse(s, i, j))
                continue;
            if (col)
                col[n] = (int32_t)j;
            n++;
        }
    }
}

/* fixed_prob on the threads of a C simulator's pool (rt_pool.c), in rounds of rows: thread t
 * draws its share [a + B t / T, a + B (t + 1) / T) of the round's B rows into its own buffer
 * (their lengths into row_ptr[i + 1]), then the calling thread appends the buffers in thread
 * order, which is row order. The columns are those of the one-thread build, bit for bit, in
 * the same array; a buffer holds about 2^20 synapses, or a row's n_post at least. */
enum { PROB_ROUND = 1 << 20 };

typedef struct prob_buf {
    int32_t *col;
    int64_t n, cap;
    int failed;                   /* out of memory: the build fails */
} prob_buf;

typedef struct prob_job {
    const nrt_conn_spec *s;
    uint32_t key0, stream;
    double lq;
    int64_t *row_ptr;
    int64_t a, b;                 /* this round's rows */
    prob_buf buf[NRT_MAX_THREADS];
} prob_job;

NRT_FMA_CLONES static void prob_part(void *arg, int t, int T)
{
    prob_job *jb = arg;
    prob_buf *pb = &jb->buf[t];
    const int64_t len = jb->b - jb->a, lo = jb->a + len * t / T, hi = jb->a + len * (t + 1) / T;
    pb->n = 0;
    for (int64_t i = lo; i < hi && !pb->failed; i++) {
        if (pb->cap - pb->n < jb->s->n_post) {   /* room for the longest row */
            int64_t ncap = pb->n + jb->s->n_post + (pb->n + jb->s->n_post) / 2 + 1024;
            int32_t *nc = realloc(pb->col, (size_t)ncap * sizeof *nc);
            if (!nc) {
                pb->failed = 1;
                break;
            }
            pb->col = nc;
            pb->cap = ncap;
        }
        const int64_t n = prob_row(jb->s, jb->key0, jb->stream, jb->lq, i, pb->col + pb->n);
        pb->n += n;
        jb->row_ptr[i + 1] = n;
    }
}

/* The calling thread's part of a round: the buffers appended to out (col grown as needed). */
static nrt_status prob_append(nrt_ctx *ctx, prob_job *jb, int T, nrt_csr *out, int64_t *cap)
{
    for (int t = 0; t < T; t++) {
        const prob_buf *pb = &jb->buf[t];
        if (pb->failed) {
            nrt_seterr(ctx, "out of memory drawing connectivity rows on thread %d", t);
            return NRT_ENOMEM;
        }
        if (out->nnz + pb->n > *cap) {
            int64_t ncap = out->nnz + pb->n + (out->nnz + pb->n) / 2 + 1024;
            int32_t *nc;
            if (ncap > jb->s->n_pre * jb->s->n_post)
                ncap = jb->s->n_pre * jb->s->n_post;
            nc = realloc(out->col, (size_t)ncap * sizeof *nc);
            if (!nc) {
                nrt_seterr(ctx, "out of memory allocating connectivity columns (%zu bytes)",
                           (size_t)ncap * sizeof *nc);
                return NRT_ENOMEM;
            }
            out->col = nc;
            *cap = ncap;
        }
        memcpy(out->col + out->nnz, pb->col, (size_t)pb->n * sizeof *pb->col);
        out->nnz += pb->n;
    }
    for (int64_t i = jb->a; i < jb->b; i++)   /* lengths to pointers */
        out->row_ptr[i + 1] += out->row_ptr[i];
    return NRT_OK;
}

static nrt_status build_prob_par(nrt_ctx *ctx, prob_job *jb, nrt_csr *out, int64_t cap)
{
    const int T = nrt_pool_size();
    const double per_row = (double)jb->s->n_post * jb->s->p + 1;
    const int64_t rows = (int64_t)((double)T * PROB_ROUND / per_row) + 1;
    nrt_status st = NRT_OK;
    jb->row_ptr = out->row_ptr;
    out->row_ptr[0] = 0;
    out->nnz = 0;
    for (int64_t a = 0; a < jb->s->n_pre && st == NRT_OK; a += rows) {
        jb->a = a;
        jb->b = a + rows < jb->s->n_pre ? a + rows : jb->s->n_pre;
        nrt_pool_run(prob_part, jb, (double)(jb->b - jb->a) * per_row);
        st = prob_append(ctx, jb, T, out, &cap);
    }
    for (int t = 0; t < T; t++)
        free(jb->buf[t].col);
    if (st != NRT_OK)
        nrt_csr_free(out);
    return st;
}

NRT_FMA_CLONES static nrt_status build_prob(nrt_ctx *ctx, const nrt_conn_spec *s, nrt_csr *out)
{
    const uint32_t key0 = nrt_seed_key(s->seed);
    const uint32_t stream = (NRT_STREAM_CONNECT << 24) | (s->proj_id & 0xFFFFFFu);
    const double lq = log1p(-s->p), np = (double)s->n_post;
    double mean = (double)s->n_pre * np * s->p;
    int64_t cap, nnz = 0, i;
    cap = (int64_t)(mean + 6.0 * sqrt(mean) + 16.0);
    if (cap > s->n_pre * s->n_post)
        cap = s->n_pre * s->n_post;
    if (csr_alloc(ctx, out, s->n_pre, cap) != NRT_OK)
        return NRT_ENOMEM;
    if (nrt_pool_size() > 1) {
        static prob_job jb;   /* the buffers' table (the pool is one per process) */
        memset(&jb, 0, sizeof jb);
        jb.s = s, jb.key0 = key0, jb.stream = stream, jb.lq = lq;
        return build_prob_par(ctx, &jb, out, cap);
    }
    for (i = 0; i < s->n_pre; i++) {
        int64_t j = -1;
        uint32_t c = 0;
        int done = 0;
        out->row_ptr[i] = nnz;
        while (!done) {
            nrt_u32x4 x = nrt_rng(key0, stream, (uint32_t)i, c, 0, 0);
            int h;
            c++;
            for (h = 0; h < 2 && !done; h++) {
                double u = nrt_u01_53(x.v[2 * h], x.v[2 * h + 1]);
                double skip = floor(nrt_log(u) / lq);
                if (skip >= np) {
                    done = 1;
                    break;
                }
                j += 1 + (int64_t)skip;
                if (j >= s->n_post) {
                    done = 1;
                    break;
                }
                if (is_autapse(s, i, j))
                    continue;
                if (nnz == cap) {
                    int64_t ncap = cap + cap / 2 + 1024;
                    int32_t *nc;
                    if (ncap > s->n_pre * s->n_post)
                        ncap = s->n_pre * s->n_post;
                    nc = realloc(out->col, (size_t)ncap * sizeof *nc);
                    if (!nc) {
                        nrt_seterr(ctx, "out of memory allocating connectivity columns "
                                   "(%zu bytes)", (size_t)ncap * sizeof *nc);
                        nrt_csr_free(out);
                        return NRT_ENOMEM;
                    }
                    out->col = nc;
                    cap = ncap;
                }
                out->col[nnz++] = (int32_t)j;
            }
        }
    }
    out->row_ptr[s->n_pre] = nnz;
    out->nnz = nnz;
    return NRT_OK;
}

static nrt_status build_indegree(nrt_ctx *ctx, const nrt_conn_spec *s, nrt_csr *out)
{
    const uint32_t key0 = nrt_seed_key(s->seed);
    const uint32_t stream = (NRT_STREAM_CONNECT << 24) | (s->proj_id & 0xFFFFFFu);
    const int64_t k = s->k, npre = s->n_pre, npost = s->n_post;
    int32_t *pres = NULL, *mark = NULL;
    int64_t *pos = NULL, j, i, total;

    total = k * npost;
    pres = nrt_alloc(ctx, (size_t)total * sizeof *pres, "fixed_indegree partner lists");
    mark = nrt_alloc(ctx, (size_t)npre * sizeof *mark, "fixed_indegree marks");
    if (!pres || !mark) {
        nrt_free(pres);
        nrt_free(mark);
        return NRT_ENOMEM;
    }
    /* mark[pre] == j + 1 when pre was accepted for post j */
    for (j = 0; j < npost; j++) {
        int32_t *mine = pres + j * k;
        int64_t acc = 0;
        uint32_t r = 0;
        while (acc < k) {
            nrt_u32x4 x = nrt_rng(key0, stream, (uint32_t)j, r, 0, 0);
            int h;
            r++;
            for (h = 0; h < 4 && acc < k; h++) {
                int64_t pre = nrt_below(x.v[h], (uint32_t)npre);
                if (is_autapse(s, pre, j))
                    continue;
                if (!s->multapses) {
                    if (mark[pre] == (int32_t)(j + 1))
                        continue;
                    mark[pre] = (int32_t)(j + 1);
                }
                mine[acc++] = (int32_t)pre;
            }
        }
    }
    nrt_free(mark);
    if (csr_alloc(ctx, out, npre, total) != NRT_OK) {
        nrt_free(pres);
        return NRT_ENOMEM;
    }
    pos = nrt_alloc(ctx, (size_t)(npre + 1) * sizeof *pos, "connectivity row cursors");
    if (!pos) {
        nrt_free(pres);
        nrt_csr_free(out);
        return NRT_ENOMEM;
    }
    /* stable counting sort by pre, posts visited in ascending order */
    for (i = 0; i < total; i++)
        out->row_ptr[pres[i] + 1]++;
    for (i = 0; i < npre; i++)
        out->row_ptr[i + 1] += out->row_ptr[i];
    memcpy(pos, out->row_ptr, (size_t)(npre + 1) * sizeof *pos);
    for (j = 0; j < npost; j++)
        for (i = 0; i < k; i++)
            out->col[pos[pres[j * k + i]]++] = (int32_t)j;
    nrt_free(pos);
    nrt_free(pres);
    out->nnz = total;
    return NRT_OK;
}

static int cmp_i32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static nrt_status build_outdegree(nrt_ctx *ctx, const nrt_conn_spec *s, nrt_csr *out)
{
    const uint32_t key0 = nrt_seed_key(s->seed);
    const uint32_t stream = (NRT_STREAM_CONNECT << 24) | (s->proj_id & 0xFFFFFFu);
    const int64_t k = s->k, npre = s->n_pre, npost = s->n_post;
    int32_t *mark = NULL;
    int64_t i;
    if (csr_alloc(ctx, out, npre, k * npre) != NRT_OK)
        return NRT_ENOMEM;
    mark = nrt_alloc(ctx, (size_t)(npost > 0 ? npost : 1) * sizeof *mark,
                     "fixed_outdegree marks");
    if (!mark)
        return NRT_ENOMEM;
    /* mark[post] == i + 1 when post was accepted for pre i */
    for (i = 0; i < npre; i++) {
        int32_t *mine = out->col + i * k;
        int64_t acc = 0;
        uint32_t r = 0;
        out->row_ptr[i] = i * k;
        while (acc < k) {
            nrt_u32x4 x = nrt_rng(key0, stream, (uint32_t)i, r, 0, 0);
            int h;
            r++;
            for (h = 0; h < 4 && acc < k; h++) {
                int64_t post = nrt_below(x.v[h], (uint32_t)npost);
                if (is_autapse(s, i, post))
                    continue;
                if (!s->multapses) {
                    if (mark[post] == (int32_t)(i + 1))
                        continue;
                    mark[post] = (int32_t)(i + 1);
                }
                mine[acc++] = (int32_t)post;
            }
        }
        qsort(mine, (size_t)k, sizeof *mine, cmp_i32);
    }
    nrt_free(mark);
    out->row_ptr[npre] = k * npre;
    out->nnz = k * npre;
    return NRT_OK;
}

/* Row i's admissible posts (FIXED_TOTAL): n_post, less its autapse's post *js when that is
 * excluded and in range (*js = -1 otherwise). */
static int64_t total_adm(const nrt_conn_spec *s, int64_t i, int64_t *js)
{
    const int64_t self = i + s->pre_offset - s->post_offset;
    *js = !s->autapses && s->same_base && self >= 0 && self < s->n_post ? self : -1;
    return s->n_post - (*js >= 0);
}

static void total_rows(const nrt_conn_spec *s, int64_t *row_ptr)
{
    const uint32_t key0 = nrt_seed_key(s->seed);
    const uint32_t stream = (NRT_STREAM_CONNECT << 24) | (s->proj_id & 0xFFFFFFu);
    int64_t i, js, left = s->k, adm = 0;
    for (i = 0; i < s->n_pre; i++)
        adm += total_adm(s, i, &js);
    row_ptr[0] = 0;
    for (i = 0; i < s->n_pre; i++) {
        const int64_t a = total_adm(s, i, &js);
        const int64_t c = a > 0 ? nrt_binomial(key0, stream, (uint32_t)i, left, (double)a / (double)adm)
                                : 0;
        row_ptr[i + 1] = row_ptr[i] + c;
        left -= c;
        adm -= a;
    }
}

/* Contract (neurort.h). */
nrt_status nrt_conn_total_rows(nrt_ctx *ctx, const nrt_conn_spec *spec, int64_t *row_ptr)
{
    nrt_status st;
    if (!spec || !row_ptr || spec->rule != NRT_FIXED_TOTAL) {
        nrt_seterr(ctx, "nrt_conn_total_rows: NULL argument or not a fixed_total spec");
        return NRT_EINVAL;
    }
    st = nrt_conn_check(ctx, spec);
    if (st == NRT_OK)
        total_rows(spec, row_ptr);
    return st;
}

/* fixed_total's columns of the rows [lo, hi), once row_ptr is known: each row's from its own
 * stream, so rows may be filled in any order, on any thread. */
typedef struct total_job {
    const nrt_conn_spec *s;
    nrt_csr *out;
} total_job;

static void total_fill(void *arg, int t, int T)
{
    const total_job *jb = arg;
    const nrt_conn_spec *s = jb->s;
    const uint32_t key0 = nrt_seed_key(s->seed);
    const uint32_t stream = (NRT_STREAM_CONNECT << 24) | (s->proj_id & 0xFFFFFFu);
    const int64_t lo = s->n_pre * t / T, hi = s->n_pre * (t + 1) / T;
    for (int64_t i = lo, js; i < hi; i++) {
        const int64_t a = total_adm(s, i, &js), n = jb->out->row_ptr[i + 1] - jb->out->row_ptr[i];
        int32_t *row = jb->out->col + jb->out->row_ptr[i];
        nrt_u32x4 x = {{0, 0, 0, 0}};
        for (int64_t r = 0; r < n; r++) {
            int64_t post;
            if ((r & 3) == 0)
                x = nrt_rng(key0, stream, (uint32_t)i, (uint32_t)(r >> 2), 0, 0);
            post = nrt_below(x.v[r & 3], (uint32_t)a);
            row[r] = (int32_t)(post + (js >= 0 && post >= js));
        }
    }
}

static nrt_status build_total(nrt_ctx *ctx, const nrt_conn_spec *s, nrt_csr *out)
{
    total_job jb = {s, out};
    if (csr_alloc(ctx, out, s->n_pre, s->k > 0 ? s->k : 1) != NRT_OK)
        return NRT_ENOMEM;
    total_rows(s, out->row_ptr);
    if (nrt_pool_size() > 1)   /* a C simulator's pool (rt_pool.c): row ranges */
        nrt_pool_run(total_fill, &jb, (double)s->k);
    else
        total_fill(&jb, 0, 1);
    out->nnz = s->k;
    return NRT_OK;
}

/* PAIRS: a count pass over the rows, then a fill pass. */
static nrt_status build_pairs(nrt_ctx *ctx, const nrt_conn_spec *s, nrt_csr *out)
{
    const uint32_t key0 = nrt_seed_key(s->seed);
    int64_t i;
    out->row_ptr = nrt_alloc(ctx, (size_t)(s->n_pre + 1) * sizeof *out->row_ptr,
                             "connectivity row pointers");
    if (!out->row_ptr)
        return NRT_ENOMEM;
    for (i = 0; i < s->n_pre; i++)
        out->row_ptr[i + 1] = out->row_ptr[i] + s->row(i, key0, NULL);
    out->nnz = out->row_ptr[s->n_pre];
    out->col = nrt_alloc(ctx, (size_t)(out->nnz > 0 ? out->nnz : 1) * sizeof *out->col,
                         "connectivity columns");
    if (!out->col)
        return NRT_ENOMEM;
    for (i = 0; i < s->n_pre; i++)
        (void)s->row(i, key0, out->col + out->row_ptr[i]);
    return NRT_OK;
}

/* Contract (neurort.h). PAIRS: rows counted exactly when n_pre <= 4096, else 4096 rows
 * evenly spread, scaled to n_pre. */
double nrt_conn_bytes(const nrt_conn_spec *s, double syn_bytes, double *nnz)
{
    const double np = (double)s->n_pre, nq = (double)s->n_post;
    double n = 0;
    switch (s->rule) {
    case NRT_ALL_TO_ALL: n = np * nq; break;
    case NRT_ONE_TO_ONE: n = np; break;
    case NRT_FIXED_PROB: n = np * nq * (s->p > 1 ? 1 : s->p > 0 ? s->p : 0); break;
    case NRT_FIXED_INDEGREE: n = nq * (double)s->k; break;
    case NRT_FIXED_OUTDEGREE: n = np * (double)s->k; break;
    case NRT_FIXED_TOTAL: n = (double)s->k; break;
    case NRT_PAIRS: {
        const uint32_t key0 = nrt_seed_key(s->seed);
        const int64_t rows = s->n_pre <= 4096 ? s->n_pre : 4096;
        int64_t r;
        for (r = 0; r < rows && s->row; r++)
            n += (double)s->row(rows == s->n_pre ? r : (int64_t)((double)r * np / 4096.0), key0,
                                NULL);
        if (rows > 0)
            n *= np / (double)rows;
        break;
    }
    }
    if (nnz)
        *nnz = n;
    return (np + 1) * 8.0 + n * (4.0 + syn_bytes);
}

/* Contract (rt_internal.h): the checks made before anything is built, shared by
 * nrt_conn_build and nrt_gpu_conn_build. NRT_EINVAL with errmsg for bad sizes (negative or
 * above INT32_MAX), an unknown rule, a one_to_one size mismatch, a negative or unsatisfiable
 * fixed_indegree k; NRT_ENOMEM with errmsg when the synapse count cannot be addressed (an
 * all_to_all, or fixed_prob with p >= 1, above 2^61; fixed_indegree k * n_post above
 * 2^60). NRT_OK when the spec can be built. */
nrt_status nrt_conn_check(nrt_ctx *ctx, const nrt_conn_spec *s)
{
    const int64_t k = s->k, npre = s->n_pre, npost = s->n_post;
    int64_t j;
    if (npre < 0 || npost < 0 || npost > INT32_MAX || npre > INT32_MAX) {
        nrt_seterr(ctx, "%s projection %u: invalid sizes %lld pre x %lld post (each must be "
                   "0..%d)", rule_name(s->rule), (unsigned)s->proj_id, (long long)npre,
                   (long long)npost, INT32_MAX);
        return NRT_EINVAL;
    }
    switch (s->rule) {
    case NRT_ALL_TO_ALL:
    case NRT_FIXED_PROB:
        if ((s->rule == NRT_ALL_TO_ALL || s->p >= 1.0) && npost > 0 &&
            npre > (INT64_MAX / 4) / npost) {
            nrt_seterr(ctx, "all_to_all projection of %lld x %lld synapses is too large",
                       (long long)npre, (long long)npost);
            return NRT_ENOMEM;
        }
        return NRT_OK;
    case NRT_ONE_TO_ONE:
        if (npre != npost) {
            nrt_seterr(ctx, "one_to_one projection %u needs equal sizes, got %lld pre and "
                       "%lld post neurons", (unsigned)s->proj_id, (long long)npre,
                       (long long)npost);
            return NRT_EINVAL;
        }
        return NRT_OK;
    case NRT_FIXED_INDEGREE:
        if (k < 0) {
            nrt_seterr(ctx, "fixed_indegree projection %u: k = %lld is negative",
                       (unsigned)s->proj_id, (long long)k);
            return NRT_EINVAL;
        }
        if (k == 0 || npost == 0)
            return NRT_OK;
        if (npre > 0 && k > INT64_MAX / 8 / npost) {
            nrt_seterr(ctx, "fixed_indegree projection %u of %lld x %lld synapses is too "
                       "large", (unsigned)s->proj_id, (long long)npost, (long long)k);
            return NRT_ENOMEM;
        }
        for (j = 0; j < npost; j++) {
            /* admissible pre neurons for post j */
            int64_t self = s->post_offset + j - s->pre_offset;
            int64_t avail = npre - ((!s->autapses && s->same_base && self >= 0 &&
                                     self < npre) ? 1 : 0);
            if (avail == 0 || (!s->multapses && k > avail)) {
                nrt_seterr(ctx, "fixed_indegree projection %u: cannot give post neuron %lld "
                           "k = %lld partners: only %lld admissible pre neuron%s (of %lld)%s",
                           (unsigned)s->proj_id, (long long)j, (long long)k, (long long)avail,
                           avail == 1 ? "" : "s", (long long)npre,
                           s->multapses ? "" : " and multapses are off");
                return NRT_EINVAL;
            }
        }
        return NRT_OK;
    case NRT_FIXED_OUTDEGREE: {
        nrt_conn_spec t = *s;     /* the in-degree check with the roles swapped */
        t.rule = NRT_FIXED_INDEGREE;
        t.n_pre = npost;
        t.n_post = npre;
        t.pre_offset = s->post_offset;
        t.post_offset = s->pre_offset;
        if (nrt_conn_check(ctx, &t) == NRT_OK)
            return NRT_OK;
        nrt_seterr(ctx, "fixed_outdegree projection %u: cannot give every pre neuron k = %lld "
                   "distinct admissible partners among %lld post neurons", (unsigned)s->proj_id,
                   (long long)k, (long long)npost);
        return NRT_EINVAL;
    }
    case NRT_FIXED_TOTAL:
        if (k < 0 || k > (int64_t)UINT32_MAX) {
            nrt_seterr(ctx, "fixed_total projection %u: %lld synapses (0 .. %lu)",
                       (unsigned)s->proj_id, (long long)k, (unsigned long)UINT32_MAX);
            return NRT_EINVAL;
        }
        if (k > 0 && (npre == 0 || npost == 0 ||
                      (npre == 1 && npost == 1 && is_autapse(s, 0, 0)))) {
            nrt_seterr(ctx, "fixed_total projection %u: no admissible pair for %lld synapses",
                       (unsigned)s->proj_id, (long long)k);
            return NRT_EINVAL;
        }
        return NRT_OK;
    case NRT_PAIRS:
        return NRT_OK;
    }
    nrt_seterr(ctx, "projection %u: unknown connection rule %d", (unsigned)s->proj_id,
               (int)s->rule);
    return NRT_EINVAL;
}

/* Contract: builds the synapses of *spec into *out (see the specification at the top of
 * this file); out is overwritten (not freed first). NRT_EINVAL with errmsg for bad sizes
 * (negative or above INT32_MAX), an unknown rule, a one_to_one size
 * mismatch or an unsatisfiable fixed_indegree k; NRT_ENOMEM with errmsg naming the array
 * and bytes. On error *out is left empty (all zero). */
nrt_status nrt_conn_build(nrt_ctx *ctx, const nrt_conn_spec *spec, nrt_csr *out)
{
    nrt_conn_spec s;
    nrt_status st;
    if (!spec || !out) {
        nrt_seterr(ctx, "nrt_conn_build: NULL argument");
        return NRT_EINVAL;
    }
    nrt_fault_build(ctx); /* $NEUROC_FAULT_BUILD_SIGNAL */
    memset(out, 0, sizeof *out);
    s = *spec;
    st = nrt_conn_check(ctx, &s);
    if (st != NRT_OK)
        return st;
    out->n_pre = s.n_pre;
    out->n_post = s.n_post;
    switch (s.rule) {
    case NRT_ALL_TO_ALL:
        st = build_all(ctx, &s, out);
        break;
    case NRT_ONE_TO_ONE:
        st = build_one(ctx, &s, out);
        break;
    case NRT_FIXED_PROB:
        if (s.p >= 1.0)
            st = build_all(ctx, &s, out);
        else if (!(s.p > 0.0) || s.n_pre == 0 || s.n_post == 0)
            st = csr_alloc(ctx, out, s.n_pre, 0);
        else
            st = build_prob(ctx, &s, out);
        break;
    case NRT_FIXED_INDEGREE:
        st = build_indegree(ctx, &s, out);
        break;
    case NRT_FIXED_OUTDEGREE:
        st = build_outdegree(ctx, &s, out);
        break;
    case NRT_FIXED_TOTAL:
        st = build_total(ctx, &s, out);
        break;
    case NRT_PAIRS:
        if (!s.row) {
            nrt_seterr(ctx, "projection %u: no row function for its pairs", (unsigned)s.proj_id);
            st = NRT_EINVAL;
        } else {
            st = build_pairs(ctx, &s, out);
        }
        break;
    default:
        st = NRT_EINVAL;           /* unreachable: nrt_conn_check rejects unknown rules */
    }
    if (st != NRT_OK) {
        nrt_csr_free(out);
        return st;
    }
    out->n_pre = s.n_pre;
    out->n_post = s.n_post;
    return NRT_OK;
}

/* ---- the column index (nrt_col_index) ----
 * A stable counting sort of the synapses by column. Scattering 10^8 synapses straight to
 * their columns writes all over two arrays of nnz entries: a cache and TLB miss per write.
 * So, where there are many synapses, in two passes: first into buckets of consecutive
 * columns, each bucket's part of csyn / cpre being exactly where its synapses end up
 * (writes go to one place per bucket, in order); then every bucket is copied out and
 * scattered to its columns within its own part (about COL_BUCKET entries: in cache). Each
 * pass keeps the order of synapse indices, so the result is that of the one-pass sort. In
 * the first pass cpre holds the row and the column within the bucket, packed. */

#define COL_BUCKET ((int64_t)1 << 17)    /* synapses per bucket, on average */
#define COL_SCRATCH ((int64_t)1 << 22)   /* the most synapses a bucket may hold */

/* The one-pass sort: cptr[j] + rank into columns, fill (n_post) the cursors. */
static void col_direct(const nrt_csr *c, const int64_t *cptr, int64_t *fill, int64_t *csyn,
                       int64_t *cpre)
{
    int64_t i, s;
    memcpy(fill, cptr, (size_t)c->n_post * sizeof *fill);
    for (i = 0; i < c->n_pre; i++)
        for (s = c->row_ptr[i]; s < c->row_ptr[i + 1]; s++) {
            const int64_t q = fill[c->col[s]]++;
            csyn[q] = s;
            cpre[q] = i;
        }
}

/* The two passes, buckets of cb columns (nb of them), scratch: space for the largest. */
static void col_buckets(const nrt_csr *c, const int64_t *cptr, int64_t *fill, int64_t cb,
                        int64_t nb, int64_t *scratch, int64_t *csyn, int64_t *cpre)
{
    int64_t i, s, b, t;
    for (b = 0; b < nb; b++)
        fill[b] = cptr[b * cb];
    for (i = 0; i < c->n_pre; i++)
        for (s = c->row_ptr[i]; s < c->row_ptr[i + 1]; s++) {
            const int64_t j = c->col[s], q = fill[j / cb]++;
            csyn[q] = s;
            cpre[q] = (int64_t)((uint64_t)i << 32 | (uint64_t)(j % cb));
        }
    for (b = 0; b < nb; b++) {
        const int64_t j0 = b * cb, j1 = j0 + cb < c->n_post ? j0 + cb : c->n_post;
        const int64_t lo = cptr[j0], n = cptr[j1] - lo;
        memcpy(scratch, csyn + lo, (size_t)n * sizeof *scratch);
        memcpy(scratch + n, cpre + lo, (size_t)n * sizeof *scratch);
        memcpy(fill, cptr + j0, (size_t)(j1 - j0) * sizeof *fill);
        for (t = 0; t < n; t++) {
            const uint64_t packed = (uint64_t)scratch[n + t];
            const int64_t q = fill[packed & 0xFFFFFFFFu]++;
            csyn[q] = scratch[t];
            cpre[q] = (int64_t)(packed >> 32);
        }
    }
}

/* Contract: see neurort.h. */
nrt_status nrt_col_index(nrt_ctx *ctx, const nrt_csr *c, int64_t *cptr, int64_t *csyn, int64_t *cpre)
{
    const int64_t np = c->n_post;
    int64_t nb = c->nnz / COL_BUCKET, cb, most = 0, b, s, q;
    int64_t *fill, *scratch = NULL;
    memset(cptr, 0, (size_t)(np + 1) * sizeof *cptr);
    for (s = 0; s < c->nnz; s++)
        cptr[c->col[s] + 1]++;
    for (q = 0; q < np; q++)
        cptr[q + 1] += cptr[q];
    if (nb > np)
        nb = np;
    if (nb < 1)
        nb = 1;
    cb = (np + nb - 1) / (nb > 0 ? nb : 1);
    if (cb < 1)
        cb = 1;
    nb = (np + cb - 1) / cb;
    for (b = 0; b < nb && nb > 1; b++) {
        const int64_t j1 = (b + 1) * cb < np ? (b + 1) * cb : np;
        if (cptr[j1] - cptr[b * cb] > most)
            most = cptr[j1] - cptr[b * cb];
    }
    fill = nrt_alloc(ctx, (size_t)(np > 0 ? np : 1) * sizeof *fill, "column index cursors");
    if (!fill)
        return NRT_ENOMEM;
    /* one pass where there is one bucket, or a bucket too large for the scratch (a column
     * holding most synapses) */
    if (nb > 1 && most <= COL_SCRATCH)
        scratch = malloc((size_t)(2 * most > 0 ? 2 * most : 1) * sizeof *scratch);
    if (scratch)
        col_buckets(c, cptr, fill, cb, nb, scratch, csyn, cpre);
    else
        col_direct(c, cptr, fill, csyn, cpre);
    free(scratch);
    nrt_free(fill);
    return NRT_OK;
}

/* Contract: frees row_ptr and col and zeroes *c; NULL and already-freed CSRs are fine. */
void nrt_csr_free(nrt_csr *c)
{
    if (!c)
        return;
    nrt_free(c->row_ptr);
    nrt_free(c->col);
    memset(c, 0, sizeof *c);
}
