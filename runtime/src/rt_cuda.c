/* rt_cuda.c -- the CUDA driver-API implementation of nrt_gpu.h (the ops table behind
 * rt_gpu.c).
 *
 * libcuda.so.1 is opened with dlopen on first use, so a simulator starts (and says why it
 * cannot run) on a machine without the NVIDIA driver. The functions used are listed once
 * in CU_FUNCS; cuda.h #defines many of them to versioned names (cuMemAlloc is
 * cuMemAlloc_v2), and the stringifying S() expands that macro first, so each pointer is
 * resolved under the name the header means. Drivers older than CUDA 12.0 are refused.
 *
 * A device is used through its primary context, made current on every call. One
 * non-blocking stream `s`, the compute queue (launches, copies, fills, in call order);
 * nrt_gpu_read_after copies on the calling thread's own stream (CU_STREAM_PER_THREAD),
 * after the event that nrt_gpu_mark recorded on `s`, so that the threads draining a batch
 * side by side (nrt_parallel) copy at once rather than in one queue. Kernel arguments live
 * in the nrt_kernel's 8-byte slots.
 *
 * Built without cuda.h (NRT_HAVE_CUDA undefined), every call says the runtime has no
 * CUDA support.
 */
#define _POSIX_C_SOURCE 200809L

#include "rt_gpu_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef NRT_HAVE_CUDA

#include <cuda.h>
#include <dlfcn.h>

#define S(x) S_(x)
#define S_(x) #x

/* Every function is resolved under the name cuda.h maps it to (see above). */
#define CU_FUNCS(X)                                                                        \
    X(cuInit) X(cuGetErrorName) X(cuGetErrorString) X(cuDeviceGetCount) X(cuDeviceGet)     \
    X(cuDeviceGetName) X(cuDeviceGetAttribute) X(cuDeviceTotalMem)                         \
    X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent)            \
    X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize) X(cuStreamWaitEvent)       \
    X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuModuleLoadDataEx)              \
    X(cuModuleUnload) X(cuModuleGetFunction) X(cuFuncSetAttribute) X(cuLaunchKernel)       \
    X(cuLaunchCooperativeKernel) X(cuOccupancyMaxActiveBlocksPerMultiprocessor)            \
    X(cuStreamBeginCapture) X(cuStreamEndCapture) X(cuGraphInstantiateWithFlags)           \
    X(cuGraphLaunch) X(cuGraphExecDestroy) X(cuGraphDestroy) X(cuMemAlloc) X(cuMemFree)    \
    X(cuMemAllocHost) X(cuMemFreeHost) X(cuMemsetD8Async) X(cuMemsetD32Async)              \
    X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemGetInfo)

#define CU_DECL(f) __typeof__(&f) f;
static struct {
    __typeof__(&cuDriverGetVersion) cuDriverGetVersion;
    CU_FUNCS(CU_DECL)
    __typeof__(&cuFuncGetAttribute) cuFuncGetAttribute; /* optional: the kernels' own group limit */
#if CUDA_VERSION >= 12040
    __typeof__(&cuFuncGetParamInfo) cuFuncGetParamInfo; /* optional: drivers >= 12.4 */
#endif
#if CUDA_VERSION >= 12000   /* optional: thread-block clusters (drivers >= 12.0) */
    __typeof__(&cuLaunchKernelEx) cuLaunchKernelEx;
    __typeof__(&cuOccupancyMaxActiveClusters) cuOccupancyMaxActiveClusters;
#endif
} cu;
#undef CU_DECL

static void *cu_lib;
static int cu_version;  /* cuDriverGetVersion: 12040 is 12.4 */

static void *cu_sym(void *h, const char *name)
{
    return dlsym(h, name);
}

/* Asynchronous errors of earlier work (a kernel that faulted): every later call of the
 * context returns them. */
static int cu_is_fault(CUresult r)
{
    switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
        return 1;
    default:
        return 0;
    }
}

/* "NAME: description" of a driver error into buf; returns buf. */
static const char *cu_errtext(CUresult r, char *buf, size_t size)
{
    const char *name = NULL, *desc = NULL;
    if (cu.cuGetErrorName && cu.cuGetErrorName(r, &name) != CUDA_SUCCESS)
        name = NULL;
    if (cu.cuGetErrorString && cu.cuGetErrorString(r, &desc) != CUDA_SUCCESS)
        desc = NULL;
    if (name)
        snprintf(buf, size, "%s: %s", name, desc ? desc : "no description");
    else
        snprintf(buf, size, "CUDA error %d", (int)r);
    return buf;
}

/* errmsg = "<doing>: NAME: description", or "device fault: NAME: description (reported
 * while <doing>)" for a fault (always when `fault`); returns NRT_EDEVICE. */
static nrt_status cu_vfail(nrt_ctx *ctx, CUresult r, int fault, const char *fmt, va_list ap)
{
    char doing[320], err[160];
    vsnprintf(doing, sizeof doing, fmt, ap);
    cu_errtext(r, err, sizeof err);
    if (fault || cu_is_fault(r))
        nrt_seterr(ctx, "device fault: %s (reported while %s)", err, doing);
    else
        nrt_seterr(ctx, "%s: %s", doing, err);
    return NRT_EDEVICE;
}

static nrt_status cu_fail(nrt_ctx *ctx, CUresult r, const char *fmt, ...) NRT_PRINTF(3, 4);
static nrt_status cu_fail(nrt_ctx *ctx, CUresult r, const char *fmt, ...)
{
    va_list ap;
    nrt_status st;
    va_start(ap, fmt);
    st = cu_vfail(ctx, r, 0, fmt, ap);
    va_end(ap);
    return st;
}

static nrt_status cu_fault(nrt_ctx *ctx, CUresult r, const char *fmt, ...) NRT_PRINTF(3, 4);
static nrt_status cu_fault(nrt_ctx *ctx, CUresult r, const char *fmt, ...)
{
    va_list ap;
    nrt_status st;
    va_start(ap, fmt);
    st = cu_vfail(ctx, r, 1, fmt, ap);
    va_end(ap);
    return st;
}

/* Load libcuda.so.1, check the driver version, resolve CU_FUNCS and cuInit (once; a
 * failure is retried on the next call). */
static nrt_status cu_load(nrt_ctx *ctx)
{
    void *h, *p;
    CUresult r;
    int v = 0;
    if (cu_lib)
        return NRT_OK;
    h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        nrt_seterr(ctx, "cannot load the CUDA driver library libcuda.so.1 (%s); is the "
                   "NVIDIA driver installed?", dlerror());
        return NRT_EDEVICE;
    }
    p = cu_sym(h, S(cuDriverGetVersion));
    memcpy(&cu.cuDriverGetVersion, &p, sizeof p);
    if (!p || cu.cuDriverGetVersion(&v) != CUDA_SUCCESS) {
        nrt_seterr(ctx, "libcuda.so.1 does not tell its version; it is no usable CUDA driver");
        dlclose(h);
        return NRT_EDEVICE;
    }
    if (v < 12000) {
        nrt_seterr(ctx, "the CUDA driver is version %d.%d; this runtime needs 12.0 or newer "
                   "(update the NVIDIA driver)", v / 1000, (v % 1000) / 10);
        dlclose(h);
        return NRT_EDEVICE;
    }
#define CU_RESOLVE(f)                                                                      \
    p = cu_sym(h, S(f));                                                                   \
    if (!p) {                                                                              \
        nrt_seterr(ctx, "the CUDA driver %d.%d (libcuda.so.1) has no function %s",         \
                   v / 1000, (v % 1000) / 10, S(f));                                       \
        memset(&cu, 0, sizeof cu);                                                         \
        dlclose(h);                                                                        \
        return NRT_EDEVICE;                                                                \
    }                                                                                      \
    memcpy(&cu.f, &p, sizeof p);
    CU_FUNCS(CU_RESOLVE)
#undef CU_RESOLVE
    p = cu_sym(h, S(cuFuncGetAttribute));
    memcpy(&cu.cuFuncGetAttribute, &p, sizeof p);
#if CUDA_VERSION >= 12040
    p = cu_sym(h, S(cuFuncGetParamInfo));
    memcpy(&cu.cuFuncGetParamInfo, &p, sizeof p);
#endif
#if CUDA_VERSION >= 12000
    p = cu_sym(h, S(cuLaunchKernelEx));
    memcpy(&cu.cuLaunchKernelEx, &p, sizeof p);
    p = cu_sym(h, S(cuOccupancyMaxActiveClusters));
    memcpy(&cu.cuOccupancyMaxActiveClusters, &p, sizeof p);
#endif
    r = cu.cuInit(0);
    if (r == CUDA_ERROR_NO_DEVICE) {
        /* loaded, but nothing to run on: count() reports 0 */
    } else if (r != CUDA_SUCCESS) {
        nrt_status st = cu_fail(ctx, r, "initialising the CUDA driver %d.%d", v / 1000,
                                (v % 1000) / 10);
        memset(&cu, 0, sizeof cu);
        dlclose(h);
        return st;
    }
    cu_version = v;
    cu_lib = h;
    return NRT_OK;
}

static nrt_status cu_count(nrt_ctx *ctx, int *n)
{
    CUresult r;
    nrt_status st = cu_load(ctx);
    *n = 0;
    if (st != NRT_OK)
        return st;
    r = cu.cuDeviceGetCount(n);
    if (r == CUDA_ERROR_NO_DEVICE || r == CUDA_ERROR_NOT_INITIALIZED) {
        *n = 0;
        return NRT_OK;
    }
    if (r != CUDA_SUCCESS)
        return cu_fail(ctx, r, "counting the CUDA devices");
    return NRT_OK;
}

static nrt_status cu_describe(nrt_ctx *ctx, int index, nrt_gpu_info *in)
{
    static const CUdevice_attribute attr[] = {
        CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH};
    int val[5], i;
    CUdevice d;
    size_t mem = 0;
    CUresult r;
    nrt_status st = cu_load(ctx);
    if (st != NRT_OK)
        return st;
    memset(in, 0, sizeof *in);
    in->index = index;
    if ((r = cu.cuDeviceGet(&d, index)) != CUDA_SUCCESS)
        return cu_fail(ctx, r, "opening CUDA device %d", index);
    if ((r = cu.cuDeviceGetName(in->name, (int)sizeof in->name, d)) != CUDA_SUCCESS ||
        (r = cu.cuDeviceTotalMem(&mem, d)) != CUDA_SUCCESS)
        return cu_fail(ctx, r, "asking CUDA device %d for its properties", index);
    for (i = 0; i < 5; i++)
        if ((r = cu.cuDeviceGetAttribute(&val[i], attr[i], d)) != CUDA_SUCCESS)
            return cu_fail(ctx, r, "asking CUDA device %d for its properties", index);
    in->name[sizeof in->name - 1] = '\0';
    snprintf(in->platform, sizeof in->platform, "CUDA %d.%d", cu_version / 1000,
             (cu_version % 1000) / 10);
    in->compute_units = val[0];
    in->max_group_size = val[1];
    in->cc_major = val[2];
    in->cc_minor = val[3];
    in->cooperative = val[4] != 0;
    in->global_mem = mem;
    /* 32764 bytes of kernel parameters from CUDA 12.1 on Volta and later, else 4096 */
    in->max_param_bytes = (cu_version >= 12010 && in->cc_major >= 7) ? 32764 : 4096;
    in->fp64 = 1;
    return NRT_OK;
}

typedef struct cu_gpu {
    nrt_gpu base;
    CUdevice dev;
    CUcontext cx;               /* the device's primary context (retained) */
    CUstream s;                 /* the compute stream */
    CUmodule mod;
    CUevent ev[NRT_GPU_SLOTS];
} cu_gpu;

#define CUG(g) ((cu_gpu *)(g))

/* Make the device's context current on this thread (cheap; done on every call). */
static CUresult cu_cur(nrt_gpu *g)
{
    return cu.cuCtxSetCurrent(CUG(g)->cx);
}

static void cu_close(nrt_gpu *g)
{
    cu_gpu *c = CUG(g);
    int i;
    if (c->cx) {
        cu_cur(g);
        if (c->s)
            cu.cuStreamSynchronize(c->s);
        for (i = 0; i < NRT_GPU_SLOTS; i++)
            if (c->ev[i])
                cu.cuEventDestroy(c->ev[i]);
        if (c->mod)
            cu.cuModuleUnload(c->mod);
        if (c->s)
            cu.cuStreamDestroy(c->s);
        cu.cuCtxSetCurrent(NULL);
        cu.cuDevicePrimaryCtxRelease(c->dev);
    }
    free(c);
}

static nrt_status cu_open(nrt_ctx *ctx, int index, nrt_gpu **out)
{
    cu_gpu *c;
    CUresult r;
    int i;
    nrt_status st;
    c = calloc(1, sizeof *c);
    if (!c) {
        nrt_seterr(ctx, "out of memory opening CUDA device %d", index);
        return NRT_ENOMEM;
    }
    c->base.ops = &nrt_cuda_ops;
    c->base.ctx = ctx;
    c->base.api = NRT_API_CUDA;
    if ((st = cu_describe(ctx, index, &c->base.info)) != NRT_OK) {
        free(c);
        return st;
    }
    if ((r = cu.cuDeviceGet(&c->dev, index)) != CUDA_SUCCESS ||
        (r = cu.cuDevicePrimaryCtxRetain(&c->cx, c->dev)) != CUDA_SUCCESS) {
        st = cu_fail(ctx, r, "creating the context of CUDA device %d (%s)", index,
                     c->base.info.name);
        free(c);
        return st;
    }
    if ((r = cu_cur(&c->base)) != CUDA_SUCCESS ||
        (r = cu.cuStreamCreate(&c->s, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS) {
        st = cu_fail(ctx, r, "creating the streams of CUDA device %d (%s)", index,
                     c->base.info.name);
        cu_close(&c->base);
        return st;
    }
    for (i = 0; i < NRT_GPU_SLOTS; i++)
        if ((r = cu.cuEventCreate(&c->ev[i], CU_EVENT_DISABLE_TIMING)) != CUDA_SUCCESS) {
            st = cu_fail(ctx, r, "creating the events of CUDA device %d", index);
            cu_close(&c->base);
            return st;
        }
    *out = &c->base;
    return NRT_OK;
}

/* `image` is a cubin, fatbin or PTX text; a NUL is appended so PTX needs none. */
static nrt_status cu_load_program(nrt_gpu *g, const void *image, size_t len,
                                  const char *options)
{
    enum { LOG = 16384 };
    cu_gpu *c = CUG(g);
    CUjit_option opt[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *val[2];
    char *buf = malloc(len + 1), *log = calloc(1, LOG);
    char first[256], err[160];
    CUresult r;
    if (!buf || !log) {
        free(buf);
        free(log);
        nrt_seterr(g->ctx, "out of memory loading the device program (%zu bytes)", len);
        return NRT_ENOMEM;
    }
    memcpy(buf, image, len);
    buf[len] = '\0';
    val[0] = log;
    val[1] = (void *)(uintptr_t)LOG;
    r = cu_cur(g);
    if (r == CUDA_SUCCESS)
        r = cu.cuModuleLoadDataEx(&c->mod, buf, 2, opt, val);
    free(buf);
    if (r != CUDA_SUCCESS) {
        c->mod = NULL;
        log[LOG - 1] = '\0';
        first[0] = '\0';
        if (log[0]) {
            fprintf(stderr, "neurort: the CUDA JIT compiler's log of the model's device "
                    "program (%s):\n%s%s", g->info.name, log,
                    log[strlen(log) - 1] != '\n' ? "\n" : "");
            fprintf(stderr, "neurort: end of the CUDA JIT log\n");
            fflush(stderr);
            nrt_first_error_line(log, first, sizeof first);
        }
        nrt_seterr(g->ctx, "the model's device program failed to load on CUDA device '%s' "
                   "(%s)%s%s%s", g->info.name, cu_errtext(r, err, sizeof err),
                   first[0] ? ": " : "", first, log[0] ? "; the JIT log is on stderr" : "");
        free(log);
        return NRT_EDEVICE;
    }
    free(log);
    return NRT_OK;
}

static nrt_status cu_kernel(nrt_gpu *g, nrt_kernel *k)
{
    CUfunction f;
    CUresult r = cu_cur(g);
    if (r == CUDA_SUCCESS)
        r = cu.cuModuleGetFunction(&f, CUG(g)->mod, k->name);
    if (r == CUDA_ERROR_NOT_FOUND) {
        nrt_seterr(g->ctx, "the device program has no kernel '%s'", k->name);
        return NRT_EINVAL;
    }
    if (r != CUDA_SUCCESS)
        return cu_fail(g->ctx, r, "looking up kernel '%s'", k->name);
#if CUDA_VERSION >= 12040
    if (cu.cuFuncGetParamInfo) {
        /* the driver knows the parameters: check their number, remember their sizes */
        int n = 0;
        size_t off, size;
        for (; n < 65536; n++) {
            r = cu.cuFuncGetParamInfo(f, (size_t)n, &off, &size);
            if (r != CUDA_SUCCESS)
                break;
            if (n < k->nargs)
                k->arg_bytes[n] = (uint32_t)size;
        }
        if (r != CUDA_ERROR_INVALID_VALUE) {
            memset(k->arg_bytes, 0, (size_t)k->nargs * sizeof *k->arg_bytes); /* unknown */
        } else if (n != k->nargs) {
            nrt_seterr(g->ctx, "kernel '%s' takes %d argument%s, not %d", k->name, n,
                       n == 1 ? "" : "s", k->nargs);
            return NRT_EINVAL;
        }
    }
#endif
    k->h = (uintptr_t)f;
    return NRT_OK;
}

static void cu_kernel_free(nrt_kernel *k)
{
    /* functions belong to the module */
}

static nrt_status cu_arg(nrt_kernel *k, int i, const void *v, size_t size, int is_mem)
{
    k->slots[i] = 0;
    if (is_mem) {
        CUdeviceptr p = (CUdeviceptr) * (const uintptr_t *)v;
        memcpy(&k->slots[i], &p, sizeof p);
    } else {
        memcpy(&k->slots[i], v, size);
    }
    return NRT_OK;
}

/* Dynamic shared memory beyond 48 KiB must be allowed per function first. */
static CUresult cu_shmem(nrt_kernel *k, size_t local_bytes)
{
    CUresult r;
    if (local_bytes <= 48 * 1024 || local_bytes <= k->shmem_limit)
        return CUDA_SUCCESS;
    r = cu.cuFuncSetAttribute((CUfunction)k->h, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                              (int)local_bytes);
    if (r == CUDA_SUCCESS)
        k->shmem_limit = local_bytes;
    return r;
}

/* 0 where the kernel cannot run groups of group_size at all: more than it was compiled for
 * (__launch_bounds__) or than its registers allow (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK; the
 * occupancy call counts blocks past that limit as if they could run). */
static size_t cu_max_resident(nrt_kernel *k, size_t group_size, size_t local_bytes)
{
    int n = 0, most = 0;
    if (cu.cuFuncGetAttribute &&
        cu.cuFuncGetAttribute(&most, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, (CUfunction)k->h) == CUDA_SUCCESS &&
        most > 0 && group_size > (size_t)most)
        return 0;
    if (cu_cur(k->g) != CUDA_SUCCESS || cu_shmem(k, local_bytes) != CUDA_SUCCESS ||
        cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, (CUfunction)k->h, (int)group_size,
                                                       local_bytes) != CUDA_SUCCESS ||
        n < 0)
        return 0;
    return (size_t)n * (size_t)k->g->info.compute_units;
}

#if CUDA_VERSION >= 12000
/* A launch configuration of one cluster of `cluster` groups (grid = cluster). */
static void cu_cluster_cfg(nrt_kernel *k, size_t cluster, size_t group_size, size_t local_bytes,
                           CUlaunchConfig *cfg, CUlaunchAttribute *attr)
{
    memset(cfg, 0, sizeof *cfg);
    memset(attr, 0, sizeof *attr);
    attr->id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr->value.clusterDim.x = (unsigned)cluster;
    attr->value.clusterDim.y = 1;
    attr->value.clusterDim.z = 1;
    cfg->gridDimX = (unsigned)cluster;
    cfg->gridDimY = cfg->gridDimZ = 1;
    cfg->blockDimX = (unsigned)group_size;
    cfg->blockDimY = cfg->blockDimZ = 1;
    cfg->sharedMemBytes = (unsigned)local_bytes;
    cfg->hStream = CUG(k->g)->s;
    cfg->attrs = attr;
    cfg->numAttrs = 1;
}
#endif

/* The largest cluster of 16, 8, 4 or 2 groups that can be resident (0: none, or no
 * clusters on this device or driver). 16 is beyond CUDA's portable size: allowed first. */
static size_t cu_max_cluster(nrt_kernel *k, size_t group_size, size_t local_bytes)
{
#if CUDA_VERSION >= 12000
    CUlaunchConfig cfg;
    CUlaunchAttribute attr;
    if (!cu.cuLaunchKernelEx || !cu.cuOccupancyMaxActiveClusters || k->g->info.cc_major < 9 ||
        cu_cur(k->g) != CUDA_SUCCESS || cu_shmem(k, local_bytes) != CUDA_SUCCESS)
        return 0;
    (void)cu.cuFuncSetAttribute((CUfunction)k->h, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
    for (size_t c = 16; c >= 2; c /= 2) {
        int n = 0;
        cu_cluster_cfg(k, c, group_size, local_bytes, &cfg, &attr);
        if (cu.cuOccupancyMaxActiveClusters(&n, (CUfunction)k->h, &cfg) == CUDA_SUCCESS && n >= 1)
            return c;
    }
    return 0;
#else
    (void)k;
    (void)group_size;
    (void)local_bytes;
    return 0;
#endif
}

static nrt_status cu_launch_cluster(nrt_kernel *k, size_t cluster, size_t group_size,
                                    size_t local_bytes)
{
    nrt_gpu *g = k->g;
#if CUDA_VERSION >= 12000
    CUlaunchConfig cfg;
    CUlaunchAttribute attr;
    CUresult r = cu_cur(g);
    if (r == CUDA_SUCCESS)
        r = cu_shmem(k, local_bytes);
    if (r == CUDA_SUCCESS && cu.cuLaunchKernelEx) {
        cu_cluster_cfg(k, cluster, group_size, local_bytes, &cfg, &attr);
        r = cu.cuLaunchKernelEx(&cfg, (CUfunction)k->h, k->nargs ? k->params : NULL, NULL);
        if (r != CUDA_SUCCESS)
            return cu_fail(g->ctx, r, "launching kernel '%s' as one cluster of %zu groups of %zu threads "
                           "with %zu bytes of shared memory each", k->name, cluster, group_size, local_bytes);
        return NRT_OK;
    }
    if (r != CUDA_SUCCESS)
        return cu_fail(g->ctx, r, "launching kernel '%s' with %zu bytes of shared memory", k->name,
                       local_bytes);
#endif
    nrt_seterr(g->ctx, "launching kernel '%s' as a cluster: the CUDA driver has no thread-block clusters",
               k->name);
    return NRT_EINVAL;
}

static nrt_status cu_launch(nrt_kernel *k, size_t groups, size_t batch, size_t group_size,
                            size_t local_bytes, int coop)
{
    nrt_gpu *g = k->g;
    CUresult r = cu_cur(g);
    if (r == CUDA_SUCCESS)
        r = cu_shmem(k, local_bytes);
    if (r != CUDA_SUCCESS)
        return cu_fail(g->ctx, r, "launching kernel '%s' with %zu bytes of shared memory",
                       k->name, local_bytes);
    if (coop) {
        size_t most = cu_max_resident(k, group_size, local_bytes);
        if (groups > most) {
            nrt_seterr(g->ctx, "cooperative launch of kernel '%s': %zu groups of %zu threads "
                       "cannot all be resident at once on '%s' (at most %zu)", k->name, groups,
                       group_size, g->info.name, most);
            return NRT_EINVAL;
        }
        r = cu.cuLaunchCooperativeKernel((CUfunction)k->h, (unsigned)groups, 1, 1,
                                         (unsigned)group_size, 1, 1, (unsigned)local_bytes,
                                         CUG(g)->s, k->nargs ? k->params : NULL);
    } else {
        r = cu.cuLaunchKernel((CUfunction)k->h, (unsigned)groups, (unsigned)batch, 1,
                              (unsigned)group_size, 1, 1, (unsigned)local_bytes, CUG(g)->s,
                              k->nargs ? k->params : NULL, NULL);
    }
    if (r != CUDA_SUCCESS)
        return cu_fail(g->ctx, r, "launching kernel '%s'%s (%zu x %zu groups of %zu threads)",
                       k->name, coop ? " cooperatively" : "", groups, batch, group_size);
    return NRT_OK;
}

static nrt_status cu_capture_begin(nrt_gpu *g)
{
    CUresult r = cu_cur(g);
    if (r == CUDA_SUCCESS)
        r = cu.cuStreamBeginCapture(CUG(g)->s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
    return r == CUDA_SUCCESS ? NRT_OK : cu_fail(g->ctx, r, "beginning a graph capture");
}

static nrt_status cu_capture_end(nrt_gpu *g, uintptr_t *out)
{
    CUgraph graph = NULL;
    CUgraphExec exec = NULL;
    CUresult r = cu_cur(g);
    if (r == CUDA_SUCCESS)
        r = cu.cuStreamEndCapture(CUG(g)->s, &graph);
    if (r != CUDA_SUCCESS) {
        if (graph)
            cu.cuGraphDestroy(graph);
        return cu_fail(g->ctx, r, "ending a graph capture");
    }
    r = cu.cuGraphInstantiateWithFlags(&exec, graph, 0);
    cu.cuGraphDestroy(graph);
    if (r != CUDA_SUCCESS)
        return cu_fail(g->ctx, r, "instantiating a captured graph");
    *out = (uintptr_t)exec;
    return NRT_OK;
}

static nrt_status cu_graph_launch(nrt_gpu *g, uintptr_t h)
{
    CUresult r = cu_cur(g);
    if (r == CUDA_SUCCESS)
        r = cu.cuGraphLaunch((CUgraphExec)h, CUG(g)->s);
    return r == CUDA_SUCCESS ? NRT_OK : cu_fail(g->ctx, r, "launching a graph");
}

static void cu_graph_free(nrt_gpu *g, uintptr_t h)
{
    cu_cur(g);
    cu.cuGraphExecDestroy((CUgraphExec)h);
}

static nrt_status cu_alloc(nrt_gpu *g, size_t bytes, const char *what, uintptr_t *h)
{
    CUdeviceptr p = 0;
    CUresult r = cu_cur(g);
    if (r == CUDA_SUCCESS)
        r = cu.cuMemAlloc(&p, bytes);
    if (r == CUDA_ERROR_OUT_OF_MEMORY ||
        (r == CUDA_ERROR_INVALID_VALUE && bytes > g->info.global_mem)) {
        size_t fr = 0, total = 0;
        char asked[32], sf[32], st[32];
        nrt_fmt_bytes(asked, sizeof asked, bytes);
        if (cu.cuMemGetInfo(&fr, &total) == CUDA_SUCCESS)
            nrt_seterr(g->ctx, "out of device memory allocating %s (%s asked, %s of %s free)",
                       what, asked, nrt_fmt_bytes(sf, sizeof sf, fr),
                       nrt_fmt_bytes(st, sizeof st, total));
        else
            nrt_seterr(g->ctx, "out of device memory allocating %s (%s asked)", what, asked);
        return NRT_EDEVICE;
    }
    if (r != CUDA_SUCCESS)
        return cu_fail(g->ctx, r, "allocating %s (%zu bytes) on the device", what, bytes);
    r = cu.cuMemsetD8Async(p, 0, bytes, CUG(g)->s);
    if (r != CUDA_SUCCESS) {
        cu.cuMemFree(p);
        return cu_fail(g->ctx, r, "zeroing %s (%zu bytes) on the device", what, bytes);
    }
    *h = (uintptr_t)p;
    return NRT_OK;
}

static void cu_free(nrt_gpu *g, uintptr_t h)
{
    cu_cur(g);
    cu.cuMemFree((CUdeviceptr)h);
}

static void *cu_host_alloc(nrt_gpu *g, size_t bytes, const char *what)
{
    void *p = NULL;
    CUresult r = cu_cur(g);
    if (r == CUDA_SUCCESS)
        r = cu.cuMemAllocHost(&p, bytes);
    if (r != CUDA_SUCCESS) {
        char asked[32];
        cu_fail(g->ctx, r, "allocating %s (%s of page-locked host memory)", what,
                nrt_fmt_bytes(asked, sizeof asked, bytes));
        return NULL;
    }
    memset(p, 0, bytes);
    return p;
}

static void cu_host_free(nrt_gpu *g, void *p)
{
    cu_cur(g);
    cu.cuMemFreeHost(p);
}

static nrt_status cu_write(nrt_gpu *g, const nrt_gpu_buf *b, size_t off, const void *src,
                           size_t bytes)
{
    CUresult r = cu_cur(g);
    if (r == CUDA_SUCCESS)
        r = cu.cuMemcpyHtoDAsync((CUdeviceptr)b->h + off, src, bytes, CUG(g)->s);
    if (r == CUDA_SUCCESS)
        r = cu.cuStreamSynchronize(CUG(g)->s); /* `src` may be reused on return */
    if (r != CUDA_SUCCESS)
        return cu_fail(g->ctx, r, "writing bytes %zu to %zu of '%s'", off, off + bytes,
                       b->what);
    return NRT_OK;
}

static nrt_status cu_read(nrt_gpu *g, const nrt_gpu_buf *b, size_t off, void *dst,
                          size_t bytes)
{
    CUresult r = cu_cur(g);
    if (r == CUDA_SUCCESS)
        r = cu.cuMemcpyDtoHAsync(dst, (CUdeviceptr)b->h + off, bytes, CUG(g)->s);
    if (r == CUDA_SUCCESS)
        r = cu.cuStreamSynchronize(CUG(g)->s);
    if (r != CUDA_SUCCESS)
        return cu_fail(g->ctx, r, "reading bytes %zu to %zu of '%s'", off, off + bytes,
                       b->what);
    return NRT_OK;
}

static nrt_status cu_fill32(nrt_gpu *g, const nrt_gpu_buf *b, size_t off, uint32_t v,
                            size_t bytes)
{
    CUresult r = cu_cur(g);
    if (r == CUDA_SUCCESS)
        r = cu.cuMemsetD32Async((CUdeviceptr)b->h + off, v, bytes / 4, CUG(g)->s);
    if (r != CUDA_SUCCESS)
        return cu_fail(g->ctx, r, "filling bytes %zu to %zu of '%s'", off, off + bytes,
                       b->what);
    return NRT_OK;
}

static nrt_status cu_mark(nrt_gpu *g, int slot)
{
    CUresult r = cu_cur(g);
    if (r == CUDA_SUCCESS)
        r = cu.cuEventRecord(CUG(g)->ev[slot], CUG(g)->s);
    return r == CUDA_SUCCESS ? NRT_OK
                             : cu_fail(g->ctx, r, "marking event slot %d on the compute queue",
                                       slot);
}

static nrt_status cu_read_after(nrt_gpu *g, int slot, const nrt_gpu_buf *b, size_t off,
                                void *dst, size_t bytes)
{
    cu_gpu *c = CUG(g);
    CUresult r = cu_cur(g);
    if (r == CUDA_SUCCESS)
        r = cu.cuStreamWaitEvent(CU_STREAM_PER_THREAD, c->ev[slot], 0);
    if (r == CUDA_SUCCESS)
        r = cu.cuMemcpyDtoHAsync(dst, (CUdeviceptr)b->h + off, bytes, CU_STREAM_PER_THREAD);
    if (r == CUDA_SUCCESS)
        r = cu.cuStreamSynchronize(CU_STREAM_PER_THREAD);
    if (r != CUDA_SUCCESS)
        return cu_fail(g->ctx, r, "reading bytes %zu to %zu of '%s' after event slot %d", off,
                       off + bytes, b->what, slot);
    return NRT_OK;
}

static nrt_status cu_sync(nrt_gpu *g)
{
    CUresult r = cu_cur(g);
    if (r == CUDA_SUCCESS)
        r = cu.cuStreamSynchronize(CUG(g)->s);
    if (r != CUDA_SUCCESS)
        return cu_fault(g->ctx, r, "waiting for the compute queue of '%s'", g->info.name);
    return NRT_OK;
}

static void *cu_stream(nrt_gpu *g)
{
    return cu_cur(g) == CUDA_SUCCESS ? (void *)CUG(g)->s : NULL;
}

const nrt_gpu_ops nrt_cuda_ops = {
    .name = "CUDA",
    .count = cu_count,
    .describe = cu_describe,
    .open = cu_open,
    .close = cu_close,
    .load = cu_load_program,
    .kernel = cu_kernel,
    .kernel_free = cu_kernel_free,
    .arg = cu_arg,
    .launch = cu_launch,
    .max_resident = cu_max_resident,
    .launch_cluster = cu_launch_cluster,
    .max_cluster = cu_max_cluster,
    .capture_begin = cu_capture_begin,
    .capture_end = cu_capture_end,
    .graph_launch = cu_graph_launch,
    .graph_free = cu_graph_free,
    .alloc = cu_alloc,
    .free = cu_free,
    .host_alloc = cu_host_alloc,
    .host_free = cu_host_free,
    .write = cu_write,
    .read = cu_read,
    .fill32 = cu_fill32,
    .mark = cu_mark,
    .read_after = cu_read_after,
    .sync = cu_sync,
    .stream = cu_stream,
};

#else /* !NRT_HAVE_CUDA */

static nrt_status cu_none(nrt_ctx *ctx)
{
    nrt_seterr(ctx, "this runtime was built without CUDA support");
    return NRT_EDEVICE;
}

static nrt_status cu_count(nrt_ctx *ctx, int *n)
{
    *n = 0;
    return cu_none(ctx);
}

static nrt_status cu_describe(nrt_ctx *ctx, int index, nrt_gpu_info *in)
{
    return cu_none(ctx);
}

static nrt_status cu_open(nrt_ctx *ctx, int index, nrt_gpu **out)
{
    return cu_none(ctx);
}

/* No device can be opened, so no other entry is ever called. */
static void *cu_stream(nrt_gpu *g)
{
    return cu_cur(g) == CUDA_SUCCESS ? (void *)CUG(g)->s : NULL;
}

const nrt_gpu_ops nrt_cuda_ops = {
    .name = "CUDA", .count = cu_count, .describe = cu_describe, .open = cu_open};

#endif
