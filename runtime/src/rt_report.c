/* rt_report.c -- what a generated simulator prints: the progress line and the summary.
 *
 * Both write to stderr only, and nothing at all under --quiet. On a terminal the progress
 * is a bar redrawn in place with '\r'; otherwise each update is a plain line.
 */
#define _POSIX_C_SOURCE 200809L

#include "rt_internal.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Print a duration in seconds compactly: "850 ms", "12.3 s", "4 min 05 s", "2 h 03 min". */
static void fmt_wall(char *buf, size_t n, double s)
{
    if (s < 0)
        s = 0;
    if (s < 1.0)
        snprintf(buf, n, "%.0f ms", s * 1e3);
    else if (s < 60.0)
        snprintf(buf, n, "%.1f s", s);
    else if (s < 3600.0)
        snprintf(buf, n, "%d min %02d s", (int)(s / 60), (int)s % 60);
    else
        snprintf(buf, n, "%d h %02d min", (int)(s / 3600), ((int)s % 3600) / 60);
}

/* Contract: see neurort.h. Silent when quiet, during the first 2 s of wall time after
 * nrt_init and within 1 s of the previous update. Prints percent of total_steps, simulated
 * time (step * dt), wall time since nrt_init and the real-time factor measured from the
 * first nrt_progress call (wall seconds per simulated second). On a terminal (stderr a tty)
 * the line is a bar redrawn in place with '\r', with the estimated time left; otherwise
 * each update is a plain line. */
void nrt_progress(nrt_ctx *ctx)
{
    double now, elapsed, sim_ms, pct, rtf = 0.0, span_s;
    char wall[32], left[32], bar[32];
    int tty, k, fill;
    if (!ctx || ctx->quiet)
        return;
    now = nrt_now();
    if (!ctx->progress_started) {
        ctx->progress_started = 1;
        ctx->t_progress_start = now;
        ctx->progress_start_step = ctx->step;
    }
    elapsed = now - ctx->t0;
    if (elapsed <= 2.0 || now - ctx->t_last_progress < 1.0)
        return;
    ctx->t_last_progress = now;
    sim_ms = (double)ctx->step * ctx->dt;
    pct = ctx->total_steps > 0 ? 100.0 * (double)ctx->step / (double)ctx->total_steps : 0.0;
    span_s = (double)(ctx->step - ctx->progress_start_step) * ctx->dt * 1e-3;
    if (span_s > 0)
        rtf = (now - ctx->t_progress_start) / span_s;
    fmt_wall(wall, sizeof wall, elapsed);
    tty = isatty(2);
    if (tty) {
        fill = (int)(pct / 100.0 * 24 + 0.5);
        for (k = 0; k < 24; k++)
            bar[k] = k < fill ? '#' : '-';
        bar[24] = '\0';
        fprintf(stderr, "\r[%s] %5.1f%%  t = %.1f / %.1f ms  wall %s", bar, pct, sim_ms,
                (double)ctx->total_steps * ctx->dt, wall);
    } else {
        fprintf(stderr, "%5.1f%%  t = %.1f / %.1f ms  wall %s", pct, sim_ms,
                (double)ctx->total_steps * ctx->dt, wall);
    }
    if (rtf > 0)
        fprintf(stderr, "  RTF %.3g", rtf);
    if (tty && rtf > 0 && ctx->total_steps > ctx->step) {
        fmt_wall(left, sizeof left,
                 (double)(ctx->total_steps - ctx->step) * ctx->dt * 1e-3 * rtf);
        fprintf(stderr, "  left %s", left);
    }
    fputs(tty ? "\033[K" : "\n", stderr);
    fflush(stderr);
    ctx->progress_line_open = tty;
}

/* The summary's lines of the declared views of population `pop`, indented under it: size,
 * spikes and mean rate, or "-" where the back end does not count a view's spikes. */
static void report_views(const nrt_ctx *ctx, int pop, int w, double sim_s)
{
    for (int k = 0; k < ctx->nviews; k++) {
        const nrt_view_stat *v = &ctx->views[k];
        if (v->pop != pop)
            continue;
        if (!ctx->view_spikes) {
            fprintf(stderr, "    %-*s %10lld %12s %10s\n", w - 2, v->name ? v->name : "?",
                    (long long)v->size, "-", "-");
            continue;
        }
        double rate = (v->size > 0 && sim_s > 0) ? (double)v->spikes / (double)v->size / sim_s : 0.0;
        fprintf(stderr, "    %-*s %10lld %12lld %10.2f\n", w - 2, v->name ? v->name : "?",
                (long long)v->size, (long long)v->spikes, rate);
    }
}

/* Contract: see neurort.h. Unless quiet, closes an open progress line and prints on
 * stderr: model, steps and simulated time (step * dt), per population (and, indented under
 * it, per declared view) size, spikes and mean rate in Hz (spikes / size / simulated seconds), the phase times, the RTF
 * (t_simulate / simulated seconds) and the output folder. */
void nrt_report(nrt_ctx *ctx)
{
    double sim_s;
    int i, w = 10;
    char b[32], c[32], s[32];
    if (ctx && ctx->bench && nrt_bench(ctx) != NRT_OK)
        fprintf(stderr, "error: --bench: %s\n", ctx->errmsg);
    if (!ctx || ctx->quiet)
        return;
    if (ctx->progress_line_open) {
        fputc('\n', stderr);
        ctx->progress_line_open = 0;
    }
    sim_s = (double)ctx->step * ctx->dt * 1e-3;
    fprintf(stderr, "%s (%s): %lld steps of %g ms = %g s simulated", 
            ctx->model ? ctx->model : "model", ctx->backend ? ctx->backend : "c",
            (long long)ctx->step, ctx->dt, sim_s);
    if (ctx->interrupted || ctx->stop_requested ||
        (ctx->total_steps > 0 && ctx->step < ctx->total_steps))
        fprintf(stderr, " (stopped %s, %lld of %lld steps)",
                !ctx->interrupted && ctx->ckpt_written == ctx->step ? "at the checkpoint" : "early",
                (long long)ctx->step, (long long)ctx->total_steps);
    if (ctx->resume_dir)
        fprintf(stderr, " (resumed at step %lld)", (long long)ctx->start_step);
    fputc('\n', stderr);
    for (i = 0; i < ctx->npops; i++) {
        int n = ctx->pops[i].name ? (int)strlen(ctx->pops[i].name) : 1;
        if (n > w)
            w = n;
    }
    for (i = 0; i < ctx->nviews; i++) {
        int n = 2 + (ctx->views[i].name ? (int)strlen(ctx->views[i].name) : 1);
        if (n > w)
            w = n;
    }
    if (ctx->npops > 0)
        fprintf(stderr, "  %-*s %10s %12s %10s\n", w, "population", "size", "spikes",
                "rate (Hz)");
    for (i = 0; i < ctx->npops; i++) {
        const nrt_pop_stat *p = &ctx->pops[i];
        double rate = (p->size > 0 && sim_s > 0)
                          ? (double)p->spikes / (double)p->size / sim_s : 0.0;
        fprintf(stderr, "  %-*s %10lld %12lld %10.2f\n", w, p->name ? p->name : "?",
                (long long)p->size, (long long)p->spikes, rate);
        report_views(ctx, i, w, sim_s);
    }
    fmt_wall(b, sizeof b, ctx->t_build);
    fmt_wall(c, sizeof c, ctx->t_construct);
    fmt_wall(s, sizeof s, ctx->t_simulate);
    fprintf(stderr, "  build %s, construct %s, simulate %s", b, c, s);
    if (sim_s > 0 && ctx->t_simulate > 0)
        fprintf(stderr, ", RTF %.3g", ctx->t_simulate / sim_s);
    fputc('\n', stderr);
    if (ctx->out_dir)
        fprintf(stderr, "  output: %s\n", ctx->out_dir);
    if (ctx->out_dir && ctx->plot)
        fprintf(stderr, "  plots: %s/index.html\n", ctx->out_dir);
    fflush(stderr);
}

/* Bytes as text: "812 B", "4.2 MiB", "1.50 GiB". */
static void fmt_bytes(char *buf, size_t n, double b)
{
    if (b < 1024)
        snprintf(buf, n, "%.0f B", b);
    else if (b < 1024.0 * 1024)
        snprintf(buf, n, "%.1f KiB", b / 1024);
    else if (b < 1024.0 * 1024 * 1024)
        snprintf(buf, n, "%.1f MiB", b / (1024.0 * 1024));
    else
        snprintf(buf, n, "%.2f GiB", b / (1024.0 * 1024 * 1024));
}

/* Contract: see neurort.h. */
void nrt_mem_add(nrt_ctx *ctx, const char *what, double count, double bytes)
{
    if (ctx->nmem < NRT_MAX_POPS) {
        ctx->mem[ctx->nmem].what = what;
        ctx->mem[ctx->nmem].count = count;
        ctx->mem[ctx->nmem].bytes = bytes;
    }
    ctx->nmem++;
    ctx->mem_total += bytes;
}

/* Contract: see neurort.h. */
nrt_status nrt_mem_check(nrt_ctx *ctx, double device_bytes)
{
    char b[32], d[32];
    int k, shown = ctx->nmem < NRT_MAX_POPS ? ctx->nmem : NRT_MAX_POPS, big = 0;
    /* a batch side by side holds every instance at once */
    const double copies = ctx->batch && ctx->instances > 1 ? (double)ctx->instances : 1;
    if (nrt_rec_plan_check(ctx) != NRT_OK)
        return NRT_EIO;
    if (ctx->dry_run) {
        printf("memory plan of '%s' (%s back end), before construction:\n",
               ctx->model ? ctx->model : "model", ctx->backend ? ctx->backend : "c");
        for (k = 0; k < shown; k++) {
            fmt_bytes(b, sizeof b, ctx->mem[k].bytes);
            if (ctx->mem[k].count >= 0)
                printf("  %-32s %14.0f synapses  %12.0f bytes  (%s)\n", ctx->mem[k].what,
                       ctx->mem[k].count, ctx->mem[k].bytes, b);
            else
                printf("  %-32s %14s           %12.0f bytes  (%s)\n", ctx->mem[k].what, "",
                       ctx->mem[k].bytes, b);
        }
        if (ctx->nmem > shown)
            printf("  ... and %d more\n", ctx->nmem - shown);
        fmt_bytes(b, sizeof b, ctx->mem_total);
        printf("  %-32s %14s           %12.0f bytes  (%s)\n", "total", "", ctx->mem_total, b);
        if (ctx->instances > 1 && ctx->batch) {
            fmt_bytes(b, sizeof b, ctx->mem_total * (double)ctx->instances);
            printf("  instances: %lld side by side in one process: %.0f bytes (%s)\n",
                   (long long)ctx->instances, ctx->mem_total * (double)ctx->instances, b);
        } else if (ctx->instances > 1) {
            int64_t j = ctx->jobs < ctx->instances ? ctx->jobs : ctx->instances;
            fmt_bytes(b, sizeof b, ctx->mem_total * (double)j);
            printf("  instances: %lld, a process each, %lld at a time: at most %.0f bytes (%s)"
                   " at once\n", (long long)ctx->instances, (long long)j,
                   ctx->mem_total * (double)j, b);
        }
        if (device_bytes > 0) {
            fmt_bytes(d, sizeof d, device_bytes);
            printf("  device memory: %s\n", d);
        }
        nrt_rec_plan_print(ctx);
        fflush(stdout);
        return NRT_EHELP;
    }
    if (device_bytes > 0 && ctx->mem_total * copies > 0.9 * device_bytes) {
        for (k = 1; k < shown; k++)
            if (ctx->mem[k].bytes > ctx->mem[big].bytes)
                big = k;
        fmt_bytes(b, sizeof b, ctx->mem_total * copies);
        fmt_bytes(d, sizeof d, device_bytes);
        nrt_seterr(ctx, "the model needs about %s of device memory%s, more than 90%% of the "
                   "device's %s (largest: %s; see --dry-run)%s", b,
                   copies > 1 ? " for its instances side by side" : "", d,
                   shown ? ctx->mem[big].what : "?",
                   shown && ctx->mem[big].count > 0 && ctx->mem[big].bytes > ctx->mem_total / 4
                       ? "; a static projection with 'storage = procedural' keeps no synapses"
                       : "");
        return NRT_EDEVICE;
    }
    return NRT_OK;
}
