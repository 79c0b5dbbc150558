/* nrt_gpu.h -- the runtime's one device layer, used by the CUDA and OpenCL simulators alike.
 *
 * Generated GPU simulators are plain C programs: they call this API, never CUDA or OpenCL
 * directly, so the host glue is generated once for both back ends (codegen/simt.c). Two
 * implementations sit behind it: rt_cuda.c (the CUDA driver API) and rt_opencl.c. Both
 * load their driver library at run time (dlopen), so a simulator starts on a machine
 * without the driver and says so, instead of failing in the dynamic loader.
 *
 * Model: one device, one in-order compute queue (every launch, write and blocking read
 * runs on it in call order) and one copy queue for reads that overlap computation
 * (nrt_gpu_mark + nrt_gpu_read_after). Every call returns nrt_status and leaves a message
 * in ctx->errmsg on failure: what was being done, with the driver's own error name.
 */
#ifndef NRT_GPU_H
#define NRT_GPU_H

#include "neurort.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nrt_api { NRT_API_CUDA = 1, NRT_API_OPENCL = 2 } nrt_api;

typedef struct nrt_gpu nrt_gpu;
typedef struct nrt_kernel nrt_kernel;
typedef struct nrt_graph nrt_graph;

/* Device memory: a CUdeviceptr or a cl_mem, and its size. {0, 0} is "no buffer". A buffer
 * of the arena (nrt_gpu_arena) has handle offset + 1 instead, odd: never a driver's handle. */
typedef struct nrt_dmem {
    uintptr_t h;
    size_t bytes;
} nrt_dmem;

typedef struct nrt_gpu_info {
    char name[256];               /* "NVIDIA H100 80GB HBM3", "pthread-AMD EPYC ..." */
    char platform[256];           /* OpenCL platform name; "CUDA <driver version>" for CUDA */
    int index;                    /* the index that --device takes */
    int compute_units;            /* SMs / compute units */
    int max_group_size;           /* largest work-group / block */
    int cc_major, cc_minor;       /* CUDA compute capability (0 for OpenCL) */
    size_t global_mem;            /* bytes */
    size_t max_param_bytes;       /* kernel argument space */
    int cooperative;              /* cooperative (grid-barrier) launches work */
    int fp64;                     /* double precision in kernels */
} nrt_gpu_info;

/* Print the devices of `api` to stdout, one per line with the index --device takes.
 * NRT_EDEVICE (with errmsg) when the driver cannot be loaded or has no device. */
nrt_status nrt_gpu_list(nrt_ctx *ctx, nrt_api api);
/* How many devices `api` has: 0, with errmsg saying why, when the driver cannot be loaded
 * or has none. */
int nrt_gpu_count(nrt_ctx *ctx, nrt_api api);

/* Open device ctx->device of `api` (ctx->device < 0: $NEUROC_DEVICE, else 0) and create
 * its queues. Messages: no driver library, driver too old, no device (NRT_EDEVICE), index
 * out of range (naming how many there are) or a bad $NEUROC_DEVICE (NRT_EINVAL). Every
 * later call reports its errors in this ctx->errmsg. */
nrt_status nrt_gpu_open(nrt_ctx *ctx, nrt_api api, nrt_gpu **out);
/* Wait for outstanding work, free every buffer, kernel, graph and queue. NULL is ignored. */
void nrt_gpu_close(nrt_gpu *g);
const nrt_gpu_info *nrt_gpu_get_info(const nrt_gpu *g);
nrt_api nrt_gpu_api(const nrt_gpu *g);
/* The compute queue's native handle for another library to enqueue on in order with the
 * launches (NCCL: nrt_mpi_gpu_allgather): the CUstream, with the device's context made
 * current on this thread. NULL for OpenCL. Work enqueued on it while capturing is captured. */
void *nrt_gpu_native_stream(nrt_gpu *g);

/* Load the device program. CUDA: `image` is a cubin/fatbin/PTX image (len bytes), options
 * ignored. OpenCL: `image` is OpenCL C source (len bytes), built with `options`; on a build
 * failure the whole build log goes to stderr and errmsg says where the model's program
 * failed to build. One program per nrt_gpu. */
nrt_status nrt_gpu_load(nrt_gpu *g, const void *image, size_t len, const char *options);

/* A kernel of the loaded program with `nargs` arguments, set by the nrt_gpu_arg_* calls
 * (arguments persist between launches). NULL with errmsg if the program has no such kernel,
 * or if the driver tells that it takes another number of arguments (OpenCL always; CUDA
 * from driver 12.4, which also checks each argument's size). Freed by nrt_gpu_close. */
nrt_kernel *nrt_gpu_kernel(nrt_gpu *g, const char *name, int nargs);
nrt_status nrt_gpu_arg_mem(nrt_kernel *k, int i, nrt_dmem m);
nrt_status nrt_gpu_arg_i32(nrt_kernel *k, int i, int32_t v);
nrt_status nrt_gpu_arg_i64(nrt_kernel *k, int i, int64_t v);
nrt_status nrt_gpu_arg_f32(nrt_kernel *k, int i, float v);
nrt_status nrt_gpu_arg_f64(nrt_kernel *k, int i, double v);

/* Enqueue `groups` work-groups (blocks) of `group_size` work-items (threads) with the
 * current arguments on the compute queue. `local_bytes` of dynamic local (shared) memory
 * is passed to CUDA; OpenCL kernels declare their local memory statically (pass 0; it is
 * ignored). NRT_EINVAL when an argument was never set; 0 groups enqueue nothing. */
nrt_status nrt_gpu_launch(nrt_kernel *k, size_t groups, size_t group_size, size_t local_bytes);
/* A cooperative launch (every group resident at once: grid barriers are legal). CUDA only;
 * NRT_EINVAL elsewhere or when `groups` exceeds what can be co-resident. */
nrt_status nrt_gpu_launch_coop(nrt_kernel *k, size_t groups, size_t group_size, size_t local_bytes);
/* `batch` work-groups side by side, group b at (0, b) in the grid's second dimension (CUDA
 * blockIdx.y, OpenCL get_group_id(1)): each sees a grid of one group in the first (global
 * index = local index), so a kernel written for one group runs `batch` independent copies
 * (--instances: the block schedule). NRT_EINVAL above 65535 (CUDA's limit). */
nrt_status nrt_gpu_launch_batch(nrt_kernel *k, size_t batch, size_t group_size, size_t local_bytes);
/* One thread-block cluster of `cluster` groups (the grid is the cluster: group r is
 * cluster rank r), whose groups may read and write each other's shared memory (CUDA,
 * compute capability 9.0 and drivers from 12.0); NRT_EINVAL elsewhere. */
nrt_status nrt_gpu_launch_cluster(nrt_kernel *k, size_t cluster, size_t group_size, size_t local_bytes);
/* The largest cluster (16, 8, 4 or 2 groups) of which one can be resident; 0 where there
 * are no clusters. */
size_t nrt_gpu_max_cluster(nrt_kernel *k, size_t group_size, size_t local_bytes);
/* How many groups of `group_size` can be resident at once on the whole device (CUDA:
 * occupancy x SMs; OpenCL: compute units). 0 on failure. */
size_t nrt_gpu_max_resident(nrt_kernel *k, size_t group_size, size_t local_bytes);

/* Record the launches issued between begin and end on the compute queue into a graph
 * instead of running them (CUDA graphs). OpenCL: NRT_EINVAL (callers enqueue directly).
 * A captured launch keeps the argument values it had when captured. While capturing, only
 * launches, fills and argument changes are allowed: write, read, alloc, mark, read_after,
 * sync and graph_launch return NRT_EINVAL. */
nrt_status nrt_gpu_capture_begin(nrt_gpu *g);
nrt_status nrt_gpu_capture_end(nrt_gpu *g, nrt_graph **out);
nrt_status nrt_gpu_graph_launch(nrt_gpu *g, nrt_graph *gr);
void nrt_gpu_graph_free(nrt_graph *gr);

/* Device memory, zeroed. Out of memory says what (`what`), how much was asked and how
 * much the device has free (OpenCL cannot tell: its total and largest buffer instead).
 * 0 bytes gives {0, 0} and NRT_OK. Copies and fills check that their range lies inside a
 * live buffer of this device. */
nrt_status nrt_gpu_alloc(nrt_gpu *g, nrt_dmem *m, size_t bytes, const char *what);
void nrt_gpu_free(nrt_gpu *g, nrt_dmem *m);
/* Page-locked host memory for nrt_gpu_read_after (plain malloc where the API has none),
 * zeroed; NULL with errmsg on failure. */
void *nrt_gpu_host_alloc(nrt_gpu *g, size_t bytes, const char *what);
void nrt_gpu_host_free(nrt_gpu *g, void *p);

/* Copies on the compute queue, in order with launches. write returns once `src` may be
 * reused; read returns once `dst` holds the data (it waits for earlier work). */
nrt_status nrt_gpu_write(nrt_gpu *g, nrt_dmem m, size_t off, const void *src, size_t bytes);
nrt_status nrt_gpu_read(nrt_gpu *g, nrt_dmem m, size_t off, void *dst, size_t bytes);
/* Fill `bytes` at `off` with the 32-bit pattern `v` (bytes a multiple of 4). */
nrt_status nrt_gpu_fill32(nrt_gpu *g, nrt_dmem m, size_t off, uint32_t v, size_t bytes);

/* Double-buffered recording: mark(slot) records an event after the work enqueued so far;
 * read_after(slot, ...) makes the copy queue wait for that event, copies, and returns when
 * `dst` holds the data, while the compute queue goes on with later work. slot 0..7;
 * read_after on a slot never marked is NRT_EINVAL. */
nrt_status nrt_gpu_mark(nrt_gpu *g, int slot);
nrt_status nrt_gpu_read_after(nrt_gpu *g, int slot, nrt_dmem m, size_t off, void *dst,
                              size_t bytes);
/* The wall seconds the calling thread has spent in nrt_gpu_read_after (waiting and copying),
 * so that a drain's own host work is its time less theirs (--bench host_drain_s). */
double nrt_gpu_read_s(void);
/* Wait until everything enqueued on the compute queue has finished (and report a device
 * fault raised by it: NRT_EDEVICE, errmsg "device fault: ..."). */
nrt_status nrt_gpu_sync(nrt_gpu *g);

/* {===== Kernel arguments in a table (codegen/simt.c, "table mode") =====
 *
 * A kernel's arguments may take at most max_param_bytes (OpenCL: at least 1024; CUDA: 4096).
 * A simulator whose kernels need more passes them in a table: a buffer of one 64-bit word per
 * argument that its kernels read, written with nrt_gpu_write. A buffer's word is what
 * nrt_gpu_mem_word gives. OpenCL 1.2 buffers have no device address, so an OpenCL simulator
 * puts every buffer into the arena first: kernels take the arena (nrt_gpu_arg_arena) and find
 * a buffer at its word, an offset in it. */

/* From now on every nrt_gpu_alloc of g is a range of one growing buffer, the arena (ranges
 * aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN and at least 128 bytes). Such a buffer works with
 * every call above as before: reads, writes, fills and frees take its range; as a kernel
 * argument (nrt_gpu_arg_mem) it is a sub-buffer of its range. When the arena grows, it is
 * copied to a larger buffer: offsets stay, and arguments that are the arena or ranges of it
 * follow at the kernel's next launch. Memory freed below the top stays the arena's until
 * nrt_gpu_close. OpenCL only: NRT_EINVAL for CUDA (whose buffers have addresses). */
nrt_status nrt_gpu_arena(nrt_gpu *g);
/* The word by which a kernel finds buffer m in a table: CUDA its device address, a buffer
 * of the arena its offset there; 0 for {0, 0}, -1 for an OpenCL buffer outside the arena. */
int64_t nrt_gpu_mem_word(const nrt_gpu *g, nrt_dmem m);
/* Argument i of k is the whole arena (__global uchar *), wherever it moves. */
nrt_status nrt_gpu_arg_arena(nrt_kernel *k, int i);

/* ===== Kernel arguments in a table =====} */

/* {===== Connectivity on the device (rt_gpu_conn.c, kernels in nrt_conn_dev.h) ===== */

/* A projection's synapses on the device, laid out exactly as nrt_csr: row_ptr (n_pre + 1
 * int64) and col (nnz int32, ascending within a row). */
typedef struct nrt_dcsr {
    int64_t n_pre, n_post, nnz;
    nrt_dmem row_ptr, col;
} nrt_dcsr;

/* Build the synapses of `spec` on the device with the kernels of nrt_conn_dev.h (which the
 * loaded program must contain), following rt_conn.c's specification to the letter: the
 * same seed gives the same synapses in the same order as nrt_conn_build. */
nrt_status nrt_gpu_conn_build(nrt_ctx *ctx, nrt_gpu *g, const nrt_conn_spec *spec, nrt_dcsr *out);
void nrt_gpu_dcsr_free(nrt_gpu *g, nrt_dcsr *c);

/* The column index of c on the device (kernels of nrt_conn_dev.h), for the gathered delivery
 * and plastic post handlers: *cptr (n_post + 1 int64), *csyn (nnz int64), *cpre (nnz int32)
 * such that csyn[cptr[j]] .. csyn[cptr[j + 1] - 1] are the synapses onto post neuron j in
 * ascending order, cpre[q] the presynaptic row of csyn[q] -- exactly the host's stable
 * counting sort. `what` names the allocations (errors); proj_id names the projection in
 * the error of a column longer than 2^32 - 1. Returns when the device has finished. */
nrt_status nrt_gpu_col_index(nrt_ctx *ctx, nrt_gpu *g, const nrt_dcsr *c, uint32_t proj_id,
                             const char *what, nrt_dmem *cptr, nrt_dmem *csyn, nrt_dmem *cpre);

/* ===== Connectivity on the device =====} */

#ifdef __cplusplus
}
#endif
#endif
