/* rt_report.c -- what a generated simulator prints: the progress line and the summary.
 *
 * Both write to stderr only, and nothing at all under --quiet. On a terminal the progress
 * line is redrawn in place with '\r'; otherwise each update is a plain line.
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
 * first nrt_progress call (wall seconds per simulated second). */
void nrt_progress(nrt_ctx *ctx)
{
    double now, elapsed, sim_ms, pct, rtf = 0.0, span_s;
    char wall[32];
    int tty;
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
    fprintf(stderr, "%s%5.1f%%  t = %.1f / %.1f ms  wall %s", tty ? "\r" : "", pct, sim_ms,
            (double)ctx->total_steps * ctx->dt, wall);
    if (rtf > 0)
        fprintf(stderr, "  RTF %.3g", rtf);
    fputs(tty ? "    " : "\n", stderr);
    fflush(stderr);
    ctx->progress_line_open = tty;
}

/* Contract: see neurort.h. Unless quiet, closes an open progress line and prints on
 * stderr: model, steps and simulated time (step * dt), per population size, spikes and
 * mean rate in Hz (spikes / size / simulated seconds), the phase times, the RTF
 * (t_simulate / simulated seconds) and the output folder. */
void nrt_report(nrt_ctx *ctx)
{
    double sim_s;
    int i, w = 10;
    char b[32], c[32], s[32];
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
        fprintf(stderr, " (stopped early, %lld of %lld steps)", (long long)ctx->step,
                (long long)ctx->total_steps);
    fputc('\n', stderr);
    for (i = 0; i < ctx->npops; i++) {
        int n = ctx->pops[i].name ? (int)strlen(ctx->pops[i].name) : 1;
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
    fflush(stderr);
}
