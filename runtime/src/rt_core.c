/* rt_core.c -- start-up and bookkeeping of a generated simulator.
 *
 * Command-line parsing (nrt_init, with --device/--list-devices for GPU simulators), the
 * output folder, SIGINT/SIGTERM handling, the monotonic clock, population registration and
 * zeroed host allocation with error text.
 */
#define _POSIX_C_SOURCE 200809L

#include "nrt_gpu.h"
#include "rt_internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#if defined(__GNUC__)
/* Weak: only --list-devices of a GPU simulator calls the device layer, and a GPU
 * simulator links it anyway (it calls nrt_gpu_open). A C-back-end simulator thus never
 * pulls rt_gpu.o, the drivers' loaders or dlopen out of libneurort.a. */
#pragma weak nrt_gpu_list
#endif

_Static_assert(sizeof(sig_atomic_t) == sizeof(int),
               "nrt_ctx.stop_requested (volatile int) must be sig_atomic_t-compatible");

/* The context the signal handler flags; one simulator runs one context at a time. */
static nrt_ctx *volatile sig_ctx;
static struct sigaction old_int, old_term;
static int handlers_installed;

static void on_signal(int sig)
{
    nrt_ctx *c = sig_ctx;
    if (c)
        c->stop_requested = sig; /* nonzero: SIGINT or SIGTERM, named in the manifest */
}

/* Contract: writes a printf-style message into ctx->errmsg (truncated to its size). */
void nrt_seterr(nrt_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    if (!ctx)
        return;
    va_start(ap, fmt);
    vsnprintf(ctx->errmsg, sizeof ctx->errmsg, fmt, ap);
    va_end(ap);
}

/* Contract: if nrt_init installed handlers for ctx, puts the previous SIGINT/SIGTERM
 * actions back and forgets ctx; otherwise does nothing. Idempotent. */
void nrt_signals_restore(nrt_ctx *ctx)
{
    if (!handlers_installed || sig_ctx != ctx)
        return;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    handlers_installed = 0;
    sig_ctx = NULL;
}

/* Contract: seconds on CLOCK_MONOTONIC (arbitrary origin); 0 if the clock is unavailable. */
double nrt_now(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0.0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Contract: rt_internal.h. */
int nrt_grow(void **p, int *cap, int n, size_t size)
{
    if (n < *cap)
        return 0;
    int c = *cap ? *cap : 64;
    while (c <= n)
        c *= 2;
    void *q = realloc(*p, (size_t)c * size);
    if (!q)
        return -1;
    memset((char *)q + (size_t)*cap * size, 0, (size_t)(c - *cap) * size);
    *p = q;
    *cap = c;
    return 0;
}

/* A table of the summary could not grow: the generated code goes on to index it, so stop. */
static void register_failed(const char *what, const char *name)
{
    fprintf(stderr, "error: out of memory registering %s '%s'\n", what, name ? name : "?");
    exit(1);
}

/* Contract: see neurort.h. Appends (name, size) to ctx->pops with a zero spike count and
 * returns its index; spikes0 grows with it. */
int nrt_pop_register(nrt_ctx *ctx, const char *name, int64_t size)
{
    int cap = ctx->cap_pops;
    if (nrt_grow((void **)&ctx->pops, &ctx->cap_pops, ctx->npops, sizeof *ctx->pops) != 0 ||
        nrt_grow((void **)&ctx->spikes0, &cap, ctx->npops, sizeof *ctx->spikes0) != 0)
        register_failed("population", name);
    ctx->pops[ctx->npops].name = name;
    ctx->pops[ctx->npops].size = size;
    ctx->pops[ctx->npops].spikes = 0;
    return ctx->npops++;
}

/* Contract: see neurort.h. The generated code registers a view after its base population;
 * a view's spike count starts at 0 (a checkpoint's "view_spikes" line may set it). */
int nrt_view_register(nrt_ctx *ctx, const char *name, int pop, int64_t offset, int64_t size)
{
    if (nrt_grow((void **)&ctx->views, &ctx->cap_views, ctx->nviews, sizeof *ctx->views) != 0)
        register_failed("view", name);
    nrt_view_stat *v = &ctx->views[ctx->nviews];
    v->name = name;
    v->pop = pop;
    v->offset = offset;
    v->size = size;
    v->spikes = 0;
    return ctx->nviews++;
}

/* Contract: see neurort.h. */
void nrt_ctx_free(nrt_ctx *ctx)
{
    free(ctx->pops);
    free(ctx->spikes0);
    free(ctx->views);
    free(ctx->stages);
    free(ctx->conn_saved);
    free(ctx->projs);
    ctx->pops = NULL;
    ctx->spikes0 = NULL;
    ctx->views = NULL;
    ctx->stages = NULL;
    ctx->conn_saved = NULL;
    ctx->projs = NULL;
    ctx->npops = ctx->cap_pops = ctx->nviews = ctx->cap_views = 0;
    ctx->nstages = ctx->cap_stages = ctx->nconn_saved = ctx->cap_conn_saved = 0;
    ctx->nprojs = ctx->cap_projs = 0;
}

/* Contract: zeroed block of `bytes` bytes (at least 1), or NULL with errmsg
 * "out of memory allocating <what> (<bytes> bytes)". Free with nrt_free. */
void *nrt_alloc(nrt_ctx *ctx, size_t bytes, const char *what)
{
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p)
        nrt_seterr(ctx, "out of memory allocating %s (%zu bytes)", what ? what : "memory",
                   bytes);
    return p;
}

/* Contract: frees a block from nrt_alloc; NULL is ignored. */
void nrt_free(void *p)
{
    free(p);
}

/* Contract: mkdir -p: creates every missing component of `dir`. 0, or -1 with errno set. */
int nrt_make_dirs(const char *dir)
{
    char buf[4096];
    size_t n = strlen(dir), i;
    struct stat st;
    if (n == 0 || n >= sizeof buf) {
        errno = n ? ENAMETOOLONG : ENOENT;
        return -1;
    }
    memcpy(buf, dir, n + 1);
    for (i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        if (buf[i - 1] == '/')
            continue;
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0) {
            int e = errno;
            if (e != EEXIST || stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) {
                errno = (e == EEXIST) ? ENOTDIR : e;
                return -1;
            }
        }
        if (i < n)
            buf[i] = '/';
    }
    return 0;
}

/* Strict decimal uint64: digits only, no sign, no overflow. 0 on success. */
static int parse_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    if (!s || !*s)
        return -1;
    for (; *s; s++) {
        unsigned d;
        if (*s < '0' || *s > '9')
            return -1;
        d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* <directory of argv0>/<model>_out into ctx->out_dir_buf. 0, or -1 if it does not fit. */
static int default_out_dir(nrt_ctx *ctx, const char *argv0, const char *model)
{
    char dir[4096];
    const char *slash = argv0 ? strrchr(argv0, '/') : NULL;
    int n;
    if (slash) {
        size_t len = (size_t)(slash - argv0);
        if (len == 0)
            len = 1; /* binary in "/" */
        if (len >= sizeof dir)
            return -1;
        memcpy(dir, argv0, len);
        dir[len] = '\0';
    } else {
        /* found through PATH: ask the kernel where the binary is */
        ssize_t k = readlink("/proc/self/exe", dir, sizeof dir - 1);
        char *s;
        if (k > 0) {
            dir[k] = '\0';
            s = strrchr(dir, '/');
            if (s && s != dir)
                *s = '\0';
            else
                strcpy(dir, "/");
        } else {
            strcpy(dir, ".");
        }
    }
    n = snprintf(ctx->out_dir_buf, sizeof ctx->out_dir_buf, "%s%s%s_out", dir,
                 strcmp(dir, "/") == 0 ? "" : "/", model);
    if (n < 0 || (size_t)n >= sizeof ctx->out_dir_buf)
        return -1;
    ctx->out_dir = ctx->out_dir_buf;
    return 0;
}

/* The device API of a GPU back end ("cuda", "opencl"); 0 for the C back end. */
static int gpu_api(const nrt_ctx *ctx)
{
    if (ctx->backend && strcmp(ctx->backend, "cuda") == 0)
        return NRT_API_CUDA;
    if (ctx->backend && strcmp(ctx->backend, "opencl") == 0)
        return NRT_API_OPENCL;
    return 0;
}

static void print_usage(const nrt_ctx *ctx, const char *prog, const char *model)
{
    int api = gpu_api(ctx);
    printf("usage: %s [--out DIR] [--seed N] [--quiet] [--dry-run] [--save-connectivity]%s\n"
           "       [--check-finite[=K|off]] [--plot] %s[--instances B] [--seeds K] [--jobs J]%s\n"
           "       [--checkpoint DIR [--checkpoint-at T [--stop-after-checkpoint]]] [--resume DIR]\n"
           "       [--max-record-size SIZE] [--ignore-free-space] [--threads N]\n"
           "       [--bench[=FILE]] [--help]\n\n", prog,
           api ? " [--device N] [--list-devices]" : "", ctx->nparams ? "[--set NAME=VALUE ...] " : "",
           ctx->nparams ? "\n       [--sweep NAME=V0,V1,... ...]" : "");
    printf("Simulator of the model '%s', generated by neuroc (%s back end).\n\n", model,
           ctx->backend ? ctx->backend : "c");
    printf("options:\n");
    printf("  --out DIR   write recordings and manifest.json to DIR\n"
           "              (default: %s)\n", ctx->out_dir ? ctx->out_dir : "<model>_out");
    printf("  --seed N    random seed, a decimal integer (default: %llu)\n",
           (unsigned long long)ctx->default_seed);
    printf("  --quiet     no progress line and no summary\n");
    printf("  --dry-run   print the memory each projection will take and the size of\n"
           "              every recording, and exit\n");
    printf("  --max-record-size SIZE\n"
           "              warn when the recordings will pass SIZE (default 1G; K, M, G, T:\n"
           "              KiB .. TiB; off: never)\n");
    printf("  --ignore-free-space\n"
           "              run even when the recordings need more than the free space\n");
    printf("  --save-connectivity\n"
           "              write each projection's synapses to connectivity_<name>.npy\n");
    printf("  --check-finite[=K|off]\n"
           "              stop at the first NaN or infinity in a state variable, or a value\n"
           "              outside its declared range, checked after every K-th step\n"
           "              (default K: %d), or not at all (off; also --no-check-finite)\n",
           NRT_CHECK_EVERY);
    printf("  --plot      after the run, draw SVG figures and index.html into the\n"
           "              output folder\n");
    printf("  --instances B\n"
           "              run B instances, instance b with seed N + b, into DIR/instance_<b>\n");
    printf("  --seeds K   run each point of the --sweep grid (or the plain run) with the\n"
           "              K seeds N .. N+K-1, seeds varying fastest\n");
    printf("  --jobs J    in a batch: run up to J instances at a time (default 1)\n");
    if (ctx->nparams)
        printf("  --sweep NAME=V0,V1,...\n"
               "              one instance per value: instance b is the run with seed N\n"
               "              and --set NAME=Vb, into DIR/instance_<b>; several --sweep\n"
               "              options make a grid, the last varying fastest\n"
               "              (DIR/instances.csv lists each instance's values)\n");
    if (!api)
        printf("  --threads N run on N threads (default: the CPUs available, shared by --jobs\n"
               "              instances and the MPI ranks of a host); same results for every N\n");
    else
        printf("  --threads N write the recordings' large state rows on N host threads (default:\n"
               "              the CPUs available, at most one per 1,024 values of the largest\n"
               "              row, 1 without a row of 2,048); same results for every N\n");
    if (api) {
        const char *name = api == NRT_API_CUDA ? "CUDA" : "OpenCL";
        printf("  --device N  run on %s device N of --list-devices\n"
               "              (default: $NEUROC_DEVICE, else 0)\n", name);
        printf("  --list-devices\n"
               "              print the %s devices and exit\n", name);
    }
    if (ctx->nparams)
        printf("  --set NAME=VALUE\n"
               "              change a run-time parameter (below) for this run; repeatable\n");
    for (int i = 0; i < ctx->nparams; i++)
        if (ctx->params[i].count > 0) {     /* once, where the model has per-neuron ones */
            printf("              a per-neuron one also takes NAME=@FILE.npy|.csv[unit] (a value\n"
                   "              per neuron) or NAME='EXPR' of the index i ('2pA + 0.5pA*i')\n");
            break;
        }
    printf("  --checkpoint DIR\n"
           "              write a checkpoint to DIR at --checkpoint-at, or on SIGINT/SIGTERM\n");
    printf("  --checkpoint-at T\n"
           "              when T is reached (500ms, 0.5s, 5000steps; a number is ms)\n");
    printf("  --stop-after-checkpoint\n"
           "              stop (status 0) once the checkpoint is written\n");
    printf("  --resume DIR\n"
           "              continue from checkpoint DIR (default output: DIR/out)\n");
    printf("  --bench[=FILE]\n"
           "              print a JSON report of the run (times, RTF, synaptic events per\n"
           "              second, peak memory) to stdout, or write it to FILE\n");
    printf("  -h, --help  print this help and exit\n");
    nrt_param_usage(ctx);
}

/* Option value: "--opt=VALUE" or "--opt VALUE". NULL (errmsg set) if missing. */
static const char *opt_value(nrt_ctx *ctx, const char *name, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (a[n] == '=')
        return a + n + 1;
    if (*i + 1 >= argc) {
        nrt_seterr(ctx, "option '%s' needs a value (try --help)", name);
        return NULL;
    }
    return argv[++*i];
}

static int is_opt(const char *a, const char *name)
{
    size_t n = strlen(name);
    return strncmp(a, name, n) == 0 && (a[n] == '\0' || a[n] == '=');
}

/* --max-record-size: bytes, with K, M, G or T (KiB, MiB, GiB, TiB: powers of 1024) or B after
 * them; 0 or "off": no limit. 0, or -1 with errmsg. */
static int parse_size(nrt_ctx *ctx, const char *v, double *out)
{
    static const char *const units[] = {"", "B", "K", "KiB", "M", "MiB", "G", "GiB", "T", "TiB"};
    static const double scale[] = {1, 1, 1024.0, 1024.0, 1048576.0, 1048576.0, 1073741824.0,
                                   1073741824.0, 1099511627776.0, 1099511627776.0};
    char *end;
    double x;
    if (strcmp(v, "off") == 0) {
        *out = 0;
        return 0;
    }
    x = strtod(v, &end);
    if (end != v && x >= 0 && isfinite(x) && (v[0] >= '0' && v[0] <= '9'))
        for (size_t k = 0; k < sizeof units / sizeof units[0]; k++)
            if (strcmp(end, units[k]) == 0) {
                *out = x * scale[k];
                return 0;
            }
    nrt_seterr(ctx, "invalid size '%s' for '--max-record-size' (expected bytes, with K, M, G or T "
               "for KiB, MiB, GiB, TiB, e.g. 500M; or off)", v);
    return -1;
}

/* nrt_init's options as given (the rest go straight into ctx). */
typedef struct {
    const char *out, *ckpt_at;
    int help, list, seed_given, set_given, instances_given;
} init_opts;

/* Every field nrt_init sets, at its default. */
static void init_defaults(nrt_ctx *ctx, int argc, char **argv, const char *model)
{
    ctx->errmsg[0] = '\0';
    ctx->seed = ctx->default_seed;
    ctx->quiet = 0;
    ctx->dry_run = 0;
    ctx->max_rec_bytes = 1073741824.0; /* --max-record-size: 1 GiB */
    ctx->ignore_free = 0;
    ctx->save_conn = 0;
    ctx->check_finite = NRT_CHECK_EVERY;
    ctx->plot = 0;
    ctx->nmem = 0;
    ctx->mem_total = 0;
    ctx->device = -1;
    ctx->threads = 0;
    ctx->bench = NULL;
    ctx->instances = 1;
    ctx->jobs = 1;
    ctx->instance = 0;
    ctx->nsweeps = 0;
    ctx->seeds = 0;
    ctx->seeds_given = 0;
    ctx->exit_status = 0;
    ctx->out_dir = NULL;
    ctx->ckpt_dir = ctx->resume_dir = NULL;
    ctx->ckpt_step = ctx->ckpt_written = -1;
    ctx->ckpt_stop = 0;
    ctx->start_step = ctx->step = 0;
    ctx->start_phase = 0;
    if (default_out_dir(ctx, (argc > 0 && argv) ? argv[0] : NULL, model) != 0)
        ctx->out_dir = NULL;
}

/* The options, one by one: NRT_EINVAL with errmsg on a bad one. */
static nrt_status init_parse(nrt_ctx *ctx, int argc, char **argv, int api, init_opts *o)
{
    int i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            o->help = 1;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            ctx->quiet = 1;
        } else if (strcmp(a, "--dry-run") == 0) {
            ctx->dry_run = 1;
        } else if (strcmp(a, "--save-connectivity") == 0) {
            ctx->save_conn = 1;
        } else if (strcmp(a, "--bench") == 0 || strncmp(a, "--bench=", 8) == 0) {
            ctx->bench = a[7] ? a + 8 : "-";
            if (!*ctx->bench) {
                nrt_seterr(ctx, "option '--bench=' needs a file name");
                return NRT_EINVAL;
            }
        } else if (strcmp(a, "--check-finite") == 0) {
            ctx->check_finite = 1;
        } else if (strcmp(a, "--no-check-finite") == 0 || strcmp(a, "--check-finite=off") == 0) {
            ctx->check_finite = 0;
        } else if (strncmp(a, "--check-finite=", 15) == 0) {
            uint64_t k;
            if (parse_u64(a + 15, &k) != 0 || k < 1 || k > INT64_MAX) {
                nrt_seterr(ctx, "invalid interval '%s' for '--check-finite' (expected a "
                           "number of steps, at least 1, or 'off')", a + 15);
                return NRT_EINVAL;
            }
            ctx->check_finite = (int64_t)k;
        } else if (strcmp(a, "--plot") == 0) {
            ctx->plot = 1;
        } else if (is_opt(a, "--out")) {
            o->out = opt_value(ctx, "--out", argc, argv, &i);
            if (!o->out)
                return NRT_EINVAL;
            if (!*o->out) {
                nrt_seterr(ctx, "option '--out' needs a non-empty folder name");
                return NRT_EINVAL;
            }
        } else if (is_opt(a, "--seed")) {
            const char *v = opt_value(ctx, "--seed", argc, argv, &i);
            if (!v)
                return NRT_EINVAL;
            o->seed_given = 1;
            if (parse_u64(v, &ctx->seed) != 0) {
                nrt_seterr(ctx, "invalid seed '%s' for '--seed' (expected a decimal integer "
                           "from 0 to 18446744073709551615)", v);
                return NRT_EINVAL;
            }
        } else if (is_opt(a, "--set")) {
            const char *v = opt_value(ctx, "--set", argc, argv, &i);
            o->set_given = 1;
            if (!v || nrt_param_set(ctx, v) != NRT_OK)
                return NRT_EINVAL;
        } else if (is_opt(a, "--sweep")) {
            const char *v = opt_value(ctx, "--sweep", argc, argv, &i);
            if (!v)
                return NRT_EINVAL;
            if (ctx->nsweeps == NRT_MAX_SWEEPS) {
                nrt_seterr(ctx, "more than %d '--sweep' options", NRT_MAX_SWEEPS);
                return NRT_EINVAL;
            }
            ctx->sweep[ctx->nsweeps++] = v;
        } else if (is_opt(a, "--instances") || is_opt(a, "--jobs") || is_opt(a, "--seeds")) {
            const int jobs = is_opt(a, "--jobs"), seeds = is_opt(a, "--seeds");
            const char *name = jobs ? "--jobs" : seeds ? "--seeds" : "--instances";
            const char *v = opt_value(ctx, name, argc, argv, &i);
            uint64_t b;
            if (!v)
                return NRT_EINVAL;
            if (parse_u64(v, &b) != 0 || b < 1 || b > 1000000) {
                nrt_seterr(ctx, "invalid number of %s '%s' for '%s' (expected a decimal "
                           "integer from 1 to 1000000)", jobs ? "jobs" : seeds ? "seeds" : "instances",
                           v, name);
                return NRT_EINVAL;
            }
            *(jobs ? &ctx->jobs : seeds ? &ctx->seeds : &ctx->instances) = (int64_t)b;
            o->instances_given |= !jobs && !seeds;
            ctx->seeds_given |= seeds;
        } else if (is_opt(a, "--checkpoint") || is_opt(a, "--resume")) {
            const char *name = is_opt(a, "--resume") ? "--resume" : "--checkpoint";
            const char *v = opt_value(ctx, name, argc, argv, &i);
            if (!v)
                return NRT_EINVAL;
            if (!*v) {
                nrt_seterr(ctx, "option '%s' needs a non-empty folder name", name);
                return NRT_EINVAL;
            }
            *(name[2] == 'r' ? &ctx->resume_dir : &ctx->ckpt_dir) = v;
        } else if (is_opt(a, "--checkpoint-at")) {
            if (!(o->ckpt_at = opt_value(ctx, "--checkpoint-at", argc, argv, &i)))
                return NRT_EINVAL;
        } else if (strcmp(a, "--ignore-free-space") == 0) {
            ctx->ignore_free = 1;
        } else if (is_opt(a, "--max-record-size")) {
            const char *v = opt_value(ctx, "--max-record-size", argc, argv, &i);
            if (!v || parse_size(ctx, v, &ctx->max_rec_bytes) != 0)
                return NRT_EINVAL;
        } else if (strcmp(a, "--stop-after-checkpoint") == 0) {
            ctx->ckpt_stop = 1;
        } else if (is_opt(a, "--device") || strcmp(a, "--list-devices") == 0) {
            const char *v;
            uint64_t d;
            if (!api) {
                nrt_seterr(ctx, "option '%s': the C back end has no devices (--device and "
                           "--list-devices are options of CUDA and OpenCL simulators)", a);
                return NRT_EINVAL;
            }
            if (strcmp(a, "--list-devices") == 0) {
                o->list = 1;
                continue;
            }
            if (!(v = opt_value(ctx, "--device", argc, argv, &i)))
                return NRT_EINVAL;
            if (parse_u64(v, &d) != 0 || d > INT_MAX) {
                nrt_seterr(ctx, "invalid device '%s' for '--device' (expected an index "
                           "from --list-devices)", v);
                return NRT_EINVAL;
            }
            ctx->device = (int)d;
        } else if (is_opt(a, "--threads")) {
            const char *v;
            uint64_t n;
            if (!(v = opt_value(ctx, "--threads", argc, argv, &i)))
                return NRT_EINVAL;
            if (parse_u64(v, &n) != 0 || n < 1 || n > NRT_MAX_THREADS) {
                nrt_seterr(ctx, "invalid number of threads '%s' for '--threads' (expected a "
                           "decimal integer from 1 to %d)", v, NRT_MAX_THREADS);
                return NRT_EINVAL;
            }
            ctx->threads = (int)n;
        } else if (a[0] == '-' && a[1] != '\0') {
            nrt_seterr(ctx, "unknown option '%s' (try --help)", a);
            return NRT_EINVAL;
        } else {
            nrt_seterr(ctx, "unexpected argument '%s' (try --help)", a);
            return NRT_EINVAL;
        }
    }
    return NRT_OK;
}

/* --sweep (a grid of points) and --seeds K against --instances B: B = points * K, instance
 * b is point b / K with seed N + b % K; without either, ctx->seeds = B (seed N + b). */
static nrt_status init_grid(nrt_ctx *ctx, const init_opts *o)
{
    const int64_t points = nrt_sweep_count(ctx);
    const int64_t k = ctx->seeds_given ? ctx->seeds : 1;
    if (points == 0)
        return NRT_EINVAL;
    if (!ctx->nsweeps && !ctx->seeds_given) {
        ctx->seeds = ctx->instances;
        return NRT_OK;
    }
    if (points > 1000000 / k) {
        nrt_seterr(ctx, "the --sweep grid times --seeds is more than 1000000 instances");
        return NRT_EINVAL;
    }
    if (o->instances_given && ctx->instances != points * k) {
        if (ctx->nsweeps == 1 && !ctx->seeds_given)
            nrt_seterr(ctx, "'--sweep' gives %lld values but '--instances' asks for %lld "
                       "instances (one per value; --instances may be left out)",
                       (long long)points, (long long)ctx->instances);
        else
            nrt_seterr(ctx, "'--instances %lld' does not match %lld grid point%s times "
                       "'--seeds %lld' (%lld instances; --instances may be left out)",
                       (long long)ctx->instances, (long long)points, points == 1 ? "" : "s",
                       (long long)k, (long long)(points * k));
        return NRT_EINVAL;
    }
    ctx->seeds = k;
    ctx->instances = points * k;
    if (ctx->instances == 1 && nrt_sweep_apply(ctx, 0) != NRT_OK)   /* a plain run */
        return NRT_EINVAL;
    return NRT_OK;
}

/* What the options ask of each other, and of a checkpoint to resume. */
static nrt_status init_check(nrt_ctx *ctx, init_opts *o)
{
    if (nrt_fault_init(ctx) != NRT_OK)
        return NRT_EINVAL;
    if ((o->ckpt_at || ctx->ckpt_stop) && !ctx->ckpt_dir) {
        nrt_seterr(ctx, "'%s' needs --checkpoint DIR",
                   o->ckpt_at ? "--checkpoint-at" : "--stop-after-checkpoint");
        return NRT_EINVAL;
    }
    if (init_grid(ctx, o) != NRT_OK)
        return NRT_EINVAL;
    if (ctx->instances > 1 && (ctx->ckpt_dir || ctx->resume_dir)) {
        nrt_seterr(ctx, "'%s' is for one run, not for --instances: checkpoint instance b as "
                   "the run with --seed N+b", ctx->ckpt_dir ? "--checkpoint" : "--resume");
        return NRT_EINVAL;
    }
    if (ctx->resume_dir && o->set_given) {
        nrt_seterr(ctx, "'--set' with '--resume': a resumed run keeps the run-time parameters "
                   "of its checkpoint");
        return NRT_EINVAL;
    }
    if (ctx->ckpt_stop && !o->ckpt_at) {
        nrt_seterr(ctx, "'--stop-after-checkpoint' needs --checkpoint-at T");
        return NRT_EINVAL;
    }
    if (o->ckpt_at && nrt_ckpt_parse_at(ctx, o->ckpt_at, &ctx->ckpt_step) != 0)
        return NRT_EINVAL;
    if (ctx->resume_dir && !ctx->dry_run) {
        if (nrt_ckpt_open(ctx, ctx->resume_dir, o->seed_given) != 0)
            return NRT_EIO;
        if (!o->out) {
            int k = snprintf(ctx->out_dir_buf, sizeof ctx->out_dir_buf, "%s/out",
                             ctx->resume_dir);
            ctx->out_dir = (k > 0 && (size_t)k < sizeof ctx->out_dir_buf) ? ctx->out_dir_buf
                                                                          : NULL;
        }
    }
    if (o->ckpt_at && (ctx->ckpt_step <= ctx->start_step || ctx->ckpt_step > ctx->total_steps)) {
        nrt_seterr(ctx, "--checkpoint-at %s is step %lld, outside the steps this run makes "
                   "(%lld to %lld)", o->ckpt_at, (long long)ctx->ckpt_step,
                   (long long)ctx->start_step + 1, (long long)ctx->total_steps);
        return NRT_EINVAL;
    }
    return NRT_OK;
}

/* The output folder: made, and an earlier run's manifest gone. */
static nrt_status init_out_dir(nrt_ctx *ctx, const init_opts *o)
{
    if (o->out)
        ctx->out_dir = o->out;
    if (!ctx->out_dir) {
        nrt_seterr(ctx, "path of the default output folder is too long (use --out DIR)");
        return NRT_EINVAL;
    }
    if (!ctx->dry_run && nrt_make_dirs(ctx->out_dir) != 0) {
        nrt_seterr(ctx, "cannot create output folder '%s': %s", ctx->out_dir,
                   strerror(errno));
        return NRT_EIO;
    }
    if (!ctx->dry_run) {
        /* a manifest of an earlier run would describe files this run rewrites: gone now, so
         * that a run which cannot write its own leaves none rather than a wrong one */
        char man[4200];
        if (snprintf(man, sizeof man, "%s/manifest.json", ctx->out_dir) < (int)sizeof man &&
            access(man, F_OK) == 0 && unlink(man) != 0) {
            nrt_seterr(ctx, "cannot remove the old '%s': %s", man, strerror(errno));
            return NRT_EIO;
        }
    }

    return NRT_OK;
}

/* SIGINT/SIGTERM set ctx->stop_requested (SA_RESETHAND: a second one terminates). */
static void init_signals(nrt_ctx *ctx)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    if (!handlers_installed) {
        sig_ctx = ctx;
        sigaction(SIGINT, &sa, &old_int);
        sigaction(SIGTERM, &sa, &old_term);
        handlers_installed = 1;
    } else {
        sig_ctx = ctx;
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
    }
    ctx->stop_requested = 0;
    ctx->finished = 0;
    ctx->finish_status = NRT_OK;
    ctx->progress_started = 0;
    ctx->progress_line_open = 0;
    ctx->t0 = nrt_now();
    ctx->t_last_progress = ctx->t0;
}

/* Contract: see neurort.h. Sets out_dir (default <dir of argv[0]>/<model>_out), seed
 * (default_seed unless --seed), quiet, device (-1 unless --device, which only backend
 * "cuda" and "opencl" accept), t0; creates out_dir (mkdir -p); installs SIGINT/SIGTERM
 * handlers (SA_RESETHAND: a second signal terminates as usual) that set
 * ctx->stop_requested. Returns NRT_EHELP after printing usage to stdout, or after
 * --list-devices printed the devices (nrt_gpu_list; its NRT_EDEVICE when it cannot),
 * NRT_EINVAL on a bad option, NRT_EIO when the folder cannot be created; errmsg says why.
 * With --instances B > 1 (not --dry-run, and ctx->batch not set) it ends in
 * nrt_instances_run (rt_instances.c). */
nrt_status nrt_init(nrt_ctx *ctx, int argc, char **argv)
{
    const char *model = ctx->model ? ctx->model : "model";
    const char *prog = (argc > 0 && argv && argv[0]) ? argv[0] : model;
    const int api = gpu_api(ctx);
    init_opts o = {0};
    nrt_status st;

    init_defaults(ctx, argc, argv, model);
    if ((st = init_parse(ctx, argc, argv, api, &o)) != NRT_OK)
        return st;
    if (o.help) {
        print_usage(ctx, prog, model);
        fflush(stdout);
        return NRT_EHELP;
    }
    if (o.list) {
#if defined(__GNUC__)
        if (!nrt_gpu_list) {
            nrt_seterr(ctx, "--list-devices: this program was linked without the device "
                       "layer of libneurort");
            return NRT_EINVAL;
        }
#endif
        st = nrt_gpu_list(ctx, (nrt_api)api);
        return st == NRT_OK ? NRT_EHELP : st;
    }
    if ((st = init_check(ctx, &o)) != NRT_OK || (st = init_out_dir(ctx, &o)) != NRT_OK)
        return st;
    init_signals(ctx);
    if (ctx->instances > 1 && !ctx->dry_run && !ctx->batch)
        return nrt_instances_run(ctx);
    return NRT_OK;
}
