/* rt_instances.c -- batched runs: `./sim --instances B [--jobs J]`.
 *
 * Instance b of `--instances B --seed s` is exactly the run `--seed s+b` (mod 2^64) with its
 * output in <out>/instance_<b>/. nrt_init hands a batch to nrt_instances_run, which runs
 * each instance in a child process forked before anything of the model exists, up to J at
 * a time: the child returns from nrt_init as a plain single run with its own seed and folder
 * (so it is that run, by construction, on every back end), reports its counts and timings
 * to the parent through a pipe when it finishes (nrt_instance_report, called by nrt_finish),
 * and exits. The parent reaps the children, prints a line per instance, writes
 * <out>/manifest.json listing them, and returns NRT_EHELP with ctx->exit_status.
 *
 * Why processes: the generated programs keep the model in static storage, so a process is
 * the one copy of the model that starts clean, and instances are independent, so running
 * whole runs side by side (or one after another) is what "independent" means.
 *
 * In one process: a program that sets ctx->batch before nrt_init (a CUDA program whose
 * block schedule runs; codegen/simt.c) keeps every instance's state in a struct of its own
 * and runs the batch itself: nrt_instance_open makes each instance's context, the device
 * runs one work-group per instance in each launch (nrt_gpu_launch_batch), and
 * nrt_instances_close prints the lines and writes the same manifest.json.
 *
 * Signals: each child runs in its own process group, so a terminal's Ctrl-C reaches only
 * the parent, which forwards one SIGTERM to each running child (it stops after its step,
 * flushes and writes its manifest, as a single run does) and starts no further instance.
 */
#define _POSIX_C_SOURCE 200809L

#include "rt_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* What a child tells its parent when it finishes (nrt_instance_report). */
typedef struct inst_result {
    int64_t completed_steps;
    int64_t spikes;               /* all populations together */
    int32_t interrupted;
    int32_t finish_ok;            /* nrt_finish wrote everything */
    double t_build, t_construct, t_simulate;
} inst_result;

typedef struct inst_run {
    uint64_t seed;
    pid_t pid;                    /* while running, else 0 */
    int fd;                       /* read end of its pipe while running */
    int status;                   /* exit status of the child (128 + signal if killed) */
    int reported;                 /* the child sent its inst_result */
    inst_result r;
} inst_run;

/* In a child: the write end of its pipe to the parent; -1 elsewhere. */
static int report_fd = -1;

/* Contract: in an instance's child process, writes ctx's final counts and timings to the
 * parent (once); elsewhere does nothing. Called by nrt_finish. */
void nrt_instance_report(const nrt_ctx *ctx, nrt_status finish_status)
{
    inst_result r;
    const char *p = (const char *)&r;
    size_t left = sizeof r;
    int i;
    if (report_fd < 0)
        return;
    memset(&r, 0, sizeof r);
    r.completed_steps = ctx->step;
    for (i = 0; i < ctx->npops; i++)
        r.spikes += ctx->pops[i].spikes;
    r.interrupted = ctx->interrupted;
    r.finish_ok = finish_status == NRT_OK;
    r.t_build = ctx->t_build;
    r.t_construct = ctx->t_construct;
    r.t_simulate = ctx->t_simulate;
    while (left > 0) {
        ssize_t n = write(report_fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        p += n;
        left -= (size_t)n;
    }
    close(report_fd);
    report_fd = -1;
}

/* Read a finished child's inst_result from fd (its pipe holds it whole: the child wrote
 * fewer than PIPE_BUF bytes before exiting); 1 if a whole one arrived. */
static int read_result(int fd, inst_result *r)
{
    char *p = (char *)r;
    size_t got = 0;
    while (got < sizeof *r) {
        ssize_t n = read(fd, p + got, sizeof *r - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    return got == sizeof *r;
}

/* Exit status of a child from waitpid's word (128 + the signal if it was killed). */
static int exit_status_of(int ws)
{
    if (WIFEXITED(ws))
        return WEXITSTATUS(ws);
    return WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : 1;
}

/* Make ctx the run of instance b: its seed, quiet, its folder <base>/instance_<b> (made). */
static nrt_status instance_of(nrt_ctx *ctx, const char *base, int64_t b, uint64_t seed)
{
    struct stat st;
    int n;
    ctx->instance = b;
    ctx->seed = seed;
    ctx->quiet = 1; /* the batch prints a line per instance */
    ctx->t0 = nrt_now();
    ctx->t_last_progress = ctx->t0;
    n = snprintf(ctx->out_dir_buf, sizeof ctx->out_dir_buf, "%s/instance_%lld", base,
                 (long long)b);
    if (n < 0 || (size_t)n >= sizeof ctx->out_dir_buf) {
        nrt_seterr(ctx, "path of the folder of instance %lld in '%s' is too long",
                   (long long)b, base);
        return NRT_EINVAL;
    }
    ctx->out_dir = ctx->out_dir_buf;
    if (mkdir(ctx->out_dir, 0777) != 0 &&
        (errno != EEXIST || stat(ctx->out_dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
        nrt_seterr(ctx, "cannot create output folder '%s': %s", ctx->out_dir,
                   strerror(errno == EEXIST ? ENOTDIR : errno));
        return NRT_EIO;
    }
    return NRT_OK;
}

/* The child's side: become the single run of instance b. */
static nrt_status become_instance(nrt_ctx *ctx, const char *base, int64_t b, uint64_t seed,
                                  int fd)
{
    nrt_status st;
    report_fd = fd;
    setpgid(0, 0);
    if ((st = instance_of(ctx, base, b, seed)) != NRT_OK)
        return st;
    return nrt_sweep_apply(ctx, b);   /* this process's own table of parameters */
}

/* How instance b's seed follows from the index (the manifest's seed_rule). */
static const char *seed_rule(const nrt_ctx *ctx)
{
    if (ctx->seeds_given)
        return "seed + index % seeds";
    return ctx->nsweeps ? "seed" : "seed + index";
}

static void print_header(const nrt_ctx *ctx, const char *how)
{
    fprintf(stderr, "%s (%s): %lld instances, %s, %s %llu%s", ctx->model ? ctx->model : "model",
            ctx->backend ? ctx->backend : "c", (long long)ctx->instances, how,
            ctx->nsweeps && !ctx->seeds_given ? "seed" : "seeds",
            (unsigned long long)ctx->seed, ctx->nsweeps && !ctx->seeds_given ? "" : " + index");
    if (ctx->seeds_given)
        fprintf(stderr, " %% %lld", (long long)ctx->seeds);
    for (int i = 0; i < ctx->nsweeps; i++)
        fprintf(stderr, ", --sweep %s", ctx->sweep[i]);
    fprintf(stderr, ", %lld steps of %g ms each\n", (long long)ctx->total_steps, ctx->dt);
    fprintf(stderr, "  %8s %20s  %-8s %12s %12s %8s\n", "instance", "seed", "status",
            "spikes", "simulate (s)", "RTF");
}

static void print_line(const nrt_ctx *ctx, int64_t b, const inst_run *ir)
{
    double sim_s = (double)ir->r.completed_steps * ctx->dt * 1e-3;
    char st[16];
    if (ir->status == 0)
        snprintf(st, sizeof st, "ok");
    else
        snprintf(st, sizeof st, "exit %d", ir->status);
    if (!ir->reported) {
        fprintf(stderr, "  %8lld %20llu  %-8s\n", (long long)b, (unsigned long long)ir->seed, st);
    } else {
        fprintf(stderr, "  %8lld %20llu  %-8s %12lld %12.3f", (long long)b,
                (unsigned long long)ir->seed, st, (long long)ir->r.spikes, ir->r.t_simulate);
        if (sim_s > 0 && ir->r.t_simulate > 0)
            fprintf(stderr, " %8.3g", ir->r.t_simulate / sim_s);
        fputc('\n', stderr);
    }
    fflush(stderr);
}

/* The manifest's grid: "sweep": [{"name": "P.x", "values": [v0, ...]}, ...], each value
 * in the unit the model declared the parameter in (as each instance's "parameters"). */
static void write_grid(nrt_ctx *ctx, FILE *f)
{
    fputs(",\n  \"sweep\": [", f);
    for (int i = 0; i < ctx->nsweeps; i++) {
        const char *name;
        double v;
        nrt_sweep_value(ctx, i, 0, &v, &name);
        fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
        nrt_json_str(f, name);
        fputs(", \"values\": [", f);
        for (int64_t k = 0; k < ctx->sweep_n[i]; k++) {
            nrt_sweep_value(ctx, i, k, &v, &name);
            fputs(k ? ", " : "", f);
            nrt_json_num(f, v);
        }
        fputs("]}", f);
    }
    fputs("\n  ]", f);
}

/* Instance b's swept values: `, "values": {"P.x": v, ...}` (json), else `,v,...` (csv). */
static void write_values(nrt_ctx *ctx, FILE *f, int64_t b, int csv)
{
    for (int i = 0; i < ctx->nsweeps; i++) {
        const char *name;
        double v;
        nrt_sweep_value(ctx, i, nrt_sweep_index(ctx, b, i), &v, &name);
        if (!csv) {
            fputs(i ? ", " : ", \"values\": {", f);
            nrt_json_str(f, name);
            fputs(": ", f);
        } else
            fputc(',', f);
        nrt_json_num(f, v);
    }
    if (!csv && ctx->nsweeps)
        fputc('}', f);
}

/* <base>/instances.csv: a row per started instance, its seed, swept values, exit status and
 * spikes (empty when it reported none). */
static nrt_status write_csv(nrt_ctx *ctx, const char *base, const inst_run *runs, int64_t nrun)
{
    char path[4200], tmp[4208];
    FILE *f;
    snprintf(path, sizeof path, "%s/instances.csv", base);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (!(f = fopen(tmp, "w"))) {
        nrt_seterr(ctx, "cannot write '%s': %s", tmp, strerror(errno));
        return NRT_EIO;
    }
    fputs("index,folder,seed", f);
    for (int i = 0; i < ctx->nsweeps; i++) {
        const char *name;
        double v;
        nrt_sweep_value(ctx, i, 0, &v, &name);
        fprintf(f, ",%s", name);
    }
    fputs(",exit_status,spikes\n", f);
    for (int64_t b = 0; b < nrun; b++) {
        fprintf(f, "%lld,instance_%lld,%llu", (long long)b, (long long)b,
                (unsigned long long)runs[b].seed);
        write_values(ctx, f, b, 1);
        fprintf(f, ",%d,", runs[b].status);
        if (runs[b].reported)
            fprintf(f, "%lld", (long long)runs[b].r.spikes);
        fputc('\n', f);
    }
    return nrt_commit_file(ctx, f, tmp, path);
}

static nrt_status write_top_manifest(nrt_ctx *ctx, const char *base, const inst_run *runs,
                                     int64_t nrun, int interrupted, const char *run_as)
{
    char path[4200], tmp[4208];
    FILE *f;
    int64_t b;
    nrt_status st;
    if (snprintf(path, sizeof path, "%s/manifest.json", base) >= (int)sizeof path) {
        nrt_seterr(ctx, "path of manifest.json in '%s' is too long", base);
        return NRT_EINVAL;
    }
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (!(f = fopen(tmp, "w"))) {
        nrt_seterr(ctx, "cannot write '%s': %s", tmp, strerror(errno));
        return NRT_EIO;
    }
    fputs("{\n  \"model\": ", f);
    nrt_json_str(f, ctx->model ? ctx->model : "model");
    fputs(",\n  \"backend\": ", f);
    nrt_json_str(f, ctx->backend ? ctx->backend : "c");
    fputs(",\n  \"dt_ms\": ", f);
    nrt_json_num(f, ctx->dt);
    fputs(",\n  \"run_as\": ", f);
    nrt_json_str(f, run_as);
    if (ctx->nsweeps)
        write_grid(ctx, f);
    if (ctx->nsweeps || ctx->seeds_given)
        fprintf(f, ",\n  \"seeds\": %lld", (long long)ctx->seeds);
    fprintf(f, ",\n  \"seed\": %llu,\n  \"seed_rule\": \"%s\",\n"
            "  \"total_steps\": %lld,\n  \"instances_requested\": %lld,\n"
            "  \"interrupted\": %s,\n  \"instances\": [",
            (unsigned long long)ctx->seed, seed_rule(ctx), (long long)ctx->total_steps,
            (long long)ctx->instances, interrupted ? "true" : "false");
    for (b = 0; b < nrun; b++) {
        const inst_run *ir = &runs[b];
        fprintf(f, "%s    {\"index\": %lld, \"folder\": \"instance_%lld\", \"seed\": %llu, "
                "\"exit_status\": %d", b ? ",\n" : "\n", (long long)b, (long long)b,
                (unsigned long long)ir->seed, ir->status);
        if (ctx->nsweeps)
            write_values(ctx, f, b, 0);
        if (ir->reported) {
            double sim_s = (double)ir->r.completed_steps * ctx->dt * 1e-3;
            fprintf(f, ",\n     \"completed_steps\": %lld, \"interrupted\": %s, \"spikes\": %lld,"
                    "\n     \"timing_s\": {\"build\": ", (long long)ir->r.completed_steps,
                    ir->r.interrupted ? "true" : "false", (long long)ir->r.spikes);
            nrt_json_num(f, ir->r.t_build);
            fputs(", \"construct\": ", f);
            nrt_json_num(f, ir->r.t_construct);
            fputs(", \"simulate\": ", f);
            nrt_json_num(f, ir->r.t_simulate);
            fputs("}, \"rtf\": ", f);
            nrt_json_num(f, sim_s > 0 ? ir->r.t_simulate / sim_s : 0.0);
        }
        fputc('}', f);
    }
    fputs(nrun ? "\n  ]\n}\n" : "]\n}\n", f);
    st = nrt_commit_file(ctx, f, tmp, path);
    return st == NRT_OK ? write_csv(ctx, base, runs, nrun) : st;
}

/* After a batch's manifest: unless quiet, the rates of every population and view per
 * instance; with --plot, the overview of the folder (nrt_plot: rates against the swept
 * values, a page linking every instance). 1 when the overview could not be drawn. */
static int batch_end(nrt_ctx *ctx, const char *base, int64_t n, int quiet)
{
    if (!quiet)
        nrt_instances_rates(ctx, base, n);
    if (ctx->plot && nrt_plot(ctx, base) != NRT_OK) {
        fprintf(stderr, "error: --plot: %s\n", ctx->errmsg);
        return 1;
    }
    if (ctx->plot && !quiet)
        fprintf(stderr, "  plots: %s/index.html\n", base);
    return 0;
}

/* Contract: see rt_internal.h. */
nrt_status nrt_instances_run(nrt_ctx *ctx)
{
    static char base[4096];
    const int64_t B = ctx->instances;
    const int quiet = ctx->quiet;
    inst_run *runs;
    const int64_t jobs = ctx->jobs < B ? ctx->jobs : B;
    int64_t b, nrun = 0, next = 0, running = 0;
    int failed = 0, interrupted = 0, sys_err = 0, forwarded = 0;
    nrt_status st;

    if (strlen(ctx->out_dir) >= sizeof base) {
        nrt_seterr(ctx, "path of the output folder '%s' is too long", ctx->out_dir);
        return NRT_EINVAL;
    }
    strcpy(base, ctx->out_dir);
    runs = (inst_run *)nrt_alloc(ctx, (size_t)B * sizeof *runs, "the table of instances");
    if (!runs)
        return NRT_ENOMEM;
    if (!quiet) {
        char how[64];
        snprintf(how, sizeof how, "%lld at a time", (long long)jobs);
        print_header(ctx, how);
    }
    for (;;) {
        int ws;
        pid_t pid;
        while (running < jobs && next < B && !ctx->stop_requested && !sys_err) {
            int fds[2];
            inst_run *ir = &runs[next];
            ir->seed = nrt_instance_seed(ctx, next);
            if (pipe(fds) != 0) {
                nrt_seterr(ctx, "cannot start instance %lld: pipe: %s", (long long)next,
                           strerror(errno));
                sys_err = 1;
                break;
            }
            fflush(NULL);
            pid = fork();
            if (pid < 0) {
                nrt_seterr(ctx, "cannot start instance %lld: fork: %s", (long long)next,
                           strerror(errno));
                close(fds[0]);
                close(fds[1]);
                sys_err = 1;
                break;
            }
            if (pid == 0) {
                uint64_t seed = ir->seed;
                b = next;
                for (next = 0; next < b; next++)
                    if (runs[next].pid > 0)
                        close(runs[next].fd);
                close(fds[0]);
                nrt_free(runs);
                return become_instance(ctx, base, b, seed, fds[1]);
            }
            close(fds[1]);
            setpgid(pid, pid); /* as the child does: no window where a Ctrl-C reaches it */
            ir->pid = pid;
            ir->fd = fds[0];
            running++;
            next++;
        }
        if (running == 0)
            break;
        if (ctx->stop_requested && !forwarded) {
            /* each child runs in its own process group: pass the stop on, once */
            for (b = 0; b < next; b++)
                if (runs[b].pid > 0)
                    kill(runs[b].pid, SIGTERM);
            forwarded = 1;
        }
        pid = waitpid(-1, &ws, 0);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            nrt_seterr(ctx, "waiting for the instances: %s", strerror(errno));
            sys_err = 1;
            break;
        }
        for (b = 0; b < next && runs[b].pid != pid; b++)
            ;
        if (b == next)
            continue; /* not one of ours */
        runs[b].pid = 0;
        runs[b].reported = read_result(runs[b].fd, &runs[b].r);
        close(runs[b].fd);
        runs[b].status = exit_status_of(ws);
        running--;
        if (runs[b].status == 130)
            interrupted = 1;
        else if (runs[b].status != 0)
            failed = 1;
        if (!quiet)
            print_line(ctx, b, &runs[b]);
    }
    nrun = next;
    if (ctx->stop_requested || nrun < B)
        interrupted = 1;
    st = write_top_manifest(ctx, base, runs, nrun, interrupted, "processes");
    nrt_free(runs);
    nrt_signals_restore(ctx);
    if (sys_err)
        return NRT_EIO; /* pipe or fork failed: errmsg says which */
    if (st != NRT_OK)
        return st;
    failed |= batch_end(ctx, base, nrun, quiet);
    if (!quiet)
        fprintf(stderr, "  output: %s/instance_0 .. instance_%lld\n", base, (long long)(B - 1));
    ctx->exit_status = failed ? 1 : interrupted ? 130 : 0;
    return NRT_EHELP;
}

/* *p, a table of n entries of `size` bytes that a copied context shares with its parent,
 * replaced by a copy of its own (capacity n): NRT_OK, or NRT_ENOMEM with errmsg. */
static nrt_status own_table(nrt_ctx *child, void **p, int *cap, int n, size_t size)
{
    if (!*p)
        return NRT_OK;
    void *q = nrt_alloc(child, (size_t)(n > 0 ? n : 1) * size, "a table of the summary");
    if (!q)
        return NRT_ENOMEM;
    memcpy(q, *p, (size_t)n * size);
    *p = q;
    *cap = n > 0 ? n : 1;
    return NRT_OK;
}

/* Contract: see neurort.h. */
nrt_status nrt_instance_open(const nrt_ctx *parent, int64_t b, nrt_ctx *child)
{
    if (b == 0 && !parent->quiet)
        print_header(parent, "side by side in one process");
    nrt_status st;
    memcpy(child, parent, sizeof *child);
    child->recs = NULL;
    child->errmsg[0] = '\0';
    int cap;   /* spikes0 has pops' capacity */
    if (own_table(child, (void **)&child->pops, &child->cap_pops, parent->npops, sizeof *child->pops) ||
        own_table(child, (void **)&child->spikes0, &cap, parent->npops, sizeof *child->spikes0) ||
        own_table(child, (void **)&child->views, &child->cap_views, parent->nviews, sizeof *child->views) ||
        own_table(child, (void **)&child->stages, &child->cap_stages, parent->nstages, sizeof *child->stages) ||
        own_table(child, (void **)&child->conn_saved, &child->cap_conn_saved, parent->nconn_saved,
                  sizeof *child->conn_saved) ||
        own_table(child, (void **)&child->projs, &child->cap_projs, parent->nprojs, sizeof *child->projs))
        return NRT_ENOMEM;
    if (parent->nsweeps && parent->nparams) {   /* a table of run-time parameters of its own */
        child->params = (nrt_param *)nrt_alloc(child, (size_t)parent->nparams * sizeof *child->params,
                                               "run-time parameters");
        if (!child->params)
            return NRT_ENOMEM;
        memcpy(child->params, parent->params, (size_t)parent->nparams * sizeof *child->params);
    }
    st = instance_of(child, parent->out_dir, b, nrt_instance_seed(parent, b));
    return st == NRT_OK ? nrt_sweep_apply(child, b) : st;
}

/* Contract: see neurort.h. */
nrt_status nrt_instances_close(nrt_ctx *parent, nrt_ctx *const *kids, int64_t n)
{
    inst_run *runs;
    int64_t b;
    int failed = 0, interrupted = parent->stop_requested != 0;
    nrt_status st;
    int i;
    runs = (inst_run *)nrt_alloc(parent, (size_t)(n > 0 ? n : 1) * sizeof *runs,
                                 "the table of instances");
    if (!runs)
        return NRT_ENOMEM;
    for (b = 0; b < n; b++) {
        const nrt_ctx *k = kids[b];
        inst_run *ir = &runs[b];
        memset(ir, 0, sizeof *ir);
        ir->seed = k->seed;
        ir->reported = 1;
        ir->r.completed_steps = k->step;
        for (i = 0; i < k->npops; i++)
            ir->r.spikes += k->pops[i].spikes;
        ir->r.interrupted = k->interrupted;
        ir->r.finish_ok = k->finished && k->finish_status == NRT_OK;
        ir->r.t_build = k->t_build;
        ir->r.t_construct = k->t_construct;
        ir->r.t_simulate = k->t_simulate;
        ir->status = k->failed || !ir->r.finish_ok ? 1 : k->interrupted ? 130 : 0;
        if (ir->status == 130)
            interrupted = 1;
        else if (ir->status != 0)
            failed = 1;
        if (!parent->quiet)
            print_line(parent, b, ir);
    }
    for (b = 0; b < n; b++)
        if (kids[b]->params != parent->params)
            nrt_free(kids[b]->params);
    if (n < parent->instances)
        interrupted = 1;
    st = write_top_manifest(parent, parent->out_dir, runs, n, interrupted, "one process");
    nrt_free(runs);
    nrt_signals_restore(parent);
    if (st != NRT_OK)
        return st;
    failed |= batch_end(parent, parent->out_dir, n, parent->quiet);
    if (!parent->quiet && n > 0)
        fprintf(stderr, "  output: %s/instance_0 .. instance_%lld\n", parent->out_dir,
                (long long)(n - 1));
    parent->exit_status = failed ? 1 : interrupted ? 130 : 0;
    return NRT_OK;
}
