/* nrt_mpi.h -- the MPI layer of a distributed simulator (neuroc --mpi), in libneurort_mpi.a
 * (runtime/src/rt_mpi.c; the GPU ranks' part in rt_mpi_gpu.c). Normal builds neither
 * include nor link it.
 *
 * Each rank owns a contiguous slice of every population (nrt_mpi_slice), or all of a
 * population the generated program replicates; it keeps the synapses onto its own post
 * neurons (nrt_mpi_restrict) and exchanges the spikes of every interval of D steps (the
 * shortest delay), usually in one MPI_Allgather (nrt_mpi_push, nrt_mpi_exchange, nrt_mpi_take), so
 * every rank sees the single-rank spike lists of every step, in neuron order. Rank 0 writes
 * every output file. This header does not include mpi.h: generated code needs only it.
 */
#ifndef NRT_MPI_H
#define NRT_MPI_H

#include "neurort.h"
#include "nrt_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nrt_mpi nrt_mpi;

/* MPI_Init (a single rank without mpirun works), rank and size; registers MPI_Finalize to
 * run at exit. Ranks other than 0 become quiet and write no files (ctx->out_dir = NULL):
 * call after nrt_init. NULL with errmsg on failure, and for --instances B > 1. */
nrt_mpi *nrt_mpi_init(nrt_ctx *ctx, int *argc, char ***argv);
int nrt_mpi_rank(const nrt_mpi *m);
int nrt_mpi_size(const nrt_mpi *m);
/* Stop every rank at once after an error on one of them (exit status `code`); with one
 * rank, finalise and return. */
void nrt_mpi_abort(nrt_mpi *m, int code);

/* The slice [*lo, *hi) of n elements that this rank owns: rank r of R owns
 * [n r / R, n (r + 1) / R). */
void nrt_mpi_slice(const nrt_mpi *m, int64_t n, int64_t *lo, int64_t *hi);

/* Keep only the synapses of c whose post index is in [lo, hi), in their order. *rank
 * receives, per kept synapse, its rank in its full row (s - row_ptr[i] before), which keys
 * its draws; *full_row_ptr (unless NULL) a copy of the row pointers before; fw and fd (NULL
 * or nnz values each, an edge file's columns) are compacted alongside. NRT_ENOMEM with errmsg. */
nrt_status nrt_mpi_restrict(nrt_ctx *ctx, nrt_csr *c, int64_t lo, int64_t hi, int32_t **rank,
                            int64_t **full_row_ptr, double *fw, double *fd);

/* The minimum of v over all ranks. */
int64_t nrt_mpi_min(nrt_mpi *m, int64_t v);

/* Spike exchange of an interval of `nsteps` steps of `npops` populations: nrt_mpi_begin,
 * then for each step in order and each population in order nrt_mpi_push of this rank's
 * spikes (global indices, ascending), then nrt_mpi_exchange, then nrt_mpi_take for any
 * (step, population). The exchange also ORs `stop` (a stop request) over the ranks and
 * returns it. */
nrt_status nrt_mpi_begin(nrt_ctx *ctx, nrt_mpi *m, int nsteps, int npops);
nrt_status nrt_mpi_push(nrt_ctx *ctx, nrt_mpi *m, const int64_t *spk, int64_t n);
int nrt_mpi_exchange(nrt_ctx *ctx, nrt_mpi *m, int stop);
/* Write the spikes of every rank for (step k of the interval, population p) to spk, in
 * rank order (so ascending for contiguous slices), and return their number. */
int64_t nrt_mpi_take(const nrt_mpi *m, int k, int p, int64_t *spk);

/* {===== GPU ranks (rt_mpi_gpu.c): one device per rank; CUDA through NCCL, OpenCL through
 * the host ===== */

/* This rank's index among the ranks of its host (the device it takes by default). */
int nrt_mpi_local_rank(const nrt_mpi *m);
/* Ready the exchange between every rank's device g (collective: every rank calls it, after
 * nrt_gpu_open). CUDA: load NCCL ($NEUROC_NCCL, else libnccl.so.2) and make the
 * communicator; NRT_EDEVICE with errmsg when NCCL is missing on some rank or cannot start.
 * OpenCL: nothing to open (the exchange is staged through the host). */
nrt_status nrt_mpi_gpu_open(nrt_ctx *ctx, nrt_mpi *m, nrt_gpu *g);
/* Every rank's first `bytes` of `send`, in rank order, into `recv`. CUDA: enqueued on g's
 * compute queue (ncclAllGather; captured into a graph when capturing); OpenCL: a blocking
 * read, the exchange through MPI (each rank's 32-bit words as they are, or as a list of the
 * positions of their set bits where that is shorter) and a write. */
nrt_status nrt_mpi_gpu_allgather(nrt_ctx *ctx, nrt_gpu *g, nrt_dmem send, nrt_dmem recv, size_t bytes);
/* --save-connectivity of a distributed GPU simulator (collective): every rank's part c, *w
 * (wsize bytes per synapse), *d (or NULL) of a projection (the synapses onto its neurons, in
 * row order) into rank 0's c, *w, *d, replaced by the whole projection in one process's
 * order: a row is its ranks' parts in rank order (ranks hold ascending column ranges), or,
 * where rk is given (rows in draw order), each synapse at rk, its rank in its whole row. */
nrt_status nrt_mpi_gather_csr(nrt_ctx *ctx, nrt_mpi *m, nrt_csr *c, void **w, int wsize, int32_t **d,
                              const int32_t *rk);
/* On rank 0 unless ctx->quiet, where the exchange went through MPI: how many messages went as
 * lists and how many as bits. */
void nrt_mpi_gpu_report(nrt_ctx *ctx, const char *prog);
/* The sum over every rank of the n int32 counts at byte `off` of buf, in place on every rank
 * (a top-k population's histogram of a pass, simt_topk.c). CUDA: ncclAllReduce on g's compute
 * queue; OpenCL: a blocking read, MPI_Allreduce and a write. */
nrt_status nrt_mpi_gpu_sum_i32(nrt_ctx *ctx, nrt_gpu *g, nrt_dmem buf, size_t off, int n);

/* ===== GPU ranks =====} */

/* Checkpoints of distributed GPU simulators (collective: every rank calls it, after
 * nrt_mpi_init): rank 0's part is the folder of --checkpoint/--resume, rank r's the folder
 * rank<r> in it, each a complete checkpoint of that rank's state. --checkpoint: rank r > 0
 * writes into its folder, and rank 0 removes rank<R>/checkpoint.txt (a part of an earlier
 * checkpoint of more ranks). --resume: rank r > 0 reads its folder's header (nrt_init read
 * rank 0's), which must be of rank 0's step and phase; a checkpoint with a part rank<R>, or
 * none for some rank, was written by another number of ranks and is refused. Sets
 * ctx->ckpt_parts (nrt_ckpt_load of a normal program refuses a folder with rank1/). 0; -1
 * with errmsg; -2 when only another rank failed (it says why). */
int nrt_mpi_ckpt_parts(nrt_ctx *ctx, nrt_mpi *m);

/* Merge a row of recorded values into rank 0: each rank fills the entries it owns and
 * leaves the others +0.0; rank 0 receives the bitwise OR, which is every owner's value. */
nrt_status nrt_mpi_row(nrt_ctx *ctx, nrt_mpi *m, double *row, int n);

#ifdef __cplusplus
}
#endif
#endif
