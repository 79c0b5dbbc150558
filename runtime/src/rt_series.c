/* rt_series.c -- analog input series (`series NAME: UNIT = from_file("f", ...)`,
 * docs/language.md §5.3) read from .csv or .npy files at start-up.
 *
 * nrt_series_file reads the samples, one row per sample, one column (the same value for
 * every neuron) or several (one per neuron of the populations that read it):
 *   .csv  lines "v0[,v1,...]"; blank lines and lines starting with '#' are skipped; a first
 *         line that is not numeric is a header (its names are not read); every line has the
 *         first line's number of columns.
 *   .npy  a 1-D array (one column) or a 2-D array (rows x columns) of little-endian numbers
 *         (i1..i8, u1..u8, f4, f8), C order.
 * Each value is multiplied by `scale` (the declared unit in internal units) in double, must be
 * finite and within float's range (so that a file means the same in both precisions), and is
 * stored as a float (real_size 4) or a double (8). Every problem is reported as
 * "FILE:LINE: what" (a .csv's bad number as "FILE:LINE:COL:", COL the field's first byte;
 * for .npy, LINE is the 1-based row). nrt_series_width checks the columns against a
 * population that reads the series.
 */
#define _POSIX_C_SOURCE 200809L

#include "rt_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct series_rd {
    nrt_ctx *ctx;
    const char *path;
    double scale;
    int real_size;
    int64_t rows, cols, cap;      /* cap in rows */
    unsigned char *v;             /* rows x cols values of real_size bytes */
} series_rd;

/* Append value x (not yet scaled) of row `line` (1-based), field `col` (1-based byte, or 0). */
static nrt_status put(series_rd *r, int64_t k, double x, long long line, long long col)
{
    const double y = x * r->scale;
    if (!isfinite(x) || !isfinite(y) || fabs(y) > FLT_MAX) {
        if (col)
            nrt_seterr(r->ctx, "%s:%lld:%lld: the value %g is %s", r->path, line, col, x,
                       isfinite(x) ? "beyond float's range in the declared unit" : "not a finite number");
        else
            nrt_seterr(r->ctx, "%s:%lld: the value %g is %s", r->path, line, x,
                       isfinite(x) ? "beyond float's range in the declared unit" : "not a finite number");
        return NRT_EINVAL;
    }
    if (r->real_size == 4) {
        const float f = (float)y;
        memcpy(r->v + (size_t)k * 4, &f, 4);
    } else {
        memcpy(r->v + (size_t)k * 8, &y, 8);
    }
    return NRT_OK;
}

/* Room for row r->rows. */
static nrt_status grow(series_rd *r)
{
    if (r->rows < r->cap)
        return NRT_OK;
    int64_t cap = r->cap ? 2 * r->cap : 1024;
    unsigned char *nv = realloc(r->v, (size_t)cap * (size_t)r->cols * (size_t)r->real_size);
    if (!nv) {
        nrt_seterr(r->ctx, "%s: out of memory reading the series", r->path);
        return NRT_ENOMEM;
    }
    r->v = nv;
    r->cap = cap;
    return NRT_OK;
}

/* A decimal number (not C's hexadecimal floats); inf and nan are read, refused by put, and
 * so is a number too large for a double (read as an infinity); one too small is 0 or
 * subnormal, as strtod reads it. */
static int number(const char *s, double *v)
{
    char *end;
    if (!*s || strpbrk(s, "xXpP"))
        return 0;
    *v = strtod(s, &end);
    return *end == 0;
}

/* The fields of line p (NUL-terminated, cut in place at the commas, trimmed): their
 * starts in f (at most max), their count returned. */
static int64_t fields(char *p, char **f, int64_t max)
{
    int64_t n = 0;
    for (;;) {
        char *comma = strchr(p, ','), *end;
        if (comma)
            *comma = 0;
        while (*p == ' ' || *p == '\t')
            p++;
        end = p + strlen(p);
        while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
            *--end = 0;
        if (n < max)
            f[n] = p;
        n++;
        if (!comma)
            return n;
        p = comma + 1;
    }
}

static nrt_status read_csv(series_rd *r, char *text)
{
    long long line = 0;
    char *p = text, **f = NULL;
    int64_t maxf = 0;
    nrt_status st = NRT_OK;
    while (*p && st == NRT_OK) {
        char *nl = strchr(p, '\n'), *q = p, *start = p;
        line++;
        if (nl)
            *nl = 0;
        while (*q == ' ' || *q == '\t' || *q == '\r')
            q++;
        if (*q != 0 && *q != '#') {
            int64_t n = 1, c;
            double v;
            for (q = p; *q; q++)
                n += *q == ',';
            if (n > maxf) {
                char **nf = realloc(f, (size_t)n * sizeof *nf);
                if (!nf) {
                    nrt_seterr(r->ctx, "%s: out of memory reading the series", r->path);
                    st = NRT_ENOMEM;
                    break;
                }
                f = nf;
                maxf = n;
            }
            fields(p, f, maxf);
            if (r->cols == 0) {
                r->cols = n;
                if (!number(f[0], &v)) {                 /* a header */
                    p = nl ? nl + 1 : p + strlen(p);
                    continue;
                }
            }
            if (n != r->cols) {
                nrt_seterr(r->ctx, "%s:%lld: %lld column%s, but the file has %lld", r->path, line,
                           (long long)n, n == 1 ? "" : "s", (long long)r->cols);
                st = NRT_EINVAL;
                break;
            }
            if ((st = grow(r)) != NRT_OK)
                break;
            for (c = 0; c < n && st == NRT_OK; c++) {
                if (!number(f[c], &v)) {
                    nrt_seterr(r->ctx, "%s:%lld:%lld: not a number: '%s'", r->path, line,
                               (long long)(f[c] - start) + 1, f[c]);
                    st = NRT_EINVAL;
                } else if (isinf(v) && !strpbrk(f[c], "iI")) {   /* past a double's range */
                    nrt_seterr(r->ctx, "%s:%lld:%lld: the value %s is beyond float's range in the "
                               "declared unit", r->path, line, (long long)(f[c] - start) + 1, f[c]);
                    st = NRT_EINVAL;
                } else {
                    st = put(r, r->rows * r->cols + c, v, line, (long long)(f[c] - start) + 1);
                }
            }
            r->rows++;
        }
        p = nl ? nl + 1 : p + strlen(p);
    }
    free(f);
    if (st == NRT_OK && r->rows == 0) {
        nrt_seterr(r->ctx, "%s:%lld: no samples (a series has at least one line of values)", r->path,
                   line ? line : 1);
        st = NRT_EINVAL;
    }
    return st;
}

static nrt_status read_npy(series_rd *r, const unsigned char *buf, size_t len)
{
    nrt_npy_array a;
    nrt_status st = nrt_npy_plain(r->ctx, r->path, buf, len, &a);
    int64_t k;
    if (st != NRT_OK)
        return st;
    if (a.rows == 0 || a.cols == 0) {
        nrt_seterr(r->ctx, "%s:1: no samples (the array has %lld rows and %lld columns)", r->path,
                   (long long)a.rows, (long long)a.cols);
        return NRT_EINVAL;
    }
    r->cols = a.cols;
    r->cap = a.rows;
    r->v = malloc((size_t)a.rows * (size_t)a.cols * (size_t)r->real_size);
    if (!r->v) {
        nrt_seterr(r->ctx, "%s: out of memory reading the series", r->path);
        return NRT_ENOMEM;
    }
    r->rows = a.rows;
    for (k = 0; k < a.rows * a.cols && st == NRT_OK; k++)
        st = put(r, k, nrt_npy_value(buf + a.data + (size_t)k * (size_t)a.size, a.kind, a.size),
                 (long long)(k / a.cols) + 1, 0);
    return st;
}

/* Contract: neurort.h. */
nrt_status nrt_series_file(nrt_ctx *ctx, const char *path, double scale, int real_size,
                           void **values, int64_t *rows, int64_t *cols)
{
    series_rd r;
    size_t len = 0, plen = strlen(path);
    char *text;
    nrt_status st;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.path = path;
    r.scale = scale;
    r.real_size = real_size == 4 ? 4 : 8;
    *values = NULL;
    *rows = *cols = 0;
    text = nrt_file_slurp(ctx, path, &len, "series file");
    if (!text)
        return NRT_EIO;
    if (plen >= 4 && strcmp(path + plen - 4, ".npy") == 0)
        st = read_npy(&r, (const unsigned char *)text, len);
    else
        st = nrt_csv_no_nul(ctx, path, text, len) != 0 ? NRT_EINVAL : read_csv(&r, text);
    free(text);
    if (st == NRT_OK) {
        const size_t bytes = (size_t)r.rows * (size_t)r.cols * (size_t)r.real_size;
        *values = nrt_alloc(ctx, bytes, "series values");
        if (!*values)
            st = NRT_ENOMEM;
        else
            memcpy(*values, r.v, bytes);
    }
    free(r.v);
    if (st == NRT_OK) {
        *rows = r.rows;
        *cols = r.cols;
    }
    return st;
}

/* Contract: neurort.h. */
nrt_status nrt_series_width(nrt_ctx *ctx, const char *path, int64_t cols, const char *pop, int64_t n)
{
    if (cols == 1 || cols == n)
        return NRT_OK;
    nrt_seterr(ctx, "%s:1: %lld columns, but population %s has %lld neuron%s (a series file has one "
               "column, the same for every neuron, or one per neuron)", path, (long long)cols, pop,
               (long long)n, n == 1 ? "" : "s");
    return NRT_EINVAL;
}
