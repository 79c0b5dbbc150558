/* rt_gpu_impl.h -- what the device layer's front (rt_gpu.c) shares with its two
 * implementations (rt_cuda.c, rt_opencl.c); not installed.
 *
 * rt_gpu.c implements every nrt_gpu_* call of nrt_gpu.h once: argument and state checks,
 * buffer bookkeeping and the messages they give. It then calls the implementation through
 * an nrt_gpu_ops table, whose functions may assume their arguments were checked: buffers
 * exist and ranges lie inside them, slots are 0..NRT_GPU_SLOTS-1, kernels have all their
 * arguments set. An implementation embeds struct nrt_gpu as the first member of its own
 * device structure, and reports failures with nrt_seterr(g->ctx, ...).
 */
#ifndef RT_GPU_IMPL_H
#define RT_GPU_IMPL_H

#include "nrt_gpu.h"
#include "rt_internal.h"

#define NRT_GPU_SLOTS 8

/* A live device buffer: its handle, size and the name it was allocated under. */
typedef struct nrt_gpu_buf {
    uintptr_t h;
    size_t bytes;
    char what[64];
} nrt_gpu_buf;

typedef struct nrt_gpu_ops nrt_gpu_ops;

struct nrt_gpu {
    const nrt_gpu_ops *ops;
    nrt_ctx *ctx;
    nrt_api api;
    nrt_gpu_info info;
    int loaded;                   /* nrt_gpu_load succeeded */
    int capturing;                /* between capture_begin and capture_end */
    int sync_each;                /* $NEUROC_GPU_SYNC=1: wait after every launch (nrt_gpu.h) */
    int marked[NRT_GPU_SLOTS];    /* slot holds an event */
    nrt_kernel *kernels;          /* every kernel made, freed by nrt_gpu_close */
    nrt_graph *graphs;
    nrt_gpu_buf *bufs;            /* live device buffers */
    size_t nbufs, capbufs;
    void **hosts;                 /* live host buffers */
    size_t nhosts, caphosts;
    /* the arena (rt_gpu_arena.c): once on, every buffer is a range of it */
    int arena_on;
    uintptr_t arena;              /* the driver's buffer, or 0 before the first range */
    size_t arena_cap, arena_top;  /* its size; the end of the last range */
    unsigned arena_gen;           /* counts the arena's moves (each growth) */
    size_t arena_align;           /* ranges start at multiples of it (sub-buffer origins) */
};

/* An argument of a kernel that is a range of the arena (or the whole arena), bound when the
 * kernel is launched if the arena moved since (rt_gpu_arena.c). */
typedef struct nrt_karg_arena {
    int kind;                     /* 0: not the arena's; 1: a range; 2: the whole arena */
    size_t off, bytes;            /* the range */
    unsigned gen;                 /* arena_gen when bound */
    uintptr_t sub;                /* the range's sub-buffer, or 0 */
} nrt_karg_arena;

struct nrt_kernel {
    nrt_gpu *g;
    nrt_kernel *next;
    char *name;
    int nargs;
    uintptr_t h;                  /* CUfunction or cl_kernel */
    unsigned char *set;           /* nargs flags: argument i has been set */
    uint32_t *arg_bytes;          /* nargs parameter sizes where the driver tells, else 0 */
    uint64_t *slots;              /* nargs argument values (CUDA passes pointers to them) */
    void **params;                /* params[i] = &slots[i] */
    size_t shmem_limit;           /* CUDA: dynamic shared memory the kernel was opened to */
    size_t fits_group, fits_local; /* the last group size and local bytes found to fit (launch) */
    nrt_karg_arena *ar;           /* nargs entries once an argument is of the arena, else NULL */
};

struct nrt_graph {
    nrt_gpu *g;
    nrt_graph *next;
    uintptr_t h;                  /* CUgraphExec */
};

struct nrt_gpu_ops {
    const char *name;             /* "CUDA", "OpenCL" */
    /* Number of devices (loads the driver). NRT_EDEVICE with errmsg when it cannot. */
    nrt_status (*count)(nrt_ctx *ctx, int *n);
    /* Fill `info` of device `index` (0 <= index < count). */
    nrt_status (*describe)(nrt_ctx *ctx, int index, nrt_gpu_info *info);
    /* Open device `index`: allocate the implementation's structure (zeroed), fill the base
     * (ops, ctx, api, info) and create the queues. */
    nrt_status (*open)(nrt_ctx *ctx, int index, nrt_gpu **out);
    /* Release queues, events and program, then the structure; everything made through
     * the calls below has been freed already. */
    void (*close)(nrt_gpu *g);
    nrt_status (*load)(nrt_gpu *g, const void *image, size_t len, const char *options);
    /* Look up k->name: set k->h and, where known, k->arg_bytes. */
    nrt_status (*kernel)(nrt_gpu *g, nrt_kernel *k);
    void (*kernel_free)(nrt_kernel *k);
    /* Set argument i: `size` bytes at v, or the buffer handle *(const uintptr_t *)v when
     * is_mem. */
    nrt_status (*arg)(nrt_kernel *k, int i, const void *v, size_t size, int is_mem);
    /* groups x batch groups: `batch` in the grid's second dimension (nrt_gpu_launch_batch) */
    nrt_status (*launch)(nrt_kernel *k, size_t groups, size_t batch, size_t group_size,
                         size_t local_bytes, int coop);
    size_t (*max_resident)(nrt_kernel *k, size_t group_size, size_t local_bytes);
    /* One thread-block cluster of `cluster` groups; the largest cluster that fits (0: none).
     * NULL where the API has no clusters. */
    nrt_status (*launch_cluster)(nrt_kernel *k, size_t cluster, size_t group_size, size_t local_bytes);
    size_t (*max_cluster)(nrt_kernel *k, size_t group_size, size_t local_bytes);
    /* NULL where the API has no graphs. */
    nrt_status (*capture_begin)(nrt_gpu *g);
    nrt_status (*capture_end)(nrt_gpu *g, uintptr_t *graph);
    nrt_status (*graph_launch)(nrt_gpu *g, uintptr_t graph);
    void (*graph_free)(nrt_gpu *g, uintptr_t graph);
    /* A zeroed buffer of bytes > 0; the out-of-memory message names `what`. */
    nrt_status (*alloc)(nrt_gpu *g, size_t bytes, const char *what, uintptr_t *h);
    void (*free)(nrt_gpu *g, uintptr_t h);
    void *(*host_alloc)(nrt_gpu *g, size_t bytes, const char *what);
    void (*host_free)(nrt_gpu *g, void *p);
    nrt_status (*write)(nrt_gpu *g, const nrt_gpu_buf *b, size_t off, const void *src,
                        size_t bytes);
    nrt_status (*read)(nrt_gpu *g, const nrt_gpu_buf *b, size_t off, void *dst, size_t bytes);
    nrt_status (*fill32)(nrt_gpu *g, const nrt_gpu_buf *b, size_t off, uint32_t v,
                         size_t bytes);
    nrt_status (*mark)(nrt_gpu *g, int slot);
    nrt_status (*read_after)(nrt_gpu *g, int slot, const nrt_gpu_buf *b, size_t off,
                             void *dst, size_t bytes);
    nrt_status (*sync)(nrt_gpu *g);
    /* The arena (rt_gpu_arena.c); NULL where the API has none (CUDA: buffers have device
     * addresses). sub: a buffer for bytes [off, off + bytes) of buffer `parent` (released by
     * free); copy: `bytes` from the start of src to the start of dst on the compute queue. */
    nrt_status (*sub)(nrt_gpu *g, uintptr_t parent, size_t off, size_t bytes, uintptr_t *h);
    nrt_status (*copy)(nrt_gpu *g, uintptr_t src, uintptr_t dst, size_t bytes);
    /* The compute queue's native handle (a CUstream) with the device's context made current
     * on this thread; NULL where the API gives none to other libraries (OpenCL). */
    void *(*stream)(nrt_gpu *g);
};

extern const nrt_gpu_ops nrt_cuda_ops;   /* rt_cuda.c */
extern const nrt_gpu_ops nrt_opencl_ops; /* rt_opencl.c */

/* rt_gpu_arena.c: what rt_gpu.c does differently for buffers of the arena. An arena buffer's
 * handle is its offset + 1 (odd: drivers' handles are aligned pointers). */
int nrt_arena_is(const nrt_gpu *g, uintptr_t h);
/* A zeroed range of `bytes` (> 0): its handle in *h. */
nrt_status nrt_arena_alloc(nrt_gpu *g, size_t bytes, const char *what, uintptr_t *h);
void nrt_arena_free(nrt_gpu *g, const nrt_gpu_buf *b);
/* The buffer record that copies into b's range use: the arena's, off moved by b's offset
 * (b itself when b is not of the arena). */
const nrt_gpu_buf *nrt_arena_resolve(nrt_gpu *g, const nrt_gpu_buf *b, size_t *off,
                                     nrt_gpu_buf *tmp);
/* Argument i of k is buffer b (of the arena) or, b NULL, not of the arena any more. */
nrt_status nrt_arena_arg(nrt_kernel *k, int i, const nrt_gpu_buf *b);
/* st, or with $NEUROC_GPU_SYNC=1 (g->sync_each) the result of waiting for the device after
 * the work just enqueued, a failure named "WHAT 'NAME' failed": a fault is reported where it
 * happens rather than at a later call (CUDA_LAUNCH_BLOCKING's role, for both APIs). Off by
 * default: it serialises host and device. */
nrt_status nrt_gpu_waited(nrt_gpu *g, nrt_status st, const char *what, const char *name);

/* Before a launch: bind k's arguments of the arena that it moved since. */
nrt_status nrt_arena_bind(nrt_kernel *k);
void nrt_arena_kernel_free(nrt_kernel *k);
void nrt_arena_close(nrt_gpu *g);

/* "512 bytes", "1.5 KiB", "3.2 GiB", ... into buf (at least 32 bytes); returns buf. */
const char *nrt_fmt_bytes(char *buf, size_t size, uint64_t bytes);

/* The first line of a compiler log that contains "error", into buf (empty if none). */
void nrt_first_error_line(const char *log, char *buf, size_t size);

#endif
