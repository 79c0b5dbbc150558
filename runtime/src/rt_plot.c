/* rt_plot.c -- figures of a run folder: SVG plots and index.html (nrt_plot).
 *
 * Reads only what a run leaves on disk, manifest.json and the .npy/.csv recordings it lists,
 * so `./sim --plot` (after nrt_finish) and `neuroc plot DIR` (any finished or interrupted
 * run) share this code. Writes, into the folder: raster_<rec>.svg per spike recording,
 * rates.svg (population rates, binned), state_<rec>.svg per state recording,
 * rate_<rec>.svg per rate recording (fig_rate_rec), and
 * index.html showing them with the run's summary. Drawing is in rt_svg.c.
 */
#define _POSIX_C_SOURCE 200809L

#include "rt_plot.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
/* Weak: rt_hdf5.c is linked only into programs that write or read .h5 recordings (the
 * simulators with one, and neuroc when built with HDF5); elsewhere .h5 files are refused. */
#pragma weak nrt_h5_read_spikes
#endif

/* Rasters with more spikes than this are drawn as a density (NEUROC_PLOT_MAX_MARKS). */
#define MAX_MARKS 100000
/* Density raster: at most this many time columns and neuron rows of bins. */
#define DENS_COLS 300
#define DENS_ROWS 150


/* {===== Figures ===== */

/* A spike recording this program can read: .npy, .csv, or .h5 when rt_hdf5.o is linked
 * (a simulator with an .h5 recording). Others are listed in P->skipped. */
static int readable(Plot *P, const Json *rec)
{
    size_t n = strlen(P->skipped);
    if (!pl_jstr(rec, "group", NULL))
        return 1;
#if defined(__GNUC__)
    if (nrt_h5_read_spikes)
        return 1;
    snprintf(P->skipped + n, sizeof P->skipped - n, "%s%.200s", n ? ", " : "",
             pl_jstr(rec, "file", "?"));
    return 0;
#else
    (void)n;
    return 1;
#endif
}

/* Contract: rt_plot.h. */
char *pl_path_in(const Plot *P, const char *name)
{
    size_t n = strlen(P->dir) + strlen(name) + 2;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s/%s", P->dir, name);
    else
        nrt_seterr(P->ctx, "out of memory");
    return s;
}

/* Contract: rt_plot.h. */
FILE *pl_fig_open(Plot *P, const char *name)
{
    char *path = pl_path_in(P, name), tmp[4200];
    FILE *f;
    if (!path)
        return NULL;
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    free(path);
    f = fopen(tmp, "w");
    if (!f)
        nrt_seterr(P->ctx, "cannot write '%s': %s", tmp, strerror(errno));
    return f;
}

/* Contract: rt_plot.h. Close f and rename <name>.tmp to <name>; with caption (not NULL)
 * list it in index.html. */
nrt_status pl_fig_close(Plot *P, FILE *f, const char *name, const char *caption)
{
    char *path = pl_path_in(P, name), tmp[4200];
    Fig *figs;
    nrt_status st;
    if (!path) {
        fclose(f);
        return NRT_EIO;
    }
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    st = nrt_commit_file(P->ctx, f, tmp, path);
    free(path);
    if (st != NRT_OK)
        return st;
    if (!caption)
        return NRT_OK;
    figs = realloc(P->figs, sizeof *figs * (size_t)(P->nfigs + 1));
    if (!figs) {
        nrt_seterr(P->ctx, "out of memory");
        return NRT_ENOMEM;
    }
    P->figs = figs;
    snprintf(figs[P->nfigs].file, sizeof figs[0].file, "%s", name);
    snprintf(figs[P->nfigs].caption, sizeof figs[0].caption, "%s", caption);
    P->nfigs++;
    return NRT_OK;
}

/* Length of a file name without its extension. */
static int stem_len(const char *file)
{
    const char *dot = strrchr(file, '.');
    return dot ? (int)(dot - file) : (int)strlen(file);
}

/* A file name as a relative URL in an attribute: every byte but letters, digits and
 * "-._~/" percent-encoded, so that '#', '?', '%', blanks and control characters in a
 * recording's name still link to its file. */
void pl_url_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            (c && strchr("-._~/", c)))
            fputc(c, f);
        else
            fprintf(f, "%%%02X", c);
    }
}

/* Contract: rt_plot.h. */
void pl_index_figures(FILE *f, const Plot *P)
{
    for (int k = 0; k < P->nfigs; k++) {
        fputs("<figure><a href=\"", f);
        pl_url_text(f, P->figs[k].file);
        fputs("\"><img src=\"", f);
        pl_url_text(f, P->figs[k].file);
        fputs("\" alt=\"", f);
        nrt_svg_text(f, P->figs[k].caption);
        fputs("\"></a><figcaption>", f);
        nrt_svg_text(f, P->figs[k].caption);
        fputs("</figcaption></figure>\n", f);
    }
}

/* The figure name <prefix>_<recording file without its extension>.svg, or with the
 * extension as "_npy" when another recording has the same stem (p.npy and p.h5). */
void pl_fig_name(const Plot *P, char *out, size_t n, const char *prefix, const char *file)
{
    const Json *recs = pl_jget(P->man, "recordings");
    int len = stem_len(file), k, twin = 0;
    for (k = 0; recs && recs->type == J_ARR && k < recs->n; k++) {
        const char *o = pl_jstr(&recs->items[k], "file", "");
        if (strcmp(o, file) != 0 && stem_len(o) == len && strncmp(o, file, (size_t)len) == 0)
            twin = 1;
    }
    if (twin && file[len] == '.')
        snprintf(out, n, "%s_%.*s_%s.svg", prefix, len, file, file + len + 1);
    else
        snprintf(out, n, "%s_%.*s.svg", prefix, len, file);
    for (; *out; out++)                      /* no control characters in the names it makes */
        if ((unsigned char)*out < 0x20 || *out == 0x7F)
            *out = '_';
}

/* The step of a spike at time t >= 0 (t = (step + 1) dt); INT64_MAX, beyond every bin, for a
 * time past any run (no conversion of a double out of int64_t's range). */
static int64_t step_of(const Plot *P, double t)
{
    const double x = t / P->dt;
    return x < 4e18 ? (int64_t)llround(x) - 1 : INT64_MAX;
}

/* A declared view seen in a spike recording: neurons lo .. hi - 1 of the base population. */
typedef struct VPart {
    const char *name;
    int64_t lo, hi;
} VPart;

#define MAX_PARTS 9

/* The recording's first neuron in its base population ("offset"; 0 for a whole one). */
static int64_t rec_offset(const Json *rec)
{
    const double o = pl_jnum(rec, "offset", 0);
    return o >= 0 && o < 4e18 ? (int64_t)o : 0;
}

/* The name a recording's curves and titles go by: its view's, else its population's. */
static const char *rec_label(const Json *rec)
{
    const char *v = pl_jstr(rec, "view", NULL);
    return v ? v : pl_jstr(rec, "population", "?");
}

/* The declared views (manifest "views") that split spike recording rec: those of its
 * population that overlap its neurons without holding all of them, clipped to them, at
 * most MAX_PARTS; their number. */
static int view_parts(const Plot *P, const Json *rec, int64_t N, VPart *part)
{
    const Json *views = pl_jget(P->man, "views");
    const char *pop = pl_jstr(rec, "population", "");
    const int64_t off = rec_offset(rec);
    int n = 0;
    for (int k = 0; views && views->type == J_ARR && k < views->n && n < MAX_PARTS; k++) {
        const Json *v = &views->items[k];
        const double vo = pl_jnum(v, "offset", -1), vs = pl_jnum(v, "size", 0);
        if (strcmp(pl_jstr(v, "population", ""), pop) != 0 || !(vo >= 0 && vs >= 1 && vo + vs < 4e18))
            continue;
        int64_t lo = (int64_t)vo, hi = (int64_t)(vo + vs);
        if (lo <= off && hi >= off + N)
            continue;   /* all of the recording: nothing to tell apart */
        lo = lo > off ? lo : off;
        hi = hi < off + N ? hi : off + N;
        if (lo < hi)
            part[n++] = (VPart){pl_jstr(v, "name", "?"), lo, hi};
    }
    return n;
}

/* The part neuron n (of the base population) is drawn in: the smallest that holds it (views
 * nest: a neuron of `core` inside `exc` shows as core's), np when none does. */
static int part_of(const VPart *part, int np, int64_t n)
{
    int best = np;
    for (int q = 0; q < np; q++)
        if (n >= part[q].lo && n < part[q].hi &&
            (best == np || part[q].hi - part[q].lo < part[best].hi - part[best].lo))
            best = q;
    return best;
}

/* 1 when some neuron of [lo, hi) is in no part. */
static int uncovered(const VPart *part, int np, int64_t lo, int64_t hi)
{
    int64_t at = lo;
    for (int moved = 1; moved && at < hi;) {   /* extend the covered prefix [lo, at) */
        moved = 0;
        for (int q = 0; q < np; q++)
            if (part[q].lo <= at && part[q].hi > at) {
                at = part[q].hi;
                moved = 1;
            }
    }
    return at < hi;
}

/* The marks of a raster: one path per view part (p = 0 .. np - 1, part_of) and one (p = np)
 * for neurons in none, each its own colour. */
static void raster_marks(Plot *P, FILE *f, const char *path, const Json *rec, const nrt_panel *pn,
                         int64_t N, const VPart *part, int np)
{
    const int64_t off = rec_offset(rec);
    double mh = pn->h / (double)N * 0.8, t;
    int64_t i;
    mh = mh < 1.5 ? 1.5 : mh > 6 ? 6 : mh;
    for (int p = 0; p <= np; p++) {
        Reader *r = pl_rd_open(P->ctx, path, -1, pl_jstr(rec, "group", NULL));
        int64_t n = 0;
        if (!r)
            return;
        fputs("<path class=\"spikes\"", f);
        if (p < np) {
            fputs(" data-view=\"", f);
            nrt_svg_text(f, part[p].name);
            fputs("\"", f);
        }
        fprintf(f, " stroke=\"%s\" stroke-width=\"1.2\" fill=\"none\" d=\"",
                p < np ? nrt_svg_color(p) : np ? "#444444" : nrt_svg_color(0));
        while (pl_rd_spike(r, &t, &i)) {
            if (part_of(part, np, off + i) != p)
                continue;
            fprintf(f, "M%.2f %.2fv%.2f", nrt_svg_px(pn, t), nrt_svg_py(pn, (double)i + 0.5) - mh / 2, mh);
            n++;
        }
        fprintf(f, "\" data-spikes=\"%lld\"/>\n", (long long)n);
        pl_rd_close(r);
    }
    if (np) {   /* the legend, beside the panel */
        const char *labels[MAX_PARTS + 1], *colors[MAX_PARTS + 1];
        for (int p = 0; p < np; p++) {
            labels[p] = part[p].name;
            colors[p] = nrt_svg_color(p);
        }
        labels[np] = "in no view";
        colors[np] = "#444444";
        nrt_svg_legend_c(f, pn, np + uncovered(part, np, off, off + N), labels, colors);
    }
}

/* The bins of a density raster, each drawn with the opacity of its count's eighth. */
static void raster_density(Plot *P, FILE *f, Reader *r, const nrt_panel *pn, int64_t N, int64_t spc,
                           int64_t npr, int64_t cols, int64_t rows, int64_t *counts, int64_t *maxc)
{
    double t;
    int64_t i;
    while (pl_rd_spike(r, &t, &i)) {
        int64_t c = step_of(P, t) / spc, w = i / npr;
        if (c >= 0 && c < cols && w >= 0 && w < rows && ++counts[w * cols + c] > *maxc)
            *maxc = counts[w * cols + c];
    }
    for (int level = 1; level <= 8; level++) {
        fprintf(f, "<path class=\"density\" fill=\"%s\" fill-opacity=\"%.3f\" d=\"", nrt_svg_color(0),
                level / 8.0);
        for (int64_t k = 0; k < cols * rows; k++) {
            int64_t c = k % cols, w = k / cols;
            double x0, x1, y0, y1;
            if (counts[k] == 0 || (int)ceil(8.0 * (double)counts[k] / (double)*maxc) != level)
                continue;
            x0 = nrt_svg_px(pn, (double)(c * spc) * P->dt);
            x1 = nrt_svg_px(pn, fmin((double)((c + 1) * spc) * P->dt, P->T));
            y0 = nrt_svg_py(pn, fmin((double)((w + 1) * npr), (double)N));
            y1 = nrt_svg_py(pn, (double)(w * npr));
            fprintf(f, "M%.2f %.2fh%.2fv%.2fh%.2fz", x0, y0, x1 - x0, y1 - y0, x0 - x1);
        }
        fputs("\"/>\n", f);
    }
}

/* Raster of one spike recording: a mark per spike coloured by the declared view it falls
 * in (legend beside the panel), or a density of bins above max_marks. */
static nrt_status fig_raster(Plot *P, const Json *rec)
{
    const char *file = pl_jstr(rec, "file", "?"), *pop = pl_jstr(rec, "population", "?");
    const char *view = pl_jstr(rec, "view", NULL);
    const double Nd = pl_jnum(rec, "population_size", 0);
    int64_t N = Nd >= 1 && Nd < 4e18 ? (int64_t)Nd : 1, n = 0, i, *counts = NULL;
    char name[300], *path, title[400], note[300], ylabel[300], caption[512];
    nrt_panel pn = {80, 40, 790, 320, 0, 0, 0, 0};
    VPart part[MAX_PARTS];
    Reader *r;
    FILE *f;
    double t;
    int dens, np;
    int64_t cols = 0, rows = 0, spc = 1, npr = 1, maxc = 0;

    if (!readable(P, rec))
        return NRT_OK;
    pl_fig_name(P, name, sizeof name, "raster", file);
    if (!(path = pl_path_in(P, file)))
        return NRT_ENOMEM;
    r = pl_rd_open(P->ctx, path, -1, pl_jstr(rec, "group", NULL));
    if (!r) {
        free(path);
        return NRT_EINVAL;
    }
    while (pl_rd_spike(r, &t, &i)) /* count first: marks or density */
        n++;
    if (r->bad) {
        pl_rd_close(r);
        free(path);
        return NRT_EINVAL;
    }
    pl_rd_close(r);
    pn.xhi = P->T;
    pn.yhi = (double)N;
    dens = n > P->max_marks;
    np = dens ? 0 : view_parts(P, rec, N, part);
    if (np)
        pn.w = 1000 - NRT_LEGEND_W - pn.x;
    if (dens) {
        /* bins of a nice width: the smallest 1, 2, 5 x 10^k ms (and neurons) that keeps
         * within DENS_COLS x DENS_ROWS bins */
        spc = (int64_t)llround(nrt_nice(P->T / DENS_COLS, 0) / P->dt);
        while ((double)spc * P->dt * DENS_COLS < P->T)
            spc *= 2;
        spc = spc < 1 ? 1 : spc;
        cols = P->steps > 0 ? (P->steps + spc - 1) / spc : 1;
        npr = N <= DENS_ROWS ? 1 : (int64_t)nrt_nice((double)N / DENS_ROWS, 0);
        rows = (N + npr - 1) / npr;
        counts = calloc((size_t)(cols * rows), sizeof *counts);
        if (!counts) {
            free(path);
            nrt_seterr(P->ctx, "out of memory plotting '%s'", file);
            return NRT_ENOMEM;
        }
    }
    r = dens ? pl_rd_open(P->ctx, path, -1, pl_jstr(rec, "group", NULL)) : NULL;
    if ((dens && !r) || !(f = pl_fig_open(P, name))) {
        pl_rd_close(r);
        free(counts);
        free(path);
        return NRT_EIO;
    }
    if (view)
        snprintf(title, sizeof title, "Spikes of %s (view of %s, %s)", view, pop, file);
    else
        snprintf(title, sizeof title, "Spikes of %s (%s)", pop, file);
    nrt_svg_begin(f, np ? 1000 : 900, 420, title);
    snprintf(ylabel, sizeof ylabel, "neuron index in %s", view ? view : pop);
    nrt_svg_axes(f, &pn, "time (ms)", ylabel, 1);
    if (!dens) {
        raster_marks(P, f, path, rec, &pn, N, part, np);
        snprintf(note, sizeof note, "%lld spikes, one mark each%s", (long long)n,
                 np ? ", coloured by view" : "");
    } else {
        raster_density(P, f, r, &pn, N, spc, npr, cols, rows, counts, &maxc);
        snprintf(note, sizeof note, "%lld spikes (more than %d): drawn as a density, bins of "
                 "%g ms x %lld neurons, darkest = %lld spikes", (long long)n, P->max_marks,
                 (double)spc * P->dt, (long long)npr, (long long)maxc);
    }
    nrt_svg_note(f, pn.x, pn.y - 6, note);
    nrt_svg_end(f);
    pl_rd_close(r);
    free(counts);
    free(path);
    snprintf(caption, sizeof caption, "Spike raster of %s: %s", view ? view : pop, note);
    return pl_fig_close(P, f, name, caption);
}

/* A curve of rates.svg: a spike recording's neurons lo .. hi - 1 (base indices), binned. */
typedef struct Curve {
    const Json *rec;
    const char *view;             /* a declared view's curve (class view-rate), else NULL */
    int64_t lo, hi;
    char label[160];
    double *rate;
} Curve;

/* 1 when rec is a spike recording the figures can read. */
static int spike_rec(const Plot *P, const Json *rec)
{
    return strcmp(pl_jstr(rec, "kind", ""), "spikes") == 0 &&
           (!pl_jstr(rec, "group", NULL) || strstr(P->skipped, pl_jstr(rec, "file", "?")) == NULL);
}

/* The curves of rates.svg, at most cap: every spike recording's (named by its view or
 * population, with the file when several share the name), then every declared view that a
 * recording holds whole and that is not that recording's own range. */
static int rate_curves(const Plot *P, const Json *recs, Curve *c, int cap)
{
    const Json *views = pl_jget(P->man, "views");
    int n = 0;
    for (int k = 0; k < recs->n && n < cap; k++) {
        const Json *rec = &recs->items[k];
        if (!spike_rec(P, rec))
            continue;
        const int64_t off = rec_offset(rec);
        c[n] = (Curve){rec, NULL, off, off + (int64_t)pl_jnum(rec, "population_size", 0), "", NULL};
        snprintf(c[n].label, sizeof c[n].label, "%.100s", rec_label(rec));
        for (int i = 0; i < recs->n; i++)
            if (&recs->items[i] != rec && spike_rec(P, &recs->items[i]) &&
                strcmp(rec_label(&recs->items[i]), rec_label(rec)) == 0)
                snprintf(c[n].label, sizeof c[n].label, "%.60s (%.60s)", rec_label(rec),
                         pl_jstr(rec, "file", "?"));
        n++;
    }
    const int nrec = n;
    for (int v = 0; views && views->type == J_ARR && v < views->n && n < cap; v++) {
        const Json *vw = &views->items[v];
        const double vo = pl_jnum(vw, "offset", -1), vs = pl_jnum(vw, "size", 0);
        if (!(vo >= 0 && vs >= 1 && vo + vs < 4e18))
            continue;
        const int64_t lo = (int64_t)vo, hi = (int64_t)(vo + vs);
        int src = -1, own = 0;
        for (int k = 0; k < nrec; k++) {
            if (strcmp(pl_jstr(c[k].rec, "population", ""), pl_jstr(vw, "population", "")) != 0)
                continue;
            own |= c[k].lo == lo && c[k].hi == hi;
            if (src < 0 && c[k].lo <= lo && c[k].hi >= hi)
                src = k;
        }
        if (src < 0 || own)
            continue;
        c[n] = (Curve){c[src].rec, pl_jstr(vw, "name", "?"), lo, hi, "", NULL};
        snprintf(c[n].label, sizeof c[n].label, "%.60s (view of %.60s)", c[n].view,
                 pl_jstr(vw, "population", "?"));
        n++;
    }
    return n;
}

/* Curve c's rates: its neurons' spikes in bins of spb steps over neurons and bin width. */
static nrt_status curve_rates(Plot *P, Curve *c, int64_t spb, int64_t nb, double *rmax)
{
    const int64_t off = rec_offset(c->rec);
    char *path = pl_path_in(P, pl_jstr(c->rec, "file", "?"));
    double t;
    int64_t i;
    Reader *r;
    if (!(c->rate = calloc((size_t)nb, sizeof *c->rate)) || !path) {
        free(path);
        nrt_seterr(P->ctx, "out of memory plotting rates");
        return NRT_ENOMEM;
    }
    r = pl_rd_open(P->ctx, path, -1, pl_jstr(c->rec, "group", NULL));
    free(path);
    if (!r)
        return NRT_EINVAL;
    while (pl_rd_spike(r, &t, &i)) {
        int64_t s = step_of(P, t);
        if (s >= 0 && s / spb < nb && off + i >= c->lo && off + i < c->hi)
            c->rate[s / spb] += 1;
    }
    const int bad = r->bad;
    pl_rd_close(r);
    if (bad)
        return NRT_EINVAL;
    for (int64_t b = 0; b < nb; b++) {
        int64_t bs = P->steps - b * spb < spb ? P->steps - b * spb : spb;
        double width_s = (double)(bs > 0 ? bs : spb) * P->dt * 1e-3;
        c->rate[b] = c->hi > c->lo ? c->rate[b] / (double)(c->hi - c->lo) / width_s : 0;
        if (c->rate[b] > *rmax)
            *rmax = c->rate[b];
    }
    return NRT_OK;
}

/* Population rates of every spike recording and of every declared view a recording holds,
 * binned by a nice multiple of dt; the legend beside the panel. */
static nrt_status fig_rates(Plot *P, const Json *recs)
{
    nrt_panel pn = {80, 40, 1000 - NRT_LEGEND_W - 80, 320, 0, 0, 0, 0};
    enum { MAX_CURVES = 64 };
    Curve *c = calloc(MAX_CURVES, sizeof *c);
    const char *labels[MAX_CURVES];
    int nc, k;
    int64_t spb, nb, b;
    double w, rmax = 0;
    char note[200], caption[512];
    FILE *f;
    nrt_status st = NRT_OK;

    if (!c) {
        nrt_seterr(P->ctx, "out of memory plotting rates");
        return NRT_ENOMEM;
    }
    nc = rate_curves(P, recs, c, MAX_CURVES);
    w = nrt_nice(P->T / 100.0, 1);
    spb = (int64_t)llround(w / P->dt);
    if (spb < 1)
        spb = 1;
    nb = P->steps > 0 ? (P->steps + spb - 1) / spb : 1;
    for (k = 0; k < nc && st == NRT_OK; k++)
        st = curve_rates(P, &c[k], spb, nb, &rmax);
    if (nc && st == NRT_OK && !(f = pl_fig_open(P, "rates.svg")))
        st = NRT_EIO;
    if (nc && st == NRT_OK) {
        pn.xhi = P->T;
        pn.yhi = rmax > 0 ? rmax * 1.08 : 1.0;
        nrt_svg_begin(f, 1000, 420, "Population rates");
        nrt_svg_axes(f, &pn, "time (ms)", "rate (Hz)", 0);
        for (k = 0; k < nc; k++) {
            fprintf(f, "<path class=\"%s\" data-file=\"", c[k].view ? "view-rate" : "rate");
            nrt_svg_text(f, pl_jstr(c[k].rec, "file", "?"));
            if (c[k].view) {
                fputs("\" data-view=\"", f);
                nrt_svg_text(f, c[k].view);
            }
            fprintf(f, "\" stroke=\"%s\" stroke-width=\"1.5\" fill=\"none\" d=\"M%.2f %.2f",
                    nrt_svg_color(k), nrt_svg_px(&pn, 0), nrt_svg_py(&pn, c[k].rate[0]));
            for (b = 0; b < nb; b++) {
                double te = fmin((double)((b + 1) * spb) * P->dt, P->T);
                fprintf(f, "H%.2f", nrt_svg_px(&pn, te));
                if (b + 1 < nb)
                    fprintf(f, "V%.2f", nrt_svg_py(&pn, c[k].rate[b + 1]));
            }
            fputs("\"/>\n", f);
            labels[k] = c[k].label;
        }
        nrt_svg_legend(f, &pn, nc, labels);
        snprintf(note, sizeof note, "spikes per neuron per second in bins of %g ms",
                 (double)spb * P->dt);
        nrt_svg_note(f, pn.x, pn.y - 6, note);
        nrt_svg_end(f);
        snprintf(caption, sizeof caption, "Population rates, %s", note);
        st = pl_fig_close(P, f, "rates.svg", caption);
    }
    for (k = 0; k < nc; k++)
        free(c[k].rate);
    free(c);
    return st;
}

/* The rows of index.html's population table for the declared views of population `pop`:
 * indented under it, with their neurons in it; spikes "-" where the back end did not count. */
static void index_views(FILE *f, const Json *m, const char *pop, double sim_s)
{
    const Json *views = pl_jget(m, "views");
    for (int k = 0; views && views->type == J_ARR && k < views->n; k++) {
        const Json *v = &views->items[k], *sp = pl_jget(v, "spikes");
        const double n = pl_jnum(v, "size", 0), o = pl_jnum(v, "offset", 0);
        if (strcmp(pl_jstr(v, "population", ""), pop) != 0)
            continue;
        fputs("<tr class=\"view\"><td>&#160;&#160;", f);
        nrt_svg_text(f, pl_jstr(v, "name", "?"));
        fprintf(f, " <small>(%.0f .. %.0f)</small></td><td class=\"n\">%.0f</td>", o, o + n - 1, n);
        if (sp && sp->type == J_NUM)
            fprintf(f, "<td class=\"n\">%.0f</td><td class=\"n\">%.2f</td></tr>\n", sp->num,
                    n > 0 && sim_s > 0 ? sp->num / n / sim_s : 0.0);
        else
            fputs("<td class=\"n\">-</td><td class=\"n\">-</td></tr>\n", f);
    }
}

/* index.html's list items of the files --save-connectivity wrote (manifest "connectivity"). */
static void index_conn(FILE *f, const Json *m)
{
    const Json *conn = pl_jget(m, "connectivity");
    for (int k = 0; conn && conn->type == J_ARR && k < conn->n; k++) {
        const Json *c = &conn->items[k];
        fputs("<li class=\"connectivity\"><a href=\"", f);
        pl_url_text(f, pl_jstr(c, "file", "?"));
        fputs("\">", f);
        nrt_svg_text(f, pl_jstr(c, "file", "?"));
        fputs("</a>: connectivity of ", f);
        nrt_svg_text(f, pl_jstr(c, "projection", "?"));
        fprintf(f, ", %.0f synapses</li>\n", pl_jnum(c, "synapses", 0));
    }
}

/* index.html: the run's summary, a table of populations, every figure, every file. */
static nrt_status write_index(Plot *P)
{
    const Json *m = P->man, *pops = pl_jget(m, "populations"), *recs = pl_jget(m, "recordings"),
               *tm = pl_jget(m, "timing_s");
    double sim_s = (double)P->steps * P->dt * 1e-3;
    FILE *f = pl_fig_open(P, "index.html");
    int k;
    if (!f)
        return NRT_EIO;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
    nrt_svg_text(f, pl_jstr(m, "model", "model"));
    fputs(" run</title>\n<style>body{font-family:DejaVu Sans,Arial,sans-serif;margin:2em;"
          "color:#222}table{border-collapse:collapse;margin:0.5em 0 1.5em}"
          "td,th{border:1px solid #ccc;padding:3px 10px;text-align:left}"
          "td.n{text-align:right}figure{margin:1em 0}img{max-width:100%;border:1px solid #ddd}"
          "figcaption{color:#555}</style>\n</head>\n<body>\n<h1>", f);
    nrt_svg_text(f, pl_jstr(m, "model", "model"));
    fputs("</h1>\n<table class=\"summary\">\n<tr><th>model</th><td>", f);
    nrt_svg_text(f, pl_jstr(m, "model", "?"));
    fputs("</td></tr>\n<tr><th>back end</th><td>", f);
    nrt_svg_text(f, pl_jstr(m, "backend", "?"));
    fprintf(f, "</td></tr>\n<tr><th>seed</th><td>%.0f</td></tr>\n"
               "<tr><th>dt</th><td>%g ms</td></tr>\n"
               "<tr><th>steps</th><td>%lld of %.0f (%g s simulated)%s</td></tr>\n",
            pl_jnum(m, "seed", 0), P->dt, (long long)P->steps, pl_jnum(m, "total_steps", 0), sim_s,
            pl_jnum(m, "interrupted", 0) ? ", stopped early" : "");
    fprintf(f, "<tr><th>timing</th><td>build %.3g s, construct %.3g s, simulate %.3g s, "
               "total %.3g s</td></tr>\n</table>\n",
            pl_jnum(tm, "build", 0), pl_jnum(tm, "construct", 0), pl_jnum(tm, "simulate", 0),
            pl_jnum(tm, "total", 0));
    fputs("<h2>Populations</h2>\n<table class=\"populations\">\n<tr><th>population</th>"
          "<th>size</th><th>spikes</th><th>rate (Hz)</th></tr>\n", f);
    for (k = 0; pops && pops->type == J_ARR && k < pops->n; k++) {
        const Json *p = &pops->items[k];
        double n = pl_jnum(p, "size", 0), sp = pl_jnum(p, "spikes", 0);
        fputs("<tr><td>", f);
        nrt_svg_text(f, pl_jstr(p, "name", "?"));
        fprintf(f, "</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td>"
                   "<td class=\"n\">%.2f</td></tr>\n",
                n, sp, n > 0 && sim_s > 0 ? sp / n / sim_s : 0.0);
        index_views(f, m, pl_jstr(p, "name", "?"), sim_s);
    }
    fputs("</table>\n<h2>Figures</h2>\n", f);
    if (P->skipped[0]) {
        fputs("<p class=\"skipped\">Not plotted: ", f);
        nrt_svg_text(f, P->skipped);
        fputs(" (HDF5 files, which this program cannot read; the simulator's own --plot "
              "draws them).</p>\n", f);
    }
    if (P->nfigs == 0)
        fputs("<p>No recordings to plot.</p>\n", f);
    pl_index_figures(f, P);
    fputs("<h2>Files</h2>\n<ul>\n<li><a href=\"manifest.json\">manifest.json</a></li>\n", f);
    for (k = 0; recs && recs->type == J_ARR && k < recs->n; k++) {
        const Json *r = &recs->items[k];
        fputs("<li><a href=\"", f);
        pl_url_text(f, pl_jstr(r, "file", "?"));
        fputs("\">", f);
        nrt_svg_text(f, pl_jstr(r, "file", "?"));
        fputs("</a>: ", f);
        nrt_svg_text(f, pl_jstr(r, "kind", "?"));
        fputs(" of ", f);
        nrt_svg_text(f, rec_label(r));
        fprintf(f, ", %.0f rows</li>\n", pl_jnum(r, "rows", 0));
    }
    index_conn(f, m);
    fputs("</ul>\n</body>\n</html>\n", f);
    return pl_fig_close(P, f, "index.html", NULL);
}

/* Contract: rt_plot.h. */
nrt_status pl_load_manifest(nrt_ctx *ctx, const char *dir, Json *man)
{
    JParse jp;
    char path[4200], *text;
    memset(man, 0, sizeof *man);
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    if (!(text = pl_slurp(ctx, path, NULL))) {
        nrt_seterr(ctx, "no readable manifest.json in '%s' (is it the output folder of a run?)", dir);
        return NRT_EINVAL;
    }
    jp.s = text;
    jp.depth = 0;
    if (pl_parse_value(&jp, man) != 0 || man->type != J_OBJ) {
        nrt_seterr(ctx, "'%s' is not valid JSON", path);
        pl_json_free(man);
        memset(man, 0, sizeof *man);
        free(text);
        return NRT_EINVAL;
    }
    free(text);
    return NRT_OK;
}

/* Contract: see neurort.h. A folder of instances (its manifest lists "instances": a sweep or
 * a batch) gets the overview of rt_plot_sweep.c. */
nrt_status nrt_plot(nrt_ctx *ctx, const char *dir)
{
    Plot P;
    Json man;
    const Json *recs;
    const char *env = getenv("NEUROC_PLOT_MAX_MARKS");
    nrt_status st = NRT_OK;
    int k;

    memset(&P, 0, sizeof P);
    P.ctx = ctx;
    P.dir = dir;
    P.max_marks = env && atoi(env) > 0 ? atoi(env) : MAX_MARKS;
    if ((st = pl_load_manifest(ctx, dir, &man)) != NRT_OK)
        return st;
    P.man = &man;
    if (pl_jget(&man, "instances")) {
        st = pl_sweep_overview(&P);
        free(P.figs);
        pl_json_free(&man);
        return st;
    }
    P.dt = pl_jnum(&man, "dt_ms", 0);
    {
        const double cs = pl_jnum(&man, "completed_steps", 0);
        P.steps = cs >= 0 && cs < 4e18 ? (int64_t)cs : -1;
    }
    if (!(P.dt > 0) || !isfinite(P.dt) || P.steps < 0) {
        nrt_seterr(ctx, "manifest.json in '%s' has no positive dt_ms or no completed_steps >= 0",
                   dir);
        pl_json_free(&man);
        return NRT_EINVAL;
    }
    P.T = (double)(P.steps > 0 ? P.steps : 1) * P.dt;
    if (!(P.T < 1e300)) {
        nrt_seterr(ctx, "manifest.json in '%s': completed_steps x dt_ms is no finite time", dir);
        pl_json_free(&man);
        return NRT_EINVAL;
    }
    recs = pl_jget(&man, "recordings");
    for (k = 0; recs && recs->type == J_ARR && k < recs->n && st == NRT_OK; k++)
        if (strcmp(pl_jstr(&recs->items[k], "kind", ""), "spikes") == 0)
            st = fig_raster(&P, &recs->items[k]);
    if (st == NRT_OK && recs && recs->type == J_ARR)
        st = fig_rates(&P, recs);
    for (k = 0; recs && recs->type == J_ARR && k < recs->n && st == NRT_OK; k++)
        if (strcmp(pl_jstr(&recs->items[k], "kind", ""), "state") == 0)
            st = pl_fig_state(&P, &recs->items[k]);
    for (k = 0; recs && recs->type == J_ARR && k < recs->n && st == NRT_OK; k++)
        if (strcmp(pl_jstr(&recs->items[k], "kind", ""), "rate") == 0)
            st = pl_fig_rate(&P, &recs->items[k]);
    if (st == NRT_OK)
        st = write_index(&P);
    free(P.figs);
    pl_json_free(&man);
    return st;
}
