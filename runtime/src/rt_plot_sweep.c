/* rt_plot_sweep.c -- a folder of instances (`--instances B`, `--sweep`, `--seeds`): the rates
 * of every population and declared view in every instance, read back from the instances'
 * manifests, for the batch's summary (nrt_instances_rates, rt_instances.c) and for the
 * overview nrt_plot draws of such a folder (pl_sweep_overview): the mean rate against each
 * swept parameter (a line per combination of the other parameters' values, the spread over
 * seeds as error bars) and index.html with a table linking every instance.
 */
#define _POSIX_C_SOURCE 200809L

#include "rt_plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_GROUPS = 64, GRID_COLS = 3, OV_CELL_W = 300, OV_CELL_H = 230, MAX_COMBOS = 10 };

/* The rates of a folder of instances: ng groups (the populations, then the declared views,
 * named as in the first instance that reported them), a rate per instance and group. */
typedef struct InstRates {
    int64_t n;                    /* instances listed */
    int ng;
    char name[MAX_GROUPS][128];
    char base[MAX_GROUPS][128];   /* a view's population; "" for a population */
    double *rate;                 /* n x ng, Hz; NAN where unknown */
    int *ok;                      /* n: its manifest was read */
} InstRates;

/* Group g of ir for (name, base): its index, added when new; -1 when the table is full. */
static int group_of(InstRates *ir, const char *name, const char *base)
{
    for (int g = 0; g < ir->ng; g++)
        if (strcmp(ir->name[g], name) == 0 && strcmp(ir->base[g], base) == 0)
            return g;
    if (ir->ng == MAX_GROUPS)
        return -1;
    snprintf(ir->name[ir->ng], sizeof ir->name[0], "%s", name);
    snprintf(ir->base[ir->ng], sizeof ir->base[0], "%s", base);
    return ir->ng++;
}

/* Instance b's rates from its manifest m: spikes / size / simulated seconds of each item of
 * the array `key` ("populations", "views"). */
static void rates_of(InstRates *ir, int64_t b, const Json *m, const char *key)
{
    const Json *a = pl_jget(m, key);
    const double sim_s = pl_jnum(m, "completed_steps", 0) * pl_jnum(m, "dt_ms", 0) * 1e-3;
    const int view = strcmp(key, "views") == 0;
    for (int k = 0; a && a->type == J_ARR && k < a->n; k++) {
        const Json *p = &a->items[k], *sp = pl_jget(p, "spikes");
        const int g = group_of(ir, pl_jstr(p, "name", "?"), view ? pl_jstr(p, "population", "?") : "");
        const double size = pl_jnum(p, "size", 0);
        if (g >= 0 && sp && sp->type == J_NUM && size > 0 && sim_s > 0)
            ir->rate[b * MAX_GROUPS + g] = sp->num / size / sim_s;
    }
}

/* Read <dir>/instance_<b>/manifest.json for b < n into ir (instances whose manifest is
 * missing keep NAN rates). NRT_ENOMEM with errmsg. */
static nrt_status rates_load(nrt_ctx *ctx, const char *dir, int64_t n, InstRates *ir)
{
    memset(ir, 0, sizeof *ir);
    ir->n = n;
    ir->rate = malloc(sizeof *ir->rate * (size_t)(n > 0 ? n : 1) * MAX_GROUPS);
    ir->ok = calloc((size_t)(n > 0 ? n : 1), sizeof *ir->ok);
    if (!ir->rate || !ir->ok) {
        free(ir->rate);
        free(ir->ok);
        nrt_seterr(ctx, "out of memory reading the instances' rates");
        return NRT_ENOMEM;
    }
    for (int64_t k = 0; k < n * MAX_GROUPS; k++)
        ir->rate[k] = NAN;
    for (int64_t b = 0; b < n; b++) {
        char sub[4200], keep[512];
        Json m;
        snprintf(keep, sizeof keep, "%s", ctx->errmsg);
        snprintf(sub, sizeof sub, "%s/instance_%lld", dir, (long long)b);
        if (pl_load_manifest(ctx, sub, &m) != NRT_OK) {
            snprintf(ctx->errmsg, sizeof ctx->errmsg, "%s", keep);   /* not an error here */
            continue;
        }
        ir->ok[b] = 1;
        rates_of(ir, b, &m, "populations");
        rates_of(ir, b, &m, "views");
        pl_json_free(&m);
    }
    return NRT_OK;
}

static void rates_free(InstRates *ir)
{
    free(ir->rate);
    free(ir->ok);
}

/* Contract: rt_internal.h. */
void nrt_instances_rates(nrt_ctx *ctx, const char *dir, int64_t n)
{
    InstRates ir;
    int w[MAX_GROUPS];
    if (ctx->quiet || n < 1 || rates_load(ctx, dir, n, &ir) != NRT_OK)
        return;
    if (ir.ng == 0) {
        rates_free(&ir);
        return;
    }
    fputs("  rates (Hz) per instance: each population, then each declared view (base:view)\n", stderr);
    fprintf(stderr, "  %8s", "instance");
    for (int g = 0; g < ir.ng; g++) {
        char head[260];
        snprintf(head, sizeof head, "%s%s%s", ir.base[g], ir.base[g][0] ? ":" : "", ir.name[g]);
        w[g] = (int)strlen(head) > 9 ? (int)strlen(head) : 9;
        fprintf(stderr, " %*s", w[g], head);
    }
    fputc('\n', stderr);
    for (int64_t b = 0; b < n; b++) {
        fprintf(stderr, "  %8lld", (long long)b);
        for (int g = 0; g < ir.ng; g++) {
            const double r = ir.rate[b * MAX_GROUPS + g];
            if (isnan(r))
                fprintf(stderr, " %*s", w[g], "-");
            else
                fprintf(stderr, " %*.2f", w[g], r);
        }
        fputc('\n', stderr);
    }
    rates_free(&ir);
}

/* ----- the overview figures ----- */

/* The grid of a sweep manifest: parameter names, their values, the seeds per grid point. */
typedef struct Grid {
    int np;
    const char *name[NRT_MAX_SWEEPS];
    const Json *vals[NRT_MAX_SWEEPS];
    int64_t seeds;
} Grid;

static void grid_of(const Json *man, Grid *G)
{
    const Json *sw = pl_jget(man, "sweep");
    memset(G, 0, sizeof *G);
    for (int i = 0; sw && sw->type == J_ARR && i < sw->n && G->np < NRT_MAX_SWEEPS; i++) {
        const Json *v = pl_jget(&sw->items[i], "values");
        if (!v || v->type != J_ARR || v->n < 1)
            continue;
        G->name[G->np] = pl_jstr(&sw->items[i], "name", "?");
        G->vals[G->np++] = v;
    }
    const double s = pl_jnum(man, "seeds", 1);
    G->seeds = s >= 1 && s < 1e9 ? (int64_t)s : 1;
}

/* Instance b's index into the values of parameter i (the last parameter varies fastest). */
static int64_t grid_index(const Grid *G, int64_t b, int i)
{
    int64_t p = b / G->seeds;
    for (int j = G->np - 1; j > i; j--)
        p /= G->vals[j]->n;
    return p % G->vals[i]->n;
}

/* The combination of the other parameters' indices than i, as one number. */
static int64_t combo_of(const Grid *G, int64_t b, int i)
{
    int64_t c = 0;
    for (int j = 0; j < G->np; j++)
        if (j != i)
            c = c * G->vals[j]->n + grid_index(G, b, j);
    return c;
}

/* The legend label of combination c (other parameters than i): "P.y = 2 mV, Q.z = 5". */
static void combo_label(const Grid *G, int i, int64_t c, char unit[][64], char *out, size_t n)
{
    int64_t idx[NRT_MAX_SWEEPS];
    size_t len = 0;
    for (int j = G->np - 1; j >= 0; j--)
        if (j != i) {
            idx[j] = c % G->vals[j]->n;
            c /= G->vals[j]->n;
        }
    out[0] = '\0';
    for (int j = 0; j < G->np && len + 1 < n; j++)
        if (j != i) {
            snprintf(out + len, n - len, "%s%.60s = %g%s%.30s", len ? ", " : "", G->name[j], G->vals[j]->items[idx[j]].num,
                     unit[j][0] ? " " : "", unit[j]);
            len = strlen(out);
        }
}

/* The mean, least and greatest rate of group g over the instances of combination c at value
 * index x of parameter i; 0 when none reported one. */
static int point_stats(const InstRates *ir, const Grid *G, int i, int64_t c, int64_t x, int g, double *mean,
                       double *lo, double *hi)
{
    int cnt = 0;
    double sum = 0;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int64_t b = 0; b < ir->n; b++) {
        const double r = ir->rate[b * MAX_GROUPS + g];
        if (isnan(r) || grid_index(G, b, i) != x || combo_of(G, b, i) != c)
            continue;
        sum += r;
        cnt++;
        *lo = fmin(*lo, r);
        *hi = fmax(*hi, r);
    }
    *mean = cnt ? sum / cnt : 0;
    return cnt;
}

/* Group g's panel of the figure of parameter i: a line per combination of the other
 * parameters (colour by combination), a point per value at the mean over seeds, an error
 * bar from the least to the greatest rate when there are several seeds. */
static void sweep_panel(FILE *f, const InstRates *ir, const Grid *G, int i, int g, int64_t ncombo,
                        const nrt_panel *pn, const char *xlabel)
{
    const Json *xs = G->vals[i];
    char title[300];
    if (ir->base[g][0])
        snprintf(title, sizeof title, "%.120s (view of %.120s)", ir->name[g], ir->base[g]);
    else
        snprintf(title, sizeof title, "%.120s", ir->name[g]);
    fputs("<g class=\"sweep-panel\" data-group=\"", f);
    nrt_svg_text(f, ir->name[g]);
    fprintf(f, "\">\n<text class=\"cell-title\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">", pn->x + pn->w / 2,
            pn->y - 8);
    nrt_svg_text(f, title);
    fputs("</text>\n", f);
    nrt_svg_axes_n(f, pn, xlabel, "rate (Hz)", 0, 4, 5);
    for (int64_t c = 0; c < ncombo && c < MAX_COMBOS; c++) {
        int pen = 0;
        fprintf(f, "<path class=\"sweep-line\" data-combo=\"%lld\" stroke=\"%s\" stroke-width=\"1.5\" fill=\"none\" d=\"",
                (long long)c, nrt_svg_color((int)c));
        for (int64_t x = 0; x < xs->n; x++) {
            double m, lo, hi;
            if (!point_stats(ir, G, i, c, x, g, &m, &lo, &hi)) {
                pen = 0;
                continue;
            }
            fprintf(f, "%c%.2f %.2f", pen ? 'L' : 'M', nrt_svg_px(pn, xs->items[x].num), nrt_svg_py(pn, m));
            pen = 1;
        }
        fputs("\"/>\n", f);
        for (int64_t x = 0; x < xs->n; x++) {
            double m, lo, hi;
            const int cnt = point_stats(ir, G, i, c, x, g, &m, &lo, &hi);
            const double px = nrt_svg_px(pn, xs->items[x].num);
            if (!cnt)
                continue;
            if (cnt > 1)
                fprintf(f, "<line class=\"errbar\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\"/>\n",
                        px, nrt_svg_py(pn, lo), px, nrt_svg_py(pn, hi), nrt_svg_color((int)c));
            fprintf(f, "<circle class=\"point\" data-x=\"%g\" data-rate=\"%.6g\" data-n=\"%d\" cx=\"%.2f\" "
                       "cy=\"%.2f\" r=\"3\" fill=\"%s\"/>\n",
                    xs->items[x].num, m, cnt, px, nrt_svg_py(pn, m), nrt_svg_color((int)c));
        }
    }
    fputs("</g>\n", f);
}

/* The unit of swept parameter `name` as the model declared it ("Hz"), from the first
 * instance's manifest ("parameters"); "" for a number or where it says none. */
static void param_unit(Plot *P, const char *name, char *out, size_t n)
{
    char sub[4200], keep[512];
    Json m;
    out[0] = '\0';
    snprintf(sub, sizeof sub, "%s/instance_0", P->dir);
    snprintf(keep, sizeof keep, "%s", P->ctx->errmsg);
    if (pl_load_manifest(P->ctx, sub, &m) != NRT_OK) {
        snprintf(P->ctx->errmsg, sizeof P->ctx->errmsg, "%s", keep);
        return;
    }
    const char *u = pl_jstr(pl_jget(pl_jget(&m, "parameters"), name), "unit", "1");
    if (strcmp(u, "1") != 0)
        snprintf(out, n, "%s", u);
    pl_json_free(&m);
}

/* sweep_<i>.svg: every group's mean rate against parameter i, small multiples. */
static nrt_status fig_sweep(Plot *P, const InstRates *ir, const Grid *G, int i)
{
    const Json *xs = G->vals[i];
    const int ng = ir->ng < 16 ? ir->ng : 16, ncol = ng < GRID_COLS ? ng : GRID_COLS, nrow = (ng + ncol - 1) / ncol;
    int64_t ncombo = 1;
    double xlo = INFINITY, xhi = -INFINITY;
    char name[64], title[300], caption[600], lab[MAX_COMBOS][200], xlabel[300], unit[NRT_MAX_SWEEPS][64];
    const char *labels[MAX_COMBOS];
    FILE *f;
    for (int j = 0; j < G->np; j++)
        if (j != i)
            ncombo *= G->vals[j]->n;
    for (int64_t x = 0; x < xs->n; x++) {
        xlo = fmin(xlo, xs->items[x].num);
        xhi = fmax(xhi, xs->items[x].num);
    }
    if (!(xhi > xlo)) {
        const double pad = fabs(xlo) > 0 ? 0.5 * fabs(xlo) : 1;
        xlo -= pad;
        xhi += pad;
    }
    for (int j = 0; j < G->np; j++)
        param_unit(P, G->name[j], unit[j], sizeof unit[j]);
    snprintf(xlabel, sizeof xlabel, unit[i][0] ? "%.200s (%s)" : "%.200s%s", G->name[i], unit[i]);
    snprintf(name, sizeof name, "sweep_%d.svg", i);
    if (!(f = pl_fig_open(P, name)))
        return NRT_EIO;
    snprintf(title, sizeof title, "Mean rates against %.200s", G->name[i]);
    nrt_svg_begin(f, 60 + ncol * OV_CELL_W + NRT_LEGEND_W, 60 + nrow * OV_CELL_H, title);
    for (int g = 0; g < ng; g++) {
        double rmax = 0;
        for (int64_t b = 0; b < ir->n; b++)
            if (!isnan(ir->rate[b * MAX_GROUPS + g]))
                rmax = fmax(rmax, ir->rate[b * MAX_GROUPS + g]);
        nrt_panel pn = {60 + 20 + (g % ncol) * OV_CELL_W, 70 + (g / ncol) * OV_CELL_H, OV_CELL_W - 80, OV_CELL_H - 90,
                        xlo, xhi, 0, rmax > 0 ? rmax * 1.1 : 1};
        sweep_panel(f, ir, G, i, g, ncombo, &pn, xlabel);
    }
    if (ncombo > 1) {   /* the legend, right of the grid */
        nrt_panel lp = {60 + 20 + (ncol - 1) * OV_CELL_W, 70, OV_CELL_W - 80, 0, 0, 1, 0, 1};
        int nl = ncombo < MAX_COMBOS ? (int)ncombo : MAX_COMBOS;
        for (int c = 0; c < nl; c++) {
            combo_label(G, i, c, unit, lab[c], sizeof lab[c]);
            labels[c] = lab[c];
        }
        nrt_svg_legend(f, &lp, nl, labels);
    }
    nrt_svg_note(f, 20, 40, G->seeds > 1 ? "points: mean over seeds; bars: least to greatest rate"
                                         : "one instance per point");
    nrt_svg_end(f);
    snprintf(caption, sizeof caption, "Mean rate of each population and view against %.200s%s", G->name[i],
             G->seeds > 1 ? " (error bars: the spread over seeds)" : "");
    return pl_fig_close(P, f, name, caption);
}

/* index.html of a folder of instances: the figures and a row per instance (its seed, swept
 * values, status, rates) linking to its own page (or its manifest, where it has no page). */
static nrt_status sweep_index(Plot *P, const InstRates *ir, const Json *insts)
{
    const Json *m = P->man;
    FILE *f = pl_fig_open(P, "index.html");
    if (!f)
        return NRT_EIO;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
    nrt_svg_text(f, pl_jstr(m, "model", "model"));
    fputs(" instances</title>\n<style>body{font-family:DejaVu Sans,Arial,sans-serif;margin:2em;color:#222}"
          "table{border-collapse:collapse;margin:0.5em 0 1.5em}td,th{border:1px solid #ccc;padding:3px 10px;"
          "text-align:left}td.n{text-align:right}figure{margin:1em 0}img{max-width:100%;border:1px solid #ddd}"
          "figcaption{color:#555}</style>\n</head>\n<body>\n<h1>", f);
    nrt_svg_text(f, pl_jstr(m, "model", "model"));
    fprintf(f, ": %lld instances</h1>\n<p>back end ", (long long)ir->n);
    nrt_svg_text(f, pl_jstr(m, "backend", "?"));
    fprintf(f, ", seed %.0f (", pl_jnum(m, "seed", 0));
    nrt_svg_text(f, pl_jstr(m, "seed_rule", "?"));
    fprintf(f, "), %.0f steps of %g ms%s. <a href=\"manifest.json\">manifest.json</a>, "
               "<a href=\"instances.csv\">instances.csv</a></p>\n<h2>Figures</h2>\n",
            pl_jnum(m, "total_steps", 0), pl_jnum(m, "dt_ms", 0), pl_jnum(m, "interrupted", 0) ? ", stopped early" : "");
    if (P->nfigs == 0)
        fputs("<p>No swept parameter to plot against: see the table.</p>\n", f);
    pl_index_figures(f, P);
    fputs("<h2>Instances</h2>\n<table class=\"instances\">\n<tr><th>instance</th><th>seed</th>", f);
    const Json *v0 = insts->n ? pl_jget(&insts->items[0], "values") : NULL;
    for (int k = 0; v0 && v0->type == J_OBJ && k < v0->n; k++) {
        fputs("<th>", f);
        nrt_svg_text(f, v0->keys[k]);
        fputs("</th>", f);
    }
    fputs("<th>status</th>", f);
    for (int g = 0; g < ir->ng; g++) {
        fputs("<th>", f);
        nrt_svg_text(f, ir->name[g]);
        fputs(ir->base[g][0] ? " (view) (Hz)</th>" : " (Hz)</th>", f);
    }
    fputs("</tr>\n", f);
    for (int64_t b = 0; b < ir->n; b++) {
        const Json *it = &insts->items[b], *vals = pl_jget(it, "values");
        const char *folder = pl_jstr(it, "folder", "?");
        char page[4300];
        snprintf(page, sizeof page, "%s/%s/index.html", P->dir, folder);
        FILE *probe = fopen(page, "r");
        fputs("<tr><td><a class=\"instance\" href=\"", f);
        pl_url_text(f, folder);
        fputs(probe ? "/index.html\">" : "/manifest.json\">", f);
        if (probe)
            fclose(probe);
        nrt_svg_text(f, folder);
        fprintf(f, "</a></td><td class=\"n\">%.0f</td>", pl_jnum(it, "seed", 0));
        for (int k = 0; vals && vals->type == J_OBJ && k < vals->n; k++)
            fprintf(f, "<td class=\"n\">%g</td>", vals->items[k].num);
        fprintf(f, "<td>%s</td>", pl_jnum(it, "exit_status", 1) == 0 ? "ok" : "failed");
        for (int g = 0; g < ir->ng; g++) {
            const double r = ir->rate[b * MAX_GROUPS + g];
            if (isnan(r))
                fputs("<td class=\"n\">-</td>", f);
            else
                fprintf(f, "<td class=\"n\">%.2f</td>", r);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n</body>\n</html>\n", f);
    return pl_fig_close(P, f, "index.html", NULL);
}

/* Contract: rt_plot.h. */
nrt_status pl_sweep_overview(Plot *P)
{
    const Json *insts = pl_jget(P->man, "instances");
    InstRates ir;
    Grid G;
    nrt_status st;
    if (!insts || insts->type != J_ARR) {
        nrt_seterr(P->ctx, "manifest.json in '%s': \"instances\" is not a list", P->dir);
        return NRT_EINVAL;
    }
    if ((st = rates_load(P->ctx, P->dir, insts->n, &ir)) != NRT_OK)
        return st;
    grid_of(P->man, &G);
    for (int i = 0; i < G.np && st == NRT_OK; i++)
        st = fig_sweep(P, &ir, &G, i);
    if (st == NRT_OK)
        st = sweep_index(P, &ir, insts);
    rates_free(&ir);
    return st;
}
