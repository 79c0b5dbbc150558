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
/* Traces shown per state figure panel. */
#define MAX_TRACES 8


/* {===== Figures ===== */

typedef struct Fig {
    char file[256];
    char caption[512];
} Fig;

typedef struct Plot {
    nrt_ctx *ctx;
    const char *dir;
    const Json *man;
    double dt;                    /* ms */
    int64_t steps;                /* completed steps */
    double T;                     /* simulated ms shown on time axes (>= dt) */
    Fig *figs;
    int nfigs;
    int max_marks;
    char skipped[1024];           /* .h5 recordings this program cannot read */
} Plot;

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

static char *path_in(const Plot *P, const char *name)
{
    size_t n = strlen(P->dir) + strlen(name) + 2;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s/%s", P->dir, name);
    else
        nrt_seterr(P->ctx, "out of memory");
    return s;
}

/* Open <dir>/<name>.tmp for writing; finish with fig_close. */
static FILE *fig_open(Plot *P, const char *name)
{
    char *path = path_in(P, name), tmp[4200];
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

/* Close f and rename <name>.tmp to <name>; with caption (not NULL) list it in index.html. */
static nrt_status fig_close(Plot *P, FILE *f, const char *name, const char *caption)
{
    char *path = path_in(P, name), tmp[4200];
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
static void url_text(FILE *f, const char *s)
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

/* The figure name <prefix>_<recording file without its extension>.svg, or with the
 * extension as "_npy" when another recording has the same stem (p.npy and p.h5). */
static void fig_name(const Plot *P, char *out, size_t n, const char *prefix, const char *file)
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

/* Raster of one spike recording: a mark per spike, or a density of bins above max_marks. */
static nrt_status fig_raster(Plot *P, const Json *rec)
{
    const char *file = pl_jstr(rec, "file", "?"), *pop = pl_jstr(rec, "population", "?");
    const double Nd = pl_jnum(rec, "population_size", 0);
    int64_t N = Nd >= 1 && Nd < 4e18 ? (int64_t)Nd : 1, n = 0, i, *counts = NULL;
    char name[300], *path, title[400], note[300], ylabel[300], caption[512];
    nrt_panel pn = {80, 40, 790, 320, 0, 0, 0, 0};
    Reader *r;
    FILE *f;
    double t;
    int dens, level;
    int64_t cols = 0, rows = 0, spc = 1, npr = 1, maxc = 0;

    if (!readable(P, rec))
        return NRT_OK;
    if (N < 1)
        N = 1;
    fig_name(P, name, sizeof name, "raster", file);
    if (!(path = path_in(P, file)))
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
    r = pl_rd_open(P->ctx, path, -1, pl_jstr(rec, "group", NULL));
    free(path);
    if (!r || !(f = fig_open(P, name))) {
        pl_rd_close(r);
        free(counts);
        return NRT_EIO;
    }
    snprintf(title, sizeof title, "Spikes of %s (%s)", pop, file);
    nrt_svg_begin(f, 900, 420, title);
    snprintf(ylabel, sizeof ylabel, "neuron index in %s", pop);
    nrt_svg_axes(f, &pn, "time (ms)", ylabel, 1);
    if (!dens) {
        double mh = pn.h / (double)N * 0.8;
        mh = mh < 1.5 ? 1.5 : mh > 6 ? 6 : mh;
        fprintf(f, "<path class=\"spikes\" data-spikes=\"%lld\" stroke=\"%s\" "
                   "stroke-width=\"1.2\" fill=\"none\" d=\"", (long long)n, nrt_svg_color(0));
        while (pl_rd_spike(r, &t, &i))
            fprintf(f, "M%.2f %.2fv%.2f", nrt_svg_px(&pn, t),
                    nrt_svg_py(&pn, (double)i + 0.5) - mh / 2, mh);
        fputs("\"/>\n", f);
        snprintf(note, sizeof note, "%lld spikes, one mark each", (long long)n);
    } else {
        while (pl_rd_spike(r, &t, &i)) {
            int64_t c = step_of(P, t) / spc, w = i / npr;
            if (c >= 0 && c < cols && w >= 0 && w < rows && ++counts[w * cols + c] > maxc)
                maxc = counts[w * cols + c];
        }
        for (level = 1; level <= 8; level++) {
            int64_t k;
            fprintf(f, "<path class=\"density\" fill=\"%s\" fill-opacity=\"%.3f\" d=\"",
                    nrt_svg_color(0), level / 8.0);
            for (k = 0; k < cols * rows; k++) {
                int64_t c = k % cols, w = k / cols;
                double x0, x1, y0, y1;
                if (counts[k] == 0 || (int)ceil(8.0 * (double)counts[k] / (double)maxc) != level)
                    continue;
                x0 = nrt_svg_px(&pn, (double)(c * spc) * P->dt);
                x1 = nrt_svg_px(&pn, fmin((double)((c + 1) * spc) * P->dt, P->T));
                y0 = nrt_svg_py(&pn, fmin((double)((w + 1) * npr), (double)N));
                y1 = nrt_svg_py(&pn, (double)(w * npr));
                fprintf(f, "M%.2f %.2fh%.2fv%.2fh%.2fz", x0, y0, x1 - x0, y1 - y0, x0 - x1);
            }
            fputs("\"/>\n", f);
        }
        snprintf(note, sizeof note, "%lld spikes (more than %d): drawn as a density, bins of "
                 "%g ms x %lld neurons, darkest = %lld spikes", (long long)n, P->max_marks,
                 (double)spc * P->dt, (long long)npr, (long long)maxc);
    }
    nrt_svg_note(f, pn.x, pn.y - 6, note);
    nrt_svg_end(f);
    pl_rd_close(r);
    free(counts);
    snprintf(caption, sizeof caption, "Spike raster of %s: %s", pop, note);
    return fig_close(P, f, name, caption);
}

/* Population rates of every spike recording, binned by a nice multiple of dt. */
static nrt_status fig_rates(Plot *P, const Json *recs)
{
    nrt_panel pn = {80, 40, 790, 320, 0, 0, 0, 0};
    int nr = 0, k;
    int64_t spb, nb, b;
    double w, rmax = 0, **rates;
    const char **labels, **files;
    char note[200], caption[512], (*lab)[128];
    FILE *f;
    nrt_status st = NRT_OK;

    for (k = 0; k < recs->n; k++)
        if (strcmp(pl_jstr(&recs->items[k], "kind", ""), "spikes") == 0 &&
            (!pl_jstr(&recs->items[k], "group", NULL) || strstr(P->skipped, pl_jstr(&recs->items[k], "file", "?")) == NULL))
            nr++;
    if (nr == 0)
        return NRT_OK;
    w = nrt_nice(P->T / 100.0, 1);
    spb = (int64_t)llround(w / P->dt);
    if (spb < 1)
        spb = 1;
    nb = P->steps > 0 ? (P->steps + spb - 1) / spb : 1;
    rates = calloc((size_t)nr, sizeof *rates);
    labels = calloc((size_t)nr, sizeof *labels);
    files = calloc((size_t)nr, sizeof *files);
    lab = calloc((size_t)nr, sizeof *lab);
    if (!rates || !labels || !files || !lab) {
        free(rates);
        free(labels);
        free(files);
        free(lab);
        nrt_seterr(P->ctx, "out of memory plotting rates");
        return NRT_ENOMEM;
    }
    nr = 0;
    for (k = 0; k < recs->n && st == NRT_OK; k++) {
        const Json *rec = &recs->items[k];
        double N = pl_jnum(rec, "population_size", 0), t;
        int64_t i;
        char *path;
        Reader *r;
        if (strcmp(pl_jstr(rec, "kind", ""), "spikes") != 0 ||
            (pl_jstr(rec, "group", NULL) && strstr(P->skipped, pl_jstr(rec, "file", "?"))))
            continue;
        /* the population names the curve, with the file when it has several recordings */
        files[nr] = pl_jstr(rec, "file", "?");
        snprintf(lab[nr], sizeof lab[nr], "%.100s", pl_jstr(rec, "population", "?"));
        for (i = 0; i < recs->n; i++)
            if (&recs->items[i] != rec &&
                strcmp(pl_jstr(&recs->items[i], "kind", ""), "spikes") == 0 &&
                strcmp(pl_jstr(&recs->items[i], "population", ""), lab[nr]) == 0)
                snprintf(lab[nr], sizeof lab[nr], "%.60s (%.60s)", pl_jstr(rec, "population", "?"),
                         files[nr]);
        labels[nr] = lab[nr];
        rates[nr] = calloc((size_t)nb, sizeof **rates);
        if (!rates[nr++] || !(path = path_in(P, pl_jstr(rec, "file", "?")))) {
            nrt_seterr(P->ctx, "out of memory plotting rates");
            st = NRT_ENOMEM;
            break;
        }
        r = pl_rd_open(P->ctx, path, -1, pl_jstr(rec, "group", NULL));
        free(path);
        if (!r) {
            st = NRT_EINVAL;
            break;
        }
        while (pl_rd_spike(r, &t, &i)) {
            int64_t s = step_of(P, t);
            if (s >= 0 && s / spb < nb)
                rates[nr - 1][s / spb] += 1;
        }
        if (r->bad)
            st = NRT_EINVAL;
        pl_rd_close(r);
        if (st != NRT_OK)
            break;
        for (b = 0; b < nb; b++) {
            int64_t bs = P->steps - b * spb < spb ? P->steps - b * spb : spb;
            double width_s = (double)(bs > 0 ? bs : spb) * P->dt * 1e-3;
            rates[nr - 1][b] = N > 0 ? rates[nr - 1][b] / N / width_s : 0;
            if (rates[nr - 1][b] > rmax)
                rmax = rates[nr - 1][b];
        }
    }
    if (st == NRT_OK && !(f = fig_open(P, "rates.svg")))
        st = NRT_EIO;
    if (st == NRT_OK) {
        pn.xhi = P->T;
        pn.yhi = rmax > 0 ? rmax * 1.08 : 1.0;
        nrt_svg_begin(f, 900, 420, "Population rates");
        nrt_svg_axes(f, &pn, "time (ms)", "rate (Hz)", 0);
        for (k = 0; k < nr; k++) {
            fprintf(f, "<path class=\"rate\" data-file=\"");
            nrt_svg_text(f, files[k]);
            fprintf(f, "\" stroke=\"%s\" stroke-width=\"1.5\" fill=\"none\" d=\"M%.2f %.2f",
                    nrt_svg_color(k), nrt_svg_px(&pn, 0), nrt_svg_py(&pn, rates[k][0]));
            for (b = 0; b < nb; b++) {
                double te = fmin((double)((b + 1) * spb) * P->dt, P->T);
                fprintf(f, "H%.2f", nrt_svg_px(&pn, te));
                if (b + 1 < nb)
                    fprintf(f, "V%.2f", nrt_svg_py(&pn, rates[k][b + 1]));
            }
            fputs("\"/>\n", f);
        }
        nrt_svg_legend(f, &pn, nr, labels);
        snprintf(note, sizeof note, "spikes per neuron per second in bins of %g ms",
                 (double)spb * P->dt);
        nrt_svg_note(f, pn.x, pn.y - 6, note);
        nrt_svg_end(f);
        snprintf(caption, sizeof caption, "Population rates, %s", note);
        st = fig_close(P, f, "rates.svg", caption);
    }
    for (k = 0; k < nr; k++)
        free(rates[k]);
    free(rates);
    free(labels);
    free(files);
    free(lab);
    return st;
}

static nrt_status state_read(Plot *P, const char *file, const char *path, int cols,
                             double **data, int64_t *rows);

/* One rate recording (`record rate of T bin B`): its rows as a staircase, each bin's rate
 * from the bin's start to its end (t), in rate_<rec>.svg. */
static nrt_status fig_rate_rec(Plot *P, const Json *rec)
{
    const char *file = pl_jstr(rec, "file", "?");
    nrt_panel pn = {80, 40, 790, 320, 0, 0, 0, 0};
    double *data = NULL, rmax = 0, bin = pl_jnum(rec, "bin_ms", P->dt);
    char name[300], *path, note[300], caption[512];
    int64_t rows = 0, b;
    nrt_status st;
    FILE *f;
    fig_name(P, name, sizeof name, "rate", file);
    if (!(path = path_in(P, file)))
        return NRT_ENOMEM;
    st = state_read(P, file, path, 1, &data, &rows);
    free(path);
    if (st != NRT_OK)
        return st;
    for (b = 0; b < rows; b++)
        if (isfinite(data[2 * b + 1]) && data[2 * b + 1] > rmax)
            rmax = data[2 * b + 1];
    if (!(f = fig_open(P, name))) {
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
    return fig_close(P, f, name, caption);
}

/* One state recording: a panel per variable, a trace per neuron (the first MAX_TRACES);
 * longer than two samples per pixel, each pixel column shows its minimum and maximum. */
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

static nrt_status fig_state(Plot *P, const Json *rec)
{
    const char *file = pl_jstr(rec, "file", "?"), *pop = pl_jstr(rec, "population", "?");
    const Json *vars = pl_jget(rec, "variables"), *units = pl_jget(rec, "units"),
               *neurons = pl_jget(rec, "neurons"), *pops;
    const char *what = "synapse";
    int nv = vars && vars->type == J_ARR ? vars->n : 0;
    int ni = neurons && neurons->type == J_ARR ? neurons->n : 0;
    int cols = nv * ni, shown = ni < MAX_TRACES ? ni : MAX_TRACES, v, k;
    int64_t rows = 0;
    double *data = NULL;
    char name[300], *path, title[400], ylabel[300], note[300], caption[512];
    const char *labels[MAX_TRACES];
    char lab[MAX_TRACES][48];
    nrt_status st;
    FILE *f;
    int H = 60 + nv * 280;

    if (nv == 0 || ni == 0)
        return NRT_OK;
    fig_name(P, name, sizeof name, "state", file);
    if (!(path = path_in(P, file)))
        return NRT_ENOMEM;
    st = state_read(P, file, path, cols, &data, &rows);
    free(path);
    if (st != NRT_OK)
        return st;
    if (!(f = fig_open(P, name))) {
        free(data);
        return NRT_EIO;
    }
    snprintf(title, sizeof title, "Recorded state of %s (%s)", pop, file);
    nrt_svg_begin(f, 900, H, title);
    /* `record w of PROJ` names the projection as its population: its columns are synapses */
    pops = pl_jget(P->man, "populations");
    for (k = 0; pops && pops->type == J_ARR && k < pops->n; k++)
        if (strcmp(pl_jstr(&pops->items[k], "name", ""), pop) == 0)
            what = "neuron";
    for (k = 0; k < shown; k++) {
        const Json *nk = &neurons->items[k];
        snprintf(lab[k], sizeof lab[k], "%s %lld", what,
                 (long long)(nk->type == J_NUM ? nk->num : k));
        labels[k] = lab[k];
    }
    for (v = 0; v < nv; v++) {
        const char *vn = vars->items[v].type == J_STR ? vars->items[v].str : "?";
        const char *u = pl_jstr(units, vn, "1");
        nrt_panel pn = {80, 40 + 280.0 * v, 790, 210, 0, P->T, 0, 0};
        double lo = INFINITY, hi = -INFINITY;
        fputs("<g class=\"panel\" data-variable=\"", f);
        nrt_svg_text(f, vn);
        fputs("\">\n", f);
        int decim = (double)rows > 2 * pn.w;
        state_range(data, rows, cols, v * ni, shown, &lo, &hi);
        pn.ylo = lo;
        pn.yhi = hi;
        if (strcmp(u, "1") == 0)
            snprintf(ylabel, sizeof ylabel, "%s", vn);
        else
            snprintf(ylabel, sizeof ylabel, "%s (%s)", vn, u);
        nrt_svg_axes(f, &pn, "time (ms)", ylabel, 0);
        for (k = 0; k < shown; k++) {
            fprintf(f, "<path class=\"trace\" data-variable=\"");
            nrt_svg_text(f, vn);
            fprintf(f, "\" stroke=\"%s\" stroke-width=\"1.2\" fill=\"none\" d=\"",
                    nrt_svg_color(k));
            state_trace(f, &pn, data, rows, cols, 1 + v * ni + k, decim);
            fputs("\"/>\n", f);
        }
        nrt_svg_legend(f, &pn, shown, labels);
        snprintf(note, sizeof note, "%lld samples every %g ms%s%s", (long long)rows,
                 pl_jnum(rec, "every_steps", 1) * P->dt,
                 decim ? "; min and max per pixel column" : "",
                 shown < ni ? (what[0] == 'n' ? "; the first 8 neurons" : "; the first 8 synapses")
                            : "");
        nrt_svg_note(f, pn.x, pn.y - 6, note);
        fputs("</g>\n", f);
    }
    nrt_svg_end(f);
    free(data);
    snprintf(caption, sizeof caption, "State of %s (%s): %s", pop, file, note);
    return fig_close(P, f, name, caption);
}

/* ===== Figures =====} */

/* index.html: the run's summary, a table of populations, every figure, every file. */
static nrt_status write_index(Plot *P)
{
    const Json *m = P->man, *pops = pl_jget(m, "populations"), *recs = pl_jget(m, "recordings"),
               *tm = pl_jget(m, "timing_s");
    double sim_s = (double)P->steps * P->dt * 1e-3;
    FILE *f = fig_open(P, "index.html");
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
    for (k = 0; k < P->nfigs; k++) {
        fputs("<figure><a href=\"", f);
        url_text(f, P->figs[k].file);
        fputs("\"><img src=\"", f);
        url_text(f, P->figs[k].file);
        fputs("\" alt=\"", f);
        nrt_svg_text(f, P->figs[k].caption);
        fputs("\"></a><figcaption>", f);
        nrt_svg_text(f, P->figs[k].caption);
        fputs("</figcaption></figure>\n", f);
    }
    fputs("<h2>Files</h2>\n<ul>\n<li><a href=\"manifest.json\">manifest.json</a></li>\n", f);
    for (k = 0; recs && recs->type == J_ARR && k < recs->n; k++) {
        const Json *r = &recs->items[k];
        fputs("<li><a href=\"", f);
        url_text(f, pl_jstr(r, "file", "?"));
        fputs("\">", f);
        nrt_svg_text(f, pl_jstr(r, "file", "?"));
        fputs("</a>: ", f);
        nrt_svg_text(f, pl_jstr(r, "kind", "?"));
        fputs(" of ", f);
        nrt_svg_text(f, pl_jstr(r, "population", "?"));
        fprintf(f, ", %.0f rows</li>\n", pl_jnum(r, "rows", 0));
    }
    fputs("</ul>\n</body>\n</html>\n", f);
    return fig_close(P, f, "index.html", NULL);
}

/* Contract: see neurort.h. */
nrt_status nrt_plot(nrt_ctx *ctx, const char *dir)
{
    Plot P;
    Json man;
    JParse jp;
    char *mpath, *text;
    const Json *recs;
    const char *env = getenv("NEUROC_PLOT_MAX_MARKS");
    nrt_status st = NRT_OK;
    int k;

    memset(&P, 0, sizeof P);
    P.ctx = ctx;
    P.dir = dir;
    P.max_marks = env && atoi(env) > 0 ? atoi(env) : MAX_MARKS;
    if (!(mpath = path_in(&P, "manifest.json")))
        return NRT_ENOMEM;
    text = pl_slurp(ctx, mpath, NULL);
    if (!text) {
        nrt_seterr(ctx, "no readable manifest.json in '%s' (is it the output folder of a run?)",
                   dir);
        free(mpath);
        return NRT_EINVAL;
    }
    jp.s = text;
    jp.depth = 0;
    if (pl_parse_value(&jp, &man) != 0 || man.type != J_OBJ) {
        nrt_seterr(ctx, "'%s' is not valid JSON", mpath);
        pl_json_free(&man);
        free(text);
        free(mpath);
        return NRT_EINVAL;
    }
    free(text);
    free(mpath);
    P.man = &man;
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
            st = fig_state(&P, &recs->items[k]);
    for (k = 0; recs && recs->type == J_ARR && k < recs->n && st == NRT_OK; k++)
        if (strcmp(pl_jstr(&recs->items[k], "kind", ""), "rate") == 0)
            st = fig_rate_rec(&P, &recs->items[k]);
    if (st == NRT_OK)
        st = write_index(&P);
    free(P.figs);
    pl_json_free(&man);
    return st;
}
