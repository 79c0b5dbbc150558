/* rt_mpi_gpu.c -- the GPU side of distributed simulators (neuroc --mpi --backend cuda or
 * opencl): one device per rank (nrt_mpi.h, "GPU ranks"). Built into libneurort_mpi.a beside
 * rt_mpi.c; only the GPU host programs of `--mpi` reference it.
 *
 * Two transports for an exchange's spike bits (each rank's D slots of its words). CUDA: NCCL
 * between the GPUs, enqueued on the compute stream (below), the bits as they are. OpenCL,
 * which has no such library: through the host, a blocking read, the exchange and a write --
 * correct everywhere (CI runs it on PoCL under mpirun), but a host round trip per exchange.
 * There each rank's message is a list when sparse: every rank's count of set bits first
 * (MPI_Allgather), then an MPI_Allgatherv of each rank's bit positions (word * 32 + bit, in
 * order) where its count is below its words, else of its words; the receiver sets the bits
 * of a list again (staged_lists). NCCL keeps the bits: a message sized by a count would need
 * the count on the host before the send is enqueued, a synchronisation per exchange that a
 * CUDA graph cannot hold.
 *
 * NCCL is loaded with dlopen ($NEUROC_NCCL, else libnccl.so.2), like the CUDA driver, so a
 * simulator links nothing of it and says plainly when it is missing. The few entry points
 * used are declared here with their stable ABI (nccl.h of NCCL 2: a communicator is a
 * pointer, a unique id 128 bytes passed by value, results are ints, 0 = ncclSuccess).
 * MPI only carries the unique id from rank 0 to the others; every spike travels through
 * ncclAllGather on the simulator's compute stream, so a CUDA graph captures it with the
 * kernels around it and no host thread waits for an exchange. The sums of top-k histograms
 * (nrt_mpi_gpu_sum_i32) take the same two roads: ncclAllReduce, or MPI_Allreduce.
 */
#include "nrt_gpu.h"
#include "nrt_mpi.h"
#include "rt_internal.h"

#include <dlfcn.h>
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char internal[128];
} nccl_id;
typedef void *nccl_comm;

static struct {
    void *lib;
    int (*GetVersion)(int *);
    int (*GetUniqueId)(nccl_id *);
    int (*CommInitRank)(nccl_comm *, int, nccl_id, int);
    int (*CommDestroy)(nccl_comm);
    int (*AllGather)(const void *, void *, size_t, int, nccl_comm, void *);
    int (*AllReduce)(const void *, void *, size_t, int, int, nccl_comm, void *);
    const char *(*GetErrorString)(int);
} nc;

enum { NCCL_INT8 = 0, NCCL_INT32 = 2, NCCL_SUM = 0 };

static nccl_comm comm;
static int comm_ranks, my_rank;
static int staged;               /* OpenCL: the exchange goes through the host and MPI */
static unsigned char *stage;     /* its host buffer: every rank's bytes */
static size_t stage_bytes;
static uint32_t *lists;          /* staged_lists: this rank's message, then every rank's */
static size_t lists_words;
static int *counts;              /* staged_lists: per rank its count, then receive counts and offsets */
static long long sent_lists, sent_bits; /* messages of every rank as lists and as bits (rank 0's view) */

static const char *nccl_err(int r)
{
    return nc.GetErrorString ? nc.GetErrorString(r) : "unknown NCCL error";
}

static nrt_status nccl_load(nrt_ctx *ctx)
{
    if (nc.lib)
        return NRT_OK;
    const char *name = getenv("NEUROC_NCCL");
    if (!name || !*name)
        name = "libnccl.so.2";
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        nrt_seterr(ctx, "cannot load NCCL ('%s': %s); a distributed CUDA simulator exchanges spikes "
                   "between GPUs through NCCL: install it (libnccl2) or name the library in $NEUROC_NCCL",
                   name, dlerror());
        return NRT_EDEVICE;
    }
#define SYM(f)                                                                                     \
    if (!(*(void **)&nc.f = dlsym(lib, "nccl" #f))) {                                              \
        nrt_seterr(ctx, "'%s' has no nccl" #f ": not an NCCL 2 library", name);                    \
        dlclose(lib);                                                                              \
        memset(&nc, 0, sizeof nc);                                                                 \
        return NRT_EDEVICE;                                                                        \
    }
    SYM(GetVersion) SYM(GetUniqueId) SYM(CommInitRank) SYM(CommDestroy) SYM(AllGather)
    SYM(AllReduce) SYM(GetErrorString)
#undef SYM
    nc.lib = lib;
    return NRT_OK;
}

static void comm_free(void)
{
    if (comm && nc.CommDestroy)
        nc.CommDestroy(comm);
    comm = NULL;
    free(stage);
    stage = NULL;
    free(lists);
    lists = NULL;
    free(counts);
    counts = NULL;
}

int nrt_mpi_local_rank(const nrt_mpi *m)
{
    (void)m;
    MPI_Comm local;
    int r = 0;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local) != MPI_SUCCESS)
        return 0;
    MPI_Comm_rank(local, &r);
    MPI_Comm_free(&local);
    return r;
}

nrt_status nrt_mpi_gpu_open(nrt_ctx *ctx, nrt_mpi *m, nrt_gpu *g)
{
    const int rank = nrt_mpi_rank(m), size = nrt_mpi_size(m);
    comm_ranks = size;
    my_rank = rank;
    if (!nrt_gpu_native_stream(g)) {   /* OpenCL */
        staged = 1;
        atexit(comm_free);
        return NRT_OK;
    }
    int ok = nccl_load(ctx) == NRT_OK, all = 0;
    /* every rank learns whether every rank has NCCL before any waits in a collective */
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!all) {
        if (ok)
            nrt_seterr(ctx, "another rank could not load NCCL (see its message)");
        return NRT_EDEVICE;
    }
    nccl_id id;
    memset(&id, 0, sizeof id);
    int r = 0;
    if (rank == 0)
        r = nc.GetUniqueId(&id);
    MPI_Bcast(&r, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (r != 0) {
        nrt_seterr(ctx, "ncclGetUniqueId failed on rank 0: %s", nccl_err(r));
        return NRT_EDEVICE;
    }
    MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    (void)nrt_gpu_native_stream(g); /* the device's context current for NCCL's runtime calls */
    if ((r = nc.CommInitRank(&comm, size, id, rank)) != 0) {
        nrt_seterr(ctx, "ncclCommInitRank (rank %d of %d on %s) failed: %s", rank, size,
                   nrt_gpu_get_info(g)->name, nccl_err(r));
        comm = NULL;
        return NRT_EDEVICE;
    }
    atexit(comm_free);
    return NRT_OK;
}

/* The staged exchange of `words` 32-bit words per rank, this rank's already at its place in
 * `stage`: each rank's message a list of its set bits' positions where that is shorter than
 * its words (see the head comment). 1 when it cannot (sizes past MPI's int counts or 32-bit
 * positions): the caller sends the bits. */
static int staged_lists(nrt_ctx *ctx, size_t words, nrt_status *st)
{
    const int R = comm_ranks;
    if (words == 0 || words > ((size_t)1 << 27) || words * (size_t)R > (size_t)INT_MAX)
        return 1;
    if (!counts && !(counts = malloc(3 * (size_t)R * sizeof *counts)))
        goto nomem;
    if (lists_words < words * (size_t)(R + 1)) {
        uint32_t *p = realloc(lists, words * (size_t)(R + 1) * sizeof *p);
        if (!p)
            goto nomem;
        lists = p;
        lists_words = words * (size_t)(R + 1);
    }
    uint32_t *mine = (uint32_t *)(void *)(stage + (size_t)my_rank * words * 4), *all = lists + words;
    size_t bits = 0;
    for (size_t w = 0; w < words; w++)
        bits += (size_t)__builtin_popcount(mine[w]);
    int c = bits < words ? (int)bits : (int)words; /* words: sent as they are */
    if (bits < words)
        for (size_t w = 0, q = 0; w < words; w++)
            for (uint32_t b = mine[w]; b; b &= b - 1)
                lists[q++] = (uint32_t)(w * 32 + (size_t)__builtin_ctz(b));
    MPI_Allgather(&c, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    int *rc = counts + R, *off = counts + 2 * R, at = 0;
    for (int r = 0; r < R; r++) {
        const int list = (size_t)counts[r] < words;
        rc[r] = list ? counts[r] : (int)words;
        off[r] = at;
        at += rc[r];
        sent_lists += list;
        sent_bits += !list;
    }
    const int n = rc[my_rank];
    MPI_Allgatherv((size_t)c < words ? (void *)lists : (void *)mine, n, MPI_UINT32_T, all, rc, off,
                   MPI_UINT32_T, MPI_COMM_WORLD);
    for (int r = 0; r < R; r++) {
        uint32_t *dst = (uint32_t *)(void *)(stage + (size_t)r * words * 4);
        if (r == my_rank)
            continue;
        if ((size_t)counts[r] < words) {
            memset(dst, 0, words * 4);
            for (int q = 0; q < rc[r]; q++)
                dst[all[off[r] + q] >> 5] |= 1u << (all[off[r] + q] & 31);
        } else {
            memcpy(dst, all + off[r], words * 4);
        }
    }
    *st = NRT_OK;
    return 0;
nomem:
    nrt_seterr(ctx, "out of memory for the spike exchange (%zu words from each of %d ranks)", words, R);
    *st = NRT_ENOMEM;
    return 0;
}

void nrt_mpi_gpu_report(nrt_ctx *ctx, const char *prog)
{
    if (!ctx->quiet && my_rank == 0 && staged && comm_ranks > 1)
        fprintf(stderr, "%s: spike exchange through MPI: %lld messages as lists, %lld as bits\n", prog, sent_lists,
                sent_bits);
}

nrt_status nrt_mpi_gpu_allgather(nrt_ctx *ctx, nrt_gpu *g, nrt_dmem send, nrt_dmem recv, size_t bytes)
{
    if (!comm && !staged) {
        nrt_seterr(ctx, "spike exchange before nrt_mpi_gpu_open");
        return NRT_EINVAL;
    }
    if (send.bytes < bytes || recv.bytes < bytes * (size_t)comm_ranks) {
        nrt_seterr(ctx, "spike exchange: buffers of %zu and %zu bytes for %zu bytes from each of %d ranks",
                   send.bytes, recv.bytes, bytes, comm_ranks);
        return NRT_EINVAL;
    }
    if (staged) {
        const size_t all = bytes * (size_t)comm_ranks;
        if (stage_bytes < all) {
            unsigned char *p = realloc(stage, all);
            if (!p) {
                nrt_seterr(ctx, "out of memory for the spike exchange (%zu bytes)", all);
                return NRT_ENOMEM;
            }
            stage = p;
            stage_bytes = all;
        }
        /* in place: this rank's bytes where MPI_Allgather puts them */
        nrt_status st = nrt_gpu_read(g, send, 0, stage + (size_t)my_rank * bytes, bytes);
        if (st != NRT_OK)
            return st;
        if (bytes > (size_t)INT_MAX) {
            nrt_seterr(ctx, "spike exchange of %zu bytes per rank: more than MPI takes in one message", bytes);
            return NRT_EINVAL;
        }
        if (bytes % 4 != 0 || staged_lists(ctx, bytes / 4, &st))
            MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, stage, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
        if (st != NRT_OK)
            return st;
        return nrt_gpu_write(g, recv, 0, stage, all);
    }
    void *s = nrt_gpu_native_stream(g);
    int r = nc.AllGather((const void *)send.h, (void *)recv.h, bytes, NCCL_INT8, comm, s);
    if (r != 0) {
        nrt_seterr(ctx, "ncclAllGather of %zu bytes per rank failed: %s", bytes, nccl_err(r));
        return NRT_EDEVICE;
    }
    return NRT_OK;
}

nrt_status nrt_mpi_gpu_sum_i32(nrt_ctx *ctx, nrt_gpu *g, nrt_dmem buf, size_t off, int n)
{
    if (!comm && !staged) {
        nrt_seterr(ctx, "sum across ranks before nrt_mpi_gpu_open");
        return NRT_EINVAL;
    }
    const size_t bytes = (size_t)n * sizeof(int32_t);
    if (n < 0 || off > buf.bytes || buf.bytes - off < bytes) {
        nrt_seterr(ctx, "sum across ranks: %d counts at byte %zu of a %zu-byte buffer", n, off, buf.bytes);
        return NRT_EINVAL;
    }
    if (staged) {
        if (stage_bytes < bytes) {
            unsigned char *p = realloc(stage, bytes);
            if (!p) {
                nrt_seterr(ctx, "out of memory for a sum across ranks (%zu bytes)", bytes);
                return NRT_ENOMEM;
            }
            stage = p;
            stage_bytes = bytes;
        }
        nrt_status st = nrt_gpu_read(g, buf, off, stage, bytes);
        if (st != NRT_OK)
            return st;
        MPI_Allreduce(MPI_IN_PLACE, stage, n, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
        return nrt_gpu_write(g, buf, off, stage, bytes);
    }
    void *p = (void *)(buf.h + off);
    int r = nc.AllReduce(p, p, (size_t)n, NCCL_INT32, NCCL_SUM, comm, nrt_gpu_native_stream(g));
    if (r != 0) {
        nrt_seterr(ctx, "ncclAllReduce of %d counts failed: %s", n, nccl_err(r));
        return NRT_EDEVICE;
    }
    return NRT_OK;
}

/* nrt_mpi_gather_csr (nrt_mpi.h) on rank 0, once every rank's part is there: rank r's
 * synapses at off[r] of col, ww (wsize bytes each), dd and rks (or NULL), its row lengths at
 * len[r n ..]. The whole projection replaces c, *w and *d: row i is every rank's part of row
 * i in rank order, or each synapse at its rank in the row where rks is given. -1 (errmsg)
 * when out of memory. */
static int assemble(nrt_ctx *ctx, nrt_csr *c, void **w, int wsize, int32_t **d, int R, int64_t all,
                    const int64_t *len, const int *off, const int32_t *col, const unsigned char *ww,
                    const int32_t *dd, const int32_t *rks)
{
    const int64_t n = c->n_pre;
    const size_t k = (size_t)(all ? all : 1);
    int64_t *rp = nrt_alloc(ctx, (size_t)(n + 1) * sizeof *rp, "connectivity row pointers");
    int64_t *at = nrt_alloc(ctx, (size_t)(n ? n : 1) * sizeof *at, "connectivity rows");
    int32_t *ncol = nrt_alloc(ctx, k * sizeof *ncol, "connectivity columns");
    unsigned char *nw = nrt_alloc(ctx, k * (size_t)wsize, "weights");
    int32_t *nd = dd ? nrt_alloc(ctx, k * sizeof *nd, "delays") : NULL;
    if (!rp || !at || !ncol || !nw || (dd && !nd)) {
        nrt_free(rp);
        nrt_free(at);
        nrt_free(ncol);
        nrt_free(nw);
        nrt_free(nd);
        return -1;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t l = 0;
        for (int r = 0; r < R; r++)
            l += len[(int64_t)r * n + i];
        rp[i + 1] = rp[i] + l;
        at[i] = rp[i];
    }
    for (int r = 0; r < R; r++) {
        int64_t src = off[r];
        for (int64_t i = 0; i < n; i++)
            for (int64_t q = 0; q < len[(int64_t)r * n + i]; q++, src++) {
                const int64_t to = rks ? rp[i] + rks[src] : at[i]++;
                ncol[to] = col[src];
                memcpy(nw + (size_t)to * (size_t)wsize, ww + (size_t)src * (size_t)wsize, (size_t)wsize);
                if (dd)
                    nd[to] = dd[src];
            }
    }
    nrt_free(at);
    nrt_free(c->row_ptr);
    nrt_free(c->col);
    nrt_free(*w);
    nrt_free(*d);
    c->row_ptr = rp;
    c->col = ncol;
    c->nnz = all;
    *w = nw;
    *d = nd;
    return 0;
}

/* Rank 0: the counts and offsets of MPI_Gatherv for tot[r] elements from each rank, in units
 * of `size` elements (MPI takes ints). -1 (errmsg) past them. */
static int gather_counts(nrt_ctx *ctx, int R, const int64_t *tot, int64_t size, int *cnt, int *off)
{
    int64_t at = 0;
    for (int r = 0; r < R; r++) {
        const int64_t b = tot[r] * size;
        if (b > INT_MAX || at > INT_MAX - b) {
            nrt_seterr(ctx, "--save-connectivity: a projection with an array of more than %d elements, more than one MPI message takes",
                       INT_MAX);
            return -1;
        }
        cnt[r] = (int)b;
        off[r] = (int)at;
        at += b;
    }
    return 0;
}

nrt_status nrt_mpi_gather_csr(nrt_ctx *ctx, nrt_mpi *m, nrt_csr *c, void **w, int wsize, int32_t **d,
                              const int32_t *rk)
{
    const int R = nrt_mpi_size(m), me = nrt_mpi_rank(m), hasd = *d != NULL;
    const int64_t n = c->n_pre, mine = c->nnz;
    if (n > INT_MAX || mine > INT_MAX / (wsize > 4 ? wsize : 4)) {   /* the same rows on every rank */
        nrt_seterr(ctx, "--save-connectivity: a projection of %lld rows and %lld synapses on one rank, more than one MPI message takes",
                   (long long)n, (long long)mine);
        return NRT_EINVAL;
    }
    int64_t *mylen = malloc((size_t)(n ? n : 1) * sizeof *mylen), *len = NULL, *tot = NULL, all = 0;
    int *cnt = NULL;
    int32_t *col = NULL, *dd = NULL, *rks = NULL;
    unsigned char *ww = NULL;
    if (me == 0) {
        len = malloc((size_t)(R * n + 1) * sizeof *len);
        tot = malloc((size_t)R * sizeof *tot);
        cnt = malloc((size_t)R * 4 * sizeof *cnt);   /* per rank: synapses, their offset; bytes, offset */
    }
    int bad = !mylen || (me == 0 && (!len || !tot || !cnt));
    if (bad)
        nrt_seterr(ctx, "out of memory gathering a projection's rows for --save-connectivity");
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (bad)
        goto out;
    for (int64_t i = 0; i < n; i++)
        mylen[i] = c->row_ptr[i + 1] - c->row_ptr[i];
    MPI_Gather(&mine, 1, MPI_INT64_T, tot, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    MPI_Gather(mylen, (int)n, MPI_INT64_T, len, (int)n, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (me == 0) {
        for (int r = 0; r < R; r++)
            all += tot[r];
        bad = gather_counts(ctx, R, tot, 1, cnt, cnt + R) || gather_counts(ctx, R, tot, wsize, cnt + 2 * R, cnt + 3 * R);
        const size_t k = (size_t)(all ? all : 1);
        if (!bad && (!(col = malloc(k * sizeof *col)) || !(ww = malloc(k * (size_t)wsize)) ||
                     (hasd && !(dd = malloc(k * sizeof *dd))) || (rk && !(rks = malloc(k * sizeof *rks))))) {
            nrt_seterr(ctx, "out of memory gathering a projection's %lld synapses for --save-connectivity",
                       (long long)all);
            bad = 1;
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (bad)
        goto out;
    int *const cs = cnt, *const os = cnt ? cnt + R : NULL, *const cb = cnt ? cnt + 2 * R : NULL, *const ob = cnt ? cnt + 3 * R : NULL;
    MPI_Gatherv(c->col, (int)mine, MPI_INT32_T, col, cs, os, MPI_INT32_T, 0, MPI_COMM_WORLD);
    MPI_Gatherv(*w, (int)(mine * wsize), MPI_BYTE, ww, cb, ob, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (hasd)
        MPI_Gatherv(*d, (int)mine, MPI_INT32_T, dd, cs, os, MPI_INT32_T, 0, MPI_COMM_WORLD);
    if (rk)
        MPI_Gatherv(rk, (int)mine, MPI_INT32_T, rks, cs, os, MPI_INT32_T, 0, MPI_COMM_WORLD);
    if (me == 0)
        bad = assemble(ctx, c, w, wsize, d, R, all, len, os, col, ww, dd, rks) != 0;
out:
    free(mylen);
    free(len);
    free(tot);
    free(cnt);
    free(col);
    free(ww);
    free(dd);
    free(rks);
    if (bad && !ctx->errmsg[0])
        nrt_seterr(ctx, "--save-connectivity: another rank could not gather a projection (see its message)");
    return bad ? NRT_ENOMEM : NRT_OK;
}
