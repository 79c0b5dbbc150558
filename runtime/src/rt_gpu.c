/* rt_gpu.c -- the device layer of nrt_gpu.h, common to CUDA and OpenCL.
 *
 * Every nrt_gpu_* call starts here: device selection (--device, $NEUROC_DEVICE), the
 * device list, argument and state checks (buffer ranges, unset kernel arguments, calls
 * that a graph capture forbids), and the bookkeeping that lets nrt_gpu_close free what
 * the caller left (buffers, host buffers, kernels, graphs). The API-specific work goes
 * through the nrt_gpu_ops table of rt_cuda.c or rt_opencl.c (see rt_gpu_impl.h).
 */
#define _POSIX_C_SOURCE 200809L

#include "rt_gpu_impl.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *nrt_fmt_bytes(char *buf, size_t size, uint64_t bytes)
{
    static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    int u = -1;
    if (bytes < 1024) {
        snprintf(buf, size, "%llu bytes", (unsigned long long)bytes);
        return buf;
    }
    while (v >= 1024.0 && u < 5) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, size, "%.1f %s", v, unit[u]);
    return buf;
}

void nrt_first_error_line(const char *log, char *buf, size_t size)
{
    const char *p = strstr(log, "error");
    const char *s, *e;
    buf[0] = '\0';
    if (!p)
        return;
    for (s = p; s > log && s[-1] != '\n'; s--)
        ;
    e = strchr(p, '\n');
    if (!e)
        e = p + strlen(p);
    snprintf(buf, size, "%.*s", (int)(e - s), s);
}

static const nrt_gpu_ops *ops_of(nrt_ctx *ctx, nrt_api api)
{
    if (api == NRT_API_CUDA)
        return &nrt_cuda_ops;
    if (api == NRT_API_OPENCL)
        return &nrt_opencl_ops;
    nrt_seterr(ctx, "unknown device API %d (expected NRT_API_CUDA or NRT_API_OPENCL)",
               (int)api);
    return NULL;
}

/* Contract: see nrt_gpu.h. */
int nrt_gpu_count(nrt_ctx *ctx, nrt_api api)
{
    const nrt_gpu_ops *ops = ops_of(ctx, api);
    int n = 0;
    if (!ops || ops->count(ctx, &n) != NRT_OK)
        return 0;
    if (n == 0)
        nrt_seterr(ctx, "no %s device found", ops->name);
    return n;
}

/* Contract: see nrt_gpu.h. One line per device on stdout, after a title line. */
nrt_status nrt_gpu_list(nrt_ctx *ctx, nrt_api api)
{
    const nrt_gpu_ops *ops = ops_of(ctx, api);
    int n = 0, i;
    if (!ops)
        return NRT_EINVAL;
    if (ops->count(ctx, &n) != NRT_OK)
        return NRT_EDEVICE;
    if (n == 0) {
        nrt_seterr(ctx, "no %s device found", ops->name);
        return NRT_EDEVICE;
    }
    printf("%s devices (--device N):\n", ops->name);
    for (i = 0; i < n; i++) {
        nrt_gpu_info in;
        char mem[32];
        memset(&in, 0, sizeof in);
        if (ops->describe(ctx, i, &in) != NRT_OK)
            return NRT_EDEVICE;
        nrt_fmt_bytes(mem, sizeof mem, in.global_mem);
        printf("  %d: %s [%s]", i, in.name, in.platform);
        if (api == NRT_API_CUDA)
            printf(", compute capability %d.%d, %d SMs", in.cc_major, in.cc_minor,
                   in.compute_units);
        else
            printf(", %d compute units", in.compute_units);
        printf(", %s%s%s\n", mem, in.fp64 ? ", fp64" : ", no fp64",
               in.cooperative ? ", cooperative launches" : "");
    }
    fflush(stdout);
    return NRT_OK;
}

/* Strict decimal int >= 0. 0 on success. */
static int parse_index(const char *s, int *out)
{
    long v = 0;
    if (!s || !*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (*s - '0');
        if (v > INT_MAX)
            return -1;
    }
    *out = (int)v;
    return 0;
}

/* Contract: see nrt_gpu.h. */
nrt_status nrt_gpu_open(nrt_ctx *ctx, nrt_api api, nrt_gpu **out)
{
    const nrt_gpu_ops *ops = ops_of(ctx, api);
    const char *src = "--device";
    int idx = ctx->device, n = 0;
    nrt_status st;

    *out = NULL;
    if (!ops)
        return NRT_EINVAL;
    if (idx < 0) {
        const char *e = getenv("NEUROC_DEVICE");
        idx = 0;
        src = NULL;
        if (e && *e) {
            if (parse_index(e, &idx) != 0) {
                nrt_seterr(ctx, "invalid $NEUROC_DEVICE '%s' (expected a device index, "
                           "see --list-devices)", e);
                return NRT_EINVAL;
            }
            src = "$NEUROC_DEVICE";
        }
    }
    if (ops->count(ctx, &n) != NRT_OK)
        return NRT_EDEVICE;
    if (n == 0) {
        nrt_seterr(ctx, "no %s device found", ops->name);
        return NRT_EDEVICE;
    }
    if (idx >= n) {
        char req[64], have[96];
        if (!src)
            snprintf(req, sizeof req, "device %d", idx);
        else
            snprintf(req, sizeof req, "%s%s%d", src, src[0] == '$' ? "=" : " ", idx);
        if (n == 1)
            snprintf(have, sizeof have, "is only 1 %s device (index 0)", ops->name);
        else
            snprintf(have, sizeof have, "are only %d %s devices (indices 0 to %d)", n,
                     ops->name, n - 1);
        nrt_seterr(ctx, "%s: there %s; see --list-devices", req, have);
        return NRT_EINVAL;
    }
    const char *sync = getenv("NEUROC_GPU_SYNC");
    if (sync && *sync && strcmp(sync, "0") != 0 && strcmp(sync, "1") != 0) {
        nrt_seterr(ctx, "invalid $NEUROC_GPU_SYNC '%s' (expected 0, or 1: wait after every "
                   "kernel launch)", sync);
        return NRT_EINVAL;
    }
    st = ops->open(ctx, idx, out);
    if (st != NRT_OK)
        return st;
    (*out)->sync_each = sync && strcmp(sync, "1") == 0;
    (*out)->info.index = idx;
    snprintf(ctx->device_name, sizeof ctx->device_name, "%s", (*out)->info.name);
    if (ctx->fault.device_mem && ctx->fault.device_mem < (*out)->info.global_mem)
        (*out)->info.global_mem = (size_t)ctx->fault.device_mem; /* the memory plan sees it */
    return NRT_OK;
}

static nrt_gpu_buf *find_buf(nrt_gpu *g, uintptr_t h)
{
    size_t i = g->nbufs;
    while (i-- > 0)
        if (g->bufs[i].h == h)
            return &g->bufs[i];
    return NULL;
}

/* Contract: see nrt_gpu.h. */
void nrt_gpu_close(nrt_gpu *g)
{
    const nrt_gpu_ops *ops;
    size_t i;
    if (!g)
        return;
    ops = g->ops;
    if (g->capturing) {
        uintptr_t h = 0;
        g->capturing = 0;
        if (ops->capture_end(g, &h) == NRT_OK)
            ops->graph_free(g, h);
    }
    ops->sync(g);
    while (g->graphs) {
        nrt_graph *gr = g->graphs;
        g->graphs = gr->next;
        ops->graph_free(g, gr->h);
        free(gr);
    }
    while (g->kernels) {
        nrt_kernel *k = g->kernels;
        g->kernels = k->next;
        nrt_arena_kernel_free(k);
        ops->kernel_free(k);
        free(k->name);
        free(k->set);
        free(k->arg_bytes);
        free(k->slots);
        free(k->params);
        free(k);
    }
    for (i = 0; i < g->nbufs; i++)
        if (!nrt_arena_is(g, g->bufs[i].h))
            ops->free(g, g->bufs[i].h);
    nrt_arena_close(g);
    for (i = 0; i < g->nhosts; i++)
        ops->host_free(g, g->hosts[i]);
    free(g->bufs);
    free(g->hosts);
    g->bufs = NULL;
    g->hosts = NULL;
    g->nbufs = g->nhosts = 0;
    ops->close(g);
}

const nrt_gpu_info *nrt_gpu_get_info(const nrt_gpu *g)
{
    return &g->info;
}

nrt_api nrt_gpu_api(const nrt_gpu *g)
{
    return g->api;
}

void *nrt_gpu_native_stream(nrt_gpu *g)
{
    return g->ops->stream ? g->ops->stream(g) : NULL;
}

/* NRT_EINVAL "cannot <doing> while a graph is being captured" when capturing. */
static nrt_status not_capturing(nrt_gpu *g, const char *doing)
{
    if (!g->capturing)
        return NRT_OK;
    nrt_seterr(g->ctx, "cannot %s while a graph is being captured (between "
               "nrt_gpu_capture_begin and nrt_gpu_capture_end)", doing);
    return NRT_EINVAL;
}

/* Contract: see nrt_gpu.h. */
nrt_status nrt_gpu_load(nrt_gpu *g, const void *image, size_t len, const char *options)
{
    nrt_status st;
    if (g->loaded) {
        nrt_seterr(g->ctx, "loading the device program: one is loaded already (one program "
                   "per device)");
        return NRT_EINVAL;
    }
    if (!image || len == 0) {
        nrt_seterr(g->ctx, "loading the device program: the image is empty");
        return NRT_EINVAL;
    }
    if ((st = not_capturing(g, "load the device program")) != NRT_OK)
        return st;
    st = g->ops->load(g, image, len, options ? options : "");
    if (st == NRT_OK)
        g->loaded = 1;
    return st;
}

/* Contract: see rt_gpu_impl.h. */
nrt_status nrt_gpu_waited(nrt_gpu *g, nrt_status st, const char *what, const char *name)
{
    char why[sizeof g->ctx->errmsg];
    if (st != NRT_OK || !g->sync_each || g->capturing || (st = g->ops->sync(g)) == NRT_OK)
        return st;
    snprintf(why, sizeof why, "%s", g->ctx->errmsg);
    nrt_seterr(g->ctx, "%s '%s' failed ($NEUROC_GPU_SYNC=1 waits after every launch, fill "
               "and copy): %s", what, name, why);
    return st;
}

static nrt_status launched(nrt_kernel *k, nrt_status st)
{
    return nrt_gpu_waited(k->g, st, "kernel", k->name);
}

/* Contract: see nrt_gpu.h. */
nrt_kernel *nrt_gpu_kernel(nrt_gpu *g, const char *name, int nargs)
{
    nrt_kernel *k;
    size_t n;
    if (!name || !*name || nargs < 0) {
        nrt_seterr(g->ctx, "nrt_gpu_kernel: a kernel needs a name and nargs >= 0");
        return NULL;
    }
    if (!g->loaded) {
        nrt_seterr(g->ctx, "looking up kernel '%s': no device program is loaded", name);
        return NULL;
    }
    n = nargs ? (size_t)nargs : 1;
    k = calloc(1, sizeof *k);
    if (k) {
        k->g = g;
        k->nargs = nargs;
        k->name = malloc(strlen(name) + 1);
        k->set = calloc(n, 1);
        k->arg_bytes = calloc(n, sizeof *k->arg_bytes);
        k->slots = calloc(n, sizeof *k->slots);
        k->params = calloc(n, sizeof *k->params);
    }
    if (!k || !k->name || !k->set || !k->arg_bytes || !k->slots || !k->params) {
        if (k) {
            free(k->name);
            free(k->set);
            free(k->arg_bytes);
            free(k->slots);
            free(k->params);
            free(k);
        }
        nrt_seterr(g->ctx, "out of memory creating kernel '%s'", name);
        return NULL;
    }
    strcpy(k->name, name);
    for (n = 0; n < (size_t)nargs; n++)
        k->params[n] = &k->slots[n];
    if (g->ops->kernel(g, k) != NRT_OK) {
        free(k->name);
        free(k->set);
        free(k->arg_bytes);
        free(k->slots);
        free(k->params);
        free(k);
        return NULL;
    }
    k->next = g->kernels;
    g->kernels = k;
    return k;
}

static nrt_status set_arg(nrt_kernel *k, int i, const void *v, size_t size, int is_mem,
                          const char *type)
{
    nrt_status st;
    if (!k)
        return NRT_EINVAL;
    if (i < 0 || i >= k->nargs) {
        nrt_seterr(k->g->ctx, "setting argument %d of kernel '%s', which has %d argument%s",
                   i, k->name, k->nargs, k->nargs == 1 ? "" : "s");
        return NRT_EINVAL;
    }
    if (k->arg_bytes[i] && k->arg_bytes[i] != size) {
        nrt_seterr(k->g->ctx, "setting argument %d of kernel '%s': the kernel declares it "
                   "with %u bytes, not as %s (%zu bytes)", i, k->name,
                   (unsigned)k->arg_bytes[i], type, size);
        return NRT_EINVAL;
    }
    if (k->ar && !is_mem)
        nrt_arena_arg(k, i, NULL);
    st = k->g->ops->arg(k, i, v, size, is_mem);
    if (st == NRT_OK)
        k->set[i] = 1;
    return st;
}

nrt_status nrt_gpu_arg_mem(nrt_kernel *k, int i, nrt_dmem m)
{
    if (k && i >= 0 && i < k->nargs && nrt_arena_is(k->g, m.h)) { /* a range of the arena */
        const nrt_gpu_buf *b = find_buf(k->g, m.h);
        if (!b) {
            nrt_seterr(k->g->ctx, "setting argument %d of kernel '%s': not a live buffer of "
                       "this device", i, k->name);
            return NRT_EINVAL;
        }
        return nrt_arena_arg(k, i, b);
    }
    if (k && i >= 0 && i < k->nargs && k->ar)
        nrt_arena_arg(k, i, NULL);
    return set_arg(k, i, &m.h, sizeof m.h, 1, "a buffer");
}

nrt_status nrt_gpu_arg_i32(nrt_kernel *k, int i, int32_t v)
{
    return set_arg(k, i, &v, sizeof v, 0, "int32");
}

nrt_status nrt_gpu_arg_i64(nrt_kernel *k, int i, int64_t v)
{
    return set_arg(k, i, &v, sizeof v, 0, "int64");
}

nrt_status nrt_gpu_arg_f32(nrt_kernel *k, int i, float v)
{
    return set_arg(k, i, &v, sizeof v, 0, "float");
}

nrt_status nrt_gpu_arg_f64(nrt_kernel *k, int i, double v)
{
    return set_arg(k, i, &v, sizeof v, 0, "double");
}

/* Whether groups of group_size work-items with local_bytes of local memory can run at all:
 * a kernel compiled with more registers than group_size work-items may share cannot (on CUDA
 * a captured graph would then fail only when it is instantiated, naming no kernel). Asked of
 * the driver once per size (the launch schedule launches the same sizes every step). */
static nrt_status group_fits(nrt_kernel *k, size_t group_size, size_t local_bytes)
{
    if (k->fits_group == group_size && k->fits_local == local_bytes)
        return NRT_OK;
    if (k->g->ops->max_resident(k, group_size, local_bytes) == 0) {
        nrt_seterr(k->g->ctx, "launching kernel '%s': groups of %zu work-items%s do not fit on "
                   "%s device '%s' (the kernel as compiled uses too many registers or too much "
                   "local memory for groups of that size)", k->name, group_size,
                   local_bytes ? " with their local memory" : "", k->g->ops->name,
                   k->g->info.name);
        return NRT_EDEVICE;
    }
    k->fits_group = group_size;
    k->fits_local = local_bytes;
    return NRT_OK;
}

static nrt_status launch(nrt_kernel *k, size_t groups, size_t batch, size_t group_size,
                         size_t local_bytes, int coop)
{
    nrt_gpu *g;
    nrt_status st;
    int i;
    if (!k)
        return NRT_EINVAL;
    g = k->g;
    if (coop && !g->info.cooperative) {
        nrt_seterr(g->ctx, "launching kernel '%s': cooperative launches are not available "
                   "on %s device '%s'", k->name, g->ops->name, g->info.name);
        return NRT_EINVAL;
    }
    for (i = 0; i < k->nargs; i++)
        if (!k->set[i]) {
            nrt_seterr(g->ctx, "launching kernel '%s': argument %d was never set", k->name, i);
            return NRT_EINVAL;
        }
    if (group_size == 0 || group_size > (size_t)g->info.max_group_size) {
        nrt_seterr(g->ctx, "launching kernel '%s': group size %zu (the device takes 1 to %d)",
                   k->name, group_size, g->info.max_group_size);
        return NRT_EINVAL;
    }
    if (groups > (size_t)INT32_MAX) {
        nrt_seterr(g->ctx, "launching kernel '%s': %zu groups (at most %d)", k->name, groups,
                   (int)INT32_MAX);
        return NRT_EINVAL;
    }
    if (batch > 65535) {
        nrt_seterr(g->ctx, "launching kernel '%s': a batch of %zu groups (at most 65535)",
                   k->name, batch);
        return NRT_EINVAL;
    }
    if (groups == 0 || batch == 0)
        return NRT_OK;
    if ((st = group_fits(k, group_size, local_bytes)) != NRT_OK)
        return st;
    if (k->ar && (st = nrt_arena_bind(k)) != NRT_OK)
        return st;
    return launched(k, g->ops->launch(k, groups, batch, group_size, local_bytes, coop));
}

nrt_status nrt_gpu_launch(nrt_kernel *k, size_t groups, size_t group_size, size_t local_bytes)
{
    return launch(k, groups, 1, group_size, local_bytes, 0);
}

nrt_status nrt_gpu_launch_coop(nrt_kernel *k, size_t groups, size_t group_size,
                               size_t local_bytes)
{
    return launch(k, groups, 1, group_size, local_bytes, 1);
}

nrt_status nrt_gpu_launch_batch(nrt_kernel *k, size_t batch, size_t group_size,
                                size_t local_bytes)
{
    return launch(k, 1, batch, group_size, local_bytes, 0);
}

nrt_status nrt_gpu_launch_cluster(nrt_kernel *k, size_t cluster, size_t group_size,
                                  size_t local_bytes)
{
    nrt_status st = launch(k, 0, 1, group_size, local_bytes, 0);   /* the argument checks only */
    if (st != NRT_OK)
        return st;
    if (!k->g->ops->launch_cluster || cluster < 1 || cluster > 16) {
        nrt_seterr(k->g->ctx, "launching kernel '%s' as a cluster of %zu groups: %s", k->name, cluster,
                   k->g->ops->launch_cluster ? "clusters have 1 to 16 groups"
                                             : "the API has no thread-block clusters");
        return NRT_EINVAL;
    }
    return launched(k, k->g->ops->launch_cluster(k, cluster, group_size, local_bytes));
}

size_t nrt_gpu_max_cluster(nrt_kernel *k, size_t group_size, size_t local_bytes)
{
    if (!k || group_size == 0 || group_size > (size_t)k->g->info.max_group_size ||
        !k->g->ops->max_cluster)
        return 0;
    return k->g->ops->max_cluster(k, group_size, local_bytes);
}

size_t nrt_gpu_max_resident(nrt_kernel *k, size_t group_size, size_t local_bytes)
{
    if (!k || group_size == 0 || group_size > (size_t)k->g->info.max_group_size)
        return 0;
    return k->g->ops->max_resident(k, group_size, local_bytes);
}

/* Contract: see nrt_gpu.h. */
nrt_status nrt_gpu_capture_begin(nrt_gpu *g)
{
    nrt_status st;
    if (!g->ops->capture_begin) {
        nrt_seterr(g->ctx, "graph capture is CUDA only; %s simulators enqueue their launches "
                   "directly", g->ops->name);
        return NRT_EINVAL;
    }
    if (g->capturing) {
        nrt_seterr(g->ctx, "nrt_gpu_capture_begin: a capture is already under way");
        return NRT_EINVAL;
    }
    st = g->ops->capture_begin(g);
    if (st == NRT_OK)
        g->capturing = 1;
    return st;
}

nrt_status nrt_gpu_capture_end(nrt_gpu *g, nrt_graph **out)
{
    nrt_graph *gr;
    uintptr_t h = 0;
    nrt_status st;
    *out = NULL;
    if (!g->ops->capture_end) {
        nrt_seterr(g->ctx, "graph capture is CUDA only; %s simulators enqueue their launches "
                   "directly", g->ops->name);
        return NRT_EINVAL;
    }
    if (!g->capturing) {
        nrt_seterr(g->ctx, "nrt_gpu_capture_end: no capture is under way");
        return NRT_EINVAL;
    }
    g->capturing = 0;
    gr = calloc(1, sizeof *gr);
    st = g->ops->capture_end(g, &h);
    if (st != NRT_OK) {
        free(gr);
        return st;
    }
    if (!gr) {
        g->ops->graph_free(g, h);
        nrt_seterr(g->ctx, "out of memory ending a graph capture");
        return NRT_ENOMEM;
    }
    gr->g = g;
    gr->h = h;
    gr->next = g->graphs;
    g->graphs = gr;
    *out = gr;
    return NRT_OK;
}

nrt_status nrt_gpu_graph_launch(nrt_gpu *g, nrt_graph *gr)
{
    nrt_status st;
    if (!gr || gr->g != g || !g->ops->graph_launch) {
        nrt_seterr(g->ctx, "nrt_gpu_graph_launch: not a graph of this device");
        return NRT_EINVAL;
    }
    if ((st = not_capturing(g, "launch a graph")) != NRT_OK)
        return st;
    return g->ops->graph_launch(g, gr->h);
}

void nrt_gpu_graph_free(nrt_graph *gr)
{
    nrt_graph **p;
    if (!gr)
        return;
    for (p = &gr->g->graphs; *p; p = &(*p)->next)
        if (*p == gr) {
            *p = gr->next;
            gr->g->ops->graph_free(gr->g, gr->h);
            free(gr);
            return;
        }
}

/* Contract: see nrt_gpu.h. */
nrt_status nrt_gpu_alloc(nrt_gpu *g, nrt_dmem *m, size_t bytes, const char *what)
{
    nrt_gpu_buf *b;
    uintptr_t h = 0;
    nrt_status st;
    m->h = 0;
    m->bytes = 0;
    if (!what)
        what = "device memory";
    if (bytes == 0)
        return NRT_OK;
    if ((st = not_capturing(g, "allocate device memory")) != NRT_OK)
        return st;
    if (g->nbufs == g->capbufs) {
        size_t cap = g->capbufs ? 2 * g->capbufs : 16;
        nrt_gpu_buf *nb = realloc(g->bufs, cap * sizeof *nb);
        if (!nb) {
            nrt_seterr(g->ctx, "out of host memory allocating %s on the device", what);
            return NRT_ENOMEM;
        }
        g->bufs = nb;
        g->capbufs = cap;
    }
    if (g->ctx->fault.device_mem) { /* $NEUROC_FAULT_DEVICE_MEM: a device of that many bytes */
        uint64_t cap = g->ctx->fault.device_mem, used = 0;
        for (size_t i = 0; i < g->nbufs; i++)
            used += g->bufs[i].bytes;
        if (used + bytes > cap) {
            char asked[32], fr[32], tot[32];
            nrt_seterr(g->ctx, "out of device memory allocating %s (%s asked, %s of %s free; "
                       "$NEUROC_FAULT_DEVICE_MEM)", what,
                       nrt_fmt_bytes(asked, sizeof asked, bytes),
                       nrt_fmt_bytes(fr, sizeof fr, used < cap ? cap - used : 0),
                       nrt_fmt_bytes(tot, sizeof tot, cap));
            return NRT_EDEVICE;
        }
    }
    st = g->arena_on ? nrt_arena_alloc(g, bytes, what, &h) : g->ops->alloc(g, bytes, what, &h);
    if (st != NRT_OK)
        return st;
    b = &g->bufs[g->nbufs++];
    b->h = h;
    b->bytes = bytes;
    snprintf(b->what, sizeof b->what, "%s", what);
    g->ctx->dev_bytes += (double)bytes;     /* peak_device_bytes of --bench */
    if (g->ctx->dev_bytes > g->ctx->dev_peak)
        g->ctx->dev_peak = g->ctx->dev_bytes;
    m->h = h;
    m->bytes = bytes;
    return NRT_OK;
}

void nrt_gpu_free(nrt_gpu *g, nrt_dmem *m)
{
    nrt_gpu_buf *b;
    if (!m || !m->h)
        return;
    b = find_buf(g, m->h);
    if (b) {
        if (nrt_arena_is(g, b->h))
            nrt_arena_free(g, b);
        else
            g->ops->free(g, b->h);
        g->ctx->dev_bytes -= (double)b->bytes;
        *b = g->bufs[--g->nbufs];
    }
    m->h = 0;
    m->bytes = 0;
}

void *nrt_gpu_host_alloc(nrt_gpu *g, size_t bytes, const char *what)
{
    void *p;
    if (!what)
        what = "host memory";
    if (g->nhosts == g->caphosts) {
        size_t cap = g->caphosts ? 2 * g->caphosts : 8;
        void **nh = realloc(g->hosts, cap * sizeof *nh);
        if (!nh) {
            nrt_seterr(g->ctx, "out of host memory allocating %s", what);
            return NULL;
        }
        g->hosts = nh;
        g->caphosts = cap;
    }
    p = g->ops->host_alloc(g, bytes ? bytes : 1, what);
    if (p)
        g->hosts[g->nhosts++] = p;
    return p;
}

void nrt_gpu_host_free(nrt_gpu *g, void *p)
{
    size_t i;
    if (!p)
        return;
    for (i = 0; i < g->nhosts; i++)
        if (g->hosts[i] == p) {
            g->ops->host_free(g, p);
            g->hosts[i] = g->hosts[--g->nhosts];
            return;
        }
}

/* The buffer record of m with [off, off + bytes) inside it, or NULL with errmsg. */
static const nrt_gpu_buf *range(nrt_gpu *g, const char *doing, nrt_dmem m, size_t off,
                                size_t bytes)
{
    const nrt_gpu_buf *b = m.h ? find_buf(g, m.h) : NULL;
    if (!b) {
        nrt_seterr(g->ctx, "%s %zu bytes: not a live buffer of this device", doing, bytes);
        return NULL;
    }
    if (off > b->bytes || bytes > b->bytes - off) {
        nrt_seterr(g->ctx, "%s bytes %zu to %zu of '%s', which has %zu bytes", doing, off,
                   off + bytes, b->what, b->bytes);
        return NULL;
    }
    return b;
}

/* Contract: see nrt_gpu.h. */
nrt_status nrt_gpu_write(nrt_gpu *g, nrt_dmem m, size_t off, const void *src, size_t bytes)
{
    const nrt_gpu_buf *b;
    nrt_gpu_buf tmp;
    nrt_status st;
    if ((st = not_capturing(g, "write to the device")) != NRT_OK)
        return st;
    if (bytes == 0)
        return NRT_OK;
    if (!(b = range(g, "writing", m, off, bytes)))
        return NRT_EINVAL;
    b = nrt_arena_resolve(g, b, &off, &tmp);
    return g->ops->write(g, b, off, src, bytes);
}

nrt_status nrt_gpu_read(nrt_gpu *g, nrt_dmem m, size_t off, void *dst, size_t bytes)
{
    const nrt_gpu_buf *b;
    nrt_gpu_buf tmp;
    nrt_status st;
    if ((st = not_capturing(g, "read from the device")) != NRT_OK)
        return st;
    if (bytes == 0)
        return NRT_OK;
    if (!(b = range(g, "reading", m, off, bytes)))
        return NRT_EINVAL;
    b = nrt_arena_resolve(g, b, &off, &tmp);
    return g->ops->read(g, b, off, dst, bytes);
}

nrt_status nrt_gpu_fill32(nrt_gpu *g, nrt_dmem m, size_t off, uint32_t v, size_t bytes)
{
    const nrt_gpu_buf *b;
    nrt_gpu_buf tmp;
    if (bytes == 0)
        return NRT_OK;
    if (!(b = range(g, "filling", m, off, bytes)))
        return NRT_EINVAL;
    if (off % 4 || bytes % 4) {
        nrt_seterr(g->ctx, "filling bytes %zu to %zu of '%s' with a 32-bit pattern: offset "
                   "and size must be multiples of 4", off, off + bytes, b->what);
        return NRT_EINVAL;
    }
    b = nrt_arena_resolve(g, b, &off, &tmp);
    return nrt_gpu_waited(g, g->ops->fill32(g, b, off, v, bytes), "filling", b->what);
}

static nrt_status check_slot(nrt_gpu *g, int slot)
{
    if (slot >= 0 && slot < NRT_GPU_SLOTS)
        return NRT_OK;
    nrt_seterr(g->ctx, "event slot %d (slots are 0 to %d)", slot, NRT_GPU_SLOTS - 1);
    return NRT_EINVAL;
}

nrt_status nrt_gpu_mark(nrt_gpu *g, int slot)
{
    nrt_status st;
    if ((st = check_slot(g, slot)) != NRT_OK)
        return st;
    if ((st = not_capturing(g, "mark an event slot")) != NRT_OK)
        return st;
    st = g->ops->mark(g, slot);
    g->marked[slot] = st == NRT_OK;
    return st;
}

static _Thread_local double read_s;   /* nrt_gpu_read_s */

double nrt_gpu_read_s(void)
{
    return read_s;
}

nrt_status nrt_gpu_read_after(nrt_gpu *g, int slot, nrt_dmem m, size_t off, void *dst,
                              size_t bytes)
{
    const nrt_gpu_buf *b;
    nrt_gpu_buf tmp;
    nrt_status st;
    double t0;
    if ((st = check_slot(g, slot)) != NRT_OK)
        return st;
    if ((st = not_capturing(g, "read from the device")) != NRT_OK)
        return st;
    if (!g->marked[slot]) {
        nrt_seterr(g->ctx, "reading after event slot %d, which was never marked", slot);
        return NRT_EINVAL;
    }
    if (bytes == 0)
        return NRT_OK;
    if (!(b = range(g, "reading", m, off, bytes)))
        return NRT_EINVAL;
    b = nrt_arena_resolve(g, b, &off, &tmp);
    t0 = nrt_now();
    st = g->ops->read_after(g, slot, b, off, dst, bytes);
    read_s += nrt_now() - t0;
    return st;
}

nrt_status nrt_gpu_sync(nrt_gpu *g)
{
    nrt_status st;
    if ((st = not_capturing(g, "wait for the device")) != NRT_OK)
        return st;
    return g->ops->sync(g);
}
