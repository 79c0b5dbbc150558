/* rt_recplan.c -- the recording plan: the size each recording's file will reach (made with
 * the memory plan, before anything is built), printed by --dry-run, and held against the
 * output folder's free space before the run starts (docs/cli.md §3.9). The sizes come from
 * nrt_recsize.h, which `neuroc --explain` uses too.
 */
#define _POSIX_C_SOURCE 200809L

#include "rt_internal.h"
#include "nrt_recsize.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

/* Bytes as text: "812 B", "4.2 MiB", "1.50 GiB". */
static void fmt_size(char *buf, size_t n, double b)
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
void nrt_rec_plan(nrt_ctx *ctx, const char *file, char kind, int nvars, double names_len, int64_t nidx,
                  int64_t every, int estimated, int64_t lo, int64_t hi, int t0)
{
    size_t n = strlen(file);
    int csv = n > 4 && strcmp(file + n - 4, ".csv") == 0;
    nrt_rec_size s = nrt_rec_size_of(kind, csv, nvars, names_len, nidx, every, ctx->start_step,
                                     ctx->total_steps, ctx->dt, estimated, lo, hi, t0);
    if (ctx->nrplan < NRT_MAX_POPS)
        ctx->rplan[ctx->nrplan] = (struct nrt_rplan_item){file, kind, s.rows, s.bytes, s.how};
    ctx->nrplan++;
    ctx->rplan_total += s.bytes;
    if (s.how != NRT_SIZE_ESTIMATE)
        ctx->rplan_sure += s.bytes;
    const int64_t work = (int64_t)nvars * nidx / (csv ? 1 : NRT_NPY_COST);   /* as rt_record.c's */
    if (kind == 'v' && work > ctx->rec_row_max)
        ctx->rec_row_max = work;
}

/* The free bytes of the file system holding `dir` (or its nearest existing parent: a
 * --dry-run creates no folder), or $NEUROC_FREE_BYTES, a number of bytes that stands for it
 * (for tests). -1 when unknown. */
static double free_bytes(const char *dir)
{
    const char *env = getenv("NEUROC_FREE_BYTES");
    char path[4096];
    struct statvfs v;
    if (env && *env) {
        char *end;
        double x = strtod(env, &end);
        return *end == '\0' && x >= 0 ? x : -1;
    }
    if (snprintf(path, sizeof path, "%s", dir && *dir ? dir : ".") >= (int)sizeof path)
        return -1;
    for (;;) {
        if (statvfs(path, &v) == 0)
            return (double)v.f_bavail * (double)v.f_frsize;
        char *slash = strrchr(path, '/');
        if (!slash && strcmp(path, ".") != 0)
            strcpy(path, ".");
        else if (slash && slash != path)
            *slash = '\0';
        else if (slash && path[1])
            path[1] = '\0';
        else
            return -1;
    }
}

/* Contract: rt_internal.h. */
void nrt_rec_plan_print(nrt_ctx *ctx)
{
    const double avail = free_bytes(ctx->out_dir);
    static const char *const how[] = {"exact", "at most", "estimate at 10 Hz"};
    static const char *const kinds[] = {"spikes", "state", "rate"};
    char b[32];
    int k, shown = ctx->nrplan < NRT_MAX_POPS ? ctx->nrplan : NRT_MAX_POPS;
    if (ctx->nrplan == 0)
        return;
    printf("recordings of one run (in %s, %lld steps):\n", ctx->out_dir ? ctx->out_dir : "?",
           (long long)(ctx->total_steps - ctx->start_step));
    for (k = 0; k < shown; k++) {
        const struct nrt_rplan_item *r = &ctx->rplan[k];
        fmt_size(b, sizeof b, r->bytes);
        printf("  %-32s %-6s %12.0f rows  %14.0f bytes  (%s, %s)\n", r->file,
               kinds[r->kind == 's' ? 0 : r->kind == 'v' ? 1 : 2], r->rows, r->bytes, b,
               r->how == NRT_SIZE_ESTIMATE && r->kind == 'v' ? "estimate from the expected synapses" : how[r->how]);
    }
    if (ctx->nrplan > shown)
        printf("  ... and %d more\n", ctx->nrplan - shown);
    fmt_size(b, sizeof b, ctx->rplan_total);
    printf("  %-32s %-6s %12s       %14.0f bytes  (%s)\n", "all recordings", "", "", ctx->rplan_total, b);
    if (avail >= 0) {
        fmt_size(b, sizeof b, avail);
        printf("  free space: %.0f bytes (%s)\n", avail, b);
    } else {
        printf("  free space: unknown\n");
    }
}

/* Contract: rt_internal.h. */
nrt_status nrt_rec_plan_check(nrt_ctx *ctx)
{
    char need[32], have[32];
    double avail;
    if (ctx->nrplan == 0 || ctx->dry_run || !ctx->out_dir) /* !out_dir: a quiet rank */
        return NRT_OK;
    avail = free_bytes(ctx->out_dir);
    if (avail >= 0 && ctx->rplan_sure > avail && !ctx->ignore_free) {
        fmt_size(need, sizeof need, ctx->rplan_sure);
        fmt_size(have, sizeof have, avail);
        nrt_seterr(ctx, "the state and rate recordings need %s (%.0f bytes), more than the %s (%.0f "
                   "bytes) free in '%s' (see --dry-run): record less, make room, or run anyway with "
                   "--ignore-free-space", need, ctx->rplan_sure, have, avail, ctx->out_dir);
        return NRT_EIO;
    }
    if (ctx->max_rec_bytes > 0 && ctx->rplan_total > ctx->max_rec_bytes) {
        fmt_size(need, sizeof need, ctx->rplan_total);
        fmt_size(have, sizeof have, ctx->max_rec_bytes);
        fprintf(stderr, "warning: the recordings will take about %s (spike recordings estimated at "
                "%g Hz; see --dry-run), more than --max-record-size %s\n", need, NRT_ASSUMED_HZ, have);
    }
    return NRT_OK;
}
