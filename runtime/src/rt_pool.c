/* rt_pool.c -- the thread pool of C simulators and of the GPU simulators' host side
 * (--threads N, docs/cli.md §2) and the per-thread index of a projection's synapses by post
 * range (nrt_split).
 *
 * One pool per process: T - 1 workers started once by nrt_pool_start, the caller's thread
 * being thread 0 (the pool's owner). nrt_pool_run hands the same function to every thread and
 * returns once all have finished it, several times a step: a worker spins a little on the job
 * counter before it sleeps on a condition variable, so that back-to-back phases cost no
 * wake-up. What each thread does, and so the bits of the result, depends on (t, T) alone: the
 * generated code partitions by contiguous ranges and combines in thread order
 * (codegen/c/c_par.c). A call from another thread (a CUDA batch's drains on nrt_parallel's
 * threads) runs the T parts itself, one after another. Its own file, so that only programs
 * which call it link the threads library.
 */
#define _GNU_SOURCE

#include "rt_internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    SPIN = 1 << 8,                /* polls of a counter before a thread sleeps (a few us) */
    GRAIN = 5000,                 /* the default: at most one thread per GRAIN neurons (COBA, 4,000
                                     neurons, was slower on 2 to 16 threads than on one: H200 host) */
    MIN_WORK = 2048,              /* less work (neurons, synapses) runs on the caller alone */
    ROW_GRAIN = 1024              /* a GPU program's default: at most one thread per ROW_GRAIN
                                     values of its largest state row (a .csv value's text is
                                     ~115 ns: a part is ~0.1 ms, beside a hand-over of a few us) */
};

static struct pool {
    int T;                        /* threads, the caller's included; 0: not started */
    int started;                  /* workers running */
    pthread_t owner;              /* the thread that started the pool: thread 0 */
    int64_t regions;              /* jobs handed to the workers (nrt_pool_regions) */
    pthread_t tid[NRT_MAX_THREADS];
    pthread_mutex_t mu;
    pthread_cond_t cv;            /* a job is posted (gen) */
    pthread_cond_t done;          /* the last worker finished its part (left = 0) */
    atomic_uint gen;              /* job number: a worker runs a job when it changes */
    atomic_int left;              /* workers still in the current job */
    int quit;                     /* set with the last gen: workers return */
    void (*fn)(void *arg, int t, int T);
    void *arg;
    struct pbufs {                /* nrt_pbufs_new's, freed by nrt_pool_stop */
        nrt_pbuf *b;
        int n;
        struct pbufs *next;
    } *pbufs;
} P = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};

static void relax(int k)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    if ((k & 1023) == 1023)       /* an oversubscribed machine: let the others run */
        sched_yield();
}

static void *worker(void *p)
{
    const int t = (int)(intptr_t)p;
    unsigned seen = 0;
    for (;;) {
        unsigned g;
        int k = 0;
        while ((g = atomic_load_explicit(&P.gen, memory_order_acquire)) == seen) {
            if (++k < SPIN) {
                relax(k);
                continue;
            }
            pthread_mutex_lock(&P.mu);
            while (atomic_load_explicit(&P.gen, memory_order_acquire) == seen)
                pthread_cond_wait(&P.cv, &P.mu);
            pthread_mutex_unlock(&P.mu);
        }
        seen = g;
        if (P.quit)
            return NULL;
        P.fn(P.arg, t, P.T);
        if (atomic_fetch_sub_explicit(&P.left, 1, memory_order_acq_rel) == 1) {
            pthread_mutex_lock(&P.mu);   /* the caller may be asleep */
            pthread_cond_signal(&P.done);
            pthread_mutex_unlock(&P.mu);
        }
    }
}

/* The CPUs this process may run on (what nproc counts), at least 1. */
static int cpus(void)
{
    cpu_set_t s;
    if (sched_getaffinity(0, sizeof s, &s) == 0 && CPU_COUNT(&s) > 0)
        return CPU_COUNT(&s);
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c > 0 ? (int)c : 1;
}

/* Whether ctx is a GPU program's (its back end is not the C one). */
static int gpu_program(const nrt_ctx *ctx)
{
    return ctx->backend && strcmp(ctx->backend, "c") != 0;
}

/* The default thread count: the CPUs, shared by the processes of this host that run side by
 * side (--jobs J instances; MPI ranks on this node, from the launcher's environment), and at
 * most one per GRAIN neurons (a small model's step is shorter than a hand-over). A GPU
 * program's threads do only the drains' state rows of MIN_WORK values or more (rt_record.c;
 * .npy values count 1 / NRT_NPY_COST) and --save-connectivity's records: at most one per
 * ROW_GRAIN values of its largest state row (nrt_rec_plan's rec_row_max), and 1, no worker,
 * where no row reaches MIN_WORK. */
static int default_threads(const nrt_ctx *ctx)
{
    static const char *const local[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS",
                                        "SLURM_NTASKS_PER_NODE"};
    int64_t share = ctx->instances > 1 && ctx->jobs > 1 ? ctx->jobs : 1;
    for (size_t i = 0; i < sizeof local / sizeof *local && share == 1; i++) {
        const char *v = getenv(local[i]);
        long n = v ? strtol(v, NULL, 10) : 0;
        if (n > 1)
            share = n;
    }
    int64_t neurons = 0;
    for (int i = 0; i < ctx->npops; i++)
        neurons += ctx->pops[i].size;
    int64_t t = cpus() / share;
    const int64_t cap = !gpu_program(ctx) ? neurons / GRAIN
                        : ctx->rec_row_max >= MIN_WORK ? ctx->rec_row_max / ROW_GRAIN : 1;
    t = t > cap ? cap : t;
    t = t < 1 ? 1 : t;
    return t > NRT_MAX_THREADS ? NRT_MAX_THREADS : (int)t;
}

/* Contract: rt_internal.h. */
int nrt_pool_size(void)
{
    return P.T;
}

/* Contract: rt_internal.h. */
int64_t nrt_pool_regions(void)
{
    return P.regions;
}

/* Contract: neurort.h. */
int nrt_pool_threads(const nrt_ctx *ctx)
{
    return ctx->threads > 0 ? ctx->threads : default_threads(ctx);
}

/* Contract: neurort.h. */
nrt_status nrt_pool_start(nrt_ctx *ctx)
{
    static int at_exit;
    int T = ctx->threads > 0 ? ctx->threads : default_threads(ctx);
    if (P.T)
        nrt_pool_stop();
    if (!at_exit)                 /* a program with no nrt_pool_stop on its ways out (GPU) */
        at_exit = atexit(nrt_pool_stop) == 0;
    P.T = 1;
    P.owner = pthread_self();
    P.regions = 0;
    P.quit = 0;
    atomic_store(&P.left, 0);
    for (int t = 1; t < T; t++) {
        if (pthread_create(&P.tid[t], NULL, worker, (void *)(intptr_t)t) != 0) {
            nrt_seterr(ctx, "--threads %d: cannot start thread %d", T, t);
            P.T = t;
            nrt_pool_stop();
            return NRT_EIO;
        }
        P.started = t;
    }
    P.T = T;
    ctx->threads = T;
    return NRT_OK;
}

/* Contract: neurort.h. */
void nrt_pool_run(void (*fn)(void *arg, int t, int T), void *arg, double work)
{
    if (P.T <= 1) {
        fn(arg, 0, 1);
        return;
    }
    if (work < MIN_WORK || !pthread_equal(pthread_self(), P.owner)) {
        for (int t = 0; t < P.T; t++)   /* the same parts, one after another: no hand-over */
            fn(arg, t, P.T);
        return;
    }
    P.regions++;
    P.fn = fn;
    P.arg = arg;
    atomic_store_explicit(&P.left, P.T - 1, memory_order_relaxed);
    pthread_mutex_lock(&P.mu);
    atomic_fetch_add_explicit(&P.gen, 1, memory_order_release);
    pthread_cond_broadcast(&P.cv);
    pthread_mutex_unlock(&P.mu);
    fn(arg, 0, P.T);
    for (int k = 1; atomic_load_explicit(&P.left, memory_order_acquire) > 0; k++) {
        if (k < SPIN) {
            relax(k);
            continue;
        }
        pthread_mutex_lock(&P.mu);
        while (atomic_load_explicit(&P.left, memory_order_acquire) > 0)
            pthread_cond_wait(&P.done, &P.mu);
        pthread_mutex_unlock(&P.mu);
    }
}

/* Contract: neurort.h. */
void nrt_pool_stop(void)
{
    if (P.started) {
        pthread_mutex_lock(&P.mu);
        P.quit = 1;
        atomic_fetch_add_explicit(&P.gen, 1, memory_order_release);
        pthread_cond_broadcast(&P.cv);
        pthread_mutex_unlock(&P.mu);
        for (int t = 1; t <= P.started; t++)
            pthread_join(P.tid[t], NULL);
    }
    P.started = 0;
    P.T = 0;
    while (P.pbufs) {
        struct pbufs *x = P.pbufs;
        for (int i = 0; i < x->n; i++)
            free(x->b[i].e);
        free(x->b);
        P.pbufs = x->next;
        free(x);
    }
}

/* Contract: neurort.h. */
nrt_pbuf *nrt_pbufs_new(nrt_ctx *ctx, int T)
{
    struct pbufs *x = calloc(1, sizeof *x);
    nrt_pbuf *b = calloc((size_t)T * (size_t)T, sizeof *b);
    if (!x || !b) {
        free(x);
        free(b);
        nrt_seterr(ctx, "out of memory for the procedural rows of %d threads", T);
        return NULL;
    }
    x->b = b;
    x->n = T * T;
    x->next = P.pbufs;
    P.pbufs = x;
    return b;
}

/* Contract: neurort.h. */
int nrt_pbuf_grow(nrt_pbuf *b)
{
    const int64_t cap = b->cap ? 2 * b->cap : 1024;
    nrt_pent *e = b->failed ? NULL : realloc(b->e, (size_t)cap * sizeof *e);
    if (!e) {
        b->failed = 1;
        return -1;
    }
    b->e = e;
    b->cap = cap;
    return 0;
}

/* Contract: neurort.h. */
nrt_status nrt_pbufs_check(nrt_ctx *ctx, const nrt_pbuf *bufs, int T)
{
    for (int i = 0; i < T * T; i++)
        if (bufs[i].failed) {
            nrt_seterr(ctx, "out of memory for the procedural rows of a step (--threads %d)", T);
            return NRT_ENOMEM;
        }
    return NRT_OK;
}

/* Contract: neurort.h. */
int64_t nrt_spikes_join(int64_t *spk, int64_t len, const int64_t *tn, int T)
{
    int64_t c = tn[0];
    for (int t = 1; t < T; t++) {
        const int64_t at = len * t / T;
        if (c != at && tn[t])
            memmove(spk + c, spk + at, (size_t)tn[t] * sizeof *spk);
        c += tn[t];
    }
    return c;
}

/* The first row i (0 .. n_pre) with row_ptr[i] >= x. */
static int64_t row_lower(const nrt_csr *c, int64_t x)
{
    int64_t l = 0, r = c->n_pre;
    while (l < r) {
        const int64_t mid = l + (r - l) / 2;
        if (c->row_ptr[mid] < x)
            l = mid + 1;
        else
            r = mid;
    }
    return l;
}

/* Contract: neurort.h. */
void nrt_rows_part(const nrt_csr *c, int t, int T, int64_t *a, int64_t *b)
{
    *a = t <= 0 ? 0 : row_lower(c, c->nnz * t / T);
    *b = t >= T - 1 ? c->n_pre : row_lower(c, c->nnz * (t + 1) / T);
}

/* {===== nrt_split: a row's synapses by the thread that owns their post neuron ===== */

/* nrt_split_build's work, on the pool by ranges of rows (each row's bounds and ranks are its
 * own): the rows sorted by post, then each row's bounds (and ranks). */
typedef struct split_job {
    const nrt_csr *c;
    int64_t bnd[NRT_MAX_THREADS + 1]; /* thread t's posts: [bnd[t], bnd[t + 1]) */
    int T;                        /* the split's threads (not the pool's part count) */
    nrt_split *out;
    unsigned char unsorted[NRT_MAX_THREADS];
    uint8_t *tab;                 /* unsorted rows: the owner of post bnd[0] + k, k < bnd[T] - bnd[0] */
} split_job;

static void split_check(void *arg, int p, int parts)
{
    split_job *jb = arg;
    const nrt_csr *c = jb->c;
    jb->unsorted[p] = 0;
    for (int64_t i = c->n_pre * p / parts; i < c->n_pre * (p + 1) / parts && !jb->unsorted[p]; i++)
        for (int64_t s = c->row_ptr[i] + 1; s < c->row_ptr[i + 1]; s++)
            if (c->col[s] < c->col[s - 1]) {
                jb->unsorted[p] = 1;
                break;
            }
}

/* The thread owning post c, from the table: the range holding it, a column outside
 * [bnd[0], bnd[T]) the nearest range's (with equal ranges, nrt_owner's). */
static inline int split_owner(const split_job *jb, int64_t c)
{
    const int64_t k = c - jb->bnd[0];
    return k < 0 ? 0 : k >= jb->bnd[jb->T] - jb->bnd[0] ? jb->T - 1 : jb->tab[k];
}

static void split_rows(void *arg, int p, int parts)
{
    const split_job *jb = arg;
    const nrt_csr *c = jb->c;
    const int T = jb->T;
    for (int64_t i = c->n_pre * p / parts; i < c->n_pre * (p + 1) / parts; i++) {
        int64_t *sg = jb->out->seg + i * (T + 1);
        const int64_t a = c->row_ptr[i], b = c->row_ptr[i + 1];
        if (!jb->out->perm) {   /* the first synapse at or past each range's start, by bisection */
            for (int t = 0; t <= T; t++) {
                const int64_t start = jb->bnd[t];
                int64_t l = a, r = b;
                while (l < r) {
                    const int64_t mid = l + (r - l) / 2;
                    if (c->col[mid] < start)
                        l = mid + 1;
                    else
                        r = mid;
                }
                sg[t] = t == T ? b : l;
            }
            sg[0] = a;
            continue;
        }
        /* a stable counting sort of the row by owner: each thread's synapses in row order */
        for (int t = 0; t <= T; t++)
            sg[t] = 0;
        for (int64_t s = a; s < b; s++)
            sg[split_owner(jb, c->col[s]) + 1]++;
        sg[0] = a;
        for (int t = 1; t <= T; t++)
            sg[t] += sg[t - 1];
        int64_t at[NRT_MAX_THREADS];
        memcpy(at, sg, (size_t)T * sizeof *at);
        for (int64_t s = a; s < b; s++)
            jb->out->perm[at[split_owner(jb, c->col[s])]++] = (uint32_t)(s - a);
    }
}

static split_job jb;              /* the pool is one per process, its callers one thread */

/* jb.tab for the bounds jb.bnd of T threads. */
static nrt_status owner_table(nrt_ctx *ctx, int T)
{
    jb.T = T;
    const int64_t len = jb.bnd[T] - jb.bnd[0];
    jb.tab = nrt_alloc(ctx, (size_t)(len > 0 ? len : 1), "threads: owner table");
    if (!jb.tab)
        return NRT_ENOMEM;
    for (int t = 0; t < T; t++)
        for (int64_t k = jb.bnd[t]; k < jb.bnd[t + 1]; k++)
            jb.tab[k - jb.bnd[0]] = (uint8_t)t;
    return NRT_OK;
}

/* nrt_split_build(_at)'s work, jb.bnd set; sorted: 1 or 0 where known (a rebuild), else -1. */
static nrt_status split_build(nrt_ctx *ctx, const nrt_csr *c, int T, nrt_split *out, int sorted)
{
    jb.c = c, jb.T = T, jb.out = out, jb.tab = NULL;
    if (sorted < 0) {
        sorted = 1;
        memset(jb.unsorted, 0, sizeof jb.unsorted);
        nrt_pool_run(split_check, &jb, (double)c->nnz);
        for (int p = 0; p < NRT_MAX_THREADS; p++)
            sorted &= !jb.unsorted[p];
    }
    if (out->seg)   /* a rebuild in place (nrt_own_balance): the same sizes */
        goto fill;
    out->seg = nrt_alloc(ctx, (size_t)(c->n_pre ? c->n_pre : 1) * (size_t)(T + 1) * sizeof *out->seg,
                         "threads: synapse index");
    if (!out->seg)
        return NRT_ENOMEM;
    if (!sorted) {
        for (int64_t i = 0; i < c->n_pre; i++)
            if (c->row_ptr[i + 1] - c->row_ptr[i] > (int64_t)UINT32_MAX) {
                nrt_seterr(ctx, "--threads %d: row %lld has more than 2^32 synapses", T, (long long)i);
                nrt_split_free(out);
                return NRT_EINVAL;
            }
        out->perm = nrt_alloc(ctx, (size_t)(c->nnz ? c->nnz : 1) * sizeof *out->perm, "threads: synapse index");
        if (!out->perm) {
            nrt_split_free(out);
            return NRT_ENOMEM;
        }
    }
fill:
    if (out->perm && owner_table(ctx, T) != NRT_OK) {
        nrt_split_free(out);
        return NRT_ENOMEM;
    }
    nrt_pool_run(split_rows, &jb, (double)c->nnz);
    nrt_free(jb.tab);
    jb.tab = NULL;
    return NRT_OK;
}

/* Contract: neurort.h. */
nrt_status nrt_split_build(nrt_ctx *ctx, const nrt_csr *c, int64_t lo, int64_t hi, int T, nrt_split *out)
{
    memset(out, 0, sizeof *out);
    out->T = T;
    if (T <= 1)
        return NRT_OK;   /* seg NULL: the one thread takes whole rows */
    for (int t = 0; t <= T; t++)
        jb.bnd[t] = lo + (hi - lo) * t / T;
    return split_build(ctx, c, T, out, -1);
}


/* Contract: neurort.h. */
double nrt_split_bytes(const nrt_conn_spec *spec, int T)
{
    if (T <= 1)
        return 0;
    return (double)spec->n_pre * (T + 1) * sizeof(int64_t) +
           (spec->rule == NRT_FIXED_TOTAL ? (double)spec->k * sizeof(uint32_t) : 0);
}

/* Contract: neurort.h. */
void nrt_split_base(const nrt_split *sp, const nrt_csr *c, int64_t *base)
{
    const int T = sp->seg && sp->T > 1 ? sp->T : 1;
    for (int t = 0; t <= T; t++)
        base[t] = 0;
    if (T == 1) {
        base[1] = c->nnz;
        return;
    }
    for (int64_t i = 0; i < c->n_pre; i++)
        for (int t = 0; t < T; t++)
            base[t + 1] += sp->seg[i * (T + 1) + t + 1] - sp->seg[i * (T + 1) + t];
    for (int t = 1; t <= T; t++)
        base[t] += base[t - 1];
}

/* Contract: neurort.h. */
void nrt_split_free(nrt_split *sp)
{
    nrt_free(sp->seg);
    nrt_free(sp->perm);
    sp->seg = NULL;
    sp->perm = NULL;
}

/* Rows moved in place (nrt_split_group, and a grouped split's new owners): each pool part
 * its rows (nrt_rows_part) through its own scratch of `row` bytes (the longest row's columns,
 * delays and weights). */
typedef struct move_job {
    nrt_csr *c;
    nrt_split *sp;
    int regroup;                  /* 0: into perm's order; 1: by the owners of jb (seg rewritten) */
    int64_t maxrow;
    unsigned char *scr;
    size_t row;
} move_job;

static void move_rows(void *arg, int p, int parts)
{
    const move_job *mj = arg;
    nrt_csr *c = mj->c;
    nrt_split *sp = mj->sp;
    const int T = sp->T, ws = sp->wsize;
    unsigned char *w = sp->w, *const base = mj->scr + (size_t)p * mj->row;
    int32_t *const col2 = (int32_t *)base, *const d2 = col2 + mj->maxrow;
    unsigned char *const w2 = (unsigned char *)(d2 + mj->maxrow);
    int64_t i0, i1;
    nrt_rows_part(c, p, parts, &i0, &i1);
    for (int64_t i = i0; i < i1; i++) {
        const int64_t a = c->row_ptr[i], b = c->row_ptr[i + 1];
        int64_t *sg = sp->seg + i * (T + 1), at[NRT_MAX_THREADS];
        if (mj->regroup) {   /* a stable counting sort by owner, as split_rows */
            for (int t = 0; t <= T; t++)
                sg[t] = 0;
            for (int64_t s = a; s < b; s++)
                sg[split_owner(&jb, c->col[s]) + 1]++;
            sg[0] = a;
            for (int t = 1; t <= T; t++)
                sg[t] += sg[t - 1];
            memcpy(at, sg, (size_t)T * sizeof *at);
        }
        for (int64_t s = a; s < b; s++) {   /* new place q of old synapse x */
            const int64_t q = mj->regroup ? at[split_owner(&jb, c->col[s])]++ - a : s - a;
            const int64_t x = mj->regroup ? s : a + sp->perm[s];
            col2[q] = c->col[x];
            if (sp->d)
                d2[q] = sp->d[x];
            memcpy(w2 + q * ws, w + x * ws, (size_t)ws);
        }
        memcpy(c->col + a, col2, (size_t)(b - a) * sizeof *col2);
        if (sp->d)
            memcpy(sp->d + a, d2, (size_t)(b - a) * sizeof *d2);
        memcpy(w + a * ws, w2, (size_t)(b - a) * (size_t)ws);
    }
}

/* Run move_rows over c's rows; NRT_ENOMEM (errmsg) without the scratch. */
static nrt_status move_all(nrt_ctx *ctx, nrt_csr *c, nrt_split *sp, int regroup)
{
    move_job mj = {c, sp, regroup, 1, NULL, 0};
    for (int64_t i = 0; i < c->n_pre; i++)
        if (c->row_ptr[i + 1] - c->row_ptr[i] > mj.maxrow)
            mj.maxrow = c->row_ptr[i + 1] - c->row_ptr[i];
    mj.row = (size_t)mj.maxrow * (2 * sizeof(int32_t) + (size_t)sp->wsize);
    mj.row = (mj.row + 63) / 64 * 64;
    const int parts = P.T > 1 ? P.T : 1;
    mj.scr = nrt_alloc(ctx, mj.row * (size_t)parts, "threads: rows grouped");
    if (!mj.scr)
        return NRT_ENOMEM;
    nrt_pool_run(move_rows, &mj, (double)c->nnz);
    nrt_free(mj.scr);
    return NRT_OK;
}

/* Contract: neurort.h. */
nrt_status nrt_split_group(nrt_ctx *ctx, nrt_csr *c, nrt_split *sp, void *w, int wsize, int32_t *d)
{
    if (!sp->perm || !sp->seg)
        return NRT_OK;
    sp->w = w, sp->wsize = wsize, sp->d = d;
    nrt_status st = move_all(ctx, c, sp, 0);
    if (st != NRT_OK)
        return st;
    nrt_free(sp->perm);
    sp->perm = NULL;
    sp->grouped = 1;
    return NRT_OK;
}

/* ===== nrt_split =====} */

/* {===== delivery owners by measured work (nrt_own_balance) ===== */

/* The parts of one ring (v[ix[a .. b - 1]]) and its events per neuron. */
typedef struct own_job {
    nrt_own_part *v;
    const int *ix;
    int a, b;
    int64_t R;
    int64_t *ev;                  /* R: the events counted at each ring neuron */
} own_job;

/* Thread t counts the events of its own ring neurons (the splits' owners, which it alone
 * writes): each row's synapses of thread t, cnt[i] events each. */
static void own_count(void *arg, int t, int T)
{
    const own_job *oj = arg;
    (void)T;
    for (int q = oj->a; q < oj->b; q++) {
        const nrt_own_part *x = &oj->v[oj->ix[q]];
        const nrt_csr *c = x->c;
        const int64_t *sg = x->sp->seg, T1 = x->sp->T + 1;
        const uint32_t *perm = x->sp->perm;
        if (!sg)
            continue;
        for (int64_t i = 0; i < c->n_pre; i++) {
            const int64_t n = x->cnt[i], r0 = c->row_ptr[i];
            if (!n)
                continue;
            for (int64_t k = sg[i * T1 + t]; k < sg[i * T1 + t + 1]; k++) {
                const int64_t e = x->base + c->col[perm ? r0 + perm[k] : k];
                if (e >= 0 && e < oj->R)
                    oj->ev[e] += n;
            }
        }
    }
}

/* Bounds own[0 .. T] at equal shares of the events ev[0 .. R-1] (the equal ranges where none
 * were counted); each thread's events added to busy[t], and under the equal ranges to
 * busy0[t]. 1 when the bounds moved. */
static int own_bounds(const int64_t *ev, int64_t R, int T, int64_t *own, double *busy0, double *busy)
{
    int64_t W = 0;
    for (int64_t e = 0; e < R; e++)
        W += ev[e];
    own[0] = 0;
    int64_t e = 0, sum = 0;
    for (int t = 1; t < T; t++) {
        const double target = (double)W * t / T;
        while (e < R && (double)sum < target)
            sum += ev[e++];
        own[t] = W > 0 ? e : R * t / T;
    }
    own[T] = R;
    double eq[NRT_MAX_THREADS] = {0}, now[NRT_MAX_THREADS] = {0};
    for (int t = 0; t < T; t++) {
        for (int64_t k = R * t / T; k < R * (t + 1) / T; k++)
            eq[t] += (double)ev[k];
        for (int64_t k = own[t]; k < own[t + 1]; k++)
            now[t] += (double)ev[k];
    }
    const int move = W > 0;
    for (int t = 0; t < T; t++) {
        busy0[t] += eq[t];
        busy[t] += move ? now[t] : eq[t];
    }
    if (!move)
        for (int t = 0; t <= T; t++)
            own[t] = R * t / T;
    return move;
}

static const nrt_own_part *own_sort_v;

static int own_cmp(const void *a, const void *b)
{
    const int x = *(const int *)a, y = *(const int *)b;
    const uintptr_t rx = (uintptr_t)own_sort_v[x].ring, ry = (uintptr_t)own_sort_v[y].ring;
    return rx != ry ? (rx < ry ? -1 : 1) : (x > y) - (x < y);
}

/* The busiest thread's share over the mean (1 for no work). */
static double own_peak(const double *w, int T)
{
    double sum = 0, max = 0;
    for (int t = 0; t < T; t++) {
        sum += w[t];
        max = w[t] > max ? w[t] : max;
    }
    return sum > 0 ? max * T / sum : 1;
}

/* Contract: neurort.h. */
nrt_status nrt_own_balance(nrt_ctx *ctx, nrt_own_part *v, int n, int64_t step)
{
    const int T = ctx->threads;
    double busy0[NRT_MAX_THREADS] = {0}, busy[NRT_MAX_THREADS] = {0};
    int64_t own[NRT_MAX_THREADS + 1];
    if (T <= 1 || n <= 0)
        return NRT_OK;
    const double t0 = nrt_now();
    int *ix = malloc((size_t)n * sizeof *ix);
    if (!ix) {
        nrt_seterr(ctx, "out of memory for the delivery owners of %d threads", T);
        return NRT_ENOMEM;
    }
    for (int q = 0; q < n; q++)
        ix[q] = q;
    own_sort_v = v;
    qsort(ix, (size_t)n, sizeof *ix, own_cmp);
    nrt_status st = NRT_OK;
    for (int a = 0, b; a < n && st == NRT_OK; a = b) {
        double work = 0;
        for (b = a; b < n && v[ix[b]].ring == v[ix[a]].ring; b++)
            work += (double)v[ix[b]].c->nnz;
        own_job oj = {v, ix, a, b, v[ix[a]].R, calloc((size_t)(v[ix[a]].R ? v[ix[a]].R : 1), sizeof(int64_t))};
        if (!oj.ev) {
            nrt_seterr(ctx, "out of memory for the delivery owners of %d threads", T);
            st = NRT_ENOMEM;
            break;
        }
        nrt_pool_run(own_count, &oj, work);
        const int move = own_bounds(oj.ev, oj.R, T, own, busy0, busy);
        free(oj.ev);
        ctx->own_moved += move;
        for (int q = a; q < b && st == NRT_OK && move; q++) {   /* thread t: posts [own[t] - base, ...) */
            nrt_own_part *x = &v[ix[q]];
            for (int t = 0; t <= T; t++)
                jb.bnd[t] = own[t] - x->base;
            if (x->sp->seg && x->sp->T == T && x->sp->grouped) {   /* its rows moved again */
                st = owner_table(ctx, T);
                if (st == NRT_OK)
                    st = move_all(ctx, x->c, x->sp, 1);
                nrt_free(jb.tab);
                jb.tab = NULL;
            } else if (x->sp->seg && x->sp->T == T) {   /* rebuilt in place */
                st = split_build(ctx, x->c, T, x->sp, !x->sp->perm);
            }
        }
    }
    free(ix);
    ctx->own_step = step;
    ctx->own_busy[0] = own_peak(busy0, T);
    ctx->own_busy[1] = own_peak(busy, T);
    ctx->own_s = nrt_now() - t0;
    return st;
}

/* Contract: neurort.h. */
int64_t nrt_own_warmup(double dt_ms)
{
    const char *e = getenv("NEUROC_THREADS_WARMUP");
    if (e && *e) {
        char *end;
        long long k = strtoll(e, &end, 10);
        if (*end == '\0' && k >= 0)
            return k < INT32_MAX ? k : INT32_MAX;   /* the counts are 32-bit */
    }
    (void)dt_ms;   /* unset: equal ranges throughout (the moved owners did not pay, docs/performance.md) */
    return 0;
}

/* ===== delivery owners =====} */
