/* rt_opencl.c -- the OpenCL implementation of nrt_gpu.h (the ops table behind rt_gpu.c).
 *
 * libOpenCL.so.1 (the ICD loader) is opened with dlopen on first use; the functions used
 * are listed once in CL_FUNCS and resolved into the table `cl`, so the runtime has no
 * link-time dependency on OpenCL. Device index N is the N-th device of the list flattened
 * over platforms (platform order, then device order, all device types). Each device gets
 * one context and two in-order queues: `q` runs launches, writes, fills and blocking
 * reads in call order; `cq` runs nrt_gpu_read_after's copies, each waiting on the marker
 * event that nrt_gpu_mark enqueued on `q`. Programs are OpenCL C source built at load
 * time; a failed build prints the compiler's log to stderr. The simulator owns SIGINT and
 * SIGTERM (nrt_init): calls that may initialise a driver put back the handlers that were
 * installed before them (PoCL installs a SIGINT handler of its own).
 */
#define _POSIX_C_SOURCE 200809L

#include "rt_gpu_impl.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef NRT_HAVE_OPENCL

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dlfcn.h>

#ifndef CL_DEVICE_REGISTERS_PER_BLOCK_NV
#define CL_DEVICE_REGISTERS_PER_BLOCK_NV 0x4002 /* cl_nv_device_attribute_query */
#endif

#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

#define CL_FUNCS(X)                                                                        \
    X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs) X(clGetDeviceInfo)          \
    X(clCreateContext) X(clReleaseContext) X(clCreateCommandQueue)                         \
    X(clReleaseCommandQueue) X(clCreateProgramWithSource) X(clBuildProgram)                \
    X(clGetProgramBuildInfo) X(clReleaseProgram) X(clCreateKernel) X(clReleaseKernel)      \
    X(clGetKernelInfo) X(clGetKernelWorkGroupInfo) X(clSetKernelArg)                       \
    X(clEnqueueNDRangeKernel) X(clCreateBuffer) X(clReleaseMemObject)                      \
    X(clEnqueueWriteBuffer) X(clEnqueueReadBuffer) X(clEnqueueFillBuffer)                  \
    X(clEnqueueMarkerWithWaitList) X(clReleaseEvent) X(clFlush) X(clFinish)               \
    X(clCreateSubBuffer) X(clEnqueueCopyBuffer)

#define CL_DECL(f) __typeof__(&f) f;
static struct {
    CL_FUNCS(CL_DECL)
} cl;
#undef CL_DECL

static void *cl_lib;

/* The CL_* name of an error code. */
static const char *cl_errname(cl_int e)
{
#define CL_ERRS(X)                                                                         \
    X(CL_SUCCESS) X(CL_DEVICE_NOT_FOUND) X(CL_DEVICE_NOT_AVAILABLE)                        \
    X(CL_COMPILER_NOT_AVAILABLE) X(CL_MEM_OBJECT_ALLOCATION_FAILURE) X(CL_OUT_OF_RESOURCES)\
    X(CL_OUT_OF_HOST_MEMORY) X(CL_PROFILING_INFO_NOT_AVAILABLE) X(CL_MEM_COPY_OVERLAP)     \
    X(CL_IMAGE_FORMAT_MISMATCH) X(CL_IMAGE_FORMAT_NOT_SUPPORTED)                           \
    X(CL_BUILD_PROGRAM_FAILURE) X(CL_MAP_FAILURE) X(CL_MISALIGNED_SUB_BUFFER_OFFSET)       \
    X(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) X(CL_COMPILE_PROGRAM_FAILURE)          \
    X(CL_LINKER_NOT_AVAILABLE) X(CL_LINK_PROGRAM_FAILURE) X(CL_DEVICE_PARTITION_FAILED)    \
    X(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) X(CL_INVALID_VALUE) X(CL_INVALID_DEVICE_TYPE)      \
    X(CL_INVALID_PLATFORM) X(CL_INVALID_DEVICE) X(CL_INVALID_CONTEXT)                      \
    X(CL_INVALID_QUEUE_PROPERTIES) X(CL_INVALID_COMMAND_QUEUE) X(CL_INVALID_HOST_PTR)      \
    X(CL_INVALID_MEM_OBJECT) X(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)                         \
    X(CL_INVALID_IMAGE_SIZE) X(CL_INVALID_SAMPLER) X(CL_INVALID_BINARY)                    \
    X(CL_INVALID_BUILD_OPTIONS) X(CL_INVALID_PROGRAM) X(CL_INVALID_PROGRAM_EXECUTABLE)     \
    X(CL_INVALID_KERNEL_NAME) X(CL_INVALID_KERNEL_DEFINITION) X(CL_INVALID_KERNEL)         \
    X(CL_INVALID_ARG_INDEX) X(CL_INVALID_ARG_VALUE) X(CL_INVALID_ARG_SIZE)                 \
    X(CL_INVALID_KERNEL_ARGS) X(CL_INVALID_WORK_DIMENSION) X(CL_INVALID_WORK_GROUP_SIZE)   \
    X(CL_INVALID_WORK_ITEM_SIZE) X(CL_INVALID_GLOBAL_OFFSET) X(CL_INVALID_EVENT_WAIT_LIST) \
    X(CL_INVALID_EVENT) X(CL_INVALID_OPERATION) X(CL_INVALID_GL_OBJECT)                    \
    X(CL_INVALID_BUFFER_SIZE) X(CL_INVALID_MIP_LEVEL) X(CL_INVALID_GLOBAL_WORK_SIZE)       \
    X(CL_INVALID_PROPERTY) X(CL_INVALID_IMAGE_DESCRIPTOR) X(CL_INVALID_COMPILER_OPTIONS)   \
    X(CL_INVALID_LINKER_OPTIONS) X(CL_INVALID_DEVICE_PARTITION_COUNT)                      \
    X(CL_PLATFORM_NOT_FOUND_KHR)
#define CL_ERR_CASE(e) case e: return #e;
    switch (e) {
        CL_ERRS(CL_ERR_CASE)
    default:
        return "unknown OpenCL error";
    }
#undef CL_ERR_CASE
#undef CL_ERRS
}

/* errmsg = "<what was being done>: <CL_NAME> (<code>)"; returns NRT_EDEVICE. */
static nrt_status cl_fail(nrt_ctx *ctx, cl_int e, const char *fmt, ...) NRT_PRINTF(3, 4);
static nrt_status cl_fail(nrt_ctx *ctx, cl_int e, const char *fmt, ...)
{
    char doing[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(doing, sizeof doing, fmt, ap);
    va_end(ap);
    nrt_seterr(ctx, "%s: %s (%d)", doing, cl_errname(e), (int)e);
    return NRT_EDEVICE;
}

/* Load libOpenCL.so.1 and resolve CL_FUNCS (once; a failure is retried on the next call). */
static nrt_status cl_load(nrt_ctx *ctx)
{
    void *h;
    if (cl_lib)
        return NRT_OK;
    h = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        nrt_seterr(ctx, "cannot load the OpenCL library libOpenCL.so.1 (%s); install an "
                   "OpenCL ICD loader and a driver", dlerror());
        return NRT_EDEVICE;
    }
#define CL_RESOLVE(f)                                                                      \
    {                                                                                      \
        void *p_ = dlsym(h, #f);                                                           \
        if (!p_) {                                                                         \
            nrt_seterr(ctx, "the OpenCL library libOpenCL.so.1 has no function %s (it "    \
                       "needs OpenCL 1.2 or newer)", #f);                                  \
            dlclose(h);                                                                    \
            return NRT_EDEVICE;                                                            \
        }                                                                                  \
        memcpy(&cl.f, &p_, sizeof p_);                                                     \
    }
    CL_FUNCS(CL_RESOLVE)
#undef CL_RESOLVE
    cl_lib = h;
    return NRT_OK;
}

/* Walk the flattened device list: the number of devices in *n and, when index >= 0 and
 * the device exists, its platform and id. */
static nrt_status cl_walk(nrt_ctx *ctx, int index, int *n, cl_platform_id *pp,
                          cl_device_id *dp)
{
    cl_platform_id plats[64];
    cl_uint np = 0, i;
    cl_int e;
    nrt_status st = cl_load(ctx);
    *n = 0;
    if (st != NRT_OK)
        return st;
    e = cl.clGetPlatformIDs(64, plats, &np);
    if (e == CL_PLATFORM_NOT_FOUND_KHR || (e == CL_SUCCESS && np == 0)) {
        nrt_seterr(ctx, "no OpenCL platform found (no driver is registered in "
                   "/etc/OpenCL/vendors)");
        return NRT_OK;
    }
    if (e != CL_SUCCESS)
        return cl_fail(ctx, e, "listing the OpenCL platforms");
    if (np > 64)
        np = 64;
    for (i = 0; i < np; i++) {
        cl_device_id devs[64];
        cl_uint nd = 0;
        e = cl.clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 64, devs, &nd);
        if (e == CL_DEVICE_NOT_FOUND)
            continue;
        if (e != CL_SUCCESS)
            return cl_fail(ctx, e, "listing the devices of OpenCL platform %u", (unsigned)i);
        if (nd > 64)
            nd = 64;
        if (index >= *n && index < *n + (int)nd) {
            *pp = plats[i];
            *dp = devs[index - *n];
        }
        *n += (int)nd;
    }
    return NRT_OK;
}

/* The SIGINT and SIGTERM actions, saved before a call into the driver, restored after. */
typedef struct sig_keep {
    struct sigaction i, t;
} sig_keep;

static void keep_signals(sig_keep *k)
{
    sigaction(SIGINT, NULL, &k->i);
    sigaction(SIGTERM, NULL, &k->t);
}

static void restore_signals(const sig_keep *k)
{
    sigaction(SIGINT, &k->i, NULL);
    sigaction(SIGTERM, &k->t, NULL);
}

static nrt_status cl_count(nrt_ctx *ctx, int *n)
{
    sig_keep k;
    nrt_status st;
    keep_signals(&k);
    st = cl_walk(ctx, -1, n, NULL, NULL);
    restore_signals(&k);
    return st;
}

/* The device's extension list contains the word `ext`. */
static int cl_has_ext(cl_device_id d, const char *ext)
{
    char buf[8192];
    size_t n = strlen(ext);
    const char *p = buf;
    if (cl.clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, sizeof buf, buf, NULL) != CL_SUCCESS)
        return 0;
    buf[sizeof buf - 1] = '\0';
    while ((p = strstr(p, ext)) != NULL) {
        if ((p == buf || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
        p += n;
    }
    return 0;
}

static nrt_status cl_info(nrt_ctx *ctx, cl_platform_id p, cl_device_id d, nrt_gpu_info *in)
{
    cl_uint cu = 0;
    size_t wg = 0, param = 0;
    cl_ulong mem = 0;
    cl_device_fp_config fp = 0;
    cl_int e;
    memset(in, 0, sizeof *in);
    if ((e = cl.clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof in->name, in->name, NULL)) ||
        (e = cl.clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof in->platform, in->platform,
                                  NULL)) ||
        (e = cl.clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL)) ||
        (e = cl.clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL)) ||
        (e = cl.clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL)) ||
        (e = cl.clGetDeviceInfo(d, CL_DEVICE_MAX_PARAMETER_SIZE, sizeof param, &param, NULL)))
        return cl_fail(ctx, e, "asking an OpenCL device for its properties");
    in->name[sizeof in->name - 1] = '\0';
    in->platform[sizeof in->platform - 1] = '\0';
    in->compute_units = (int)cu;
    in->max_group_size = wg > (size_t)INT32_MAX ? INT32_MAX : (int)wg;
    in->global_mem = (size_t)mem;
    in->max_param_bytes = param;
    in->cooperative = 0;
    if (cl.clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, NULL) != CL_SUCCESS)
        fp = 0;
    in->fp64 = fp != 0 || cl_has_ext(d, "cl_khr_fp64");
    return NRT_OK;
}

static nrt_status cl_describe(nrt_ctx *ctx, int index, nrt_gpu_info *in)
{
    cl_platform_id p = NULL;
    cl_device_id d = NULL;
    int n;
    sig_keep k;
    nrt_status st;
    keep_signals(&k);
    st = cl_walk(ctx, index, &n, &p, &d);
    if (st == NRT_OK && !d) {
        nrt_seterr(ctx, "OpenCL device %d has gone", index);
        st = NRT_EDEVICE;
    }
    if (st == NRT_OK) {
        st = cl_info(ctx, p, d, in);
        in->index = index;
    }
    restore_signals(&k);
    return st;
}

typedef struct cl_gpu {
    nrt_gpu base;
    cl_device_id dev;
    cl_context cx;
    cl_command_queue q, cq;  /* compute queue, copy queue */
    cl_program prog;
    cl_event ev[NRT_GPU_SLOTS];
    size_t max_alloc;        /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
} cl_gpu;

#define CLG(g) ((cl_gpu *)(g))

static void cl_close(nrt_gpu *g)
{
    cl_gpu *c = CLG(g);
    int i;
    for (i = 0; i < NRT_GPU_SLOTS; i++)
        if (c->ev[i])
            cl.clReleaseEvent(c->ev[i]);
    if (c->q)
        cl.clFinish(c->q);
    if (c->cq)
        cl.clFinish(c->cq);
    if (c->prog)
        cl.clReleaseProgram(c->prog);
    if (c->q)
        cl.clReleaseCommandQueue(c->q);
    if (c->cq)
        cl.clReleaseCommandQueue(c->cq);
    if (c->cx)
        cl.clReleaseContext(c->cx);
    free(c);
}

static nrt_status cl_open_dev(nrt_ctx *ctx, int index, nrt_gpu **out)
{
    cl_platform_id p = NULL;
    cl_device_id d = NULL;
    cl_context_properties props[3];
    cl_ulong maxa = 0;
    cl_uint align = 0;
    cl_gpu *c;
    cl_int e;
    int n;
    nrt_status st = cl_walk(ctx, index, &n, &p, &d);
    if (st != NRT_OK)
        return st;
    if (!d) {
        nrt_seterr(ctx, "OpenCL device %d has gone", index);
        return NRT_EDEVICE;
    }
    c = calloc(1, sizeof *c);
    if (!c) {
        nrt_seterr(ctx, "out of memory opening OpenCL device %d", index);
        return NRT_ENOMEM;
    }
    c->base.ops = &nrt_opencl_ops;
    c->base.ctx = ctx;
    c->base.api = NRT_API_OPENCL;
    c->dev = d;
    if ((st = cl_info(ctx, p, d, &c->base.info)) != NRT_OK) {
        free(c);
        return st;
    }
    if (cl.clGetDeviceInfo(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof maxa, &maxa, NULL) !=
        CL_SUCCESS)
        maxa = 0;
    c->max_alloc = (size_t)maxa;
    if (cl.clGetDeviceInfo(d, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align, &align, NULL) ==
        CL_SUCCESS)
        c->base.arena_align = align / 8; /* bits */
    props[0] = CL_CONTEXT_PLATFORM;
    props[1] = (cl_context_properties)p;
    props[2] = 0;
    c->cx = cl.clCreateContext(props, 1, &d, NULL, NULL, &e);
    if (!c->cx) {
        st = cl_fail(ctx, e, "creating an OpenCL context on device %d (%s)", index,
                     c->base.info.name);
        free(c);
        return st;
    }
    c->q = cl.clCreateCommandQueue(c->cx, d, 0, &e);
    if (c->q)
        c->cq = cl.clCreateCommandQueue(c->cx, d, 0, &e);
    if (!c->q || !c->cq) {
        st = cl_fail(ctx, e, "creating the command queues of OpenCL device %d (%s)", index,
                     c->base.info.name);
        cl_close(&c->base);
        return st;
    }
    *out = &c->base;
    return NRT_OK;
}

static nrt_status cl_open(nrt_ctx *ctx, int index, nrt_gpu **out)
{
    sig_keep k;
    nrt_status st;
    keep_signals(&k);
    st = cl_open_dev(ctx, index, out);
    restore_signals(&k);
    return st;
}

/* The build options: the program's; on NVIDIA's driver (cl_nv_compiler_options) NC_NV_PTX,
 * the GPU's float atomic adds in inline PTX (nrt_simt.h), when ptx is set; and for a program
 * in table mode (the arena is on before it is loaded: its kernels read every argument from
 * the table, into registers) on NVIDIA's driver a cap on registers so that every kernel
 * launches with the device's largest work-group: without it the microcircuit's
 * nc_k_synapses needs more than 128 and cannot launch with 512 work-items
 * (CL_OUT_OF_RESOURCES; H200, 2026-11-27). */
static const char *build_options(cl_gpu *c, const char *options, int ptx, char *buf, size_t cap)
{
    cl_uint regs = 0;
    int n = c->base.info.max_group_size;
    if (!cl_has_ext(c->dev, "cl_nv_compiler_options"))
        return options;
    if (!c->base.arena_on || n <= 0) {
        snprintf(buf, cap, "%s%s", options, ptx ? " -DNC_NV_PTX" : "");
        return buf;
    }
    if (cl.clGetDeviceInfo(c->dev, CL_DEVICE_REGISTERS_PER_BLOCK_NV, sizeof regs, &regs,
                           NULL) != CL_SUCCESS || regs == 0)
        regs = 65536;
    n = (int)(regs / (cl_uint)n);
    n = n < 16 ? 16 : n > 255 ? 255 : n;
    snprintf(buf, cap, "%s -cl-nv-maxrregcount=%d%s", options, n, ptx ? " -DNC_NV_PTX" : "");
    return buf;
}

static nrt_status cl_load_program(nrt_gpu *g, const void *image, size_t len,
                                  const char *options)
{
    cl_gpu *c = CLG(g);
    const char *src = image;
    char opts[1024];
    cl_int e, eb;
    char more[512];
    const char *ex = getenv("NEUROC_OPENCL_OPTIONS");
    c->prog = cl.clCreateProgramWithSource(c->cx, 1, &src, &len, &e);
    if (!c->prog)
        return cl_fail(g->ctx, e, "creating the device program");
    if (ex && *ex) { /* for developers: more build options (-DNC_NV_NOSHFL, ...) */
        snprintf(more, sizeof more, "%s %s", options, ex);
        options = more;
    }
    /* NVIDIA's inline PTX first (unless $NEUROC_OPENCL_PTX=0); a driver that refuses it
     * builds the portable program */
    const char *px = getenv("NEUROC_OPENCL_PTX");
    if (!(px && strcmp(px, "0") == 0) && cl_has_ext(c->dev, "cl_nv_compiler_options")) {
        if (cl.clBuildProgram(c->prog, 1, &c->dev, build_options(c, options, 1, opts, sizeof opts),
                              NULL, NULL) == CL_SUCCESS)
            return NRT_OK;
        fprintf(stderr, "neurort: the OpenCL driver of '%s' refused the inline PTX float atomics; "
                "building the portable program\n", g->info.name);
    }
    options = build_options(c, options, 0, opts, sizeof opts);
    eb = cl.clBuildProgram(c->prog, 1, &c->dev, options, NULL, NULL);
    if (eb != CL_SUCCESS) {
        size_t n = 0;
        char *log = NULL;
        char first[256];
        first[0] = '\0';
        if (cl.clGetProgramBuildInfo(c->prog, c->dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) ==
                CL_SUCCESS &&
            (log = malloc(n + 1)) != NULL) {
            if (cl.clGetProgramBuildInfo(c->prog, c->dev, CL_PROGRAM_BUILD_LOG, n, log, NULL) !=
                CL_SUCCESS)
                n = 0;
            log[n] = '\0';
            fprintf(stderr, "neurort: the OpenCL compiler's build log of the model's device "
                    "program (%s):\n%s%s", g->info.name, log,
                    n && log[strlen(log) - 1] != '\n' ? "\n" : "");
            fprintf(stderr, "neurort: end of the OpenCL build log\n");
            fflush(stderr);
            nrt_first_error_line(log, first, sizeof first);
        }
        free(log);
        cl.clReleaseProgram(c->prog);
        c->prog = NULL;
        nrt_seterr(g->ctx, "the model's device program failed to build for OpenCL device "
                   "'%s' (%s%s%s): %s%sthe compiler's log is on stderr", g->info.name,
                   cl_errname(eb), *options ? ", options " : "", options, first,
                   *first ? "; " : "");
        return NRT_EDEVICE;
    }
    return NRT_OK;
}

static nrt_status cl_kernel_get(nrt_gpu *g, nrt_kernel *k)
{
    cl_gpu *c = CLG(g);
    cl_uint na = 0;
    cl_int e;
    cl_kernel kk = cl.clCreateKernel(c->prog, k->name, &e);
    if (!kk) {
        if (e == CL_INVALID_KERNEL_NAME) {
            nrt_seterr(g->ctx, "the device program has no kernel '%s'", k->name);
            return NRT_EINVAL;
        }
        return cl_fail(g->ctx, e, "creating kernel '%s'", k->name);
    }
    e = cl.clGetKernelInfo(kk, CL_KERNEL_NUM_ARGS, sizeof na, &na, NULL);
    if (e == CL_SUCCESS && (int)na != k->nargs) {
        nrt_seterr(g->ctx, "kernel '%s' takes %u argument%s, not %d", k->name, (unsigned)na,
                   na == 1 ? "" : "s", k->nargs);
        cl.clReleaseKernel(kk);
        return NRT_EINVAL;
    }
    k->h = (uintptr_t)kk;
    return NRT_OK;
}

static void cl_kernel_free(nrt_kernel *k)
{
    if (k->h)
        cl.clReleaseKernel((cl_kernel)k->h);
}

static nrt_status cl_arg(nrt_kernel *k, int i, const void *v, size_t size, int is_mem)
{
    cl_int e;
    if (is_mem) {
        cl_mem m = (cl_mem) * (const uintptr_t *)v;
        e = cl.clSetKernelArg((cl_kernel)k->h, (cl_uint)i, sizeof m, &m);
    } else {
        e = cl.clSetKernelArg((cl_kernel)k->h, (cl_uint)i, size, v);
    }
    if (e != CL_SUCCESS)
        return cl_fail(k->g->ctx, e, "setting argument %d of kernel '%s' (%zu bytes)", i,
                       k->name, is_mem ? sizeof(cl_mem) : size);
    return NRT_OK;
}

/* `local_bytes` is not used: OpenCL kernels declare their local memory statically. */
static nrt_status cl_launch(nrt_kernel *k, size_t groups, size_t batch, size_t group_size,
                            size_t local_bytes, int coop)
{
    cl_gpu *c = CLG(k->g);
    size_t global[2] = {groups * group_size, batch}, local[2] = {group_size, 1};
    cl_int e;
    if (global[0] / group_size != groups) {
        nrt_seterr(k->g->ctx, "launching kernel '%s': %zu groups of %zu work-items overflow",
                   k->name, groups, group_size);
        return NRT_EINVAL;
    }
    e = cl.clEnqueueNDRangeKernel(c->q, (cl_kernel)k->h, batch > 1 ? 2 : 1, NULL, global,
                                  local, 0, NULL, NULL);
    if (e != CL_SUCCESS)
        return cl_fail(k->g->ctx, e, "launching kernel '%s' (%zu x %zu groups of %zu "
                       "work-items)", k->name, groups, batch, group_size);
    return NRT_OK;
}

/* Compute units, or 0 when the kernel cannot run groups of group_size. */
static size_t cl_max_resident(nrt_kernel *k, size_t group_size, size_t local_bytes)
{
    cl_gpu *c = CLG(k->g);
    size_t wg = 0;
    if (cl.clGetKernelWorkGroupInfo((cl_kernel)k->h, c->dev, CL_KERNEL_WORK_GROUP_SIZE,
                                    sizeof wg, &wg, NULL) != CL_SUCCESS ||
        group_size > wg)
        return 0;
    return (size_t)k->g->info.compute_units;
}

static nrt_status cl_oom(nrt_gpu *g, cl_int e, size_t bytes, const char *what)
{
    char asked[32], total[32], maxa[32];
    nrt_fmt_bytes(asked, sizeof asked, bytes);
    nrt_fmt_bytes(total, sizeof total, g->info.global_mem);
    nrt_fmt_bytes(maxa, sizeof maxa, CLG(g)->max_alloc);
    nrt_seterr(g->ctx, "out of device memory allocating %s (%s asked; the device has %s of "
               "global memory, at most %s in one buffer; OpenCL cannot tell how much is "
               "free)%s%s", what, asked, total, maxa, e ? ": " : "", e ? cl_errname(e) : "");
    return NRT_EDEVICE;
}

/* Fill bytes [off, off + n) of m with the 4-byte value v, starting at a byte of it that
 * off fixes (byte i of the buffer gets byte i % 4 of v; off and n need not be multiples of
 * 4). The body goes in fills of a 128-byte pattern, at most 256 MiB each; the ends, under
 * 128 bytes, are written. NVIDIA's driver faults on fills whose index in pattern-sized
 * elements passes about 2^31 (a 1-byte pattern over 1.5 GB, a 4-byte one past 8 GiB: the
 * queue breaks, CL_INVALID_COMMAND_QUEUE, and the context with it); 128-byte elements put
 * that past 256 GiB. */
static cl_int fill(cl_command_queue q, cl_mem m, uint32_t v, size_t off, size_t n)
{
    const size_t piece = (size_t)1 << 28;
    uint32_t pat[64];   /* 128 bytes the fills repeat; twice that for the ends */
    size_t a = (off + 127) / 128 * 128, b = (off + n) / 128 * 128;
    cl_int e = CL_SUCCESS;
    for (int i = 0; i < 64; i++)
        pat[i] = v;
    if (a >= b)   /* no whole element, so n < 256: one write */
        return n ? cl.clEnqueueWriteBuffer(q, m, CL_TRUE, off, n, (char *)pat + off % 4, 0,
                                           NULL, NULL) : CL_SUCCESS;
    if (a > off)
        e = cl.clEnqueueWriteBuffer(q, m, CL_TRUE, off, a - off, (char *)pat + off % 4, 0, NULL,
                                    NULL);
    for (size_t o = a; o < b && e == CL_SUCCESS; o += piece)
        e = cl.clEnqueueFillBuffer(q, m, pat, 128, o, b - o < piece ? b - o : piece, 0,
                                   NULL, NULL);
    if (e == CL_SUCCESS && off + n > b)
        e = cl.clEnqueueWriteBuffer(q, m, CL_TRUE, b, off + n - b, pat, 0, NULL, NULL);
    return e;
}

static nrt_status cl_alloc(nrt_gpu *g, size_t bytes, const char *what, uintptr_t *h)
{
    cl_gpu *c = CLG(g);
    cl_mem m;
    cl_int e;
    if (c->max_alloc && bytes > c->max_alloc)
        return cl_oom(g, 0, bytes, what);
    m = cl.clCreateBuffer(c->cx, CL_MEM_READ_WRITE, bytes, NULL, &e);
    if (!m) {
        if (e == CL_MEM_OBJECT_ALLOCATION_FAILURE || e == CL_OUT_OF_RESOURCES ||
            e == CL_OUT_OF_HOST_MEMORY || e == CL_INVALID_BUFFER_SIZE)
            return cl_oom(g, e, bytes, what);
        return cl_fail(g->ctx, e, "allocating %s (%zu bytes) on the device", what, bytes);
    }
    /* Zero it now and wait: drivers may allocate lazily, and a failure shows here. */
    e = fill(c->q, m, 0, 0, bytes);
    if (e == CL_SUCCESS)
        e = cl.clFinish(c->q);
    if (e != CL_SUCCESS) {
        cl.clReleaseMemObject(m);
        if (e == CL_MEM_OBJECT_ALLOCATION_FAILURE || e == CL_OUT_OF_RESOURCES ||
            e == CL_OUT_OF_HOST_MEMORY)
            return cl_oom(g, e, bytes, what);
        return cl_fail(g->ctx, e, "zeroing %s (%zu bytes) on the device", what, bytes);
    }
    *h = (uintptr_t)m;
    return NRT_OK;
}

static void cl_free(nrt_gpu *g, uintptr_t h)
{
    cl.clReleaseMemObject((cl_mem)h);
}

/* OpenCL has no page-locked allocation of its own: zeroed malloc. */
static void *cl_host_alloc(nrt_gpu *g, size_t bytes, const char *what)
{
    void *p = calloc(1, bytes);
    if (!p) {
        char asked[32];
        nrt_seterr(g->ctx, "out of host memory allocating %s (%s)", what,
                   nrt_fmt_bytes(asked, sizeof asked, bytes));
    }
    return p;
}

static void cl_host_free(nrt_gpu *g, void *p)
{
    free(p);
}

/* Errors of work that ran earlier surface in later calls: name them as device faults. */
static int cl_is_fault(cl_int e)
{
    return e == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST || e == CL_OUT_OF_RESOURCES;
}

static nrt_status cl_copy_fail(nrt_gpu *g, cl_int e, const char *doing,
                               const nrt_gpu_buf *b, size_t off, size_t bytes)
{
    return cl_fail(g->ctx, e, "%s%s bytes %zu to %zu of '%s'", cl_is_fault(e) ?
                   "device fault: " : "", doing, off, off + bytes, b->what);
}

static nrt_status cl_write(nrt_gpu *g, const nrt_gpu_buf *b, size_t off, const void *src,
                           size_t bytes)
{
    cl_int e = cl.clEnqueueWriteBuffer(CLG(g)->q, (cl_mem)b->h, CL_TRUE, off, bytes, src, 0,
                                       NULL, NULL);
    return e == CL_SUCCESS ? NRT_OK : cl_copy_fail(g, e, "writing", b, off, bytes);
}

static nrt_status cl_read(nrt_gpu *g, const nrt_gpu_buf *b, size_t off, void *dst,
                          size_t bytes)
{
    cl_int e = cl.clEnqueueReadBuffer(CLG(g)->q, (cl_mem)b->h, CL_TRUE, off, bytes, dst, 0,
                                      NULL, NULL);
    return e == CL_SUCCESS ? NRT_OK : cl_copy_fail(g, e, "reading", b, off, bytes);
}

static nrt_status cl_fill32(nrt_gpu *g, const nrt_gpu_buf *b, size_t off, uint32_t v,
                            size_t bytes)
{
    cl_int e = fill(CLG(g)->q, (cl_mem)b->h, v, off, bytes);
    return e == CL_SUCCESS ? NRT_OK : cl_copy_fail(g, e, "filling", b, off, bytes);
}

/* The arena (rt_gpu_arena.c): a sub-buffer of a range, and the copy of a growth. */
static nrt_status cl_sub(nrt_gpu *g, uintptr_t parent, size_t off, size_t bytes,
                         uintptr_t *h)
{
    cl_buffer_region r = {off, bytes};
    cl_int e;
    cl_mem m = cl.clCreateSubBuffer((cl_mem)parent, CL_MEM_READ_WRITE,
                                    CL_BUFFER_CREATE_TYPE_REGION, &r, &e);
    if (!m)
        return cl_fail(g->ctx, e, "making a buffer of bytes %zu to %zu of the arena", off,
                       off + bytes);
    *h = (uintptr_t)m;
    return NRT_OK;
}

static nrt_status cl_copy(nrt_gpu *g, uintptr_t src, uintptr_t dst, size_t bytes)
{
    cl_int e = cl.clEnqueueCopyBuffer(CLG(g)->q, (cl_mem)src, (cl_mem)dst, 0, 0, bytes, 0,
                                      NULL, NULL);
    if (e != CL_SUCCESS)
        return cl_fail(g->ctx, e, "%scopying the arena (%zu bytes) to its larger buffer",
                       cl_is_fault(e) ? "device fault: " : "", bytes);
    return NRT_OK;
}

static nrt_status cl_mark(nrt_gpu *g, int slot)
{
    cl_gpu *c = CLG(g);
    cl_int e;
    if (c->ev[slot]) {
        cl.clReleaseEvent(c->ev[slot]);
        c->ev[slot] = NULL;
    }
    e = cl.clEnqueueMarkerWithWaitList(c->q, 0, NULL, &c->ev[slot]);
    /* Submit it: the copy queue waits on this event, which needs the queue flushed. */
    if (e == CL_SUCCESS)
        e = cl.clFlush(c->q);
    if (e != CL_SUCCESS)
        return cl_fail(g->ctx, e, "marking event slot %d on the compute queue", slot);
    return NRT_OK;
}

static nrt_status cl_read_after(nrt_gpu *g, int slot, const nrt_gpu_buf *b, size_t off,
                                void *dst, size_t bytes)
{
    cl_gpu *c = CLG(g);
    cl_int e = cl.clEnqueueReadBuffer(c->cq, (cl_mem)b->h, CL_TRUE, off, bytes, dst, 1,
                                      &c->ev[slot], NULL);
    return e == CL_SUCCESS ? NRT_OK : cl_copy_fail(g, e, "reading (after a mark)", b, off,
                                                   bytes);
}

static nrt_status cl_sync(nrt_gpu *g)
{
    cl_int e = cl.clFinish(CLG(g)->q);
    if (e != CL_SUCCESS)
        return cl_fail(g->ctx, e, "device fault: waiting for the compute queue of '%s'",
                       g->info.name);
    return NRT_OK;
}

const nrt_gpu_ops nrt_opencl_ops = {
    .name = "OpenCL",
    .count = cl_count,
    .describe = cl_describe,
    .open = cl_open,
    .close = cl_close,
    .load = cl_load_program,
    .kernel = cl_kernel_get,
    .kernel_free = cl_kernel_free,
    .arg = cl_arg,
    .launch = cl_launch,
    .max_resident = cl_max_resident,
    /* no graphs: capture_begin, capture_end, graph_launch, graph_free stay NULL */
    .alloc = cl_alloc,
    .free = cl_free,
    .host_alloc = cl_host_alloc,
    .host_free = cl_host_free,
    .write = cl_write,
    .read = cl_read,
    .fill32 = cl_fill32,
    .mark = cl_mark,
    .read_after = cl_read_after,
    .sync = cl_sync,
    .sub = cl_sub,
    .copy = cl_copy,
};

#else /* !NRT_HAVE_OPENCL */

static nrt_status cl_none(nrt_ctx *ctx)
{
    nrt_seterr(ctx, "this runtime was built without OpenCL support");
    return NRT_EDEVICE;
}

static nrt_status cl_count(nrt_ctx *ctx, int *n)
{
    *n = 0;
    return cl_none(ctx);
}

static nrt_status cl_describe(nrt_ctx *ctx, int index, nrt_gpu_info *in)
{
    return cl_none(ctx);
}

static nrt_status cl_open(nrt_ctx *ctx, int index, nrt_gpu **out)
{
    return cl_none(ctx);
}

/* No device can be opened, so no other entry is ever called. */
const nrt_gpu_ops nrt_opencl_ops = {
    .name = "OpenCL", .count = cl_count, .describe = cl_describe, .open = cl_open};

#endif
