/* rt_edges.c -- from_file connectivity: edge lists read from .csv or .npy files.
 *
 * nrt_conn_file reads a whole file, checks every edge (indices in range, numbers finite)
 * and returns the synapses as CSR by presynaptic row, posts ascending (a stable sort, so
 * repeated pairs keep the file's order), with the optional weight and delay columns in the
 * same order. Every problem is reported as "FILE:LINE: what" (for .npy, LINE is the
 * 1-based row), in ctx->errmsg. The layouts:
 *   .csv  lines "pre,post[,w[,delay]]"; blank lines and lines starting with '#' are skipped;
 *         a first line that is not numeric is a header naming the columns (pre, post, w,
 *         delay, in any order; other names are errors). Without a header the columns are
 *         pre, post, w, delay, as many as the first line has; every line has that many.
 *   .npy  a 2-D array of 2 to 4 columns (pre, post, w, delay), or a 1-D structured array
 *         with fields pre and post and optionally w and delay; little-endian integers
 *         (i1..i8, u1..u8) and floats (f4, f8); C order. The header is parsed as the Python
 *         dict NumPy writes (npy_header); what NumPy would refuse, and Fortran order, is refused.
 * A .csv holding a NUL byte, and a path that is no regular file, are refused.
 * nrt_spike_file reads a spike file (spike when from_file) into CSR by step:
 *   .csv  a header line naming the columns time and index (either order), then lines
 *         "time,index" (time in ms); blank lines and '#' lines skipped.
 *   .npy  a 1-D structured array with fields t (float, ms) and i (integer), or an N x 2
 *         array of (t, i).
 *   A time t is in step s = floor(t / dt), where t / dt within 1e-9 (relative) of an
 *   integer counts as that integer; times of steps >= n_steps are dropped; a neuron listed
 *   twice in one step spikes once. Negative or non-finite times and indices outside
 *   0 .. n-1 are errors.
 * (nrt_conn_save, which writes a projection as built, is in rt_recsyn.c.)
 */
#define _POSIX_C_SOURCE 200809L

#include "rt_internal.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { C_PRE, C_POST, C_W, C_D, C_COUNT };
static const char *const col_names[C_COUNT] = {"pre", "post", "w", "delay"};

/* The edges as read, in file order. */
typedef struct edges {
    nrt_ctx *ctx;
    const char *path;
    int64_t n, cap;
    double *v[C_COUNT];           /* column values */
    int has[C_COUNT];             /* the file has the column */
    int64_t *line;                /* file line (csv) or row (npy) of each edge, for messages */
} edges;

static int edges_push(edges *e, const double *row, const int *have, int64_t line)
{
    int c;
    if (e->n == e->cap) {
        int64_t cap = e->cap ? 2 * e->cap : 1024;
        for (c = 0; c < C_COUNT; c++) {
            double *nv;
            if (!have[c])
                continue;
            nv = realloc(e->v[c], (size_t)cap * sizeof *nv);
            if (!nv)
                goto oom;
            e->v[c] = nv;
        }
        {
            int64_t *nl = realloc(e->line, (size_t)cap * sizeof *nl);
            if (!nl)
                goto oom;
            e->line = nl;
        }
        e->cap = cap;
    }
    for (c = 0; c < C_COUNT; c++)
        if (have[c])
            e->v[c][e->n] = row[c];
    e->line[e->n++] = line;
    return 0;
oom:
    nrt_seterr(e->ctx, "%s: out of memory reading edges", e->path);
    return -1;
}

static void edges_free(edges *e)
{
    int c;
    for (c = 0; c < C_COUNT; c++)
        free(e->v[c]);
    free(e->line);
}

/* The whole file in memory (NUL-terminated); NULL with errmsg. Only a regular file: a
 * folder or a device has no length to read (a folder's "size" was once asked of malloc). */
static char *slurp(nrt_ctx *ctx, const char *path, size_t *len, const char *what)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    struct stat sb;
    size_t n;
    if (!f) {
        nrt_seterr(ctx, "%s: cannot open %s: %s", path, what, strerror(errno));
        return NULL;
    }
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        nrt_seterr(ctx, "%s: cannot read %s: %s", path, what,
                   S_ISDIR(sb.st_mode) ? "it is a folder" : "not a regular file");
        fclose(f);
        return NULL;
    }
    n = (size_t)sb.st_size;
    buf = (uint64_t)sb.st_size < SIZE_MAX ? malloc(n + 1) : NULL;
    if (!buf || fread(buf, 1, n, f) != n) {
        nrt_seterr(ctx, "%s: cannot read %s (%lld bytes)", path, what, (long long)sb.st_size);
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    buf[n] = 0;
    *len = n;
    return buf;
}

/* A text file must hold no NUL byte: the readers would take it for the end of the file.
 * 0, or -1 with "FILE:LINE: ..." in errmsg. */
static int csv_no_nul(nrt_ctx *ctx, const char *path, const char *text, size_t len)
{
    const char *z = memchr(text, 0, len), *p;
    long long line = 1;
    if (!z)
        return 0;
    for (p = text; p < z; p++)
        line += *p == '\n';
    nrt_seterr(ctx, "%s:%lld: a NUL byte (byte %lld): a .csv file is text", path, line,
               (long long)(z - text) + 1);
    return -1;
}

/* Split a line (NUL-terminated, no newline) at commas into at most 8 trimmed fields. */
static int split(char *s, char **f)
{
    int n = 0;
    for (;;) {
        char *comma = strchr(s, ',');
        char *end;
        if (comma)
            *comma = 0;
        while (*s == ' ' || *s == '\t')
            s++;
        end = s + strlen(s);
        while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
            *--end = 0;
        if (n < 8)
            f[n] = s;
        n++;
        if (!comma)
            return n;
        s = comma + 1;
    }
}

/* A decimal number as the language writes them (and inf or nan, refused later with their
 * own message); not C's hexadecimal floats, which strtod would take. */
static int parse_num(const char *s, double *v)
{
    char *end;
    if (!*s || strpbrk(s, "xXpP"))
        return 0;
    errno = 0;
    *v = strtod(s, &end);
    return *end == 0 && errno == 0;
}

static nrt_status read_csv(edges *e, char *text)
{
    int order[C_COUNT], ncols = 0, c;
    int have[C_COUNT] = {0, 0, 0, 0};
    int64_t line = 0;
    char *p = text;
    while (*p) {
        char *nl = strchr(p, '\n'), *f[8];
        double row[C_COUNT] = {0, 0, 0, 0};
        int n;
        line++;
        if (nl)
            *nl = 0;
        {
            char *q = p;
            while (*q == ' ' || *q == '\t' || *q == '\r')
                q++;
            if (*q == 0 || *q == '#') {
                p = nl ? nl + 1 : p + strlen(p);
                continue;
            }
        }
        n = split(p, f);
        if (ncols == 0) {
            double v;
            if (n < 2 || n > 4) {
                nrt_seterr(e->ctx, "%s:%lld: expected 2 to 4 columns (pre,post[,w[,delay]]), "
                           "got %d", e->path, (long long)line, n);
                return NRT_EINVAL;
            }
            ncols = n;
            if (!parse_num(f[0], &v)) {          /* a header */
                for (c = 0; c < n; c++) {
                    int k;
                    for (k = 0; k < C_COUNT && strcmp(f[c], col_names[k]) != 0; k++)
                        ;
                    if (k == C_COUNT || have[k]) {
                        nrt_seterr(e->ctx, "%s:%lld: %s column name '%s' (columns are pre, "
                                   "post, w, delay)", e->path, (long long)line,
                                   k == C_COUNT ? "unknown" : "repeated", f[c]);
                        return NRT_EINVAL;
                    }
                    order[c] = k;
                    have[k] = 1;
                }
                if (!have[C_PRE] || !have[C_POST]) {
                    nrt_seterr(e->ctx, "%s:%lld: the header needs columns 'pre' and 'post'",
                               e->path, (long long)line);
                    return NRT_EINVAL;
                }
                p = nl ? nl + 1 : p + strlen(p);
                continue;
            }
            for (c = 0; c < n; c++) {
                order[c] = c;
                have[c] = 1;
            }
        }
        if (n != ncols) {
            nrt_seterr(e->ctx, "%s:%lld: %d column%s, but the file has %d", e->path,
                       (long long)line, n, n == 1 ? "" : "s", ncols);
            return NRT_EINVAL;
        }
        for (c = 0; c < n; c++) {
            if (!parse_num(f[c], &row[order[c]])) {
                nrt_seterr(e->ctx, "%s:%lld: column %d ('%s') is not a number: '%s'", e->path,
                           (long long)line, c + 1, col_names[order[c]], f[c]);
                return NRT_EINVAL;
            }
        }
        if (edges_push(e, row, have, line) != 0)
            return NRT_ENOMEM;
        p = nl ? nl + 1 : p + strlen(p);
    }
    if (ncols == 0) {
        nrt_seterr(e->ctx, "%s:%lld: no edges (and no header)", e->path, (long long)line);
        return NRT_EINVAL;
    }
    memcpy(e->has, have, sizeof have);
    return NRT_OK;
}

/* One field of an .npy row: kind 'i', 'u' or 'f', size in bytes. */
typedef struct npy_field {
    int col;                      /* C_PRE .. C_D */
    char kind;
    int size;
    size_t offset;
} npy_field;

/* Parse a descr "<f8" into kind and size; 0 if unsupported. */
static int npy_type(const char *d, char *kind, int *size)
{
    if ((d[0] != '<' && d[0] != '|') || !d[1] || !strchr("iuf", d[1]) || !d[2] || d[3])
        return 0;
    *kind = d[1];
    *size = d[2] - '0';
    if (*kind == 'f')
        return *size == 4 || *size == 8;
    return *size == 1 || *size == 2 || *size == 4 || *size == 8;
}

static double npy_value(const unsigned char *p, char kind, int size)
{
    uint64_t u = 0;
    int b;
    for (b = 0; b < size; b++)
        u |= (uint64_t)p[b] << (8 * b);
    if (kind == 'f') {
        if (size == 4) {
            uint32_t w = (uint32_t)u;
            float f;
            memcpy(&f, &w, sizeof f);
            return (double)f;
        } else {
            double d;
            memcpy(&d, &u, sizeof d);
            return d;
        }
    }
    if (kind == 'u')
        return (double)u;
    if (size < 8 && (u >> (8 * size - 1)) & 1)
        u |= ~(uint64_t)0 << (8 * size);          /* sign-extend */
    return (double)(int64_t)u;
}

/* {===== .npy headers ===== */

/* A .npy header, parsed as NumPy parses it: a Python dict literal with exactly the keys
 * 'descr' (a type string, or a list of (name, type) pairs), 'fortran_order' (True or False)
 * and 'shape' (a tuple of integers). */
enum { NPY_HDR = 4096, NPY_MAXF = 8, NPY_MAXDIM = 8 };
typedef struct npy_hdr {
    size_t data;                  /* where the data start */
    int ndim;
    int64_t dim[NPY_MAXDIM];
    int fortran;
    int nf;                       /* fields of a record array; 0: a plain array */
    char type[16];                /* a plain array's type */
    char name[NPY_MAXF][32], ftype[NPY_MAXF][16];
    const char *bad;              /* why the header is refused */
    char badname[32];             /* the field it concerns ("" if none) */
} npy_hdr;

static const char *npy_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* A quoted string ('...' or "...", no escapes) into out (n bytes); NULL if there is none. */
static const char *npy_str(const char *p, char *out, size_t n)
{
    char q = *p;
    size_t k = 0;
    if (q != '\'' && q != '"')
        return NULL;
    for (p++; *p && *p != q; p++) {
        if (*p == '\\' || k + 1 >= n)
            return NULL;
        out[k++] = *p;
    }
    out[k] = 0;
    return *p == q ? p + 1 : NULL;
}

/* A tuple of integers >= 0: "()", "(3,)", "(3, 2)". */
static const char *npy_shape(const char *p, npy_hdr *h)
{
    if (*p != '(')
        return NULL;
    p = npy_ws(p + 1);
    h->ndim = 0;
    while (*p != ')') {
        char *end;
        long long v;
        if (*p < '0' || *p > '9' || h->ndim == NPY_MAXDIM)
            return NULL;
        errno = 0;
        v = strtoll(p, &end, 10);
        if (errno != 0)
            return NULL;
        h->dim[h->ndim++] = v;
        p = npy_ws(end);
        if (*p == ',')
            p = npy_ws(p + 1);
        else if (*p != ')')
            return NULL;
    }
    return p + 1;
}

/* [('pre', '<i4'), ('post', '<i4')]: a field with a third element (a sub-array) is refused. */
static const char *npy_fields(const char *p, npy_hdr *h)
{
    p = npy_ws(p + 1);
    while (*p != ']') {
        if (*p != '(' || h->nf == NPY_MAXF)
            return NULL;
        p = npy_str(npy_ws(p + 1), h->name[h->nf], sizeof h->name[0]);
        if (!p || *(p = npy_ws(p)) != ',')
            return NULL;
        p = npy_str(npy_ws(p + 1), h->ftype[h->nf], sizeof h->ftype[0]);
        if (!p)
            return NULL;
        p = npy_ws(p);
        if (*p == ',' && *(p = npy_ws(p + 1)) != ')') {
            h->bad = "a sub-array field (a field with a shape); fields must be scalars";
            memcpy(h->badname, h->name[h->nf], sizeof h->badname);
            return NULL;
        }
        if (*p != ')')
            return NULL;
        h->nf++;
        p = npy_ws(p + 1);
        if (*p == ',')
            p = npy_ws(p + 1);
        else if (*p != ']')
            return NULL;
    }
    return p + 1;
}

/* The dict text: 0, or -1 with h->bad. */
static int npy_dict_parse(const char *p, npy_hdr *h)
{
    int seen = 0;
    p = npy_ws(p);
    if (*p != '{')
        return h->bad = "the header is not a dict", -1;
    p = npy_ws(p + 1);
    while (*p != '}') {
        char key[32];
        int k;
        p = npy_str(p, key, sizeof key);
        if (!p || *(p = npy_ws(p)) != ':')
            return -1;
        p = npy_ws(p + 1);
        k = strcmp(key, "descr") == 0 ? 1 : strcmp(key, "fortran_order") == 0 ? 2
            : strcmp(key, "shape") == 0 ? 4 : 0;
        if (k == 0 || (seen & k))
            return h->bad = k ? "a key given twice" : "a key other than descr, fortran_order, shape", -1;
        seen |= k;
        if (k == 1 && *p == '[')
            p = npy_fields(p, h);
        else if (k == 1)
            p = npy_str(p, h->type, sizeof h->type);
        else if (k == 2 && (strncmp(p, "True", 4) == 0 || strncmp(p, "False", 5) == 0)) {
            h->fortran = *p == 'T';
            p += h->fortran ? 4 : 5;
        } else if (k == 2)
            p = NULL;
        else
            p = npy_shape(p, h);
        if (!p)
            return -1;
        p = npy_ws(p);
        if (*p == ',')
            p = npy_ws(p + 1);
        else if (*p != '}')
            return -1;
    }
    if (*npy_ws(p + 1) != 0)
        return h->bad = "text after the dict", -1;
    if (seen != 7)
        return h->bad = "without the keys descr, fortran_order and shape", -1;
    return 0;
}

/* The header of a .npy file in buf, checked as NumPy checks it; a Fortran-ordered array of
 * more than one dimension is refused (its rows are not contiguous). Errors name file and
 * line 1. */
static nrt_status npy_header(edges *e, const unsigned char *buf, size_t len, npy_hdr *h)
{
    size_t hl, data;
    char hdr[NPY_HDR];
    memset(h, 0, sizeof *h);
    if (len < 10 || memcmp(buf, "\x93NUMPY", 6) != 0) {
        nrt_seterr(e->ctx, "%s:1: not a NumPy .npy file (no \\x93NUMPY magic)", e->path);
        return NRT_EINVAL;
    }
    if (buf[6] == 1) {
        hl = (size_t)buf[8] | (size_t)buf[9] << 8;
        data = 10 + hl;
    } else if (len >= 12) {
        hl = (size_t)buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 | (size_t)buf[11] << 24;
        data = 12 + hl;
    } else {
        hl = 0;
        data = len + 1;
    }
    if (data > len || hl >= NPY_HDR) {
        nrt_seterr(e->ctx, "%s:1: truncated or oversized .npy header", e->path);
        return NRT_EINVAL;
    }
    memcpy(hdr, buf + data - hl, hl);
    hdr[hl] = 0;
    if (memchr(hdr, 0, hl) || npy_dict_parse(hdr, h) != 0) {
        if (h->badname[0])
            nrt_seterr(e->ctx, "%s:1: .npy field '%s' is %s", e->path, h->badname, h->bad);
        else
            nrt_seterr(e->ctx, "%s:1: malformed .npy header (%s): '%.60s'", e->path,
                       h->bad ? h->bad : "not the dict NumPy writes", hdr);
        return NRT_EINVAL;
    }
    if (h->fortran && h->ndim > 1) {
        nrt_seterr(e->ctx, "%s:1: Fortran-ordered arrays are not supported (save with "
                   "numpy.ascontiguousarray)", e->path);
        return NRT_EINVAL;
    }
    if (h->ndim < 1 || h->ndim > 2 || (h->nf > 0 && h->ndim != 1)) {
        nrt_seterr(e->ctx, "%s:1: expected a 2-D array or a 1-D record array, got a %d-D %s",
                   e->path, h->ndim, h->nf ? "record array" : "array");
        return NRT_EINVAL;
    }
    h->data = data;
    return NRT_OK;
}

/* ===== .npy headers =====} */

static nrt_status read_npy(edges *e, const unsigned char *buf, size_t len)
{
    npy_field fl[C_COUNT];
    int nf = 0, have[C_COUNT] = {0, 0, 0, 0}, f;
    size_t data, row_bytes = 0;
    int64_t rows, cols, r;
    npy_hdr h;
    if (npy_header(e, buf, len, &h) != NRT_OK)
        return NRT_EINVAL;
    data = h.data;
    rows = h.dim[0];
    cols = h.ndim == 2 ? h.dim[1] : -1;
    if (h.nf == 0) {                               /* a plain 2-D array */
        char kind;
        int size;
        if (!npy_type(h.type, &kind, &size)) {
            nrt_seterr(e->ctx, "%s:1: unsupported .npy dtype '%s' (integers or f4/f8)",
                       e->path, h.type);
            return NRT_EINVAL;
        }
        if (cols < 2 || cols > 4) {
            if (cols < 0)
                nrt_seterr(e->ctx, "%s:1: expected a 2-D array of 2 to 4 columns (pre, post[, w"
                           "[, delay]]), got a 1-D array", e->path);
            else
                nrt_seterr(e->ctx, "%s:1: expected a 2-D array of 2 to 4 columns (pre, post[, w"
                           "[, delay]]), got %lld columns", e->path, (long long)cols);
            return NRT_EINVAL;
        }
        for (f = 0; f < cols; f++) {
            fl[nf].col = f;
            fl[nf].kind = kind;
            fl[nf].size = size;
            fl[nf++].offset = (size_t)f * (size_t)size;
            have[f] = 1;
        }
        row_bytes = (size_t)cols * (size_t)size;
    } else {                                       /* structured: [('pre', '<i4'), ...] */
        int q;
        for (q = 0; q < h.nf; q++) {
            int k;
            for (k = 0; k < C_COUNT && strcmp(h.name[q], col_names[k]) != 0; k++)
                ;
            if (k == C_COUNT || have[k] || !npy_type(h.ftype[q], &fl[nf].kind, &fl[nf].size)) {
                nrt_seterr(e->ctx, "%s:1: .npy field '%s' of type '%s': fields are pre, post, "
                           "w, delay, integers or f4/f8, each once", e->path, h.name[q],
                           h.ftype[q]);
                return NRT_EINVAL;
            }
            fl[nf].col = k;
            fl[nf].offset = row_bytes;
            row_bytes += (size_t)fl[nf++].size;
            have[k] = 1;
        }
        if (!have[C_PRE] || !have[C_POST]) {
            nrt_seterr(e->ctx, "%s:1: the .npy record needs fields 'pre' and 'post'", e->path);
            return NRT_EINVAL;
        }
    }
    if ((size_t)rows > (len - data) / row_bytes) {
        nrt_seterr(e->ctx, "%s:%lld: the file ends early: %lld rows announced, %zu present",
                   e->path, (long long)((len - data) / row_bytes + 1), (long long)rows,
                   (len - data) / row_bytes);
        return NRT_EINVAL;
    }
    for (r = 0; r < rows; r++) {
        double row[C_COUNT] = {0, 0, 0, 0};
        const unsigned char *p = buf + data + (size_t)r * row_bytes;
        for (f = 0; f < nf; f++)
            row[fl[f].col] = npy_value(p + fl[f].offset, fl[f].kind, fl[f].size);
        if (edges_push(e, row, have, r + 1) != 0)
            return NRT_ENOMEM;
    }
    memcpy(e->has, have, sizeof have);
    return NRT_OK;
}

/* The first edge whose weight a float cannot hold (a model in precision float would
 * compute with inf), refused with its file and line whatever the precision, so that a file
 * means the same in both; -1 when every weight fits. */
static int64_t weight_past_float(const edges *e)
{
    for (int64_t k = 0; e->has[C_W] && k < e->n; k++)
        if (fabs(e->v[C_W][k]) > FLT_MAX)
            return k;
    return -1;
}

/* Contract: neurort.h. */
nrt_status nrt_conn_file(nrt_ctx *ctx, const char *path, int64_t n_pre, int64_t n_post,
                         int need_w, nrt_csr *out, double **w, double **delay)
{
    edges e;
    size_t len = 0, plen = strlen(path);
    char *text;
    nrt_status st;
    int64_t k, i, *pos = NULL;
    memset(&e, 0, sizeof e);
    memset(out, 0, sizeof *out);
    *w = *delay = NULL;
    e.ctx = ctx;
    e.path = path;
    text = slurp(ctx, path, &len, "edge file");
    if (!text)
        return NRT_EIO;
    if (plen >= 4 && strcmp(path + plen - 4, ".npy") == 0)
        st = read_npy(&e, (const unsigned char *)text, len);
    else
        st = csv_no_nul(ctx, path, text, len) != 0 ? NRT_EINVAL : read_csv(&e, text);
    free(text);
    for (k = 0; st == NRT_OK && k < e.n; k++) {
        const double a = e.v[C_PRE][k], b = e.v[C_POST][k];
        if (!(a >= 0 && a < (double)n_pre && a == floor(a)) ||
            !(b >= 0 && b < (double)n_post && b == floor(b))) {
            int bad_pre = !(a >= 0 && a < (double)n_pre && a == floor(a));
            nrt_seterr(ctx, "%s:%lld: %s index %g is not a neuron of the %s target (0 .. %lld)",
                       path, (long long)e.line[k], bad_pre ? "pre" : "post", bad_pre ? a : b,
                       bad_pre ? "presynaptic" : "postsynaptic",
                       (long long)(bad_pre ? n_pre : n_post) - 1);
            st = NRT_EINVAL;
        } else if ((e.has[C_W] && !isfinite(e.v[C_W][k])) ||
                   (e.has[C_D] && !(e.v[C_D][k] >= 0 && isfinite(e.v[C_D][k])))) {
            nrt_seterr(ctx, "%s:%lld: %s", path, (long long)e.line[k],
                       e.has[C_W] && !isfinite(e.v[C_W][k]) ? "the weight is not a finite number"
                                                            : "the delay is not a finite time >= 0");
            st = NRT_EINVAL;
        }
    }
    if (st == NRT_OK && (k = weight_past_float(&e)) >= 0) {
        nrt_seterr(ctx, "%s:%lld: the weight %g is beyond float's range (at most %g in magnitude)",
                   path, (long long)e.line[k], e.v[C_W][k], (double)FLT_MAX);
        st = NRT_EINVAL;
    }
    if (st == NRT_OK && need_w && !e.has[C_W]) {
        nrt_seterr(ctx, "%s:1: no weight column, and the projection gives no 'w'", path);
        st = NRT_EINVAL;
    }
    if (st != NRT_OK) {
        edges_free(&e);
        return st;
    }
    /* CSR: a counting sort by pre, then each row by post (stable: insertion sort of an index) */
    out->n_pre = n_pre;
    out->n_post = n_post;
    out->nnz = e.n;
    out->row_ptr = nrt_alloc(ctx, (size_t)(n_pre + 1) * sizeof *out->row_ptr,
                             "connectivity row pointers");
    out->col = nrt_alloc(ctx, (size_t)(e.n > 0 ? e.n : 1) * sizeof *out->col,
                         "connectivity columns");
    pos = nrt_alloc(ctx, (size_t)(n_pre + 1) * sizeof *pos, "connectivity row cursors");
    if (e.has[C_W])
        *w = nrt_alloc(ctx, (size_t)(e.n > 0 ? e.n : 1) * sizeof **w, "edge weights");
    if (e.has[C_D])
        *delay = nrt_alloc(ctx, (size_t)(e.n > 0 ? e.n : 1) * sizeof **delay, "edge delays");
    if (!out->row_ptr || !out->col || !pos || (e.has[C_W] && !*w) || (e.has[C_D] && !*delay)) {
        nrt_csr_free(out);
        nrt_free(pos);
        nrt_free(*w);
        nrt_free(*delay);
        *w = *delay = NULL;
        edges_free(&e);
        return NRT_ENOMEM;
    }
    for (k = 0; k < e.n; k++)
        out->row_ptr[(int64_t)e.v[C_PRE][k] + 1]++;
    for (i = 0; i < n_pre; i++)
        out->row_ptr[i + 1] += out->row_ptr[i];
    memcpy(pos, out->row_ptr, (size_t)(n_pre + 1) * sizeof *pos);
    for (k = 0; k < e.n; k++) {
        int64_t s = pos[(int64_t)e.v[C_PRE][k]]++, t;
        const int32_t j = (int32_t)e.v[C_POST][k];
        const int64_t row0 = out->row_ptr[(int64_t)e.v[C_PRE][k]];
        /* insert at its place in the row so far (posts ascending, equal posts in file order) */
        for (t = s; t > row0 && out->col[t - 1] > j; t--) {
            out->col[t] = out->col[t - 1];
            if (*w)
                (*w)[t] = (*w)[t - 1];
            if (*delay)
                (*delay)[t] = (*delay)[t - 1];
        }
        out->col[t] = j;
        if (*w)
            (*w)[t] = e.v[C_W][k];
        if (*delay)
            (*delay)[t] = e.v[C_D][k];
    }
    nrt_free(pos);
    edges_free(&e);
    return NRT_OK;
}

/* {===== spike files ===== */

/* The step of time t (ms): floor(t / dt), t / dt within 1e-9 (relative) of an integer
 * counting as that integer. */
static double spike_step(double t, double dt)
{
    const double x = t / dt, r = nearbyint(x);
    return fabs(x - r) <= 1e-9 * (fabs(x) > 1 ? fabs(x) : 1) ? r : floor(x);
}

/* One spike: check it and keep it (as edges: column pre = step, post = index). */
static nrt_status spike_push(edges *e, double t, double i, int64_t line, int64_t n, double dt,
                             int64_t n_steps)
{
    static const int have[C_COUNT] = {1, 1, 0, 0};
    double row[C_COUNT] = {0, 0, 0, 0};
    if (!isfinite(t) || t < 0) {
        nrt_seterr(e->ctx, "%s:%lld: the spike time %g is not a finite time >= 0 (ms)", e->path,
                   (long long)line, t);
        return NRT_EINVAL;
    }
    if (!(i >= 0 && i < (double)n && i == floor(i))) {
        nrt_seterr(e->ctx, "%s:%lld: index %g is not a neuron of the population (0 .. %lld)", e->path,
                   (long long)line, i, (long long)n - 1);
        return NRT_EINVAL;
    }
    row[0] = spike_step(t, dt);
    row[1] = i;
    if (row[0] >= (double)n_steps)               /* after the run's end */
        return NRT_OK;
    return edges_push(e, row, have, line) != 0 ? NRT_ENOMEM : NRT_OK;
}

static nrt_status spikes_csv(edges *e, char *text, int64_t n, double dt, int64_t n_steps)
{
    int64_t line = 0;
    int ct = -1, header = 0;
    char *p = text;
    while (*p) {
        char *nl = strchr(p, '\n'), *f[8], *q = p;
        int k;
        line++;
        if (nl)
            *nl = 0;
        while (*q == ' ' || *q == '\t' || *q == '\r')
            q++;
        if (*q != 0 && *q != '#') {
            k = split(p, f);
            if (k != 2) {
                nrt_seterr(e->ctx, "%s:%lld: expected 2 columns (time,index), got %d", e->path,
                           (long long)line, k);
                return NRT_EINVAL;
            }
            if (!header) {
                if ((strcmp(f[0], "time") == 0 && strcmp(f[1], "index") == 0) ||
                    (strcmp(f[0], "index") == 0 && strcmp(f[1], "time") == 0)) {
                    ct = strcmp(f[0], "time") == 0 ? 0 : 1;
                    header = 1;
                } else {
                    nrt_seterr(e->ctx, "%s:%lld: expected the header line 'time,index', got '%s,%s'",
                               e->path, (long long)line, f[0], f[1]);
                    return NRT_EINVAL;
                }
            } else {
                double v[2];
                nrt_status st;
                for (k = 0; k < 2; k++)
                    if (!parse_num(f[k], &v[k])) {
                        nrt_seterr(e->ctx, "%s:%lld: column %d ('%s') is not a number: '%s'", e->path,
                                   (long long)line, k + 1, k == ct ? "time" : "index", f[k]);
                        return NRT_EINVAL;
                    }
                st = spike_push(e, v[ct], v[1 - ct], line, n, dt, n_steps);
                if (st != NRT_OK)
                    return st;
            }
        }
        p = nl ? nl + 1 : p + strlen(p);
    }
    if (!header) {
        nrt_seterr(e->ctx, "%s:%lld: no header line 'time,index'", e->path, (long long)(line ? line : 1));
        return NRT_EINVAL;
    }
    return NRT_OK;
}

static nrt_status spikes_npy(edges *e, const unsigned char *buf, size_t len, int64_t n, double dt,
                             int64_t n_steps)
{
    npy_field fl[2];
    size_t data, row_bytes = 0;
    int64_t rows, cols, r;
    int have[2] = {0, 0};
    npy_hdr h;
    if (npy_header(e, buf, len, &h) != NRT_OK)
        return NRT_EINVAL;
    data = h.data;
    rows = h.dim[0];
    cols = h.ndim == 2 ? h.dim[1] : -1;
    if (h.nf == 0) {                               /* N x 2: (t, i) */
        char kind;
        int size, f;
        if (!npy_type(h.type, &kind, &size) || cols != 2) {
            nrt_seterr(e->ctx, "%s:1: expected an N x 2 array (t, i) of numbers or a record array "
                       "with fields t and i", e->path);
            return NRT_EINVAL;
        }
        for (f = 0; f < 2; f++) {
            fl[f].col = f;
            fl[f].kind = kind;
            fl[f].size = size;
            fl[f].offset = (size_t)f * (size_t)size;
        }
        row_bytes = 2 * (size_t)size;
    } else {                                       /* [('t', '<f8'), ('i', '<i4')] */
        int q;
        for (q = 0; q < h.nf; q++) {
            char kind;
            int k, size;
            k = strcmp(h.name[q], "t") == 0 ? 0 : strcmp(h.name[q], "i") == 0 ? 1 : -1;
            if (k < 0 || have[k] || !npy_type(h.ftype[q], &kind, &size)) {
                nrt_seterr(e->ctx, "%s:1: .npy field '%s' of type '%s': fields are t and i, numbers, "
                           "each once", e->path, h.name[q], h.ftype[q]);
                return NRT_EINVAL;
            }
            fl[k].col = k;
            fl[k].kind = kind;
            fl[k].size = size;
            fl[k].offset = row_bytes;
            row_bytes += (size_t)size;
            have[k] = 1;
        }
        if (!have[0] || !have[1]) {
            nrt_seterr(e->ctx, "%s:1: the .npy record needs fields 't' and 'i'", e->path);
            return NRT_EINVAL;
        }
    }
    if ((size_t)rows > (len - data) / row_bytes) {
        nrt_seterr(e->ctx, "%s:%lld: the file ends early: %lld rows announced, %zu present",
                   e->path, (long long)((len - data) / row_bytes + 1), (long long)rows,
                   (len - data) / row_bytes);
        return NRT_EINVAL;
    }
    for (r = 0; r < rows; r++) {
        const unsigned char *p = buf + data + (size_t)r * row_bytes;
        nrt_status st = spike_push(e, npy_value(p + fl[0].offset, fl[0].kind, fl[0].size),
                                   npy_value(p + fl[1].offset, fl[1].kind, fl[1].size), r + 1, n, dt,
                                   n_steps);
        if (st != NRT_OK)
            return st;
    }
    return NRT_OK;
}

/* Contract: neurort.h. */
nrt_status nrt_spike_file(nrt_ctx *ctx, const char *path, int64_t n, double dt, int64_t n_steps,
                          int64_t **step_ptr, int32_t **idx, int64_t *nnz)
{
    edges e;
    size_t len = 0, plen = strlen(path);
    char *text;
    nrt_status st;
    int64_t k, s, m;
    unsigned char *seen;
    memset(&e, 0, sizeof e);
    *step_ptr = NULL;
    *idx = NULL;
    *nnz = 0;
    e.ctx = ctx;
    e.path = path;
    text = slurp(ctx, path, &len, "spike file");
    if (!text)
        return NRT_EIO;
    if (plen >= 4 && strcmp(path + plen - 4, ".npy") == 0)
        st = spikes_npy(&e, (const unsigned char *)text, len, n, dt, n_steps);
    else if (csv_no_nul(ctx, path, text, len) != 0)
        st = NRT_EINVAL;
    else
        st = spikes_csv(&e, text, n, dt, n_steps);
    free(text);
    if (st != NRT_OK) {
        edges_free(&e);
        return st;
    }
    /* counting sort by step, then by index within the step, dropping repeats */
    *step_ptr = nrt_alloc(ctx, (size_t)(n_steps + 2) * sizeof **step_ptr, "spike file step pointers");
    *idx = nrt_alloc(ctx, (size_t)(e.n > 0 ? e.n : 1) * sizeof **idx, "spike file indices");
    seen = calloc((size_t)(n > 0 ? n : 1), 1);
    if (!*step_ptr || !*idx || !seen) {
        nrt_free(*step_ptr);
        nrt_free(*idx);
        free(seen);
        *step_ptr = NULL;
        *idx = NULL;
        edges_free(&e);
        return NRT_ENOMEM;
    }
    {
        int64_t *pos = *step_ptr;                 /* counts in pos[s + 2], then cursors in pos[s + 1] */
        int32_t *tmp = e.n > 0 ? malloc((size_t)e.n * sizeof *tmp) : NULL;
        if (e.n > 0 && !tmp) {
            nrt_free(*step_ptr);
            nrt_free(*idx);
            free(seen);
            *step_ptr = NULL;
            *idx = NULL;
            edges_free(&e);
            return NRT_ENOMEM;
        }
        for (k = 0; k < e.n; k++)
            pos[(int64_t)e.v[C_PRE][k] + 2]++;
        for (s = 0; s < n_steps; s++)
            pos[s + 2] += pos[s + 1];
        for (k = 0; k < e.n; k++)
            tmp[pos[(int64_t)e.v[C_PRE][k] + 1]++] = (int32_t)e.v[C_POST][k];
        /* now pos[s] .. pos[s + 1] is step s; sort each step's indices, drop repeats */
        m = 0;
        for (s = 0; s < n_steps; s++) {
            const int64_t a = pos[s], b = pos[s + 1];
            int64_t q, c;
            pos[s] = m;
            for (q = a; q < b; q++) {
                if (!seen[tmp[q]]) {
                    seen[tmp[q]] = 1;
                    /* insertion into the step's sorted run */
                    for (c = m; c > pos[s] && (*idx)[c - 1] > tmp[q]; c--)
                        (*idx)[c] = (*idx)[c - 1];
                    (*idx)[c] = tmp[q];
                    m++;
                }
            }
            for (q = pos[s]; q < m; q++)
                seen[(*idx)[q]] = 0;
            pos[s + 1] = b;                      /* restore for the next step's start */
        }
        pos[n_steps] = m;
        free(tmp);
    }
    free(seen);
    *nnz = m;
    edges_free(&e);
    return NRT_OK;
}

/* ===== spike files =====} */

/* {===== for rt_series.c and rt_values.c (rt_internal.h) ===== */

/* Contract: rt_internal.h. */
char *nrt_file_slurp(nrt_ctx *ctx, const char *path, size_t *len, const char *what)
{
    return slurp(ctx, path, len, what);
}

/* Contract: rt_internal.h. */
int nrt_csv_no_nul(nrt_ctx *ctx, const char *path, const char *text, size_t len)
{
    return csv_no_nul(ctx, path, text, len);
}

/* Contract: rt_internal.h. */
nrt_status nrt_npy_plain(nrt_ctx *ctx, const char *path, const unsigned char *buf, size_t len,
                         nrt_npy_array *a)
{
    edges e;
    npy_hdr h;
    memset(&e, 0, sizeof e);
    e.ctx = ctx;
    e.path = path;
    if (npy_header(&e, buf, len, &h) != NRT_OK)
        return NRT_EINVAL;
    if (h.nf > 0 || !npy_type(h.type, &a->kind, &a->size)) {
        nrt_seterr(ctx, "%s:1: expected a plain array of numbers (integers or f4/f8), got %s '%s'",
                   path, h.nf ? "a record array of field" : "dtype", h.nf ? h.name[0] : h.type);
        return NRT_EINVAL;
    }
    a->rows = h.dim[0];
    a->cols = h.ndim == 2 ? h.dim[1] : 1;
    a->ndim = h.ndim;
    a->data = h.data;
    if (a->rows > 0 && a->cols > 0) {   /* a row's bytes, and the rows, checked without overflow */
        const size_t avail = len - h.data;
        const size_t present = (uint64_t)a->cols > avail / (size_t)a->size ? 0
                               : avail / ((size_t)a->cols * (size_t)a->size);
        if ((uint64_t)a->rows > present) {
            nrt_seterr(ctx, "%s:%lld: the file ends early: %lld rows announced, %zu present", path,
                       (long long)present + 1, (long long)a->rows, present);
            return NRT_EINVAL;
        }
    }
    return NRT_OK;
}

/* Contract: rt_internal.h. */
double nrt_npy_value(const unsigned char *p, char kind, int size)
{
    return npy_value(p, kind, size);
}

/* Contract: rt_internal.h. */
int nrt_csv_split(char *line, char **f)
{
    return split(line, f);
}

/* Contract: rt_internal.h. */
int nrt_csv_number(const char *s, double *v)
{
    return parse_num(s, v);
}

/* ===== for rt_series.c and rt_values.c =====} */
