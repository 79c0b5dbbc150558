/* rt_record.c -- spike, state and rate recordings (.npy or .csv); manifest.json is
 * written by rt_manifest.c.
 *
 * Rows are buffered in memory (about 1 MiB) and appended with pwrite when the buffer is
 * full and at nrt_finish. An .npy header is written when the file is opened (shape (0,))
 * and rewritten after every flush, padded so that it never changes length: the file on
 * disk is always a valid .npy whose shape counts exactly the rows it holds.
 */
#define _POSIX_C_SOURCE 200809L

#include "rt_internal.h"
#include "rt_rec.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define BUF_BYTES (1u << 20)
enum { CSV_W = 26 };   /* a .csv value: room for ",value" and a '\0' (nrt_fmt_g9: at most 16) */


static char *dup_str(nrt_ctx *ctx, const char *s, const char *what)
{
    size_t n = strlen(s ? s : "") + 1;
    char *d = nrt_alloc(ctx, n, what);
    if (d)
        memcpy(d, s ? s : "", n);
    return d;
}

static void rec_free(nrt_rec *r)
{
    int i;
    if (!r)
        return;
    if (r->fd >= 0)
        close(r->fd);
    if (r->sink && r->sink_h)
        r->sink->close(r->ctx, r->sink_h);
    for (i = 0; i < r->nvars; i++) {
        if (r->vars)
            free(r->vars[i]);
        if (r->units)
            free(r->units[i]);
    }
    free(r->vars);
    free(r->units);
    free(r->idx);
    free(r->buf);
    free(r->descr);
    free(r->path);
    free(r->file);
    free(r->synfile);
    free(r->pop);
    free(r->target);
    free(r);
}

static void put_u64le(unsigned char *p, uint64_t v)
{
    int i;
    for (i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put_f64le(unsigned char *p, double x)
{
    uint64_t v;
    memcpy(&v, &x, sizeof v);
    put_u64le(p, v);
}

static void put_i32le(unsigned char *p, int32_t x)
{
    uint32_t v = (uint32_t)x;
    int i;
    for (i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* Write all of [p, p+n) at offset off of r's file. `grow`: the bytes extend the file (an injected full
 * disk, nrt_fault_write, refuses those past its budget after writing up to it). 0, or -1
 * with errno set. */
static int pwrite_all(nrt_rec *r, const void *p, size_t n, off_t off, int grow)
{
    const unsigned char *c = p;
    size_t allowed = grow ? nrt_fault_write(r->ctx, n) : n, cut = n - allowed;
    n = allowed;
    while (n > 0) {
        ssize_t k = pwrite(r->fd, c, n, off);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (k == 0) {
            errno = ENOSPC;
            return -1;
        }
        c += k;
        n -= (size_t)k;
        off += k;
    }
    if (cut) {
        errno = ENOSPC;
        return -1;
    }
    return 0;
}

static nrt_status fail(nrt_rec *r, int e)
{
    r->err = e ? e : EIO;
    nrt_seterr(r->ctx, "writing %s: %s", r->file, strerror(r->err));
    return NRT_EIO;
}

/* The dict text of an .npy header for `rows` rows (no padding). */
static int npy_dict(const nrt_rec *r, char *out, size_t n, const char *rows)
{
    return snprintf(out, n, "{'descr': %s, 'fortran_order': False, 'shape': (%s,), }",
                    r->descr, rows);
}

/* Fill hdr (r->hdr_len bytes) with the header for rows_disk rows. */
static void npy_header(const nrt_rec *r, unsigned char *hdr, int64_t rows)
{
    char num[32];
    size_t pre = r->npy_major == 1 ? 10 : 12, dl, hl = r->hdr_len - pre, i;
    snprintf(num, sizeof num, "%lld", (long long)rows);
    memcpy(hdr, "\x93NUMPY", 6);
    hdr[6] = (unsigned char)r->npy_major;
    hdr[7] = 0;
    for (i = 0; i < pre - 8; i++)
        hdr[8 + i] = (unsigned char)(hl >> (8 * i));
    dl = (size_t)npy_dict(r, (char *)hdr + pre, r->hdr_len - pre, num);
    memset(hdr + pre + dl, ' ', hl - dl - 1);
    hdr[r->hdr_len - 1] = '\n';
}

/* `grow`: the first header of a new file (its bytes extend the file). */
static nrt_status write_header(nrt_rec *r, int64_t rows, int grow)
{
    unsigned char *hdr = malloc(r->hdr_len + 1);
    int rc;
    if (!hdr) {
        nrt_seterr(r->ctx, "out of memory allocating the header of '%s' (%zu bytes)", r->path,
                   r->hdr_len + 1);
        return NRT_ENOMEM;
    }
    npy_header(r, hdr, rows);
    rc = pwrite_all(r, hdr, r->hdr_len, 0, grow);
    free(hdr);
    return rc == 0 ? NRT_OK : fail(r, errno);
}

/* Append the buffer to the file, then (npy) rewrite the header. On failure the file is cut
 * back to its last valid length and the recording stops accepting rows. */
static nrt_status flush(nrt_rec *r)
{
    off_t old_end = r->end;
    if (r->err)
        return fail(r, r->err);
    if (r->buf_len == 0)
        return NRT_OK;
    if (r->fmt == FMT_SINK) {
        nrt_status st = r->sink->write(r->ctx, r->sink_h, r->buf, r->rows_buf);
        if (st != NRT_OK) {
            r->err = EIO;
            return st;
        }
        r->rows_disk += r->rows_buf;
        r->rows_buf = 0;
        r->buf_len = 0;
        return NRT_OK;
    }
    if (pwrite_all(r, r->buf, r->buf_len, r->end, 1) != 0) {
        int e = errno;
        if (ftruncate(r->fd, old_end) != 0) {
            /* a device such as /dev/full: nothing to cut back */
        }
        return fail(r, e);
    }
    r->end += (off_t)r->buf_len;
    if (r->fmt == FMT_NPY) {
        nrt_status st = write_header(r, r->rows_disk + r->rows_buf, 0);
        if (st != NRT_OK) {
            if (ftruncate(r->fd, old_end) != 0) {
                /* the old header still counts only the old rows */
            }
            r->end = old_end;
            return st;
        }
    }
    r->rows_disk += r->rows_buf;
    r->rows_buf = 0;
    r->buf_len = 0;
    return NRT_OK;
}

/* Decimals that print every multiple of dt exactly, or -1 if dt is no short decimal. */
static int time_decimals(double dt)
{
    int d;
    double scale = 1.0;
    if (!(dt > 0) || !isfinite(dt))
        return -1;
    for (d = 0; d <= 9; d++, scale *= 10.0) {
        double x = dt * scale;
        if (fabs(x - nearbyint(x)) <= 1e-9 * x)
            return d;
    }
    return -1;
}

static int fmt_time(const nrt_rec *r, char *out, size_t n, int64_t step)
{
    double t = (double)(step + 1) * r->ctx->dt;
    if (r->tdec >= 0)
        return nrt_fmt_fixed(out, n, t, r->tdec);
    return snprintf(out, n, "%.17g", t);
}

/* Size of the registered population `name`, or 0 if there is none (a view, say). */
static int64_t pop_size_of(const nrt_ctx *ctx, const char *name)
{
    int i;
    for (i = 0; name && i < ctx->npops; i++)
        if (ctx->pops[i].name && strcmp(ctx->pops[i].name, name) == 0)
            return ctx->pops[i].size;
    return 0;
}

/* Common part of nrt_rec_spikes / nrt_rec_state: allocate, name and open; the format from
 * the extension (sink NULL) or FMT_SINK. */
static nrt_rec *rec_open(nrt_ctx *ctx, const char *file, const char *pop, int64_t pop_size,
                         int kind, const nrt_rec_sink *sink)
{
    nrt_rec *r;
    size_t n;
    const char *ext;
    int fmt;

    if (!file || !*file) {
        nrt_seterr(ctx, "recording of population '%s' has no file name", pop ? pop : "?");
        return NULL;
    }
    ext = strrchr(file, '.');
    if (sink)
        fmt = FMT_SINK;
    else if (ext && strcmp(ext, ".npy") == 0)
        fmt = FMT_NPY;
    else if (ext && strcmp(ext, ".csv") == 0)
        fmt = FMT_CSV;
    else {
        nrt_seterr(ctx, "recording '%s': unknown format (the file name must end in .npy or "
                   ".csv)", file);
        return NULL;
    }
    r = nrt_alloc(ctx, sizeof *r, "a recording");
    if (!r)
        return NULL;
    r->fd = -1;
    r->ctx = ctx;
    r->fmt = fmt;
    r->kind = kind;
    r->pop_size = pop_size;
    r->every = 1;
    r->tdec = time_decimals(ctx->dt);
    r->file = dup_str(ctx, file, "a recording's file name");
    r->pop = dup_str(ctx, pop, "a recording's population name");
    if (!r->file || !r->pop) {
        rec_free(r);
        return NULL;
    }
    if (file[0] == '/' || !ctx->out_dir) {
        r->path = dup_str(ctx, file, "a recording's path");
    } else {
        n = strlen(ctx->out_dir) + strlen(file) + 2;
        r->path = nrt_alloc(ctx, n, "a recording's path");
        if (r->path)
            snprintf(r->path, n, "%s/%s", ctx->out_dir, file);
    }
    if (!r->path) {
        rec_free(r);
        return NULL;
    }
    return r;
}

/* A file whose first header could not be written is removed (a .npy without a whole
 * header cannot be loaded; a .csv would end in half a header line): where PATH is a regular
 * file, unlinked; through a link or on a device, cut to nothing. */
static void drop_file(nrt_rec *r)
{
    struct stat sb;
    if (lstat(r->path, &sb) == 0 && S_ISREG(sb.st_mode))
        unlink(r->path);
    else if (ftruncate(r->fd, 0) != 0) {
        /* a device such as /dev/full: nothing was kept */
    }
}

/* Create r's file and write its first header (.npy: shape (0,); .csv: the header line).
 * On failure there is no file (drop_file), and errmsg says why. */
static nrt_status open_first(nrt_rec *r, const char *csv_header)
{
    int e;
    r->fd = open(r->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (r->fd < 0) {
        nrt_seterr(r->ctx, "cannot open recording '%s' for writing: %s", r->path,
                   strerror(errno));
        return NRT_EIO;
    }
    if (r->fmt == FMT_NPY) {
        nrt_status st = write_header(r, 0, 1);
        if (st != NRT_OK) {
            drop_file(r);
            return st;
        }
        r->end = (off_t)r->hdr_len;
    } else {
        size_t hl = strlen(csv_header);
        if (pwrite_all(r, csv_header, hl, 0, 1) != 0) {
            e = errno;
            drop_file(r);
            return fail(r, e);
        }
        r->end = (off_t)hl;
    }
    return NRT_OK;
}

/* Size the buffer, open the file and write the initial header; link r into ctx->recs. */
static nrt_rec *rec_start(nrt_rec *r, const char *csv_header)
{
    nrt_ctx *ctx = r->ctx;
    nrt_rec **tail;
    if (r->fmt == FMT_SINK) {
        r->buf_cap = BUF_BYTES / r->row_bytes * r->row_bytes;
    } else if (r->fmt == FMT_NPY) {
        size_t dl, pre;
        r->buf_cap = BUF_BYTES / r->row_bytes * r->row_bytes;
        if (r->buf_cap == 0)
            r->buf_cap = r->row_bytes;
        /* header length fixed for shapes of up to 20 digits */
        dl = (size_t)npy_dict(r, NULL, 0, "18446744073709551615");
        r->npy_major = (10 + dl + 1 + 63) / 64 * 64 - 10 <= 65535 ? 1 : 2;
        pre = r->npy_major == 1 ? 10 : 12;
        r->hdr_len = (pre + dl + 1 + 63) / 64 * 64;
    } else {
        r->buf_cap = BUF_BYTES;
        if (r->buf_cap < 2 * r->row_max)
            r->buf_cap = 2 * r->row_max;
        if (r->buf_cap < strlen(csv_header) + 1)
            r->buf_cap = strlen(csv_header) + 1;
    }
    r->buf = nrt_alloc(ctx, r->buf_cap, "a recording buffer");
    if (!r->buf) {
        rec_free(r);
        return NULL;
    }
    if (r->fmt == FMT_SINK)
        goto linked;
    if (open_first(r, csv_header) != NRT_OK) {
        rec_free(r);
        return NULL;
    }
linked:
    for (tail = &ctx->recs; *tail; tail = &(*tail)->next)
        ;
    *tail = r;
    return r;
}

/* Start r, a recording of rows (t, x): row_bytes and the descr of its .npy, or the header of
 * its .csv (rows of at most 64 characters). NULL (r freed) on failure. */
static nrt_rec *rec_two_columns(nrt_rec *r, size_t row_bytes, const char *descr, const char *csv_header)
{
    if (r->fmt == FMT_NPY) {
        r->row_bytes = row_bytes;
        r->descr = dup_str(r->ctx, descr, "an npy descr");
        if (!r->descr) {
            rec_free(r);
            return NULL;
        }
    } else {
        r->row_max = 64;
    }
    return rec_start(r, csv_header);
}

/* Contract: opens a spike recording of population `pop` (size pop_size, 0 if unknown) at
 * <out_dir>/<file> (or `file` itself if absolute); the format follows the extension (.npy:
 * dtype [('t','<f8'),('i','<i4')]; .csv: header "t_ms,i"). NULL with errmsg naming the
 * file on a bad extension, an open or write failure, or out of memory. */
nrt_rec *nrt_rec_spikes(nrt_ctx *ctx, const char *file, const char *pop, int64_t pop_size)
{
    nrt_rec *r = rec_open(ctx, file, pop, pop_size, KIND_SPIKES, NULL);
    return r ? rec_two_columns(r, 12, "[('t', '<f8'), ('i', '<i4')]", "t_ms,i\n") : NULL;
}

/* Contract: see rt_internal.h. On failure h is closed through sink->close. */
nrt_rec *nrt_rec_spikes_sink(nrt_ctx *ctx, const char *file, const char *pop, int64_t pop_size,
                             const nrt_rec_sink *sink, void *h)
{
    nrt_rec *r = rec_open(ctx, file, pop, pop_size, KIND_SPIKES, sink);
    if (!r) {
        sink->close(ctx, h);
        return NULL;
    }
    r->sink = sink;
    r->sink_h = h;
    r->row_bytes = 12;
    return rec_start(r, "");
}

/* Contract: appends the row (t = (step + 1) * dt, index) to r; flushes when the buffer is
 * full. NRT_EINVAL for a NULL r or an index outside [0, pop_size) (when pop_size > 0);
 * NRT_EIO with errmsg when the file cannot be written (then and on every later call). */
nrt_status nrt_rec_spike(nrt_rec *r, int64_t step, int32_t index)
{
    if (!r)
        return NRT_EINVAL;
    if (r->err)
        return fail(r, r->err);
    if (r->win_hi && (step < r->win_lo || step >= r->win_hi))
        return NRT_OK;
    if (index < 0 || (r->pop_size > 0 && index >= r->pop_size)) {
        nrt_seterr(r->ctx, "recording '%s': neuron index %ld outside population '%s' of %lld",
                   r->path, (long)index, r->pop, (long long)r->pop_size);
        return NRT_EINVAL;
    }
    if (r->fmt != FMT_CSV) {
        unsigned char *p = r->buf + r->buf_len;
        put_f64le(p, (double)(step + 1) * r->ctx->dt);
        put_i32le(p + 8, index);
        r->buf_len += 12;
    } else {
        char *p = (char *)r->buf + r->buf_len;
        int k = fmt_time(r, p, r->buf_cap - r->buf_len, step);
        k += snprintf(p + k, r->buf_cap - r->buf_len - (size_t)k, ",%ld\n", (long)index);
        r->buf_len += (size_t)k;
    }
    r->rows_buf++;
    if (r->buf_cap - r->buf_len < (r->fmt != FMT_CSV ? r->row_bytes : r->row_max))
        return flush(r);
    return NRT_OK;
}

static int cmp_i32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

typedef struct sort_job {
    int32_t *ids;
    const int32_t *ends;
    int64_t len;
} sort_job;

static void sort_part(void *arg, int t, int T)
{
    const sort_job *jb = arg;
    for (int64_t k = jb->len * t / T; k < jb->len * (t + 1) / T; k++) {
        const int32_t from = k ? jb->ends[k - 1] : 0;
        qsort(jb->ids + from, (size_t)(jb->ends[k] - from), sizeof *jb->ids, cmp_i32);
    }
}

/* Contract: see neurort.h. */
void nrt_spikes_sort(int32_t *ids, const int32_t *ends, int64_t len)
{
    sort_job jb = {ids, ends, len};
    if (len > 0)
        nrt_pool_run(sort_part, &jb, (double)ends[len - 1]);
}

/* Variable names go into a Python literal (npy) and a CSV header: keep them plain. */
static int plain_name(const char *s)
{
    if (!s || !*s)
        return 0;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c <= ' ' || c >= 127 || c == '\'' || c == '"' || c == '\\' || c == ',' ||
            c == '[' || c == ']')
            return 0;
    }
    return 1;
}

/* Contract: opens a recording of `nvars` state variables (names vars, units as text or
 * NULL) of the `nidx` neurons idx of population `pop`, sampled every `every` steps (the
 * caller calls nrt_rec_state_row on sampling steps). .npy dtype [('t','<f8'),
 * (var,'<f8',(nidx,)), ...]; .csv header "t_ms,V[i0],V[i1],...,m[i0],...". NULL with
 * errmsg on bad arguments (no variables, no neurons, an index outside the population, a
 * duplicate or unprintable name, every < 1), an unknown extension, an open failure or
 * out of memory. */
nrt_rec *nrt_rec_state(nrt_ctx *ctx, const char *file, const char *pop, int nvars,
                       const char *const *vars, const char *const *units, int nidx,
                       const int64_t *idx, int64_t every)
{
    nrt_rec *r;
    int v, w, i;
    size_t n, len;
    char *hdr, *p;
    const char *pname = pop ? pop : "?";

    if (nvars < 1 || !vars || nidx < 1 || !idx || every < 1) {
        nrt_seterr(ctx, "state recording '%s' of '%s': needs at least one variable and one "
                   "neuron and every >= 1 (got %d variables, %d neurons, every %lld)",
                   file ? file : "?", pname, nvars, nidx, (long long)every);
        return NULL;
    }
    for (v = 0; v < nvars; v++) {
        if (!plain_name(vars[v]) || strcmp(vars[v], "t") == 0) {
            nrt_seterr(ctx, "state recording '%s': invalid variable name '%s'",
                       file ? file : "?", vars[v] ? vars[v] : "(null)");
            return NULL;
        }
        for (w = 0; w < v; w++)
            if (strcmp(vars[v], vars[w]) == 0) {
                nrt_seterr(ctx, "state recording '%s': variable '%s' listed twice",
                           file ? file : "?", vars[v]);
                return NULL;
            }
    }
    {
        int64_t psize = pop_size_of(ctx, pop);
        for (i = 0; i < nidx; i++)
            if (idx[i] < 0 || (psize > 0 && idx[i] >= psize)) {
                nrt_seterr(ctx, "state recording '%s': neuron index %lld outside population "
                           "'%s' of %lld", file ? file : "?", (long long)idx[i], pname,
                           (long long)psize);
                return NULL;
            }
        r = rec_open(ctx, file, pop, psize, KIND_STATE, NULL);
    }
    if (!r)
        return NULL;
    r->every = every;
    r->vars = nrt_alloc(ctx, (size_t)nvars * sizeof *r->vars, "variable names");
    r->units = nrt_alloc(ctx, (size_t)nvars * sizeof *r->units, "variable units");
    r->idx = nrt_alloc(ctx, (size_t)nidx * sizeof *r->idx, "recorded neuron indices");
    if (!r->vars || !r->units || !r->idx) {
        rec_free(r);
        return NULL;
    }
    r->nvars = nvars;
    r->nidx = nidx;
    memcpy(r->idx, idx, (size_t)nidx * sizeof *idx);
    len = 0;
    for (v = 0; v < nvars; v++) {
        r->vars[v] = dup_str(ctx, vars[v], "a variable name");
        r->units[v] = dup_str(ctx, units ? units[v] : "", "a unit");
        if (!r->vars[v] || !r->units[v]) {
            rec_free(r);
            return NULL;
        }
        len += strlen(vars[v]);
    }
    if (r->fmt == FMT_NPY) {
        r->row_bytes = 8 * (1 + (size_t)nvars * (size_t)nidx);
        n = 32 + len + (size_t)nvars * 40;
        r->descr = nrt_alloc(ctx, n, "an npy descr");
        if (!r->descr) {
            rec_free(r);
            return NULL;
        }
        p = r->descr;
        p += sprintf(p, "[('t', '<f8')");
        for (v = 0; v < nvars; v++)
            p += sprintf(p, ", ('%s', '<f8', (%d,))", vars[v], nidx);
        strcpy(p, "]");
        return rec_start(r, NULL);
    }
    r->row_max = 40 + (size_t)nvars * (size_t)nidx * CSV_W;
    n = 8 + (len + 24 * (size_t)nvars) * (size_t)nidx;
    hdr = nrt_alloc(ctx, n, "a csv header");
    if (!hdr) {
        rec_free(r);
        return NULL;
    }
    p = hdr + sprintf(hdr, "t_ms");
    for (v = 0; v < nvars; v++)
        for (i = 0; i < nidx; i++)
            p += sprintf(p, ",%s[%lld]", vars[v], (long long)idx[i]);
    strcpy(p, "\n");
    r = rec_start(r, hdr);
    nrt_free(hdr);
    return r;
}

/* A state row's values encoded on the pool (--threads: C simulators, GPU programs' drains):
 * part t of T, the values [nv t / T, nv (t + 1) / T), .npy at their fixed places after the
 * time, .csv as ",value" texts from CSV_W bytes a value on (no value's text is longer), the
 * caller moving the parts together in thread order: the bytes of one thread for any T. */
typedef struct row_job {
    int fmt;
    unsigned char *p;             /* npy: the first value's bytes; csv: its text's place */
    size_t room;                  /* csv: the bytes from p to the end of the buffer */
    const double *vals;
    size_t nv;
    size_t len[NRT_MAX_THREADS];  /* csv: the text of part t */
} row_job;

static void row_part(void *arg, int t, int T)
{
    row_job *jb = arg;
    size_t a = jb->nv * (size_t)t / (size_t)T, b = jb->nv * (size_t)(t + 1) / (size_t)T, k;
    if (jb->fmt == FMT_NPY) {
        for (k = a; k < b; k++)
            put_f64le(jb->p + 8 * k, jb->vals[k]);
        return;
    }
    char *p = (char *)jb->p + CSV_W * a;
    size_t room = jb->room - CSV_W * a, m = 0;
    for (k = a; k < b; k++) {
        p[m++] = ',';
        m += (size_t)nrt_fmt_g9(p + m, room - m, jb->vals[k]);
    }
    jb->len[t] = m;
}

/* Contract: appends one row (t = (step + 1) * dt, so t = 0 for step -1, then vals: nvars * nidx doubles,
 * variable-major) to the state recording r; flushes when the buffer is full. NRT_EINVAL
 * for NULL arguments or a spike recording; NRT_EIO with errmsg on a write failure. */
nrt_status nrt_rec_state_row(nrt_rec *r, int64_t step, const double *vals)
{
    size_t nv;
    row_job jb;
    if (!r || !vals)
        return NRT_EINVAL;
    if (r->kind != KIND_STATE) {
        nrt_seterr(r->ctx, "recording '%s' is a spike recording, not a state recording",
                   r->path);
        return NRT_EINVAL;
    }
    if (r->err)
        return fail(r, r->err);
    if (r->win_hi && (step < r->win_lo || step >= r->win_hi) && !(step == -1 && r->win_lo == 0))
        return NRT_OK;   /* outside the window; the row at t = 0 (step -1) is in one from 0 */
    nv = (size_t)r->nvars * (size_t)r->nidx;
    jb.fmt = r->fmt, jb.vals = vals, jb.nv = nv;   /* (len: set by every part) */
    if (r->fmt == FMT_NPY) {
        unsigned char *p = r->buf + r->buf_len;
        put_f64le(p, (double)(step + 1) * r->ctx->dt);
        jb.p = p + 8, jb.room = 0;
        nrt_pool_run(row_part, &jb, (double)nv / NRT_NPY_COST);
        r->buf_len += r->row_bytes;
    } else {
        char *p = (char *)r->buf + r->buf_len;
        size_t room = r->buf_cap - r->buf_len;
        int m = fmt_time(r, p, room, step);
        const int T = nrt_pool_size() > 1 ? nrt_pool_size() : 1;
        jb.p = (unsigned char *)p + m, jb.room = room - (size_t)m;
        nrt_pool_run(row_part, &jb, (double)nv);
        for (int t = 0; t < T; t++) {   /* the parts together, in thread order */
            memmove(p + m, jb.p + CSV_W * (nv * (size_t)t / (size_t)T), jb.len[t]);
            m += (int)jb.len[t];
        }
        p[m++] = '\n';
        p[m] = '\0';
        r->buf_len += (size_t)m;
    }
    r->rows_buf++;
    if (r->buf_cap - r->buf_len < (r->fmt == FMT_NPY ? r->row_bytes : r->row_max))
        return flush(r);
    return NRT_OK;
}

/* Contract: see neurort.h. The bin is r->every. */
nrt_rec *nrt_rec_rate(nrt_ctx *ctx, const char *file, const char *pop, const char *target,
                      int64_t offset, int64_t size, int64_t bin)
{
    nrt_rec *r;
    int64_t psize = pop_size_of(ctx, pop);
    if (size < 1 || offset < 0 || bin < 1 || (psize > 0 && offset + size > psize)) {
        nrt_seterr(ctx, "rate recording '%s': neurons [%lld, %lld) of '%s' and bin %lld steps "
                   "do not fit a population of %lld", file ? file : "?", (long long)offset,
                   (long long)(offset + size), pop ? pop : "?", (long long)bin, (long long)psize);
        return NULL;
    }
    if (ctx->start_step % bin != 0 || (ctx->ckpt_step > 0 && ctx->ckpt_step % bin != 0)) {
        int64_t s = ctx->start_step % bin != 0 ? ctx->start_step : ctx->ckpt_step;
        nrt_seterr(ctx, "rate recording '%s': the %s at step %lld falls inside a bin of %lld "
                   "steps; choose a step that is a multiple of the bin", file ? file : "?",
                   ctx->start_step % bin != 0 ? "resumed run's first step" : "checkpoint",
                   (long long)s, (long long)bin);
        return NULL;
    }
    r = rec_open(ctx, file, pop, psize, KIND_RATE, NULL);
    if (!r)
        return NULL;
    r->every = bin;
    r->offset = offset;
    r->size = size;
    r->target = dup_str(ctx, target ? target : pop, "a recording's target name");
    if (!r->target) {
        rec_free(r);
        return NULL;
    }
    return rec_two_columns(r, 16, "[('t', '<f8'), ('rate', '<f8')]", "t_ms,rate_Hz\n");
}

/* Contract: see neurort.h. The rate is count / (size x bin x dt) in Hz, in double: the same
 * bits on every back end, since the count is exact. */
nrt_status nrt_rec_rate_add(nrt_rec *r, int64_t step, int64_t count)
{
    double hz;
    if (!r || r->kind != KIND_RATE)
        return NRT_EINVAL;
    if (r->err)
        return fail(r, r->err);
    r->count += count;
    if ((step + 1) % r->every != 0)
        return NRT_OK;
    hz = (double)r->count / ((double)r->size * (double)r->every * r->ctx->dt) * 1000.0;
    r->count = 0;
    if (r->fmt == FMT_NPY) {
        unsigned char *p = r->buf + r->buf_len;
        put_f64le(p, (double)(step + 1) * r->ctx->dt);
        put_f64le(p + 8, hz);
        r->buf_len += 16;
    } else {
        char *p = (char *)r->buf + r->buf_len;
        size_t room = r->buf_cap - r->buf_len;
        int m = fmt_time(r, p, room, step);
        p[m++] = ',';
        m += nrt_fmt_g9(p + m, room - (size_t)m, hz);
        p[m++] = '\n';
        p[m] = '\0';
        r->buf_len += (size_t)m;
    }
    r->rows_buf++;
    if (r->buf_cap - r->buf_len < (r->fmt == FMT_NPY ? r->row_bytes : r->row_max))
        return flush(r);
    return NRT_OK;
}

/* Contract: 1 if step is a sampling step of r (step % every == 0, within its window), else
 * 0 (also for NULL). */
int nrt_rec_due(const nrt_rec *r, int64_t step)
{
    return r && step >= 0 && step % r->every == 0 && (!r->win_hi || (step > r->win_lo && step <= r->win_hi));
}

/* Contract: see neurort.h. */
nrt_status nrt_rec_synapses(nrt_rec *r, const nrt_csr *c, const int64_t *sel, int64_t n)
{
    char name[4200], path[8400];
    const char *dot;
    if (!r)
        return NRT_OK;
    dot = strrchr(r->file, '.');
    snprintf(name, sizeof name, "%.*s_synapses.npy", (int)(dot ? dot - r->file : (long)strlen(r->file)), r->file);
    if (r->ctx->out_dir)
        snprintf(path, sizeof path, "%s/%s", r->ctx->out_dir, name);
    else
        snprintf(path, sizeof path, "%s", name);
    r->synfile = dup_str(r->ctx, name, "a recording's synapse file name");
    if (!r->synfile)
        return NRT_ENOMEM;
    return nrt_syn_pairs_write(r->ctx, path, c, sel, n);
}

/* Contract: see neurort.h. */
void nrt_rec_window(nrt_rec *r, int64_t lo, int64_t hi)
{
    if (r && lo >= 0 && hi > lo) {
        r->win_lo = lo;
        r->win_hi = hi;
    }
}

/* Contract: see rt_internal.h. */
nrt_status nrt_commit_file(nrt_ctx *ctx, FILE *f, const char *tmp, const char *path)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        nrt_seterr(ctx, "cannot write '%s': %s", tmp, strerror(errno ? errno : EIO));
        remove(tmp);
        return NRT_EIO;
    }
    if (rename(tmp, path) != 0) {
        nrt_seterr(ctx, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
        remove(tmp);
        return NRT_EIO;
    }
    return NRT_OK;
}

/* Contract: see neurort.h. Flushes and closes every recording (a failing one keeps the
 * rows it had written), writes <out_dir>/manifest.json through a temporary file and a
 * rename (skipped when nrt_init never set out_dir), frees the recordings, restores the
 * signal handlers and marks ctx->interrupted when a stop was requested, fewer than
 * total_steps steps ran or a recording failed. The manifest's "error" is the message of
 * nrt_fail, else of the first failing recording, else null; "signal" the signal that
 * stopped the run, else null. With ctx->plot, then draws the figures (nrt_plot) unless
 * writing failed. Returns the first error (its message stays in errmsg), else
 * NRT_OK; a second call returns the first call's result and does nothing. */
nrt_status nrt_finish(nrt_ctx *ctx)
{
    nrt_status st = NRT_OK, s;
    char first[sizeof ctx->errmsg], fail_msg[sizeof ctx->errmsg];
    nrt_rec *r, *next;
    if (!ctx)
        return NRT_EINVAL;
    if (ctx->finished)
        return ctx->finish_status;
    first[0] = '\0';
    if (ctx->failed) /* nrt_fail: errmsg is the error that stopped the run */
        memcpy(fail_msg, ctx->errmsg, sizeof fail_msg);
    if (ctx->stop_requested || (ctx->total_steps > 0 && ctx->step < ctx->total_steps &&
                                !(ctx->ckpt_stop && ctx->ckpt_written == ctx->step)))
        ctx->interrupted = 1;
    for (r = ctx->recs; r; r = r->next) {
        s = flush(r);
        if (r->fmt == FMT_SINK) {
            nrt_status c = r->sink->close(ctx, r->sink_h);
            r->sink_h = NULL;
            if (s == NRT_OK)
                s = c;
        } else if (s == NRT_OK && close(r->fd) != 0)
            s = fail(r, errno);
        else if (s != NRT_OK)
            close(r->fd);
        r->fd = -1;
        if (s != NRT_OK && st == NRT_OK) {
            st = s;
            memcpy(first, ctx->errmsg, sizeof first);
        }
    }
    if (st != NRT_OK)
        ctx->interrupted = 1; /* recordings lost rows: the run is not complete */
    if (ctx->out_dir) {
        s = nrt_write_manifest(ctx, ctx->failed ? fail_msg : st != NRT_OK ? first : NULL);
        if (s != NRT_OK && st == NRT_OK) {
            st = s;
            memcpy(first, ctx->errmsg, sizeof first);
        }
    }
    for (r = ctx->recs; r; r = next) {
        next = r->next;
        rec_free(r);
    }
    ctx->recs = NULL;
    nrt_signals_restore(ctx);
    if (ctx->plot && ctx->out_dir && !ctx->dry_run && st == NRT_OK) {
        s = nrt_plot(ctx, ctx->out_dir);
        if (s != NRT_OK && st == NRT_OK) {
            st = s;
            snprintf(first, sizeof first, "--plot: %.500s", ctx->errmsg);
        }
    }
    if (st != NRT_OK)
        memcpy(ctx->errmsg, first, sizeof first);
    ctx->finished = 1;
    ctx->finish_status = st;
    nrt_instance_report(ctx, st);
    return st;
}

/* Contract: see neurort.h. */
int nrt_fail(nrt_ctx *ctx, const char *prog)
{
    char first[sizeof ctx->errmsg];
    memcpy(first, ctx->errmsg, sizeof first);
    fprintf(stderr, "%s: error: %s\n", prog, first);
    if (ctx->sim_t0 > 0 && ctx->t_simulate == 0) /* stopped in the step loop: its time so far */
        ctx->t_simulate = nrt_sim_end(ctx, ctx->sim_t0);
    ctx->interrupted = 1;
    ctx->failed = 1;
    if (nrt_finish(ctx) != NRT_OK && strcmp(ctx->errmsg, first) != 0)
        fprintf(stderr, "%s: error: %s\n", prog, ctx->errmsg);
    return 1;
}
