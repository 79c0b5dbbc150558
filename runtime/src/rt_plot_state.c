/* rt_plot_state.c -- the figures of a state recording (nrt_plot, rt_plot.c): small
 * multiples, a panel per recorded neuron (or synapse) and variable, up to PL_MAX_CELLS, in a
 * grid with shared axes; and for a synapse recording (`record w of PROJ`) the histograms of
 * its first and last samples, side by side in one panel per variable.
 *
 * Longer than two samples per pixel, a trace shows each pixel column's minimum and maximum.
 */
#define _POSIX_C_SOURCE 200809L

#include "rt_plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CELL_COLS = 4, CELL_H = 170, PLOT_H = 110, HIST_BINS = 24 };

/* The rows of a state recording (time, then cols values): *data malloc'd, *rows of them. */
static nrt_status state_read(Plot *P, const char *file, const char *path, int cols,
                             double **data, int64_t *rows)
{
    Reader *r = pl_rd_open(P->ctx, path, cols, NULL);
    int64_t cap = 0;
    double *grown;
    *data = NULL;
    *rows = 0;
    if (!r)
        return NRT_EINVAL;
    for (;;) {
        if (*rows == cap) {
            cap = cap ? cap * 2 : 1024;
            grown = realloc(*data, sizeof **data * (size_t)(cap * (1 + cols)));
            if (!grown) {
                free(*data);
                *data = NULL;
                pl_rd_close(r);
                nrt_seterr(P->ctx, "out of memory plotting '%s'", file);
                return NRT_ENOMEM;
            }
            *data = grown;
        }
        if (!pl_rd_row(r, *data + *rows * (1 + cols), cols))
            break;
        (*rows)++;
    }
    pl_rd_close(r);
    return NRT_OK;
}

/* The y range of columns first .. first + shown - 1 (finite values), padded. */
static void state_range(const double *data, int64_t rows, int cols, int first, int shown,
                        double *plo, double *phi)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int64_t s = 0; s < rows; s++)
        for (int k = 0; k < shown; k++) {
            double x = data[s * (1 + cols) + 1 + first + k];
            if (isfinite(x)) {
                lo = fmin(lo, x);
                hi = fmax(hi, x);
            }
        }
    if (!(lo <= hi)) {
        lo = 0;
        hi = 1;
    } else if (hi - lo < 1e-12 * fmax(1.0, fabs(hi))) {
        double pad = fabs(hi) > 0 ? 0.1 * fabs(hi) : 1.0;
        lo -= pad;
        hi += pad;
    } else {
        double pad = 0.05 * (hi - lo);
        lo -= pad;
        hi += pad;
    }
    *plo = lo;
    *phi = hi;
}

/* The path data of column c: every sample, or (decim) each pixel column's min and max. */
static void state_trace(FILE *f, const nrt_panel *pn, const double *data, int64_t rows, int cols,
                        int c0, int decim)
{
    int64_t s;
    int pen = 0;
    if (!decim) {
        for (s = 0; s < rows; s++) {
            double t = data[s * (1 + cols)], x = data[s * (1 + cols) + c0];
            if (!isfinite(x)) {
                pen = 0;
                continue;
            }
            fprintf(f, "%c%.2f %.2f", pen ? 'L' : 'M', nrt_svg_px(pn, t),
                    nrt_svg_py(pn, x));
            pen = 1;
        }
    } else {
        /* pixel column of each sample by its time; a column's min and max */
        int ncol = (int)pn->w, c, cur = -1;
        double mn = INFINITY, mx = -INFINITY;
        for (s = 0; s <= rows; s++) {
            double x = s < rows ? data[s * (1 + cols) + c0] : NAN;
            c = s < rows ? (int)(nrt_svg_px(pn, data[s * (1 + cols)]) - pn->x) : ncol;
            c = c < 0 ? 0 : c > ncol ? ncol : c;
            if (c == ncol && s < rows)
                c = ncol - 1;
            if (c != cur && cur >= 0) {
                if (mn <= mx) {
                    double xc = pn->x + cur + 0.5;
                    fprintf(f, "%c%.2f %.2fL%.2f %.2f", pen ? 'L' : 'M', xc,
                            nrt_svg_py(pn, mn), xc, nrt_svg_py(pn, mx));
                    pen = 1;
                } else {
                    pen = 0;
                }
                mn = INFINITY;
                mx = -INFINITY;
            }
            cur = c;
            if (isfinite(x)) {
                mn = fmin(mn, x);
                mx = fmax(mx, x);
            }
        }
    }
}

/* The y axis title of variable vn in unit u ("V (mV)", or "w" for a number). */
static void var_label(char *out, size_t n, const char *vn, const char *u)
{
    if (strcmp(u, "1") == 0)
        snprintf(out, n, "%s", vn);
    else
        snprintf(out, n, "%s (%s)", vn, u);
}

/* Variable v's grid of cells at y0: a panel per shown neuron, the same axes in each (the
 * x axis title under the bottom row, the y axis title left of the first column). */
static void state_cells(FILE *f, const Plot *P, const Json *rec, const char *what, const double *data,
                        int64_t rows, int cols, int v, int ni, int shown, double y0)
{
    const Json *vars = pl_jget(rec, "variables"), *units = pl_jget(rec, "units"),
               *neurons = pl_jget(rec, "neurons");
    const char *vn = vars->items[v].type == J_STR ? vars->items[v].str : "?";
    const int ncol = shown < CELL_COLS ? shown : CELL_COLS, nrow = (shown + ncol - 1) / ncol;
    const double cw = 840.0 / ncol;
    char ylabel[300];
    double lo, hi;
    var_label(ylabel, sizeof ylabel, vn, pl_jstr(units, vn, "1"));
    state_range(data, rows, cols, v * ni, shown, &lo, &hi);
    fputs("<g class=\"panel\" data-variable=\"", f);
    nrt_svg_text(f, vn);
    fprintf(f, "\">\n<text class=\"var-title\" x=\"20\" y=\"%.2f\" font-weight=\"bold\">", y0 + 14);
    nrt_svg_text(f, ylabel);
    fputs("</text>\n", f);
    for (int k = 0; k < shown; k++) {
        const int row = k / ncol, col = k % ncol;
        const Json *nk = &neurons->items[k];
        const long long id = (long long)(nk->type == J_NUM ? nk->num : k);
        nrt_panel pn = {60 + col * cw + 45, y0 + 40 + row * CELL_H, cw - 60, PLOT_H, 0, P->T, lo, hi};
        char title[80];
        fprintf(f, "<g class=\"cell\" data-index=\"%lld\">\n", id);
        snprintf(title, sizeof title, "%s %lld", what, id);
        fprintf(f, "<text class=\"cell-title\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">", pn.x + pn.w / 2,
                pn.y - 6);
        nrt_svg_text(f, title);
        fputs("</text>\n", f);
        nrt_svg_axes_n(f, &pn, row == nrow - 1 ? "time (ms)" : "", col == 0 ? ylabel : "", 0, 4, 4);
        fputs("<path class=\"trace\" data-variable=\"", f);
        nrt_svg_text(f, vn);
        fprintf(f, "\" stroke=\"%s\" stroke-width=\"1.2\" fill=\"none\" d=\"", nrt_svg_color(v));
        state_trace(f, &pn, data, rows, cols, 1 + v * ni + k, (double)rows > 2 * pn.w);
        fputs("\"/>\n</g>\n", f);
    }
    fputs("</g>\n", f);
}

/* Histograms of variable v's values in the first and the last row, one panel at y0. */
static void weight_hist(FILE *f, const Plot *P, const Json *rec, const double *data, int64_t rows, int cols,
                        int v, int ni, double y0)
{
    const Json *vars = pl_jget(rec, "variables"), *units = pl_jget(rec, "units");
    const char *vn = vars->items[v].type == J_STR ? vars->items[v].str : "?";
    const double *row[2] = {data, data + (rows - 1) * (1 + cols)};
    double lo = INFINITY, hi = -INFINITY, w, cmax = 1;
    int64_t cnt[2][HIST_BINS + 1];
    char xlabel[300], lab[2][80];
    const char *labels[2] = {lab[0], lab[1]};
    int nb;
    (void)P;
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < ni; k++) {
            const double x = row[s][1 + v * ni + k];
            if (isfinite(x)) {
                lo = fmin(lo, x);
                hi = fmax(hi, x);
            }
        }
    if (!(lo <= hi))
        lo = 0, hi = 1;
    if (hi - lo < 1e-12 * fmax(1.0, fabs(hi)))
        lo -= 0.5 * fmax(fabs(hi), 1e-9), hi += 0.5 * fmax(fabs(hi), 1e-9);
    w = nrt_nice((hi - lo) / (HIST_BINS - 1), 0);
    lo = floor(lo / w) * w;
    nb = (int)ceil((hi - lo) / w - 1e-9);
    nb = nb < 1 ? 1 : nb > HIST_BINS ? HIST_BINS : nb;
    if (lo + nb * w <= hi)
        nb = nb < HIST_BINS ? nb + 1 : nb;
    memset(cnt, 0, sizeof cnt);
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < ni; k++) {
            const double x = row[s][1 + v * ni + k];
            int b = isfinite(x) ? (int)floor((x - lo) / w + 1e-9) : -1;   /* edges: their own bin */
            b = b >= nb ? nb - 1 : b;
            if (b >= 0 && ++cnt[s][b] > cmax)
                cmax = (double)cnt[s][b];
        }
    nrt_panel pn = {80, y0 + 30, 1000 - NRT_LEGEND_W - 80, 200, lo, lo + nb * w, 0, cmax * 1.08};
    var_label(xlabel, sizeof xlabel, vn, pl_jstr(units, vn, "1"));
    fputs("<g class=\"hist-panel\" data-variable=\"", f);
    nrt_svg_text(f, vn);
    fputs("\">\n", f);
    nrt_svg_axes(f, &pn, xlabel, "synapses", 1);
    for (int s = 0; s < 2; s++) {
        const double t = row[s][0];
        fprintf(f, "<path class=\"hist\" data-sample=\"%s\" data-t=\"%g\" stroke=\"%s\" stroke-width=\"%s\" "
                   "fill=\"%s\" fill-opacity=\"0.25\" d=\"M%.2f %.2f",
                s ? "last" : "first", t, nrt_svg_color(s), s ? "1.5" : "2.5", nrt_svg_color(s), nrt_svg_px(&pn, lo),
                nrt_svg_py(&pn, 0));
        for (int b = 0; b < nb; b++)
            fprintf(f, "V%.2fH%.2f", nrt_svg_py(&pn, (double)cnt[s][b]), nrt_svg_px(&pn, lo + (b + 1) * w));
        fputs("V", f);
        fprintf(f, "%.2fZ\"/>\n", nrt_svg_py(&pn, 0));
        snprintf(lab[s], sizeof lab[s], "%s sample, t = %g ms", s ? "last" : "first", t);
    }
    nrt_svg_legend(f, &pn, 2, labels);
    fputs("</g>\n", f);
}

/* weights_<rec>.svg: the histograms of a synapse recording's first and last rows. */
static nrt_status fig_weights(Plot *P, const Json *rec, const double *data, int64_t rows, int cols, int nv,
                              int ni)
{
    const char *file = pl_jstr(rec, "file", "?"), *pop = pl_jstr(rec, "population", "?");
    char name[300], title[400], caption[600];
    FILE *f;
    if (rows < 1)
        return NRT_OK;
    pl_fig_name(P, name, sizeof name, "weights", file);
    if (!(f = pl_fig_open(P, name)))
        return NRT_EIO;
    snprintf(title, sizeof title, "Synapses of %s (%s): first and last sample", pop, file);
    nrt_svg_begin(f, 1000, 40 + nv * 280, title);
    for (int v = 0; v < nv; v++)
        weight_hist(f, P, rec, data, rows, cols, v, ni, 30 + 280.0 * v);
    nrt_svg_end(f);
    snprintf(caption, sizeof caption, "Histograms of the %d synapses of %s (%s) in the first and the last "
             "sample", ni, pop, file);
    return pl_fig_close(P, f, name, caption);
}

/* Contract: rt_plot.h. */
nrt_status pl_fig_state(Plot *P, const Json *rec)
{
    const char *file = pl_jstr(rec, "file", "?"), *pop = pl_jstr(rec, "population", "?");
    const char *view = pl_jstr(rec, "view", NULL);
    const Json *vars = pl_jget(rec, "variables"), *neurons = pl_jget(rec, "neurons"), *pops;
    const char *what = "synapse";
    const int nv = vars && vars->type == J_ARR ? vars->n : 0;
    const int ni = neurons && neurons->type == J_ARR ? neurons->n : 0;
    const int cols = nv * ni, shown = ni < PL_MAX_CELLS ? ni : PL_MAX_CELLS;
    const int ncol = shown < CELL_COLS ? shown : CELL_COLS, nrow = ncol ? (shown + ncol - 1) / ncol : 0;
    const double vh = 50 + nrow * CELL_H;
    int64_t rows = 0;
    double *data = NULL;
    char name[300], *path, title[400], note[300], caption[800];
    nrt_status st;
    FILE *f;

    if (nv == 0 || ni == 0)
        return NRT_OK;
    pl_fig_name(P, name, sizeof name, "state", file);
    if (!(path = pl_path_in(P, file)))
        return NRT_ENOMEM;
    st = state_read(P, file, path, cols, &data, &rows);
    free(path);
    if (st != NRT_OK)
        return st;
    if (!(f = pl_fig_open(P, name))) {
        free(data);
        return NRT_EIO;
    }
    /* `record w of PROJ` names the projection as its population: its columns are synapses */
    pops = pl_jget(P->man, "populations");
    for (int k = 0; pops && pops->type == J_ARR && k < pops->n; k++)
        if (strcmp(pl_jstr(&pops->items[k], "name", ""), pop) == 0)
            what = "neuron";
    if (view)
        snprintf(title, sizeof title, "Recorded state of %s (view of %s, %s)", view, pop, file);
    else
        snprintf(title, sizeof title, "Recorded state of %s (%s)", pop, file);
    nrt_svg_begin(f, 900, (int)(40 + nv * vh), title);
    snprintf(note, sizeof note, "%lld samples every %g ms%s; %s %d of %d %ss", (long long)rows,
             pl_jnum(rec, "every_steps", 1) * P->dt, (double)rows > 2 * 130 ? "; min and max per pixel column" : "",
             shown < ni ? "the first" : "all", shown, ni, what);
    nrt_svg_note(f, 20, 36, note);
    for (int v = 0; v < nv; v++)
        state_cells(f, P, rec, what, data, rows, cols, v, ni, shown, 40 + v * vh);
    nrt_svg_end(f);
    snprintf(caption, sizeof caption, "State of %s (%s): %s", view ? view : pop, file, note);
    st = pl_fig_close(P, f, name, caption);
    if (st == NRT_OK && what[0] == 's')
        st = fig_weights(P, rec, data, rows, cols, nv, ni);
    free(data);
    return st;
}

/* Contract: rt_plot.h. One rate recording (`record rate of T bin B`): its rows as a staircase, each bin's rate
 * from the bin's start to its end (t), in rate_<rec>.svg. */
nrt_status pl_fig_rate(Plot *P, const Json *rec)
{
    const char *file = pl_jstr(rec, "file", "?");
    nrt_panel pn = {80, 40, 790, 320, 0, 0, 0, 0};
    double *data = NULL, rmax = 0, bin = pl_jnum(rec, "bin_ms", P->dt);
    char name[300], *path, note[300], caption[512];
    int64_t rows = 0, b;
    nrt_status st;
    FILE *f;
    pl_fig_name(P, name, sizeof name, "rate", file);
    if (!(path = pl_path_in(P, file)))
        return NRT_ENOMEM;
    st = state_read(P, file, path, 1, &data, &rows);
    free(path);
    if (st != NRT_OK)
        return st;
    for (b = 0; b < rows; b++)
        if (isfinite(data[2 * b + 1]) && data[2 * b + 1] > rmax)
            rmax = data[2 * b + 1];
    if (!(f = pl_fig_open(P, name))) {
        free(data);
        return NRT_EIO;
    }
    pn.xhi = P->T;
    pn.yhi = rmax > 0 ? rmax * 1.08 : 1.0;
    snprintf(note, sizeof note, "%.100s: spikes per neuron per second in bins of %g ms", pl_jstr(rec, "target", "?"),
             bin);
    nrt_svg_begin(f, 900, 420, "Population rate");
    nrt_svg_axes(f, &pn, "time (ms)", "rate (Hz)", 0);
    if (rows > 0) {
        fputs("<path class=\"rate\" data-file=\"", f);
        nrt_svg_text(f, file);
        fprintf(f, "\" stroke=\"%s\" stroke-width=\"1.5\" fill=\"none\" d=\"M%.2f %.2f", nrt_svg_color(0),
                nrt_svg_px(&pn, fmax(data[0] - bin, 0)), nrt_svg_py(&pn, data[1]));
        for (b = 0; b < rows; b++) {
            fprintf(f, "H%.2f", nrt_svg_px(&pn, fmin(data[2 * b], P->T)));
            if (b + 1 < rows)
                fprintf(f, "V%.2f", nrt_svg_py(&pn, data[2 * b + 3]));
        }
        fputs("\"/>\n", f);
    }
    nrt_svg_note(f, pn.x, pn.y - 6, note);
    nrt_svg_end(f);
    free(data);
    snprintf(caption, sizeof caption, "Population rate (%.100s), %.300s", file, note);
    return pl_fig_close(P, f, name, caption);
}
