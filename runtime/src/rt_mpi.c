/* rt_mpi.c -- the MPI layer of distributed C simulators (nrt_mpi.h), built into
 * libneurort_mpi.a only when CMake finds MPI; compiled with MPI's include flags.
 *
 * The spike exchange of an interval: every rank fills `send` with its spikes as int32 in
 * (step, population) order and `cnt` with their counts, one per (step, population). One
 * MPI_Allgather of the counts (plus the stop flag) tells every rank the layout of every
 * other rank's buffer; one MPI_Allgatherv moves the spikes. off[r][q] is where rank r's
 * spikes of (step, population) q start in `recv`.
 */
#include "nrt_mpi.h"
#include "rt_internal.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

struct nrt_mpi {
    int rank, size;
    int nsteps, npops, q;          /* the interval's shape; q: next (step, pop) slot to push */
    int64_t *cnt;                  /* this rank's counts, nsteps * npops, then the stop flag */
    int64_t *all;                  /* every rank's counts, size * (nsteps * npops + 1) */
    int64_t *off;                  /* size * nsteps * npops offsets into recv */
    int32_t *send, *recv;
    int64_t nsend, capsend, caprecv;
    int *rcounts, *rdispls;
    int capq;
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

/* Grow *p (elem bytes each) to hold at least n elements; *cap tracks its size. */
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
    nrt_free(*p);
    *p = q;
    *cap = c;
    return 0;
}

nrt_status nrt_mpi_begin(nrt_ctx *ctx, nrt_mpi *m, int nsteps, int npops)
{
    const int nq = nsteps * npops;
    if (nq + 1 > m->capq) {
        nrt_free(m->cnt);
        nrt_free(m->all);
        nrt_free(m->off);
        m->cnt = nrt_alloc(ctx, (size_t)(nq + 1) * sizeof *m->cnt, "MPI counts");
        m->all = nrt_alloc(ctx, (size_t)m->size * (size_t)(nq + 1) * sizeof *m->all, "MPI counts");
        m->off = nrt_alloc(ctx, (size_t)m->size * (size_t)(nq + 1) * sizeof *m->off, "MPI offsets");
        if (!m->cnt || !m->all || !m->off) {
            m->capq = 0;
            return NRT_ENOMEM;
        }
        m->capq = nq + 1;
    }
    m->nsteps = nsteps;
    m->npops = npops;
    m->q = 0;
    m->nsend = 0;
    return NRT_OK;
}

nrt_status nrt_mpi_push(nrt_ctx *ctx, nrt_mpi *m, const int64_t *spk, int64_t n)
{
    if (grow(ctx, (void **)&m->send, &m->capsend, m->nsend + n, sizeof *m->send, "spike exchange") != 0)
        return NRT_ENOMEM;
    for (int64_t k = 0; k < n; k++)
        m->send[m->nsend + k] = (int32_t)spk[k];
    m->nsend += n;
    m->cnt[m->q++] = n;
    return NRT_OK;
}

int nrt_mpi_exchange(nrt_ctx *ctx, nrt_mpi *m, int stop)
{
    const int nq = m->nsteps * m->npops, w = nq + 1;
    m->cnt[nq] = stop;
    MPI_Allgather(m->cnt, w, MPI_INT64_T, m->all, w, MPI_INT64_T, MPI_COMM_WORLD);
    int64_t total = 0;
    int any = 0;
    for (int r = 0; r < m->size; r++) {
        const int64_t *c = m->all + (size_t)r * (size_t)w;
        int64_t n = 0;
        for (int q = 0; q < nq; q++) {
            m->off[(size_t)r * (size_t)w + (size_t)q] = total + n;
            n += c[q];
        }
        any |= c[nq] != 0;
        m->rcounts[r] = (int)n;
        m->rdispls[r] = (int)total;
        total += n;
    }
    if (total > 2147483647 ||
        grow(ctx, (void **)&m->recv, &m->caprecv, total, sizeof *m->recv, "spike exchange") != 0) {
        nrt_seterr(ctx, "spike exchange of %lld spikes: out of memory or over 2^31", (long long)total);
        return -1;
    }
    MPI_Allgatherv(m->send, (int)m->nsend, MPI_INT32_T, m->recv, m->rcounts, m->rdispls, MPI_INT32_T,
                   MPI_COMM_WORLD);
    return any;
}

int64_t nrt_mpi_take(const nrt_mpi *m, int k, int p, int64_t *spk)
{
    const int nq = m->nsteps * m->npops, w = nq + 1, q = k * m->npops + p;
    int64_t n = 0;
    for (int r = 0; r < m->size; r++) {
        const int64_t c = m->all[(size_t)r * (size_t)w + (size_t)q];
        const int32_t *src = m->recv + m->off[(size_t)r * (size_t)w + (size_t)q];
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
