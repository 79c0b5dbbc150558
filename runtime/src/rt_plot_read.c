/* rt_plot_read.c -- the reading half of the figures (rt_plot.h): a small JSON reader for
 * manifest.json, and the recordings streamed row by row. */
#define _POSIX_C_SOURCE 200809L

#include "rt_plot.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#pragma weak nrt_h5_read_spikes
#endif

/* {===== A small JSON reader (manifest.json) ===== */




void pl_json_free(Json *j)
{
    int k;
    if (!j)
        return;
    for (k = 0; k < j->n; k++) {
        pl_json_free(&j->items[k]);
        if (j->keys)
            free(j->keys[k]);
    }
    free(j->items);
    free(j->keys);
    free(j->str);
}

static void skip_ws(JParse *p)
{
    while (*p->s == ' ' || *p->s == '\n' || *p->s == '\r' || *p->s == '\t')
        p->s++;
}

/* A JSON string at p->s (after the quote); \uXXXX is kept as '?' beyond ASCII. */
static char *parse_str(JParse *p)
{
    size_t cap = 16, n = 0;
    char *out = malloc(cap), *grown;
    if (!out)
        return NULL;
    for (;;) {
        char c = *p->s++;
        if (c == '\0' || (unsigned char)c < 0x20) {
            free(out);
            return NULL;
        }
        if (c == '"')
            break;
        if (c == '\\') {
            c = *p->s++;
            switch (c) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u': {
                unsigned v = 0;
                int k;
                for (k = 0; k < 4; k++) {
                    char h = *p->s++;
                    v = v * 16 + (unsigned)(h >= '0' && h <= '9' ? h - '0'
                                            : h >= 'a' && h <= 'f' ? h - 'a' + 10
                                            : h >= 'A' && h <= 'F' ? h - 'A' + 10 : 0);
                    if (!h) {
                        free(out);
                        return NULL;
                    }
                }
                c = v < 0x80 ? (char)v : '?';
                break;
            }
            case '"': case '\\': case '/': break;
            default:
                free(out);
                return NULL;
            }
        }
        if (n + 2 > cap) {
            cap *= 2;
            grown = realloc(out, cap);
            if (!grown) {
                free(out);
                return NULL;
            }
            out = grown;
        }
        out[n++] = c;
    }
    out[n] = '\0';
    return out;
}

/* One value into *j. 0 on success. */
int pl_parse_value(JParse *p, Json *j)
{
    memset(j, 0, sizeof *j);
    skip_ws(p);
    if (++p->depth > 64)
        return -1;
    if (*p->s == '{' || *p->s == '[') {
        int obj = *p->s == '{';
        char close = obj ? '}' : ']';
        j->type = obj ? J_OBJ : J_ARR;
        p->s++;
        skip_ws(p);
        if (*p->s == close) {
            p->s++;
            p->depth--;
            return 0;
        }
        for (;;) {
            Json *items = realloc(j->items, sizeof *items * (size_t)(j->n + 1));
            if (!items)
                return -1;
            j->items = items;
            if (obj) {
                char **keys = realloc(j->keys, sizeof *keys * (size_t)(j->n + 1));
                if (!keys)
                    return -1;
                j->keys = keys;
                j->keys[j->n] = NULL;
                skip_ws(p);
                if (*p->s != '"')
                    return -1;
                p->s++;
                if (!(j->keys[j->n] = parse_str(p)))
                    return -1;
                skip_ws(p);
                if (*p->s++ != ':') {
                    free(j->keys[j->n]);
                    return -1;
                }
            }
            if (pl_parse_value(p, &j->items[j->n]) != 0) {
                j->n++;
                return -1;
            }
            j->n++;
            skip_ws(p);
            if (*p->s == ',') {
                p->s++;
                continue;
            }
            if (*p->s++ != close)
                return -1;
            break;
        }
    } else if (*p->s == '"') {
        p->s++;
        j->type = J_STR;
        if (!(j->str = parse_str(p)))
            return -1;
    } else if (strncmp(p->s, "true", 4) == 0 || strncmp(p->s, "false", 5) == 0) {
        j->type = J_BOOL;
        j->num = p->s[0] == 't';
        p->s += p->s[0] == 't' ? 4 : 5;
    } else if (strncmp(p->s, "null", 4) == 0) {
        j->type = J_NULL;
        p->s += 4;
    } else {
        char *end;
        j->type = J_NUM;
        j->num = strtod(p->s, &end);
        if (end == p->s)
            return -1;
        p->s = end;
    }
    p->depth--;
    return 0;
}

const Json *pl_jget(const Json *o, const char *key)
{
    int k;
    if (!o || o->type != J_OBJ)
        return NULL;
    for (k = 0; k < o->n; k++)
        if (strcmp(o->keys[k], key) == 0)
            return &o->items[k];
    return NULL;
}

double pl_jnum(const Json *o, const char *key, double dflt)
{
    const Json *v = pl_jget(o, key);
    return v && (v->type == J_NUM || v->type == J_BOOL) ? v->num : dflt;
}

const char *pl_jstr(const Json *o, const char *key, const char *dflt)
{
    const Json *v = pl_jget(o, key);
    return v && v->type == J_STR ? v->str : dflt;
}

/* ===== JSON =====} */

/* {===== Reading recordings ===== */

/* A whole file into a NUL-terminated malloc'd buffer; NULL with errmsg. */
char *pl_slurp(nrt_ctx *ctx, const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL, *grown;
    size_t cap = 0, n = 0, k;
    if (!f) {
        nrt_seterr(ctx, "cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    do {
        if (cap - n < 65536) {
            cap = cap ? cap * 2 : 65536 * 2;
            grown = realloc(buf, cap + 1);
            if (!grown) {
                free(buf);
                fclose(f);
                nrt_seterr(ctx, "out of memory reading '%s'", path);
                return NULL;
            }
            buf = grown;
        }
        k = fread(buf + n, 1, cap - n, f);
        n += k;
    } while (k > 0);
    if (ferror(f)) {
        free(buf);
        fclose(f);
        nrt_seterr(ctx, "cannot read '%s': %s", path, strerror(errno ? errno : EIO));
        return NULL;
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}


static int64_t rd_le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    int i;
    for (i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return (int64_t)v;
}

/* Open `path` (format by extension) whose rows have `cols` float64 values after t (state),
 * or are spike rows (cols < 0). NULL with errmsg when it cannot be read or is not what the
 * manifest says. */
Reader *pl_rd_open(nrt_ctx *ctx, const char *path, int cols, const char *group)
{
    Reader *r = calloc(1, sizeof *r);
    const char *ext = strrchr(path, '.');
    if (!r) {
        nrt_seterr(ctx, "out of memory opening '%s'", path);
        return NULL;
    }
    r->ctx = ctx;
    r->path = strdup(path);
    if (!r->path) {
        nrt_seterr(ctx, "out of memory opening '%s'", path);
        free(r);
        return NULL;
    }
    if (group) {
        if (nrt_h5_read_spikes(ctx, path, group, &r->ht, &r->hid, &r->rows) != NRT_OK) {
            free(r->path);
            free(r);
            return NULL;
        }
        return r;
    }
    r->npy = ext && strcmp(ext, ".npy") == 0;
    r->f = fopen(path, "rb");
    if (!r->f) {
        nrt_seterr(ctx, "cannot read '%s': %s", path, strerror(errno));
        free(r->path);
        free(r);
        return NULL;
    }
    if (r->npy) {
        unsigned char pre[12];
        char *dict, *shape;
        size_t hl, pl;
        const char *want = cols < 0 ? "[('t', '<f8'), ('i', '<i4')]" : "[('t', '<f8')";
        if (fread(pre, 1, 10, r->f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0 ||
            (pre[6] != 1 && pre[6] != 2))
            goto bad;
        pl = pre[6] == 1 ? 10 : 12;
        if (pl == 12 && fread(pre + 10, 1, 2, r->f) != 2)
            goto bad;
        hl = (size_t)rd_le(pre + 8, (int)pl - 8);
        if (hl > (1u << 26) || !(dict = malloc(hl + 1)))
            goto bad;
        if (fread(dict, 1, hl, r->f) != hl) {
            free(dict);
            goto bad;
        }
        dict[hl] = '\0';
        shape = strstr(dict, "'shape': (");
        if (!strstr(dict, want) || !shape) {
            free(dict);
            goto bad;
        }
        r->rows = strtoll(shape + 10, NULL, 10);
        free(dict);
        r->row_bytes = cols < 0 ? 12 : 8 * (size_t)(1 + cols);
    } else {
        r->rows = -1;
        if (getline(&r->line, &r->line_cap, r->f) < 0 || strncmp(r->line, "t_ms", 4) != 0)
            goto bad;
    }
    return r;
bad:
    nrt_seterr(ctx, "'%s' is not a recording of the kind manifest.json says", path);
    fclose(r->f);
    free(r->line);
    free(r->path);
    free(r);
    return NULL;
}

void pl_rd_close(Reader *r)
{
    if (r) {
        if (r->f)
            fclose(r->f);
        free(r->path);
        free(r->ht);
        free(r->hid);
        free(r->line);
        free(r);
    }
}

/* Next spike: 1 with (*t, *i), 0 at the end (or at a truncated row), or at a time that is no
 * time of a run (NaN, infinite, negative: r->bad, with errmsg). */
int pl_rd_spike(Reader *r, double *t, int64_t *i)
{
    if (r->ht) {
        if (r->done >= r->rows)
            return 0;
        *t = r->ht[r->done];
        *i = r->hid[r->done];
    } else if (r->npy) {
        unsigned char row[12];
        double d;
        uint64_t u;
        if (r->done >= r->rows || fread(row, 1, 12, r->f) != 12)
            return 0;
        u = (uint64_t)rd_le(row, 8);
        memcpy(&d, &u, sizeof d);
        *t = d;
        *i = (int32_t)(uint32_t)rd_le(row + 8, 4);
    } else {
        char *e;
        if (getline(&r->line, &r->line_cap, r->f) < 0)
            return 0;
        *t = strtod(r->line, &e);
        if (*e != ',')
            return 0;
        *i = strtoll(e + 1, NULL, 10);
    }
    if (!isfinite(*t) || *t < 0) {
        nrt_seterr(r->ctx, "'%s': row %lld: the spike time %g ms is not a finite time >= 0",
                   r->path ? r->path : "?", (long long)r->done + 1, *t);
        r->bad = 1;
        return 0;
    }
    r->done++;
    return 1;
}

/* Next state row: 1 with vals[0] = t and vals[1..cols], 0 at the end. */
int pl_rd_row(Reader *r, double *vals, int cols)
{
    int k;
    if (r->npy) {
        unsigned char b[8];
        if (r->done >= r->rows)
            return 0;
        for (k = 0; k <= cols; k++) {
            uint64_t u;
            if (fread(b, 1, 8, r->f) != 8)
                return 0;
            u = (uint64_t)rd_le(b, 8);
            memcpy(&vals[k], &u, sizeof u);
        }
    } else {
        char *s, *e;
        if (getline(&r->line, &r->line_cap, r->f) < 0)
            return 0;
        s = r->line;
        for (k = 0; k <= cols; k++) {
            vals[k] = strtod(s, &e);
            if (e == s)
                return 0;
            s = *e == ',' ? e + 1 : e;
        }
    }
    r->done++;
    return 1;
}

/* ===== Reading =====} */
