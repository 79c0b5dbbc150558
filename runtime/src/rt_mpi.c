/* rt_mpi.c -- the MPI layer of distributed C simulators (nrt_mpi.h), built into
 * libneurort_mpi.a only when CMake finds MPI; compiled with MPI's include flags.
 *
 * The spike exchange of an interval: each rank's message is int32 words
 *     [stop, total, count of each (step, population) q, the spikes in q order]
 * and the first `slot` words of every message travel in one fixed-size MPI_Allgather (slot:
 * the header and `inl` spikes). Only when a message is longer does a second collective, an
 * MPI_Allgatherv of the rest, follow; `inl` then grows to the longest message seen, the
 * same on every rank (each sees every header), so a steady run needs one collective per
 * interval: latency, not bytes, is what an exchange costs. The messages are then laid end to
 * end in `recv`; off[r * nq + q] is where rank r's spikes of q start.
 */
#include "nrt_mpi.h"
#include "rt_internal.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { HDR = 2 };                  /* stop flag, total */

struct nrt_mpi {
    int rank, size;
    int nsteps, npops, q;          /* the interval's shape; q: next (step, pop) to push */
    int64_t inl;                   /* spikes per rank that travel in the fixed gather */
    int32_t *send, *fixed, *over, *recv;
    int64_t nsend, capsend, capfixed, capover, caprecv;
    int64_t *off, capoff;          /* size * nq */
    int *rcounts, *rdispls;
};

static void finalize_at_exit(void)
{
    int done = 0;
    MPI_Finalized(&done);
    if (!done)
        MPI_Finalize();
}

nrt_mpi *nrt_mpi_init(nrt_ctx *ctx, int *argc, char ***argv)
{
    int inited = 0;
    if (ctx->instances > 1) {   /* each instance would be a process of its own, outside the MPI job */
        nrt_seterr(ctx, "--instances cannot be combined with a distributed simulator (run mpirun once per seed)");
        return NULL;
    }
    MPI_Initialized(&inited);
    if (!inited && MPI_Init(argc, argv) != MPI_SUCCESS) {
        nrt_seterr(ctx, "MPI_Init failed");
        return NULL;
    }
    atexit(finalize_at_exit);
    nrt_mpi *m = nrt_alloc(ctx, sizeof *m, "MPI state");
    if (!m)
        return NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m->size);
    m->rcounts = nrt_alloc(ctx, (size_t)m->size * 2 * sizeof(int), "MPI counts");
    if (!m->rcounts)
        return NULL;
    m->rdispls = m->rcounts + m->size;
    if (m->rank != 0) {
        ctx->quiet = 1;
        ctx->out_dir = NULL;
        ctx->bench = NULL;         /* rank 0 alone writes the --bench report */
    }
    return m;
}

int nrt_mpi_rank(const nrt_mpi *m)
{
    return m->rank;
}

int nrt_mpi_size(const nrt_mpi *m)
{
    return m->size;
}

void nrt_mpi_abort(nrt_mpi *m, int code)
{
    if (m && m->size > 1)
        MPI_Abort(MPI_COMM_WORLD, code);
    finalize_at_exit();
}

void nrt_mpi_slice(const nrt_mpi *m, int64_t n, int64_t *lo, int64_t *hi)
{
    *lo = n * m->rank / m->size;
    *hi = n * (m->rank + 1) / m->size;
}

nrt_status nrt_mpi_restrict(nrt_ctx *ctx, nrt_csr *c, int64_t lo, int64_t hi, int32_t **rank,
                            int64_t **full_row_ptr, double *fw, double *fd)
{
    if (full_row_ptr) {
        *full_row_ptr = nrt_alloc(ctx, (size_t)(c->n_pre + 1) * sizeof **full_row_ptr, "full row pointers");
        if (!*full_row_ptr)
            return NRT_ENOMEM;
        memcpy(*full_row_ptr, c->row_ptr, (size_t)(c->n_pre + 1) * sizeof **full_row_ptr);
    }
    int64_t kept = 0;
    for (int64_t s = 0; s < c->nnz; s++)
        kept += c->col[s] >= lo && c->col[s] < hi;
    int32_t *rk = nrt_alloc(ctx, (size_t)(kept ? kept : 1) * sizeof *rk, "synapse ranks");
    if (!rk)
        return NRT_ENOMEM;
    int64_t k = 0, start = 0;
    for (int64_t i = 0; i < c->n_pre; i++) {
        const int64_t end = c->row_ptr[i + 1];
        c->row_ptr[i] = k;
        for (int64_t s = start; s < end; s++) {
            if (c->col[s] < lo || c->col[s] >= hi)
                continue;
            c->col[k] = c->col[s];
            if (fw)
                fw[k] = fw[s];
            if (fd)
                fd[k] = fd[s];
            rk[k++] = (int32_t)(s - start);
        }
        start = end;
    }
    c->row_ptr[c->n_pre] = k;
    c->nnz = k;
    *rank = rk;
    return NRT_OK;
}

int64_t nrt_mpi_min(nrt_mpi *m, int64_t v)
{
    int64_t r = v;
    (void)m;
    MPI_Allreduce(&v, &r, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    return r;
}

/* Grow *p (elem bytes each) to hold at least n elements, keeping its contents; *cap tracks
 * its size. */
static int grow(nrt_ctx *ctx, void **p, int64_t *cap, int64_t n, size_t elem, const char *what)
{
    if (n <= *cap)
        return 0;
    int64_t c = *cap ? *cap : 1024;
    while (c < n)
        c *= 2;
    void *q = nrt_alloc(ctx, (size_t)c * elem, what);
    if (!q)
        return -1;
    if (*p)
        memcpy(q, *p, (size_t)*cap * elem);
    nrt_free(*p);
    *p = q;
    *cap = c;
    return 0;
}

nrt_status nrt_mpi_begin(nrt_ctx *ctx, nrt_mpi *m, int nsteps, int npops)
{
    const int64_t nq = (int64_t)nsteps * npops;
    m->nsteps = nsteps;
    m->npops = npops;
    m->q = 0;
    m->nsend = HDR + nq;
    if (grow(ctx, (void **)&m->send, &m->capsend, m->nsend, sizeof *m->send, "spike exchange") != 0 ||
        grow(ctx, (void **)&m->off, &m->capoff, (int64_t)m->size * nq, sizeof *m->off, "spike exchange") != 0)
        return NRT_ENOMEM;
    if (m->inl == 0)
        m->inl = 64;
    return NRT_OK;
}

nrt_status nrt_mpi_push(nrt_ctx *ctx, nrt_mpi *m, const int64_t *spk, int64_t n)
{
    if (grow(ctx, (void **)&m->send, &m->capsend, m->nsend + n, sizeof *m->send, "spike exchange") != 0)
        return NRT_ENOMEM;
    for (int64_t k = 0; k < n; k++)
        m->send[m->nsend + k] = (int32_t)spk[k];
    m->nsend += n;
    m->send[HDR + m->q++] = (int32_t)n;
    return NRT_OK;
}

int nrt_mpi_exchange(nrt_ctx *ctx, nrt_mpi *m, int stop)
{
    const int64_t nq = (int64_t)m->nsteps * m->npops, slot = HDR + nq + m->inl;
    const size_t R = (size_t)m->size;
    m->send[0] = stop != 0;
    m->send[1] = (int32_t)(m->nsend - HDR - nq);
    if (m->nsend > 2147483647 || slot > 2147483647 / m->size) {
        nrt_seterr(ctx, "spike exchange: %lld words from one rank, over 2^31", (long long)m->nsend);
        return -1;
    }
    if (grow(ctx, (void **)&m->send, &m->capsend, slot, sizeof *m->send, "spike exchange") != 0 ||
        grow(ctx, (void **)&m->fixed, &m->capfixed, (int64_t)R * slot, sizeof *m->fixed, "spike exchange") != 0) {
        nrt_seterr(ctx, "spike exchange: out of memory");
        return -1;
    }
    MPI_Allgather(m->send, (int)slot, MPI_INT32_T, m->fixed, (int)slot, MPI_INT32_T, MPI_COMM_WORLD);
    /* every rank's message length, the overflow beyond `slot` */
    int64_t total = 0, nover = 0, longest = 0;
    int any = 0;
    for (size_t r = 0; r < R; r++) {
        const int32_t *h = m->fixed + r * (size_t)slot;
        const int64_t len = HDR + nq + h[1], extra = len > slot ? len - slot : 0;
        any |= h[0] != 0;
        m->rcounts[r] = (int)extra;
        m->rdispls[r] = (int)nover;
        nover += extra;
        total += len;
        if (h[1] > longest)
            longest = h[1];
    }
    if (total > 2147483647 || grow(ctx, (void **)&m->recv, &m->caprecv, total, sizeof *m->recv, "spike exchange") != 0 ||
        grow(ctx, (void **)&m->over, &m->capover, nover, sizeof *m->over, "spike exchange") != 0) {
        nrt_seterr(ctx, "spike exchange of %lld words: out of memory or over 2^31", (long long)total);
        return -1;
    }
    if (nover > 0) {
        const int64_t mine = m->nsend > slot ? m->nsend - slot : 0;
        MPI_Allgatherv(m->send + (mine ? slot : 0), (int)mine, MPI_INT32_T, m->over, m->rcounts, m->rdispls,
                       MPI_INT32_T, MPI_COMM_WORLD);
        m->inl = longest + longest / 4;   /* the same on every rank: they all saw every header */
    }
    /* the messages end to end in recv, and where each (rank, q) starts */
    int64_t at = 0;
    for (size_t r = 0; r < R; r++) {
        const int32_t *h = m->fixed + r * (size_t)slot;
        const int64_t len = HDR + nq + h[1], head = len < slot ? len : slot;
        memcpy(m->recv + at, h, (size_t)head * sizeof *m->recv);
        if (m->rcounts[r])
            memcpy(m->recv + at + head, m->over + m->rdispls[r], (size_t)m->rcounts[r] * sizeof *m->recv);
        int64_t o = at + HDR + nq;
        for (int64_t q = 0; q < nq; q++) {
            m->off[r * (size_t)nq + (size_t)q] = o;
            o += h[HDR + q];
        }
        at += len;
    }
    return any;
}

int64_t nrt_mpi_take(const nrt_mpi *m, int k, int p, int64_t *spk)
{
    const int64_t nq = (int64_t)m->nsteps * m->npops, q = (int64_t)k * m->npops + p;
    int64_t n = 0;
    for (int64_t r = 0; r < m->size; r++) {
        const int32_t *src = m->recv + m->off[r * nq + q];
        const int64_t c = m->recv[m->off[r * nq] - nq + q];   /* its header's count */
        for (int64_t j = 0; j < c; j++)
            spk[n + j] = src[j];
        n += c;
    }
    return n;
}

nrt_status nrt_mpi_row(nrt_ctx *ctx, nrt_mpi *m, double *row, int n)
{
    _Static_assert(sizeof(double) == sizeof(uint64_t), "doubles are 64-bit");
    void *in = m->rank == 0 ? MPI_IN_PLACE : row;
    if (MPI_Reduce(in, row, n, MPI_UINT64_T, MPI_BOR, 0, MPI_COMM_WORLD) != MPI_SUCCESS) {
        nrt_seterr(ctx, "MPI_Reduce of a recording row failed");
        return NRT_EIO;
    }
    return NRT_OK;
}

/* Where this rank's part of a checkpoint is: dir for rank 0, dir/rank<r> for rank r > 0. */
static char *part_dir(const char *dir, int r)
{
    if (r == 0)
        return (char *)dir;
    size_t n = strlen(dir) + 32;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/rank%d", dir, r);
    return p;
}

/* Whether dir/rank<r> holds a checkpoint header. */
static int has_part(const char *dir, int r)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/rank%d/checkpoint.txt", dir, r);
    return access(path, F_OK) == 0;
}

/* This rank's side of nrt_mpi_ckpt_parts: 0, or -1 with errmsg. */
static int ckpt_part(nrt_ctx *ctx, const nrt_mpi *m)
{
    static char *resume, *save; /* this rank's folders, kept for the run */
    if (ctx->resume_dir && !ctx->dry_run) {
        const char *dir = ctx->resume_dir;
        if (has_part(dir, m->size)) {
            nrt_seterr(ctx, "checkpoint '%s' was written by more than %d rank%s (it holds rank%d/): "
                       "resume it with as many ranks as wrote it", dir, m->size, m->size > 1 ? "s" : "", m->size);
            return -1;
        }
        if (m->rank > 0) {
            const int64_t step = ctx->start_step;
            const int phase = ctx->start_phase;
            if (!has_part(dir, m->rank)) {
                nrt_seterr(ctx, "checkpoint '%s' has no part for rank %d (rank%d/checkpoint.txt): it was "
                           "written by fewer than %d ranks; resume it with as many ranks as wrote it",
                           dir, m->rank, m->rank, m->size);
                return -1;
            }
            if (!(resume = part_dir(dir, m->rank)) || nrt_ckpt_open(ctx, resume, 0) != 0) {
                if (!resume)
                    nrt_seterr(ctx, "out of memory");
                return -1;
            }
            if (ctx->start_step != step || ctx->start_phase != phase) {
                nrt_seterr(ctx, "checkpoint '%s': the part of rank %d is of step %lld, rank 0's of step %lld "
                           "(parts of different checkpoints)", dir, m->rank, (long long)ctx->start_step,
                           (long long)step);
                return -1;
            }
            ctx->resume_dir = resume;
        }
    }
    if (ctx->ckpt_dir) {
        if (m->rank == 0) {   /* a part of an earlier checkpoint of more ranks is no longer one */
            char path[4400];
            snprintf(path, sizeof path, "%s/rank%d/checkpoint.txt", ctx->ckpt_dir, m->size);
            (void)remove(path);
        } else if (!(save = part_dir(ctx->ckpt_dir, m->rank))) {
            nrt_seterr(ctx, "out of memory");
            return -1;
        } else {
            ctx->ckpt_dir = save;
        }
    }
    return 0;
}

/* Contract: nrt_mpi.h. */
int nrt_mpi_ckpt_parts(nrt_ctx *ctx, nrt_mpi *m)
{
    ctx->ckpt_parts = 1;
    int own = ckpt_part(ctx, m), any = 0;
    MPI_Allreduce(&own, &any, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return own < 0 ? -1 : any < 0 ? -2 : 0;
}
