/* rt_values.c -- the per-neuron values of `--set P.x=@FILE` (rt_set.c): a .csv of one number
 * a line (blank and '#' lines skipped, a first line that is no number a header) or a .npy
 * 1-D array (or N x 1) of integers or f4/f8; exactly as many as the target's neurons. The
 * file readers are rt_edges.c's (rt_internal.h).
 */
#include "rt_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Store value v of row/line `line` as value k of out (want of them); -1 with errmsg. */
static int value_put(nrt_ctx *ctx, const char *path, long long line, double v, double *out,
                     int64_t k, int64_t want)
{
    if (k >= want) {
        nrt_seterr(ctx, "%s:%lld: more than %lld values: one value per neuron of the target",
                   path, line, (long long)want);
        return -1;
    }
    if (!isfinite(v)) {
        nrt_seterr(ctx, "%s:%lld: the value is not a finite number", path, line);
        return -1;
    }
    out[k] = v;
    return 0;
}

static int64_t values_csv(nrt_ctx *ctx, const char *path, char *p, double *out, int64_t want)
{
    long long line = 0;
    int64_t k = 0;
    int first = 1;
    while (*p) {
        char *nl = strchr(p, '\n'), *f[8], *q = p;
        double v;
        line++;
        if (nl)
            *nl = 0;
        while (*q == ' ' || *q == '\t' || *q == '\r')
            q++;
        if (*q && *q != '#') {
            int n = nrt_csv_split(p, f);
            if (n != 1) {
                nrt_seterr(ctx, "%s:%lld: %d columns: expected one value per line", path, line, n);
                return -1;
            }
            if (!nrt_csv_number(f[0], &v)) {
                if (!first) {
                    nrt_seterr(ctx, "%s:%lld: not a number: '%s'", path, line, f[0]);
                    return -1;
                }
            } else if (value_put(ctx, path, line, v, out, k++, want) != 0)
                return -1;
            first = 0;
        }
        p = nl ? nl + 1 : p + strlen(p);
    }
    return k;
}

static int64_t values_npy(nrt_ctx *ctx, const char *path, const unsigned char *buf, size_t len,
                          double *out, int64_t want)
{
    nrt_npy_array a;
    if (nrt_npy_plain(ctx, path, buf, len, &a) != NRT_OK)
        return -1;
    if (a.ndim == 2 && a.cols != 1) {
        nrt_seterr(ctx, "%s:1: expected a 1-D array of numbers (integers or f4/f8), got a 2-D array", path);
        return -1;
    }
    for (int64_t r = 0; r < a.rows; r++)
        if (value_put(ctx, path, (long long)r + 1,
                      nrt_npy_value(buf + a.data + (size_t)r * (size_t)a.size, a.kind, a.size), out, r,
                      want) != 0)
            return -1;
    return a.rows;
}

/* Contract: neurort.h. */
nrt_status nrt_values_file(nrt_ctx *ctx, const char *path, int64_t want, double **out)
{
    size_t len = 0, plen = strlen(path);
    int64_t n;
    char *text = nrt_file_slurp(ctx, path, &len, "values file");
    double *v;
    *out = NULL;
    if (!text)
        return NRT_EIO;
    v = (double *)nrt_alloc(ctx, (size_t)(want > 0 ? want : 1) * sizeof *v, "per-neuron values");
    if (!v) {
        free(text);
        return NRT_ENOMEM;
    }
    if (plen >= 4 && strcmp(path + plen - 4, ".npy") == 0)
        n = values_npy(ctx, path, (const unsigned char *)text, len, v, want);
    else
        n = nrt_csv_no_nul(ctx, path, text, len) != 0 ? -1 : values_csv(ctx, path, text, v, want);
    free(text);
    if (n >= 0 && n != want)
        nrt_seterr(ctx, "%s: %lld value%s, but the target has %lld neurons (one value per neuron)",
                   path, (long long)n, n == 1 ? "" : "s", (long long)want);
    if (n != want) {
        nrt_free(v);
        return NRT_EINVAL;
    }
    *out = v;
    return NRT_OK;
}
