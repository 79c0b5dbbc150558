/* rt_manifest.c -- manifest.json: what a run was (model, back end, seed, parameters, sweep
 * values), what it did (steps, spikes per population and view, timings, an error) and every
 * file it wrote (recordings with their layout, connectivity files), for readers such as
 * `neuroc plot` and the Python package (docs/cli.md §3.6).
 */
#define _POSIX_C_SOURCE 200809L

#include "rt_rec.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        default:
            if (c < 0x20)
                fprintf(f, "\\u%04x", c);
            else
                fputc(c, f);
        }
    }
    fputc('"', f);
}

static void json_num(FILE *f, double x)
{
    char b[40];
    int prec;
    if (isfinite(x)) {
        /* shortest of %.15g..%.17g that reads back as x: 0.1, not 0.10000000000000001 */
        for (prec = 15; prec < 17; prec++) {
            snprintf(b, sizeof b, "%.*g", prec, x);
            if (strtod(b, NULL) == x)
                break;
        }
        snprintf(b, sizeof b, "%.*g", prec, x);
        fputs(b, f);
    } else
        fputs("null", f);
}

/* Contract: see rt_internal.h. */
void nrt_json_str(FILE *f, const char *s)
{
    json_str(f, s);
}

/* Contract: see rt_internal.h. */
void nrt_json_num(FILE *f, double x)
{
    json_num(f, x);
}

/* Contract: see neurort.h. */
void nrt_rec_view(nrt_rec *r, const char *view, int64_t offset)
{
    if (!r)
        return;
    r->has_view = 1;
    r->view = view;
    r->view_offset = offset;
}

/* A rate recording's own keys: its target (name, first neuron, size) and bin. */
static void write_rate_json(FILE *f, const nrt_rec *r, double dt)
{
    fputs("     \"target\": ", f);
    json_str(f, r->target);
    fprintf(f, ", \"offset\": %lld, \"size\": %lld, \"bin_steps\": %lld, \"bin_ms\": ",
            (long long)r->offset, (long long)r->size, (long long)r->every);
    json_num(f, (double)r->every * dt);
    fputs(",\n     \"fields\": [\"t\", \"rate\"], \"units\": {\"t\": \"ms\", \"rate\": \"Hz\"},\n", f);
}

static void write_rec_json(FILE *f, const nrt_rec *r, double dt)
{
    int v, i;
    fputs("    {\"file\": ", f);
    json_str(f, r->file);
    fprintf(f, ", \"format\": \"%s\", \"kind\": \"%s\",\n     \"population\": ",
            r->fmt == FMT_NPY ? "npy" : r->fmt == FMT_CSV ? "csv" : r->sink->format,
            r->kind == KIND_SPIKES ? "spikes" : r->kind == KIND_RATE ? "rate" : "state");
    json_str(f, r->pop);
    if (r->fmt == FMT_SINK) {
        char g[600];
        snprintf(g, sizeof g, "%s%.500s", r->sink->group_prefix, r->pop);
        fputs(", \"group\": ", f);
        json_str(f, g);
    }
    fprintf(f, ", \"population_size\": %lld,\n", (long long)r->pop_size);
    if (r->has_view) {   /* a view of the population: its name (null: a slice) and offset */
        fputs("     \"view\": ", f);
        if (r->view)
            json_str(f, r->view);
        else
            fputs("null", f);
        if (r->kind == KIND_RATE)   /* its offset is among the rate's own keys */
            fputs(",\n", f);
        else
            fprintf(f, ", \"offset\": %lld,\n", (long long)r->view_offset);
    }
    if (r->kind == KIND_SPIKES) {
        fputs("     \"fields\": [\"t\", \"i\"], \"units\": {\"t\": \"ms\", \"i\": \"1\"},\n", f);
    } else if (r->kind == KIND_RATE) {
        write_rate_json(f, r, dt);
    } else {
        fputs("     \"variables\": [", f);
        for (v = 0; v < r->nvars; v++) {
            if (v)
                fputs(", ", f);
            json_str(f, r->vars[v]);
        }
        fputs("], \"units\": {\"t\": \"ms\"", f);
        for (v = 0; v < r->nvars; v++) {
            fputs(", ", f);
            json_str(f, r->vars[v]);
            fputs(": ", f);
            json_str(f, r->units[v]);
        }
        fputs("},\n     \"neurons\": [", f);
        for (i = 0; i < r->nidx; i++)
            fprintf(f, "%s%lld", i ? ", " : "", (long long)r->idx[i]);
        fputs("],\n", f);
        if (r->synfile) {
            fputs("     \"synapses_file\": ", f);
            json_str(f, r->synfile);
            fputs(",\n", f);
        }
    }
    if (r->win_hi)
        fprintf(f, "     \"window_steps\": [%lld, %lld],\n", (long long)r->win_lo, (long long)r->win_hi);
    fprintf(f, "     \"every_steps\": %lld, \"dt_ms\": ", (long long)r->every);
    json_num(f, dt);
    fprintf(f, ", \"rows\": %lld, \"shape\": [%lld]}", (long long)r->rows_disk,
            (long long)r->rows_disk);
}

/* The declared views (with their spike counts, null where the back end does not count
 * them) and the files of --save-connectivity, each a line of its own when there are any. */
static void write_views_json(FILE *f, const nrt_ctx *ctx)
{
    int i;
    if (ctx->nviews) {
        fputs("  \"views\": [", f);
        for (i = 0; i < ctx->nviews; i++) {
            const nrt_view_stat *v = &ctx->views[i];
            fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
            json_str(f, v->name);
            fputs(", \"population\": ", f);
            json_str(f, v->pop >= 0 && v->pop < ctx->npops ? ctx->pops[v->pop].name : "?");
            fprintf(f, ", \"offset\": %lld, \"size\": %lld, \"spikes\": ", (long long)v->offset,
                    (long long)v->size);
            if (ctx->view_spikes)
                fprintf(f, "%lld}", (long long)v->spikes);
            else
                fputs("null}", f);
        }
        fputs("\n  ],\n", f);
    }
    if (ctx->nconn_saved) {
        fputs("  \"connectivity\": [", f);
        for (i = 0; i < ctx->nconn_saved; i++) {
            char file[600];
            snprintf(file, sizeof file, "connectivity_%.500s.npy", ctx->conn_saved[i].name);
            fputs(i ? ",\n    {\"projection\": " : "\n    {\"projection\": ", f);
            json_str(f, ctx->conn_saved[i].name);
            fputs(", \"file\": ", f);
            json_str(f, file);
            fprintf(f, ", \"format\": \"npy\", \"synapses\": %lld}",
                    (long long)ctx->conn_saved[i].synapses);
        }
        fputs("\n  ],\n", f);
    }
}

/* `error`: why the run stopped early, or NULL. */
/* Contract: rt_rec.h. */
nrt_status nrt_write_manifest(nrt_ctx *ctx, const char *error)
{
    char path[4200], tmp[4208];
    FILE *f;
    const nrt_rec *r;
    int i;
    if (snprintf(path, sizeof path, "%s/manifest.json", ctx->out_dir) >= (int)sizeof path) {
        nrt_seterr(ctx, "path of manifest.json in '%s' is too long", ctx->out_dir);
        return NRT_EINVAL;
    }
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    f = fopen(tmp, "w");
    if (!f) {
        nrt_seterr(ctx, "cannot write '%s': %s", tmp, strerror(errno));
        return NRT_EIO;
    }
    fputs("{\n  \"model\": ", f);
    json_str(f, ctx->model ? ctx->model : "model");
    fputs(",\n  \"backend\": ", f);
    json_str(f, ctx->backend ? ctx->backend : "c");
    fputs(",\n  \"dt_ms\": ", f);
    json_num(f, ctx->dt);
    fprintf(f, ",\n  \"seed\": %llu,\n  \"total_steps\": %lld,\n  \"completed_steps\": %lld,\n"
            "  \"interrupted\": %s,\n", (unsigned long long)ctx->seed,
            (long long)ctx->total_steps, (long long)ctx->step,
            ctx->interrupted ? "true" : "false");
    if (ctx->nparams) {           /* run-time parameters: the values this run used (--set) */
        fputs("  \"parameters\": {", f);
        for (i = 0; i < ctx->nparams; i++) {
            fputs(i ? ", " : "", f);
            json_str(f, ctx->params[i].name);
            const char *unit;
            const double v = nrt_param_declared(&ctx->params[i], &unit);
            fputs(": {\"value\": ", f);       /* in the unit the model declared */
            if (ctx->params[i].count > 0 && ctx->params[i].given != 1)
                fputs("null", f);               /* the model's per-neuron values, or a file's */
            else
                json_num(f, v);
            fputs(", \"unit\": ", f);
            json_str(f, unit);
            if (ctx->params[i].count > 0)
                fprintf(f, ", \"neurons\": %lld, \"first\": %lld", (long long)ctx->params[i].count,
                        (long long)ctx->params[i].offset);
            if (ctx->params[i].given == 2) {
                fputs(ctx->params[i].file ? ", \"file\": " : ", \"expression\": ", f);
                json_str(f, ctx->params[i].file ? ctx->params[i].file : ctx->params[i].expr);
            }
            fputs("}", f);
        }
        fputs("},\n", f);
    }
    fputs("  \"signal\": ", f);
    fputs(ctx->stop_requested == SIGINT ? "\"SIGINT\""
          : ctx->stop_requested == SIGTERM ? "\"SIGTERM\"" : "null", f);
    fputs(",\n  \"error\": ", f);
    if (error)
        json_str(f, error);
    else
        fputs("null", f);
    fputs(",\n", f);
    if (ctx->resume_dir) {
        fputs("  \"resumed_from\": ", f);
        json_str(f, ctx->resume_dir);
        fprintf(f, ", \"first_step\": %lld,\n", (long long)ctx->start_step);
    }
    if (ctx->ckpt_written >= 0) {
        fputs("  \"checkpoint\": ", f);
        json_str(f, ctx->ckpt_dir);
        fprintf(f, ", \"checkpoint_step\": %lld,\n", (long long)ctx->ckpt_written);
    }
    fputs("  \"timing_s\": {\"build\": ", f);
    json_num(f, ctx->t_build);
    fputs(", \"construct\": ", f);
    json_num(f, ctx->t_construct);
    fputs(", \"simulate\": ", f);
    json_num(f, ctx->t_simulate);
    fputs(", \"total\": ", f);
    json_num(f, ctx->t0 > 0 ? nrt_now() - ctx->t0 : 0.0);
    const int nstages = ctx->stages_lost ? 0 : ctx->nstages;   /* partial: none */
    if (nstages)
        fputs(",\n    \"construct_stages\": {", f);
    for (i = 0; i < nstages; i++) {
        fputs(i ? ", " : "", f);
        json_str(f, ctx->stages[i].what);
        fputs(": ", f);
        json_num(f, ctx->stages[i].s);
    }
    fputs(nstages ? "}},\n  \"populations\": [" : "},\n  \"populations\": [", f);
    for (i = 0; i < ctx->npops; i++) {
        fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
        json_str(f, ctx->pops[i].name);
        fprintf(f, ", \"size\": %lld, \"spikes\": %lld}", (long long)ctx->pops[i].size,
                (long long)ctx->pops[i].spikes);
    }
    fputs(ctx->npops ? "\n  ],\n" : "],\n", f);
    write_views_json(f, ctx);
    fputs("  \"recordings\": [", f);
    for (r = ctx->recs; r; r = r->next) {
        fputs(r == ctx->recs ? "\n" : ",\n", f);
        write_rec_json(f, r, ctx->dt);
    }
    fputs(ctx->recs ? "\n  ]\n}\n" : "]\n}\n", f);
    return nrt_commit_file(ctx, f, tmp, path);
}
