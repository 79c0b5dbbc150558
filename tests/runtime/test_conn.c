/* test_conn.c -- connectivity construction: determinism, all_to_all and one_to_one counts,
 * fixed_prob statistics (2000 x 2000, p = 0.02), fixed_indegree degrees, duplicates and
 * autapses, CSR invariants, errors for impossible requests, and the column index
 * (nrt_col_index) against the one-pass counting sort.
 */
#include "neurort.h"
#include "nrt_philox.h"
#include "tcheck.h"

#include <stdlib.h>
#include <string.h>

static nrt_ctx ctx;

/* row_ptr monotone from 0 to nnz, cols in range and non-decreasing within each row (strict:
 * increasing; -1: in any order, fixed_total's draw order) */
static int csr_ok(const nrt_csr *c, int strict)
{
    int64_t i, s;
    if (c->row_ptr[0] != 0 || c->row_ptr[c->n_pre] != c->nnz)
        return 0;
    for (i = 0; i < c->n_pre; i++) {
        if (c->row_ptr[i + 1] < c->row_ptr[i])
            return 0;
        for (s = c->row_ptr[i]; s < c->row_ptr[i + 1]; s++) {
            if (c->col[s] < 0 || c->col[s] >= c->n_post)
                return 0;
            if (strict >= 0 && s > c->row_ptr[i] && (strict ? c->col[s] <= c->col[s - 1]
                                             : c->col[s] < c->col[s - 1]))
                return 0;
        }
    }
    return 1;
}

static int same_csr(const nrt_csr *a, const nrt_csr *b)
{
    return a->nnz == b->nnz && a->n_pre == b->n_pre &&
           memcmp(a->row_ptr, b->row_ptr, (size_t)(a->n_pre + 1) * 8) == 0 &&
           memcmp(a->col, b->col, (size_t)a->nnz * 4) == 0;
}

static int64_t count_autapses(const nrt_csr *c, const nrt_conn_spec *s)
{
    int64_t i, k, n = 0;
    for (i = 0; i < c->n_pre; i++)
        for (k = c->row_ptr[i]; k < c->row_ptr[i + 1]; k++)
            if (s->pre_offset + i == s->post_offset + c->col[k])
                n++;
    return n;
}

static void test_all_to_all(void)
{
    nrt_conn_spec s;
    nrt_csr c;
    memset(&s, 0, sizeof s);
    s.rule = NRT_ALL_TO_ALL;
    s.n_pre = 30;
    s.n_post = 40;
    CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_OK);
    CHECK(c.nnz == 1200 && csr_ok(&c, 1));
    nrt_csr_free(&c);
    CHECK(c.row_ptr == NULL && c.col == NULL && c.nnz == 0);
    /* same population, overlapping views [5, 35) -> [0, 40): 30 autapse pairs */
    s.same_base = 1;
    s.pre_offset = 5;
    CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_OK);
    CHECK(c.nnz == 1200 - 30 && csr_ok(&c, 1) && count_autapses(&c, &s) == 0);
    nrt_csr_free(&c);
    s.autapses = 1;
    CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_OK);
    CHECK(c.nnz == 1200 && count_autapses(&c, &s) == 30);
    nrt_csr_free(&c);
    /* different populations: no autapse test at all */
    s.autapses = 0;
    s.same_base = 0;
    CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_OK && c.nnz == 1200);
    nrt_csr_free(&c);
}

static void test_one_to_one(void)
{
    nrt_conn_spec s;
    nrt_csr c;
    int64_t i;
    int ok = 1;
    memset(&s, 0, sizeof s);
    s.rule = NRT_ONE_TO_ONE;
    s.n_pre = s.n_post = 100;
    CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_OK);
    CHECK(c.nnz == 100 && csr_ok(&c, 1));
    for (i = 0; i < 100; i++)
        ok &= c.row_ptr[i] == i && c.col[i] == i;
    CHECK(ok);
    nrt_csr_free(&c);
    s.n_post = 99;
    ctx.errmsg[0] = 0;
    CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_EINVAL);
    CHECKF(strstr(ctx.errmsg, "one_to_one") != NULL, "errmsg '%s'", ctx.errmsg);
    CHECK(c.row_ptr == NULL && c.col == NULL);
}

static void test_fixed_prob(void)
{
    nrt_conn_spec s;
    nrt_csr a, b, c;
    const int64_t n = 2000;
    const double p = 0.02;
    double mean, sd, m_deg = 0, v_deg = 0, want_var;
    int64_t i;
    memset(&s, 0, sizeof s);
    s.rule = NRT_FIXED_PROB;
    s.n_pre = s.n_post = n;
    s.p = p;
    s.seed = 42;
    s.proj_id = 3;
    s.same_base = 1;
    CHECK(nrt_conn_build(&ctx, &s, &a) == NRT_OK);
    CHECK(nrt_conn_build(&ctx, &s, &b) == NRT_OK);
    CHECK(csr_ok(&a, 1));
    CHECK(same_csr(&a, &b));
    CHECK(count_autapses(&a, &s) == 0);
    /* n^2 trials minus the n excluded diagonal pairs */
    mean = (double)(n * n - n) * p;
    sd = sqrt(mean * (1 - p));
    CHECKF(fabs((double)a.nnz - mean) < 5 * sd, "nnz %lld, mean %.0f sd %.1f",
           (long long)a.nnz, mean, sd);
    for (i = 0; i < n; i++)
        m_deg += (double)(a.row_ptr[i + 1] - a.row_ptr[i]);
    m_deg /= (double)n;
    for (i = 0; i < n; i++) {
        double d = (double)(a.row_ptr[i + 1] - a.row_ptr[i]) - m_deg;
        v_deg += d * d;
    }
    v_deg /= (double)(n - 1);
    want_var = (double)(n - 1) * p * (1 - p);
    CHECKF(fabs(v_deg - want_var) < 0.1 * want_var, "degree variance %.2f, expected %.2f",
           v_deg, want_var);
    /* another seed, another projection id: different synapses */
    s.seed = 43;
    CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_OK);
    CHECK(!same_csr(&a, &c));
    nrt_csr_free(&c);
    s.seed = 42;
    s.proj_id = 4;
    CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_OK);
    CHECK(!same_csr(&a, &c));
    nrt_csr_free(&c);
    /* autapses allowed: a superset along the diagonal, same off-diagonal synapses */
    s.proj_id = 3;
    s.autapses = 1;
    CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_OK);
    CHECK(c.nnz - count_autapses(&c, &s) == a.nnz);
    nrt_csr_free(&c);
    nrt_csr_free(&a);
    nrt_csr_free(&b);
    /* p >= 1 and p <= 0 */
    s.n_pre = 20;
    s.n_post = 30;
    s.same_base = 0;
    s.p = 1.0;
    CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_OK && c.nnz == 600);
    nrt_csr_free(&c);
    s.p = 0.0;
    CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_OK && c.nnz == 0 && c.row_ptr[20] == 0);
    nrt_csr_free(&c);
    /* tiny p: no overflow, nearly empty */
    s.p = 1e-300;
    CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_OK && c.nnz == 0);
    nrt_csr_free(&c);
}

static void test_fixed_indegree(int multapses)
{
    nrt_conn_spec s;
    nrt_csr a, b;
    int64_t i, k, j, *deg;
    int ok = 1, dup = 0;
    memset(&s, 0, sizeof s);
    s.rule = NRT_FIXED_INDEGREE;
    s.n_pre = 50;
    s.n_post = 300;
    s.k = 20;
    s.seed = 7;
    s.proj_id = 11;
    s.same_base = 1;
    s.pre_offset = 10; /* pre [10, 60) and post [0, 300) of one population */
    s.multapses = multapses;
    CHECK(nrt_conn_build(&ctx, &s, &a) == NRT_OK);
    CHECK(nrt_conn_build(&ctx, &s, &b) == NRT_OK);
    CHECK(same_csr(&a, &b));
    CHECK(csr_ok(&a, !multapses));
    CHECK(a.nnz == 300 * 20);
    CHECK(count_autapses(&a, &s) == 0);
    deg = calloc(300, sizeof *deg);
    for (i = 0; i < a.n_pre; i++)
        for (k = a.row_ptr[i]; k < a.row_ptr[i + 1]; k++) {
            deg[a.col[k]]++;
            if (k > a.row_ptr[i] && a.col[k] == a.col[k - 1])
                dup++;
        }
    for (j = 0; j < 300; j++)
        ok &= deg[j] == 20;
    CHECK(ok);
    if (!multapses)
        CHECK(dup == 0);
    else
        CHECKF(dup > 0, "expected some multapses with k = 20 of 50");
    free(deg);
    nrt_csr_free(&a);
    nrt_csr_free(&b);
    s.seed = 8;
    CHECK(nrt_conn_build(&ctx, &s, &a) == NRT_OK);
    s.seed = 7;
    CHECK(nrt_conn_build(&ctx, &s, &b) == NRT_OK);
    CHECK(!same_csr(&a, &b));
    nrt_csr_free(&a);
    nrt_csr_free(&b);
}

static void test_indegree_errors(void)
{
    nrt_conn_spec s;
    nrt_csr c;
    memset(&s, 0, sizeof s);
    s.rule = NRT_FIXED_INDEGREE;
    s.n_pre = 10;
    s.n_post = 10;
    s.k = 11;
    ctx.errmsg[0] = 0;
    CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_EINVAL);
    CHECKF(strstr(ctx.errmsg, "k = 11") != NULL, "errmsg '%s'", ctx.errmsg);
    s.k = 10;
    CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_OK && c.nnz == 100);
    nrt_csr_free(&c);
    s.same_base = 1; /* now each post loses its autapse: only 9 admissible */
    CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_EINVAL);
    s.k = 9;
    CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_OK && c.nnz == 90 && count_autapses(&c, &s) == 0);
    nrt_csr_free(&c);
    /* one neuron onto itself, autapses excluded: impossible even with multapses */
    s.n_pre = s.n_post = 1;
    s.k = 1;
    s.multapses = 1;
    CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_EINVAL);
    s.multapses = 0;
    s.n_pre = 0;
    s.n_post = 5;
    CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_EINVAL);
    s.k = 0;
    CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_OK && c.nnz == 0);
    nrt_csr_free(&c);
    /* multapses with k > n_pre is fine */
    s.n_pre = 3;
    s.same_base = 0;
    s.k = 7;
    s.multapses = 1;
    CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_OK && c.nnz == 35 && csr_ok(&c, 0));
    nrt_csr_free(&c);
    s.k = -1;
    CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_EINVAL);
    s.rule = (nrt_rule)99;
    CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_EINVAL);
}

/* The first row of a fixed_prob projection recomputed by hand from the specification. */
static void test_prob_spec(void)
{
    nrt_conn_spec s;
    nrt_csr c;
    int64_t j = -1, got[64];
    int n = 0, done = 0, ok;
    uint32_t ctr = 0;
    const uint32_t stream = (NRT_STREAM_CONNECT << 24) | 5u;
    memset(&s, 0, sizeof s);
    s.rule = NRT_FIXED_PROB;
    s.n_pre = 4;
    s.n_post = 500;
    s.p = 0.05;
    s.seed = 0x123456789abcdefull;
    s.proj_id = 0x7000005; /* only the low 24 bits count */
    while (!done) {
        nrt_u32x4 x = nrt_rng(nrt_seed_key(s.seed), stream, 0, ctr++, 0, 0);
        int h;
        for (h = 0; h < 2 && !done; h++) {
            double u = nrt_u01_53(x.v[2 * h], x.v[2 * h + 1]);
            j += 1 + (int64_t)floor(log(u) / log1p(-s.p));
            if (j >= s.n_post)
                done = 1;
            else if (n < 64)
                got[n++] = j;
        }
    }
    CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_OK);
    ok = c.row_ptr[1] == n;
    for (j = 0; ok && j < n; j++)
        ok = c.col[j] == got[j];
    CHECKF(ok, "row 0 differs from the specification (%d expected synapses)", n);
    nrt_csr_free(&c);
}

/* ln of the Binomial(n, p) probability of k */
static double binom_lpmf(int64_t n, double p, int64_t k)
{
    return lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1) +
           (double)k * log(p) + (double)(n - k) * log1p(-p);
}

/* M keyed variates of Binomial(n, p) (nrt_binomial, rt_binom.c): mean and variance within
 * 6 standard errors; for small n a chi-square over the values (tails merged to expected
 * counts of 5 or more) below df + 6 sqrt(2 df). */
static void binomial_case(int64_t n, double p, uint32_t stream)
{
    enum { M = 40000 };
    const double mu = (double)n * p, var = mu * (1 - p);
    static int64_t v[M];
    double sum = 0, ss = 0, mean, svar;
    int e;
    for (e = 0; e < M; e++) {
        v[e] = nrt_binomial(7u, stream, (uint32_t)e, n, p);
        CHECKF(v[e] >= 0 && v[e] <= n, "Binomial(%lld, %g) gave %lld", (long long)n, p,
               (long long)v[e]);
        sum += (double)v[e];
    }
    mean = sum / M;
    for (e = 0; e < M; e++)
        ss += ((double)v[e] - mean) * ((double)v[e] - mean);
    svar = ss / (M - 1);
    CHECKF(fabs(mean - mu) <= 6 * sqrt(var / M), "Binomial(%lld, %g): mean %.4f, expected %.4f",
           (long long)n, p, mean, mu);
    CHECKF(fabs(svar - var) <= 6 * var * sqrt(2.0 / M) + 1e-9,
           "Binomial(%lld, %g): variance %.4f, expected %.4f", (long long)n, p, svar, var);
    if (n <= 200) {
        static int64_t hist[201];
        double chi = 0, exp_run = 0, obs_run = 0;
        int df = -1;
        int64_t k;
        memset(hist, 0, sizeof hist);
        for (e = 0; e < M; e++)
            hist[v[e]]++;
        for (k = 0; k <= n; k++) {  /* bins merged left to right until 5 expected */
            exp_run += M * exp(binom_lpmf(n, p, k));
            obs_run += (double)hist[k];
            if (exp_run >= 5 || k == n) {
                chi += (obs_run - exp_run) * (obs_run - exp_run) / exp_run;
                df++;
                exp_run = obs_run = 0;
            }
        }
        CHECKF(df > 0 && chi < df + 6 * sqrt(2.0 * df),
               "Binomial(%lld, %g): chi-square %.1f over %d degrees of freedom", (long long)n,
               p, chi, df);
    }
}

static void test_binomial(void)
{
    binomial_case(20, 0.1, 1);            /* inversion */
    binomial_case(60, 0.4, 2);            /* BTRS, n p = 24 */
    binomial_case(200, 0.05, 3);          /* BTRS at n p = 10 */
    binomial_case(30, 0.9, 4);            /* p > 1/2: n - Binomial(n, 1 - p) */
    binomial_case(10000000, 3e-7, 5);     /* large n, small p: inversion, n p = 3 */
    binomial_case(80000000, 0.5e-4, 6);   /* large n, small p: BTRS, n p = 4000 */
    binomial_case(2000000000, 0.37, 7);   /* huge n */
    CHECK(nrt_binomial(1, 1, 1, 0, 0.5) == 0 && nrt_binomial(1, 1, 1, 10, 0) == 0);
    CHECK(nrt_binomial(1, 1, 1, 10, 1) == 10 && nrt_binomial(1, 1, 1, -3, 0.5) == 0);
    CHECK(nrt_binomial(9, 9, 9, 1000, 0.3) == nrt_binomial(9, 9, 9, 1000, 0.3));
}

static void total_spec(nrt_conn_spec *s, int64_t npre, int64_t npost, int64_t k)
{
    memset(s, 0, sizeof *s);
    s->rule = NRT_FIXED_TOTAL;
    s->n_pre = npre;
    s->n_post = npost;
    s->k = k;
    s->multapses = 1;
    s->autapses = 1;
}

/* fixed_total row by row (rt_conn.c, FIXED_TOTAL): the row lengths are the multinomial split
 * of k with weights = admissible posts per row (a chi-square per seed), nrt_conn_build's rows
 * are nrt_conn_total_rows', no excluded autapse, and one synapse's pair is uniform over the
 * admissible pairs (a chi-square over seeds). */
static void test_fixed_total(void)
{
    nrt_conn_spec s;
    nrt_csr c, c2;
    int64_t rp[51], i, q, adm = 0;
    uint64_t seed;
    /* S[0:50] -> S[20:60], autapses dropped: rows 20..49 have 39 admissible posts, 0..19 40 */
    total_spec(&s, 50, 40, 100000);
    s.same_base = 1;
    s.post_offset = 20;
    s.autapses = 0;
    for (i = 0; i < 50; i++)
        adm += i >= 20 ? 39 : 40;
    for (seed = 1; seed <= 20; seed++) {
        double chi = 0;
        s.seed = seed;
        CHECK(nrt_conn_total_rows(&ctx, &s, rp) == NRT_OK);
        CHECK(rp[0] == 0 && rp[50] == 100000);
        for (i = 0; i < 50; i++) {
            const double e = 100000.0 * (i >= 20 ? 39 : 40) / (double)adm;
            const double o = (double)(rp[i + 1] - rp[i]);
            chi += (o - e) * (o - e) / e;
        }
        CHECKF(chi < 49 + 6 * sqrt(98.0), "seed %llu: row lengths chi-square %.1f (49 df)",
               (unsigned long long)seed, chi);
    }
    CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_OK && c.nnz == 100000 && csr_ok(&c, -1));
    CHECK(memcmp(c.row_ptr, rp, sizeof rp) == 0);
    CHECK(count_autapses(&c, &s) == 0);
    CHECK(nrt_conn_build(&ctx, &s, &c2) == NRT_OK && same_csr(&c, &c2));
    nrt_csr_free(&c2);
    {   /* posts uniform within the rows without an autapse: chi-square over 40 posts */
        int64_t cnt[40] = {0}, tot = 0;
        double chi = 0;
        for (q = 0; q < c.row_ptr[20]; q++, tot++)
            cnt[c.col[q]]++;
        for (q = 0; q < 40; q++)
            chi += (cnt[q] - tot / 40.0) * (cnt[q] - tot / 40.0) / (tot / 40.0);
        CHECKF(chi < 39 + 6 * sqrt(78.0), "posts chi-square %.1f (39 df)", chi);
    }
    nrt_csr_free(&c);
    {   /* P[0:4] -> P[0:3], autapses dropped: 9 admissible pairs, one synapse per seed */
        enum { SEEDS = 18000 };
        int64_t hist[12] = {0};
        double chi = 0;
        total_spec(&s, 4, 3, 1);
        s.same_base = 1;
        s.autapses = 0;
        for (seed = 0; seed < SEEDS; seed++) {
            s.seed = seed * 7919u + 3u;
            CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_OK && c.nnz == 1);
            for (i = 0; i < 4; i++)
                if (c.row_ptr[i + 1] > c.row_ptr[i])
                    hist[i * 3 + c.col[0]]++;
            nrt_csr_free(&c);
        }
        for (q = 0; q < 12; q++) {
            if (q / 3 == q % 3) {
                CHECKF(hist[q] == 0, "autapse (%lld, %lld) drawn", (long long)(q / 3),
                       (long long)(q % 3));
                continue;
            }
            chi += (hist[q] - SEEDS / 9.0) * (hist[q] - SEEDS / 9.0) / (SEEDS / 9.0);
        }
        CHECKF(chi < 8 + 6 * 4, "pairs chi-square %.1f (8 df)", chi);
    }
    /* errors as nrt_conn_build's: no admissible pair */
    total_spec(&s, 1, 1, 5);
    s.same_base = 1;
    s.autapses = 0;
    CHECK(nrt_conn_total_rows(&ctx, &s, rp) == NRT_EINVAL);
    s.rule = NRT_FIXED_PROB;
    CHECK(nrt_conn_total_rows(&ctx, &s, rp) == NRT_EINVAL);
}

/* nrt_col_index against the one-pass stable counting sort, over CSRs small (one pass) and
 * large enough for its buckets: uniform columns, few columns (large buckets), multapses. */
static void test_col_index(void)
{
    static const struct { nrt_rule rule; int64_t n_pre, n_post, k; double p; } cases[] = {
        {NRT_FIXED_PROB, 50, 70, 0, 0.2},        {NRT_FIXED_PROB, 3000, 2500, 0, 0.1},
        {NRT_ALL_TO_ALL, 300000, 3, 0, 0},       {NRT_FIXED_INDEGREE, 700, 4000, 150, 0},
        {NRT_ALL_TO_ALL, 700, 1, 0, 0},
    };
    size_t k;
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        nrt_conn_spec s;
        nrt_csr c;
        int64_t *cptr, *csyn, *cpre, *rp, *rs, *rr, *fill, i, t, q, bad = -1;
        memset(&s, 0, sizeof s);
        s.rule = cases[k].rule;
        s.n_pre = cases[k].n_pre;
        s.n_post = cases[k].n_post;
        s.k = cases[k].k;
        s.p = cases[k].p;
        s.multapses = 1;
        s.autapses = 1;
        s.seed = 11 + k;
        CHECK(nrt_conn_build(&ctx, &s, &c) == NRT_OK);
        cptr = calloc((size_t)c.n_post + 1, 8);
        rp = calloc((size_t)c.n_post + 1, 8);
        fill = calloc((size_t)c.n_post + 1, 8);
        csyn = calloc((size_t)c.nnz + 1, 8);
        cpre = calloc((size_t)c.nnz + 1, 8);
        rs = calloc((size_t)c.nnz + 1, 8);
        rr = calloc((size_t)c.nnz + 1, 8);
        CHECK(cptr && rp && fill && csyn && cpre && rs && rr);
        CHECK(nrt_col_index(&ctx, &c, cptr, csyn, cpre) == NRT_OK);
        for (t = 0; t < c.nnz; t++)
            rp[c.col[t] + 1]++;
        for (q = 0; q < c.n_post; q++)
            rp[q + 1] += rp[q];
        memcpy(fill, rp, (size_t)(c.n_post + 1) * 8);
        for (i = 0; i < c.n_pre; i++)
            for (t = c.row_ptr[i]; t < c.row_ptr[i + 1]; t++) {
                q = fill[c.col[t]]++;
                rs[q] = t;
                rr[q] = i;
            }
        for (q = 0; q <= c.n_post && bad < 0; q++)
            if (cptr[q] != rp[q])
                bad = q;
        CHECKF(bad < 0, "case %zu: cptr[%lld] %lld, expected %lld", k, (long long)bad,
               (long long)(bad >= 0 ? cptr[bad] : 0), (long long)(bad >= 0 ? rp[bad] : 0));
        for (q = 0, bad = -1; q < c.nnz && bad < 0; q++)
            if (csyn[q] != rs[q] || cpre[q] != rr[q])
                bad = q;
        CHECKF(bad < 0, "case %zu (%lld synapses): entry %lld (%lld, %lld), expected (%lld, %lld)", k,
               (long long)c.nnz, (long long)bad, (long long)(bad >= 0 ? csyn[bad] : 0),
               (long long)(bad >= 0 ? cpre[bad] : 0), (long long)(bad >= 0 ? rs[bad] : 0),
               (long long)(bad >= 0 ? rr[bad] : 0));
        free(cptr);
        free(rp);
        free(fill);
        free(csyn);
        free(cpre);
        free(rs);
        free(rr);
        nrt_csr_free(&c);
    }
}

int main(void)
{
    ctx.model = "conn";
    test_all_to_all();
    test_one_to_one();
    test_fixed_prob();
    test_fixed_indegree(0);
    test_fixed_indegree(1);
    test_indegree_errors();
    test_prob_spec();
    test_binomial();
    test_fixed_total();
    test_col_index();
    return tcheck_done("test_conn");
}
