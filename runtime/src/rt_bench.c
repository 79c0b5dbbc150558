/* rt_bench.c -- the --bench report of a generated simulator: one JSON object with what the
 * run was (model, back end, device, schedule, sizes, steps, dt), what it cost (code generation
 * and compile time from <executable>.build.json, which neuroc writes; construction and
 * simulation time; RTF; synaptic events per second; peak host and device memory).
 * Called by nrt_report after the run; fields are described in docs/cli.md §2.6. Each
 * instance of a batch (--instances) writes its own into <its folder>/bench.json.
 */
#define _DEFAULT_SOURCE

#include "rt_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* user + system CPU time of this process, s (-1 when unknown) */
static double cpu_now(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return -1;
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
           1e-6 * (double)ru.ru_stime.tv_usec;
}

/* Contract: see neurort.h. */
double nrt_sim_begin(nrt_ctx *ctx)
{
    int i;
    ctx->step0 = ctx->start_step; /* 0, or the checkpoint's step (--resume) */
    for (i = 0; i < ctx->npops; i++)
        ctx->spikes0[i] = ctx->pops[i].spikes;
    ctx->cpu_sim0 = cpu_now();
    ctx->sim_t0 = nrt_now();
    return ctx->sim_t0;
}

/* Contract: see neurort.h. cpu_simulate is -1 when the CPU clock is unavailable. */
double nrt_sim_end(nrt_ctx *ctx, double t0)
{
    const double c = cpu_now();
    ctx->cpu_simulate = c >= 0 && ctx->cpu_sim0 >= 0 ? c - ctx->cpu_sim0 : -1;
    return nrt_now() - t0;
}

/* Contract: see neurort.h. The table grows to k + 1 entries (it lives until the process
 * ends); where memory runs out the stat is dropped and --bench says so. */
void nrt_proj_stat(nrt_ctx *ctx, int k, int pre, double synapses)
{
    if (k < 0)
        return;
    if (nrt_grow((void **)&ctx->projs, &ctx->cap_projs, k, sizeof *ctx->projs) != 0) {
        ctx->projs_lost = 1;
        return;
    }
    ctx->projs[k].pre = pre;
    ctx->projs[k].synapses = synapses;
    if (ctx->nprojs <= k)
        ctx->nprojs = k + 1;
}

/* Contract: see neurort.h. A stage that finds no memory is dropped and --bench says so. */
double nrt_stage(nrt_ctx *ctx, const char *what, double t0)
{
    const double now = nrt_now();
    int i;
    for (i = 0; i < ctx->nstages && strcmp(ctx->stages[i].what, what) != 0; i++)
        ;
    if (i == ctx->nstages) {
        if (nrt_grow((void **)&ctx->stages, &ctx->cap_stages, i, sizeof *ctx->stages) != 0) {
            ctx->stages_lost = 1;
            return now;
        }
        ctx->stages[i].what = what;
        ctx->stages[i].s = 0;
        ctx->nstages++;
    }
    if (i < ctx->nstages)
        ctx->stages[i].s += now - t0;
    return now;
}

static void put_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* A number, or null when it is not known (negative) or not finite. */
static void put_num(FILE *f, double x)
{
    if (x >= 0 && x < 1e300)
        fprintf(f, "%.9g", x);
    else
        fputs("null", f);
}

/* The value of "key": in a one-line JSON object (neuroc's build.json): a number, or a
 * string (build_str, copied into buf; NULL when absent). -1 when absent. */
static double build_num(const char *json, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = strstr(json, pat);
    return p ? strtod(p + strlen(pat), NULL) : -1;
}

static const char *build_str(const char *json, const char *key, char *buf, size_t n)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": \"", key);
    const char *p = strstr(json, pat);
    if (!p)
        return NULL;
    p += strlen(pat);
    size_t len = strcspn(p, "\"");
    if (len >= n)
        len = n - 1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return buf;
}

/* <this executable>.build.json into buf ("" when there is none). */
static void read_build_info(char *buf, size_t n)
{
    char exe[4096], path[4200];
    buf[0] = '\0';
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0)
        return;
    exe[k] = '\0';
    snprintf(path, sizeof path, "%s.build.json", exe);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    size_t got = fread(buf, 1, n - 1, f);
    buf[got] = '\0';
    fclose(f);
}

/* The host CPU's model name (/proc/cpuinfo), for the C back end's "device". */
static void cpu_name(char *buf, size_t n)
{
    char line[512];
    snprintf(buf, n, "CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char *c = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && c) {
            c += 1 + strspn(c + 1, " \t");
            c[strcspn(c, "\n")] = '\0';
            snprintf(buf, n, "%s", c);
            break;
        }
    }
    fclose(f);
}

/* Contract: see neurort.h. Synaptic events: for each projection, the spikes of its
 * presynaptic population times its synapses per neuron of that population (a projection
 * from a view counts the view's share of the spikes as if they were uniform over the
 * population). */
nrt_status nrt_bench(nrt_ctx *ctx)
{
    char info[1024], dev[256], cache[16];
    double neurons = 0, synapses = 0, events = 0, spikes = 0;
    /* this process's time loop: a run resumed from a checkpoint starts at step0 */
    const int64_t steps = ctx->step - ctx->step0;
    const double sim_s = (double)steps * ctx->dt * 1e-3;
    struct rusage ru;
    int i;
    char inst[4200];
    const char *dest = ctx->bench;
    if (ctx->instances > 1) {   /* one of a batch (rt_instances.c): into its own folder */
        snprintf(inst, sizeof inst, "%s/bench.json", ctx->out_dir);
        dest = inst;
    }
    FILE *f = strcmp(dest, "-") == 0 ? stdout : fopen(dest, "w");
    if (!f) {
        nrt_seterr(ctx, "cannot write '%s': %s", dest, strerror(errno));
        return NRT_EIO;
    }
    for (i = 0; i < ctx->npops; i++) {
        neurons += (double)ctx->pops[i].size;
        spikes += (double)(ctx->pops[i].spikes - ctx->spikes0[i]);
    }
    for (i = 0; i < ctx->nprojs; i++) {
        const struct nrt_proj_stat *p = &ctx->projs[i];
        synapses += p->synapses;
        if (p->pre >= 0 && p->pre < ctx->npops && ctx->pops[p->pre].size > 0)
            events += (double)(ctx->pops[p->pre].spikes - ctx->spikes0[p->pre]) * p->synapses /
                      (double)ctx->pops[p->pre].size;
    }
    read_build_info(info, sizeof info);
    if (ctx->device_name[0])
        snprintf(dev, sizeof dev, "%s", ctx->device_name);
    else
        cpu_name(dev, sizeof dev);
    fputs("{\"model\": ", f);
    put_str(f, ctx->model ? ctx->model : "model");
    fputs(", \"backend\": ", f);
    put_str(f, ctx->backend ? ctx->backend : "c");
    fputs(", \"device\": ", f);
    put_str(f, dev);
    fputs(", \"schedule\": ", f);
    if (ctx->schedule)
        put_str(f, ctx->schedule);
    else
        fputs("null", f);
    fprintf(f, ", \"threads\": %d, \"parallel_regions\": %lld", ctx->threads > 0 ? ctx->threads : 1,
            (long long)nrt_pool_regions());
    if (ctx->own_step > 0)   /* nrt_own_balance: the busiest thread's delivery, over the mean */
        fprintf(f, ", \"delivery_owners\": {\"after_step\": %lld, \"busiest_equal\": %.4f, \"busiest_measured\": %.4f, \"rings_moved\": %d, \"s\": %.4f}",
                (long long)ctx->own_step, ctx->own_busy[0], ctx->own_busy[1], ctx->own_moved, ctx->own_s);
    else
        fputs(", \"delivery_owners\": null", f);
    if (ctx->projs_lost)   /* a projection's count is missing: no totals rather than wrong ones */
        synapses = events = -1;
    fprintf(f, ",\n \"neurons\": %.0f, \"synapses\": ", neurons);
    if (synapses >= 0)
        fprintf(f, "%.0f", synapses);
    else
        fputs("null", f);
    fprintf(f, ", \"first_step\": %lld, \"steps\": %lld, \"dt_ms\": ", (long long)ctx->step0, (long long)steps);
    put_num(f, ctx->dt);
    fputs(", \"simulated_s\": ", f);
    put_num(f, sim_s);
    fprintf(f, ", \"seed\": %llu, \"interrupted\": %s, \"check_finite\": %lld,\n \"codegen_s\": ",
            (unsigned long long)ctx->seed, ctx->interrupted ? "true" : "false", (long long)ctx->check_finite);
    put_num(f, info[0] ? build_num(info, "codegen_s") : -1);
    fputs(", \"compile_s\": ", f);
    put_num(f, info[0] ? build_num(info, "compile_s") : -1);
    fputs(", \"cache\": ", f);
    if (build_str(info, "cache", cache, sizeof cache))
        put_str(f, cache);
    else
        fputs("null", f);
    fputs(",\n \"init_s\": ", f);
    put_num(f, ctx->t_build);
    fputs(", \"construct_s\": ", f);
    put_num(f, ctx->t_construct);
    fputs(ctx->stages_lost ? ", \"construct_stages_s\": null" : ", \"construct_stages_s\": {", f);
    for (i = 0; i < (ctx->stages_lost ? 0 : ctx->nstages); i++) {
        fputs(i ? ", " : "", f);
        put_str(f, ctx->stages[i].what);
        fputs(": ", f);
        put_num(f, ctx->stages[i].s);
    }
    fputs(ctx->stages_lost ? ", \"simulate_s\": " : "}, \"simulate_s\": ", f);
    put_num(f, ctx->t_simulate);
    fputs(", \"simulate_cpu_s\": ", f);
    put_num(f, ctx->cpu_simulate);
    fputs(", \"host_drain_s\": ", f);
    if (ctx->device_name[0])
        put_num(f, ctx->t_drain);
    else
        fputs("null", f);
    fputs(", \"rtf\": ", f);
    put_num(f, sim_s > 0 ? ctx->t_simulate / sim_s : -1);
    fputs(",\n \"spikes\": ", f);
    put_num(f, spikes);
    fputs(", \"synaptic_events\": ", f);
    put_num(f, events);
    fputs(", \"synaptic_events_per_s\": ", f);
    put_num(f, ctx->t_simulate > 0 ? events / ctx->t_simulate : -1);
    fputs(",\n \"peak_host_bytes\": ", f);
    put_num(f, getrusage(RUSAGE_SELF, &ru) == 0 ? (double)ru.ru_maxrss * 1024.0 : -1);
    fputs(", \"peak_device_bytes\": ", f);
    put_num(f, ctx->device_name[0] ? ctx->dev_peak : -1);
    fputs(",\n \"populations\": [", f);
    for (i = 0; i < ctx->npops; i++) {
        fputs(i ? ", {\"name\": " : "{\"name\": ", f);
        put_str(f, ctx->pops[i].name ? ctx->pops[i].name : "?");
        fprintf(f, ", \"size\": %lld, \"spikes\": %lld}", (long long)ctx->pops[i].size,
                (long long)(ctx->pops[i].spikes - ctx->spikes0[i]));
    }
    fputs("]}\n", f);
    if (f == stdout)
        return fflush(f) == 0 ? NRT_OK : NRT_EIO;
    if (fclose(f) != 0) {
        nrt_seterr(ctx, "cannot write '%s': %s", dest, strerror(errno));
        return NRT_EIO;
    }
    return NRT_OK;
}
