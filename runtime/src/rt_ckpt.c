/* rt_ckpt.c -- checkpoints of a running simulation: write, check and read back.
 *
 * A checkpoint is a folder: `checkpoint.txt`, a line-based header (format version, model,
 * program hash, back end, seed, dt, step, phase, spike counts, settable scalars, and the
 * name, size and CRC-64 of every array, then the CRC-64 of the header itself), and one raw
 * file `<name>.bin` per array of mutable state, in the host's byte order. The generated
 * program lists its state as nrt_ckpt_items (codegen/cg_ckpt.c); this file only moves bytes
 * and checks them: a header is parsed strictly and a checkpoint whose header or arrays do
 * not match their checksums is refused (docs/cli.md §2.5).
 */
#define _POSIX_C_SOURCE 200809L

#include "rt_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK_MAGIC "neuroc-checkpoint"
#define CK_VERSION 2              /* 1: no checksums (neuroc before the integrity checks) */
#define CK_HEADER "checkpoint.txt"
#define CK_MAX_HEADER (64u << 20) /* bytes of checkpoint.txt read at most */
#define CK_MAX_LINE 8192          /* characters of a header line, '\n' excluded */
#define CK_MAX_NAME 4000          /* characters of a name in the header (model names of any
                                     length up to this; a file name is cut, ck_file) */
#define CK_FILE_NAME 200          /* characters of an array's name kept whole in its file name */

/* "<dir>/<name><suffix>" into buf; -1 (errmsg set) when it does not fit. */
static int ck_path(nrt_ctx *ctx, char *buf, size_t n, const char *dir, const char *name,
                   const char *suffix)
{
    int k = snprintf(buf, n, "%s/%s%s", dir, name, suffix);
    if (k < 0 || (size_t)k >= n) {
        nrt_seterr(ctx, "checkpoint path '%s/%s%s' is too long", dir, name, suffix);
        return -1;
    }
    return 0;
}

/* Contract: parses a --checkpoint-at value into a step count >= 0: a time in ms ("500",
 * "500ms", "0.5s") that is a whole number of steps of dt, or a step count ("5000steps").
 * 0 and *step on success; -1 with errmsg otherwise. */
int nrt_ckpt_parse_at(nrt_ctx *ctx, const char *s, int64_t *step)
{
    char *end;
    double v, steps;
    errno = 0;
    v = strtod(s, &end);
    if (end == s || errno || !isfinite(v) || v < 0)
        goto bad;
    if (strcmp(end, "steps") == 0 || strcmp(end, "step") == 0) {
        if (v != floor(v) || v > 9e15)
            goto bad;
        *step = (int64_t)v;
        return 0;
    }
    if (strcmp(end, "s") == 0)
        v *= 1000.0;
    else if (*end && strcmp(end, "ms") != 0)
        goto bad;
    steps = v / ctx->dt;
    if (!(steps < 9e15) || fabs(steps - nearbyint(steps)) > 1e-6 * (steps > 1 ? steps : 1)) {
        nrt_seterr(ctx, "--checkpoint-at '%s' is not a whole number of steps of dt = %g ms", s,
                   ctx->dt);
        return -1;
    }
    *step = (int64_t)nearbyint(steps);
    return 0;
bad:
    nrt_seterr(ctx, "invalid time '%s' for '--checkpoint-at' (expected e.g. 500ms, 0.5s, "
               "5000steps, or a number of ms)", s);
    return -1;
}

/* {===== CRC-64 ===== */

/* CRC-64/XZ (the ECMA-182 polynomial, reflected; initial value and final xor all ones; the
 * CRC of "123456789" is 995dc9bbdf1939fa): it detects every burst of up to 64 flipped bits
 * (so every single-bit flip) and every odd number of flipped bits (the polynomial has an even
 * number of terms); other damage passes with a chance of 2^-64. Eight bytes at a time
 * ("slicing by 8"; about 1.4 GB/s of CPU time here) from tables made on first use. */
static uint64_t crc_tab[8][256];

static void crc_init(void)
{
    for (int n = 0; n < 256; n++) {
        uint64_t c = (uint64_t)n;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0xc96c5795d7870f42ULL : c >> 1;
        crc_tab[0][n] = c;
    }
    for (int n = 0; n < 256; n++)
        for (int k = 1; k < 8; k++)
            crc_tab[k][n] = crc_tab[0][crc_tab[k - 1][n] & 0xff] ^ (crc_tab[k - 1][n] >> 8);
}

static uint64_t crc64(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t c = ~0ULL;
    if (!crc_tab[0][1])
        crc_init();
    for (; n >= 8; n -= 8, p += 8) {
        c ^= (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
             (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
             (uint64_t)p[7] << 56;
        c = crc_tab[7][c & 0xff] ^ crc_tab[6][(c >> 8) & 0xff] ^ crc_tab[5][(c >> 16) & 0xff] ^
            crc_tab[4][(c >> 24) & 0xff] ^ crc_tab[3][(c >> 32) & 0xff] ^
            crc_tab[2][(c >> 40) & 0xff] ^ crc_tab[1][(c >> 48) & 0xff] ^ crc_tab[0][c >> 56];
    }
    for (; n; n--, p++)
        c = crc_tab[0][(c ^ *p) & 0xff] ^ (c >> 8);
    return ~c;
}

/* ===== CRC-64 =====} */

/* {===== Reading the header ===== */

/* One line of checkpoint.txt after the first, split in place at its spaces. */
typedef struct ck_line {
    int no;                       /* line number, from 1 */
    int nf;                       /* fields, the key included */
    char *f[4];                   /* key, then its values */
} ck_line;

/* A checkpoint's header, read and checked by read_header. */
typedef struct ck_header {
    char *text;                   /* the file's bytes, split in place (malloc'd) */
    ck_line *lines;               /* every line but the first and the checksum's */
    int nlines;
    const char *model, *backend;
    uint64_t hash, seed;
    double dt;
    int64_t step, total_steps;
    int phase;
} ck_header;

static void free_header(ck_header *h)
{
    free(h->text);
    free(h->lines);
    h->text = NULL;
    h->lines = NULL;
}

/* Read all of <dir>/checkpoint.txt into h->text ('\0'-terminated), *len its bytes. 0, or -1
 * with errmsg. */
static int slurp_header(nrt_ctx *ctx, const char *dir, ck_header *h, size_t *len)
{
    char path[4200];
    size_t cap = 4096, n = 0;
    FILE *f;
    if (ck_path(ctx, path, sizeof path, dir, CK_HEADER, "") != 0)
        return -1;
    f = fopen(path, "rb");
    if (!f) {
        nrt_seterr(ctx, "cannot read checkpoint '%s': %s (a checkpoint folder holds %s, "
                   "written last)", path, strerror(errno), CK_HEADER);
        return -1;
    }
    for (;;) {
        char *t = realloc(h->text, cap + 1);
        if (!t) {
            nrt_seterr(ctx, "out of memory reading '%s'", path);
            break;
        }
        h->text = t;
        n += fread(t + n, 1, cap - n, f);
        if (n < cap) {
            if (ferror(f)) {
                nrt_seterr(ctx, "cannot read '%s': %s", path, strerror(errno ? errno : EIO));
                break;
            }
            fclose(f);
            t[n] = '\0';
            *len = n;
            return 0;
        }
        if (cap >= CK_MAX_HEADER) {
            nrt_seterr(ctx, "checkpoint '%s': %s is larger than %u MiB: not a checkpoint's "
                       "header", dir, CK_HEADER, CK_MAX_HEADER >> 20);
            break;
        }
        cap *= 2;
    }
    fclose(f);
    return -1;
}

/* The first line: the magic and the format version. 0, or -1 with errmsg. */
static int check_version(nrt_ctx *ctx, const char *dir, const char *text)
{
    const size_t k = strlen(CK_MAGIC " ");
    long ver;
    char *end;
    if (strncmp(text, CK_MAGIC " ", k) != 0 || text[k] < '0' || text[k] > '9') {
        nrt_seterr(ctx, "checkpoint '%s': '%s/%s' is not a neuroc checkpoint (its first line "
                   "is not '%s VERSION')", dir, dir, CK_HEADER, CK_MAGIC);
        return -1;
    }
    errno = 0;
    ver = strtol(text + k, &end, 10);
    if (errno || *end != '\n') {
        nrt_seterr(ctx, "checkpoint '%s': %s line 1: malformed format version", dir, CK_HEADER);
        return -1;
    }
    if (ver < CK_VERSION) {
        nrt_seterr(ctx, "checkpoint '%s' is from an older version of neuroc (checkpoint format "
                   "%ld, without checksums; this program reads format %d): resume it with the "
                   "neuroc that wrote it, or run the simulation again", dir, ver, CK_VERSION);
        return -1;
    }
    if (ver > CK_VERSION) {
        nrt_seterr(ctx, "checkpoint '%s' has checkpoint format %ld, from a newer version of "
                   "neuroc; this program reads format %d", dir, ver, CK_VERSION);
        return -1;
    }
    return 0;
}

/* Check the last line, "checksum <CRC-64 of every byte before it>", and end the text
 * before it. 0, or -1 with errmsg. */
static int check_checksum(nrt_ctx *ctx, const char *dir, char *text, size_t len)
{
    const char *key = "checksum ";
    size_t k = strlen(key), start;
    uint64_t want = 0;
    if (len == 0 || text[len - 1] != '\n')
        goto bad;
    for (start = len - 1; start > 0 && text[start - 1] != '\n'; start--)
        ;
    if (len - start != k + 17 || strncmp(text + start, key, k) != 0)
        goto bad;
    for (size_t i = start + k; i < len - 1; i++) {
        char c = text[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            goto bad;
        want = want << 4 | (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
    }
    if (crc64(text, start) != want) {
        nrt_seterr(ctx, "checkpoint '%s': %s does not match its checksum (changed or damaged "
                   "after it was written)", dir, CK_HEADER);
        return -1;
    }
    text[start] = '\0';
    return 0;
bad:
    nrt_seterr(ctx, "checkpoint '%s': %s does not end in its line 'checksum HEX' (truncated, "
               "or changed after it was written)", dir, CK_HEADER);
    return -1;
}

/* The keys of the header's lines, each with its count of fields (key included); those
 * before K_ONCE occur exactly once. */
enum { K_MODEL, K_HASH, K_BACKEND, K_SEED, K_DT, K_STEP, K_PHASE, K_TOTAL, K_ONCE,
       K_PARAM = K_ONCE, K_SPIKES, K_VSPIKES, K_SCALAR, K_ARRAY, K_COUNT };
static const struct ck_key {
    const char *key;
    int nf;
} ck_keys[K_COUNT] = {
    {"model", 2}, {"hash", 2},  {"backend", 2}, {"seed", 2},   {"dt", 2},    {"step", 2},
    {"phase", 2}, {"total_steps", 2}, {"param", 3}, {"spikes", 3}, {"view_spikes", 3},
    {"scalar", 3}, {"array", 4},
};

/* Split the text after line 1 into h->lines. 0, or -1 with errmsg naming the line. */
static int split_lines(nrt_ctx *ctx, const char *dir, ck_header *h)
{
    char *p = strchr(h->text, '\n') + 1, *nl;
    int cap = 0;
    for (int no = 2; *p; no++, p = nl + 1) {
        ck_line *ln;
        nl = strchr(p, '\n');
        if ((size_t)(nl - p) > CK_MAX_LINE) {
            nrt_seterr(ctx, "checkpoint '%s': %s line %d: longer than %d characters", dir,
                       CK_HEADER, no, CK_MAX_LINE);
            return -1;
        }
        for (char *q = p; q < nl; q++)
            if ((unsigned char)*q < ' ' || *q == 0x7f) {
                nrt_seterr(ctx, "checkpoint '%s': %s line %d: a control character (byte "
                           "0x%02x)", dir, CK_HEADER, no, (unsigned char)*q);
                return -1;
            }
        if (h->nlines == cap) {
            ck_line *v = realloc(h->lines, (size_t)(cap = cap ? 2 * cap : 64) * sizeof *v);
            if (!v) {
                nrt_seterr(ctx, "out of memory reading checkpoint '%s'", dir);
                return -1;
            }
            h->lines = v;
        }
        ln = &h->lines[h->nlines++];
        ln->no = no;
        ln->nf = 0;
        *nl = '\0';
        if (p == nl || *p == ' ' || nl[-1] == ' ' || strstr(p, "  ")) {
            nrt_seterr(ctx, "checkpoint '%s': %s line %d: malformed (fields are separated by "
                       "one space): '%.60s'", dir, CK_HEADER, no, p);
            return -1;
        }
        for (char *q = p; q; q = strchr(q, ' ')) {   /* fields: split at each space */
            if (*q == ' ')
                *q++ = '\0';
            if (ln->nf == 4) {
                nrt_seterr(ctx, "checkpoint '%s': %s line %d: '%s' with too many values", dir,
                           CK_HEADER, no, ln->f[0]);
                return -1;
            }
            ln->f[ln->nf++] = q;
        }
    }
    return 0;
}

/* Field k of line ln as a whole number < 2^64: decimal digits, or with base 16 exactly 16
 * lowercase hex digits. 0, or -1 with errmsg naming the line and the field. */
static int parse_u64(nrt_ctx *ctx, const char *dir, const ck_line *ln, int k, int base,
                     uint64_t *v)
{
    const char *s = ln->f[k];
    size_t n = strlen(s), i;
    uint64_t x = 0;
    for (i = 0; i < n; i++) {
        const int d = s[i] >= '0' && s[i] <= '9' ? s[i] - '0'
                    : base == 16 && s[i] >= 'a' && s[i] <= 'f' ? s[i] - 'a' + 10 : -1;
        if (d < 0 || x > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            break;
        x = x * (uint64_t)base + (uint64_t)d;
    }
    if (n == 0 || i < n || (base == 16 && n != 16)) {
        nrt_seterr(ctx, "checkpoint '%s': %s line %d: '%s' has the value '%.40s', not a %s", dir,
                   CK_HEADER, ln->no, ln->f[0], s,
                   base == 16 ? "64-bit number of 16 hex digits" : "whole number below 2^64");
        return -1;
    }
    *v = x;
    return 0;
}

/* ... as a whole number in 0 .. max. */
static int parse_count(nrt_ctx *ctx, const char *dir, const ck_line *ln, int k, uint64_t max,
                       uint64_t *v)
{
    if (parse_u64(ctx, dir, ln, k, 10, v) != 0)
        return -1;
    if (*v > max) {
        nrt_seterr(ctx, "checkpoint '%s': %s line %d: '%s' has the value %s, more than %" PRIu64,
                   dir, CK_HEADER, ln->no, ln->f[0], ln->f[k], max);
        return -1;
    }
    return 0;
}

/* ... as a number: all of it as strtod reads it, without leading spaces. */
static int parse_real(nrt_ctx *ctx, const char *dir, const ck_line *ln, int k, double *v)
{
    const char *s = ln->f[k];
    char *end;
    *v = strtod(s, &end);
    if (end == s || *end || (unsigned char)s[0] <= ' ') {
        nrt_seterr(ctx, "checkpoint '%s': %s line %d: '%s' has the value '%.40s', not a number",
                   dir, CK_HEADER, ln->no, ln->f[0], s);
        return -1;
    }
    return 0;
}

/* A name of the header: at most CK_MAX_NAME characters. */
static int check_name(nrt_ctx *ctx, const char *dir, const ck_line *ln, int k)
{
    if (strlen(ln->f[k]) > CK_MAX_NAME) {
        nrt_seterr(ctx, "checkpoint '%s': %s line %d: the name of '%s' is longer than %d "
                   "characters", dir, CK_HEADER, ln->no, ln->f[0], CK_MAX_NAME);
        return -1;
    }
    return 0;
}

/* One line of h->lines into h's fields: a known key with its count of fields, a key before
 * K_ONCE only once (first[key]: the line it was in). 0, or -1 with errmsg. */
static int header_line(nrt_ctx *ctx, const char *dir, ck_header *h, const ck_line *ln,
                       int *first)
{
    int k = 0;
    uint64_t v;
    while (k < K_COUNT && strcmp(ck_keys[k].key, ln->f[0]) != 0)
        k++;
    if (k == K_COUNT) {
        nrt_seterr(ctx, "checkpoint '%s': %s line %d: unknown field '%.60s'", dir, CK_HEADER,
                   ln->no, ln->f[0]);
        return -1;
    }
    if (ln->nf != ck_keys[k].nf) {
        nrt_seterr(ctx, "checkpoint '%s': %s line %d: '%s' takes %d value%s, not %d", dir,
                   CK_HEADER, ln->no, ck_keys[k].key, ck_keys[k].nf - 1,
                   ck_keys[k].nf == 2 ? "" : "s", ln->nf - 1);
        return -1;
    }
    if (k < K_ONCE && first[k]) {
        nrt_seterr(ctx, "checkpoint '%s': %s line %d: '%s' appears twice (first in line %d)",
                   dir, CK_HEADER, ln->no, ck_keys[k].key, first[k]);
        return -1;
    }
    if (k < K_ONCE)
        first[k] = ln->no;
    if ((k == K_MODEL || k == K_BACKEND || k >= K_ONCE) && check_name(ctx, dir, ln, 1) != 0)
        return -1;
    switch (k) {
    case K_MODEL: h->model = ln->f[1]; return 0;
    case K_HASH: return parse_u64(ctx, dir, ln, 1, 16, &h->hash);
    case K_BACKEND: h->backend = ln->f[1]; return 0;
    case K_SEED: return parse_u64(ctx, dir, ln, 1, 10, &h->seed);
    case K_DT: return parse_real(ctx, dir, ln, 1, &h->dt);
    case K_STEP:
    case K_TOTAL:
        if (parse_count(ctx, dir, ln, 1, INT64_MAX, &v) != 0)
            return -1;
        *(k == K_STEP ? &h->step : &h->total_steps) = (int64_t)v;
        return 0;
    case K_PHASE:
        if (parse_count(ctx, dir, ln, 1, 1000000000, &v) != 0)
            return -1;
        h->phase = (int)v;
        return 0;
    }
    return 0;   /* param, spikes, scalar, array: checked by their readers */
}

/* Read <dir>/checkpoint.txt into h, strictly: the format version, the checksum over the
 * rest, then every line a known key with its values (numbers whole, names not too long),
 * each field exactly once. Free h with free_header, also after a failure. The values of
 * param, spikes, scalar and array lines are checked by their users. 0, or -1 with errmsg. */
static int read_header(nrt_ctx *ctx, const char *dir, ck_header *h)
{
    size_t len;
    int first[K_ONCE] = {0};
    memset(h, 0, sizeof *h);
    if (slurp_header(ctx, dir, h, &len) != 0)
        return -1;
    if (strlen(h->text) != len) {
        nrt_seterr(ctx, "checkpoint '%s': %s holds a NUL byte: not a checkpoint's header", dir,
                   CK_HEADER);
        return -1;
    }
    if (check_version(ctx, dir, h->text) != 0 || check_checksum(ctx, dir, h->text, len) != 0 ||
        split_lines(ctx, dir, h) != 0)
        return -1;
    for (int i = 0; i < h->nlines; i++)
        if (header_line(ctx, dir, h, &h->lines[i], first) != 0)
            return -1;
    for (int k = 0; k < K_ONCE; k++)
        if (!first[k]) {
            nrt_seterr(ctx, "checkpoint '%s': %s lacks the field '%s'", dir, CK_HEADER,
                       ck_keys[k].key);
            return -1;
        }
    return 0;
}

/* The header against this program: model, program hash, dt, the steps and the phase. */
static int check_fit(nrt_ctx *ctx, const char *dir, const ck_header *h)
{
    if (strcmp(h->model, ctx->model) != 0 || h->hash != ctx->model_hash) {
        nrt_seterr(ctx, "checkpoint '%s' was written by another model or neuroc version "
                   "(model '%s', program %016" PRIx64 "; this is '%s', program %016" PRIx64 ")",
                   dir, h->model, h->hash, ctx->model, ctx->model_hash);
        return -1;
    }
    if (h->dt != ctx->dt || h->total_steps != ctx->total_steps || h->step > ctx->total_steps) {
        nrt_seterr(ctx, "checkpoint '%s' does not fit this program (dt %g ms, step %" PRId64
                   " of %" PRId64 "; this program: dt %g ms, %" PRId64 " steps)", dir, h->dt,
                   h->step, h->total_steps, ctx->dt, ctx->total_steps);
        return -1;
    }
    if (h->phase >= ctx->nphases) {
        nrt_seterr(ctx, "checkpoint '%s': its phase %d is past the model's phases (0 to %d)",
                   dir, h->phase, ctx->nphases - 1);
        return -1;
    }
    return 0;
}

/* The "param NAME VALUE" lines: each run-time parameter of this program exactly once, its
 * value the checkpointed run's, which the resumed run takes (docs/language.md §12.9).
 * 0, or -1 with errmsg. */
static int read_params(nrt_ctx *ctx, const char *dir, const ck_header *h)
{
    int *line = nrt_alloc(ctx, ((size_t)ctx->nparams + 1) * sizeof *line, "checkpoint params");
    int rc = line ? 0 : -1;
    for (int i = 0; rc == 0 && i < h->nlines; i++) {
        const ck_line *ln = &h->lines[i];
        double v;
        int k = 0;
        if (strcmp(ln->f[0], "param") != 0)
            continue;
        while (k < ctx->nparams && strcmp(ctx->params[k].name, ln->f[1]) != 0)
            k++;
        if (k == ctx->nparams) {
            nrt_seterr(ctx, "checkpoint '%s' sets run-time parameter '%s', which this program "
                       "does not have", dir, ln->f[1]);
            rc = -1;
        } else if (line[k]) {
            nrt_seterr(ctx, "checkpoint '%s': %s line %d: 'param %s' appears twice (first in "
                       "line %d)", dir, CK_HEADER, ln->no, ln->f[1], line[k]);
            rc = -1;
        } else if (parse_real(ctx, dir, ln, 2, &v) != 0) {
            rc = -1;
        } else {
            line[k] = ln->no;
            ctx->params[k].value = v;
        }
    }
    for (int k = 0; rc == 0 && k < ctx->nparams; k++)
        if (!line[k]) {
            nrt_seterr(ctx, "checkpoint '%s': %s lacks 'param %s'", dir, CK_HEADER,
                       ctx->params[k].name);
            rc = -1;
        }
    nrt_free(line);
    return rc;
}

/* Contract: reads and checks checkpoint `dir` for --resume (nrt_init): the header as
 * read_header reads it (format version, checksum, strict syntax); the model name and
 * program hash must be this program's (ctx->model, ctx->model_hash), dt and the step count
 * its own, the phase one of ctx->nphases. Sets ctx->seed (an explicit --seed must equal
 * the checkpoint's: seed_given), the run-time parameters' values, ctx->start_step,
 * ctx->start_phase and ctx->step. The arrays are checked by nrt_ckpt_load. 0, or -1 with
 * errmsg. */
int nrt_ckpt_open(nrt_ctx *ctx, const char *dir, int seed_given)
{
    ck_header h;
    int rc = read_header(ctx, dir, &h) != 0 || check_fit(ctx, dir, &h) != 0 ||
             read_params(ctx, dir, &h) != 0 ? -1 : 0;
    if (rc == 0 && seed_given && ctx->seed != h.seed) {
        nrt_seterr(ctx, "--seed %" PRIu64 " differs from the seed %" PRIu64 " of checkpoint "
                   "'%s' (leave --seed out when resuming)", ctx->seed, h.seed, dir);
        rc = -1;
    }
    if (rc == 0) {
        ctx->seed = h.seed;
        ctx->start_step = h.step;
        ctx->start_phase = h.phase;
        ctx->step = h.step;
    }
    free_header(&h);
    return rc;
}

/* ===== Reading the header =====} */

/* {===== Writing ===== */

/* The header as it is written: a growing string. */
typedef struct ck_text {
    char *s;
    size_t len, cap;
    int oom;                      /* an allocation failed */
} ck_text;

static void text_printf(ck_text *t, const char *fmt, ...) NRT_PRINTF(2, 3);
static void text_printf(ck_text *t, const char *fmt, ...)
{
    va_list ap;
    int k;
    if (t->oom)
        return;
    va_start(ap, fmt);
    k = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
    va_end(ap);
    if (k < 0) {
        t->oom = 1;
        return;
    }
    if (!t->s || t->len + (size_t)k >= t->cap) {
        size_t cap = t->cap ? t->cap : 1024;
        char *s;
        while (cap <= t->len + (size_t)k)
            cap *= 2;
        if (!(s = realloc(t->s, cap))) {
            t->oom = 1;
            return;
        }
        t->s = s;
        t->cap = cap;
        va_start(ap, fmt);
        vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
    }
    t->len += (size_t)k;
}

/* The file of array `name`: "<name>.bin", or for a name longer than CK_FILE_NAME (file
 * systems allow 255 bytes) its first CK_FILE_NAME - 17 characters, '-' and the name's
 * CRC-64 in hex, ".bin": distinct names give distinct files (the header lists each name
 * once and holds each file's checksum). */
static const char *ck_file(const char *name, char *buf, size_t n)
{
    size_t len = strlen(name);
    if (len <= CK_FILE_NAME)
        snprintf(buf, n, "%s.bin", name);
    else
        snprintf(buf, n, "%.*s-%016" PRIx64 ".bin", CK_FILE_NAME - 17, name, crc64(name, len));
    return buf;
}

/* Write all of `bytes` to <dir>/<file of name>. 0, or -1 with errmsg. */
static int write_array(nrt_ctx *ctx, const char *dir, const nrt_ckpt_item *it)
{
    char path[4200], file[CK_FILE_NAME + 8];
    FILE *f;
    int bad;
    if (ck_path(ctx, path, sizeof path, dir, ck_file(it->name, file, sizeof file), "") != 0)
        return -1;
    f = fopen(path, "wb");
    if (!f) {
        nrt_seterr(ctx, "cannot write checkpoint file '%s': %s", path, strerror(errno));
        return -1;
    }
    bad = it->bytes && fwrite(it->data, 1, it->bytes, f) != it->bytes;
    if (fclose(f) != 0 || bad) {
        nrt_seterr(ctx, "cannot write checkpoint file '%s': %s", path,
                   strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

static void write_scalar(ck_text *t, const nrt_ckpt_item *it)
{
    double v = 0;
    switch (it->type) {
    case 'f': v = (double)*(const float *)it->data; break;
    case 'd': v = *(const double *)it->data; break;
    default: v = (double)*(const int32_t *)it->data; break;
    }
    text_printf(t, "scalar %s %.17g\n", it->name, v);
}

/* The header's text into t, writing every array file on the way (their checksums are in
 * it). 0, or -1 with errmsg. */
static int write_state(nrt_ctx *ctx, int phase, const nrt_ckpt_item *it, int n, ck_text *t)
{
    const char *dir = ctx->ckpt_dir;
    int i;
    text_printf(t, CK_MAGIC " %d\n", CK_VERSION);
    text_printf(t, "model %s\nhash %016" PRIx64 "\nbackend %s\nseed %" PRIu64 "\n", ctx->model,
                ctx->model_hash, ctx->backend ? ctx->backend : "c", ctx->seed);
    text_printf(t, "dt %.17g\nstep %" PRId64 "\nphase %d\ntotal_steps %" PRId64 "\n", ctx->dt,
                ctx->step, phase, ctx->total_steps);
    for (i = 0; i < ctx->nparams; i++)
        text_printf(t, "param %s %.17g\n", ctx->params[i].name, ctx->params[i].value);
    for (i = 0; i < ctx->npops; i++)
        text_printf(t, "spikes %s %" PRId64 "\n", ctx->pops[i].name, ctx->pops[i].spikes);
    for (i = 0; ctx->view_spikes && i < ctx->nviews; i++)
        text_printf(t, "view_spikes %s %" PRId64 "\n", ctx->views[i].name, ctx->views[i].spikes);
    for (i = 0; i < n; i++) {
        if (it[i].type) {
            write_scalar(t, &it[i]);
            continue;
        }
        if (write_array(ctx, dir, &it[i]) != 0)
            return -1;
        text_printf(t, "array %s %zu %016" PRIx64 "\n", it[i].name, it[i].bytes,
                    crc64(it[i].data, it[i].bytes));
    }
    if (!t->oom)
        text_printf(t, "checksum %016" PRIx64 "\n", crc64(t->s, t->len));
    if (t->oom) {
        nrt_seterr(ctx, "out of memory writing checkpoint '%s'", dir);
        return -1;
    }
    return 0;
}

/* Contract: see neurort.h. Removes <dir>/checkpoint.txt first, writes every array, then
 * the header (with each array's CRC-64 and its own) through checkpoint.txt.tmp and a
 * rename, so a folder whose header exists holds a complete checkpoint. Records the step in
 * ctx->ckpt_written. */
nrt_status nrt_ckpt_save(nrt_ctx *ctx, int phase, const nrt_ckpt_item *it, int n)
{
    char path[4200], tmp[4208];
    const char *dir = ctx->ckpt_dir;
    ck_text t = {0};
    FILE *f;
    int bad;
    if (!dir) {
        nrt_seterr(ctx, "no checkpoint folder (--checkpoint DIR)");
        return NRT_EINVAL;
    }
    if (nrt_make_dirs(dir) != 0) {
        nrt_seterr(ctx, "cannot create checkpoint folder '%s': %s", dir, strerror(errno));
        return NRT_EIO;
    }
    if (ck_path(ctx, path, sizeof path, dir, CK_HEADER, "") != 0)
        return NRT_EINVAL;
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (remove(path) != 0 && errno != ENOENT) {
        nrt_seterr(ctx, "cannot replace '%s': %s", path, strerror(errno));
        return NRT_EIO;
    }
    if (write_state(ctx, phase, it, n, &t) != 0) {
        free(t.s);
        return NRT_EIO;
    }
    f = fopen(tmp, "w");
    if (!f) {
        nrt_seterr(ctx, "cannot write '%s': %s", tmp, strerror(errno));
        free(t.s);
        return NRT_EIO;
    }
    bad = fwrite(t.s, 1, t.len, f) != t.len;
    free(t.s);
    if (bad) {
        fclose(f);
        remove(tmp);
        nrt_seterr(ctx, "cannot write '%s': %s", tmp, strerror(errno ? errno : EIO));
        return NRT_EIO;
    }
    if (nrt_commit_file(ctx, f, tmp, path) != NRT_OK)
        return NRT_EIO;
    ctx->ckpt_written = ctx->step;
    return NRT_OK;
}

/* ===== Writing =====} */

/* {===== Reading the state ===== */

/* Read <dir>/<name>.bin, which must hold exactly it->bytes bytes whose CRC-64 is crc. 0, or
 * -1 with errmsg. */
static int read_array(nrt_ctx *ctx, const char *dir, const nrt_ckpt_item *it, uint64_t crc)
{
    char path[4200], file[CK_FILE_NAME + 8];
    FILE *f;
    size_t got;
    int extra;
    if (ck_path(ctx, path, sizeof path, dir, ck_file(it->name, file, sizeof file), "") != 0)
        return -1;
    f = fopen(path, "rb");
    if (!f) {
        nrt_seterr(ctx, "cannot read checkpoint file '%s': %s", path, strerror(errno));
        return -1;
    }
    got = fread(it->data, 1, it->bytes, f);
    extra = fgetc(f) != EOF;
    fclose(f);
    if (got != it->bytes || extra) {
        nrt_seterr(ctx, "checkpoint file '%s' has %s bytes than the %zu this program holds "
                   "(truncated, or from another build)", path, extra ? "more" : "fewer",
                   it->bytes);
        return -1;
    }
    if (crc64(it->data, it->bytes) != crc) {
        nrt_seterr(ctx, "checkpoint '%s': array file '%s' does not match its checksum in %s "
                   "(changed or damaged after it was written)", dir, file, CK_HEADER);
        return -1;
    }
    return 0;
}

static int find_item(const nrt_ckpt_item *it, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(it[i].name, name) == 0)
            return i;
    return -1;
}

/* A "spikes POP COUNT" line: the population's spike count, once. */
static int spikes_line(nrt_ctx *ctx, const char *dir, const ck_line *ln, int *seen)
{
    uint64_t v;
    int i = 0;
    while (i < ctx->npops && strcmp(ctx->pops[i].name, ln->f[1]) != 0)
        i++;
    if (i == ctx->npops) {
        nrt_seterr(ctx, "checkpoint '%s': %s line %d: spike count of population '%s', which "
                   "this program does not have", dir, CK_HEADER, ln->no, ln->f[1]);
        return -1;
    }
    if (seen[i]) {
        nrt_seterr(ctx, "checkpoint '%s': %s line %d: 'spikes %s' appears twice (first in line "
                   "%d)", dir, CK_HEADER, ln->no, ln->f[1], seen[i]);
        return -1;
    }
    if (parse_count(ctx, dir, ln, 2, INT64_MAX, &v) != 0)
        return -1;
    seen[i] = ln->no;
    ctx->pops[i].spikes = (int64_t)v;
    return 0;
}

/* A "view_spikes VIEW COUNT" line: the declared view's spike count (a view this program
 * does not declare: ignored, as the model hash already matched). */
static int view_spikes_line(nrt_ctx *ctx, const char *dir, const ck_line *ln)
{
    uint64_t v;
    if (parse_count(ctx, dir, ln, 2, INT64_MAX, &v) != 0)
        return -1;
    for (int i = 0; i < ctx->nviews; i++)
        if (strcmp(ctx->views[i].name, ln->f[1]) == 0)
            ctx->views[i].spikes = (int64_t)v;
    return 0;
}

/* A "scalar NAME VALUE" or "array NAME BYTES CRC" line into item it (unread so far). 0; -2
 * with errmsg where the array's size is not the program's; -1 with errmsg otherwise. */
static int item_line(nrt_ctx *ctx, const char *dir, const ck_line *ln, const nrt_ckpt_item *it)
{
    uint64_t bytes, crc;
    double v;
    if (it->type) {
        if (parse_real(ctx, dir, ln, 2, &v) != 0)
            return -1;
        if (it->type == 'i' && !(v == floor(v) && v >= INT32_MIN && v <= INT32_MAX)) {
            nrt_seterr(ctx, "checkpoint '%s': %s line %d: 'scalar %s' has the value %s, not a "
                       "32-bit integer", dir, CK_HEADER, ln->no, it->name, ln->f[2]);
            return -1;
        }
        if (it->type == 'f')
            *(float *)it->data = (float)v;
        else if (it->type == 'd')
            *(double *)it->data = v;
        else
            *(int32_t *)it->data = (int32_t)v;
        return 0;
    }
    if (parse_count(ctx, dir, ln, 2, SIZE_MAX, &bytes) != 0 ||
        parse_u64(ctx, dir, ln, 3, 16, &crc) != 0)
        return -1;
    if (bytes != it->bytes) {
        nrt_seterr(ctx, "checkpoint '%s': '%s' has %" PRIu64 " bytes, this program holds %zu",
                   dir, it->name, bytes, it->bytes);
        return -2;
    }
    return read_array(ctx, dir, it, crc);
}

/* Every spikes, scalar and array line of h into ctx->pops and the items: each exactly
 * once, none unknown. 0; -2 with errmsg where an item is unknown, missing or of another
 * size (a layout of another back end, say); -1 with errmsg otherwise. */
static int load_state(nrt_ctx *ctx, const char *dir, const ck_header *h,
                      const nrt_ckpt_item *it, int n, int *seen)
{
    int *pop_seen = seen + n;
    int i, rc;
    for (int k = 0; k < h->nlines; k++) {
        const ck_line *ln = &h->lines[k];
        const int scalar = strcmp(ln->f[0], "scalar") == 0;
        if (strcmp(ln->f[0], "spikes") == 0) {
            if (spikes_line(ctx, dir, ln, pop_seen) != 0)
                return -1;
            continue;
        }
        if (strcmp(ln->f[0], "view_spikes") == 0) {
            if (view_spikes_line(ctx, dir, ln) != 0)
                return -1;
            continue;
        }
        if (!scalar && strcmp(ln->f[0], "array") != 0)
            continue;
        i = find_item(it, n, ln->f[1]);
        if (i < 0 || !it[i].type != !scalar) {
            nrt_seterr(ctx, "checkpoint '%s' holds '%s', which this program does not have", dir,
                       ln->f[1]);
            return -2;
        }
        if (seen[i]) {
            nrt_seterr(ctx, "checkpoint '%s': %s line %d: '%s %s' appears twice (first in line "
                       "%d)", dir, CK_HEADER, ln->no, ln->f[0], ln->f[1], seen[i]);
            return -1;
        }
        if ((rc = item_line(ctx, dir, ln, &it[i])) != 0)
            return rc;
        seen[i] = ln->no;
    }
    for (i = 0; i < n; i++)
        if (!seen[i]) {
            nrt_seterr(ctx, "checkpoint '%s' lacks '%s'", dir, it[i].name);
            return -2;
        }
    for (i = 0; i < ctx->npops; i++)
        if (!pop_seen[i]) {
            nrt_seterr(ctx, "checkpoint '%s': %s lacks the spike count of population '%s'", dir,
                       CK_HEADER, ctx->pops[i].name);
            return -1;
        }
    return 0;
}

/* Contract: see neurort.h. The header is read again as nrt_ckpt_open reads it; every item
 * must be listed in it exactly once (arrays with the same size), every array file must
 * hold exactly its bytes, with the CRC-64 the header gives; the spike counts of ctx->pops
 * are restored by name, each population's exactly once. A folder with rank1/checkpoint.txt
 * (a distributed GPU checkpoint, rt_mpi.c) is refused unless ctx->ckpt_parts. */
nrt_status nrt_ckpt_load(nrt_ctx *ctx, const nrt_ckpt_item *it, int n)
{
    const char *dir = ctx->resume_dir;
    ck_header h;
    int *seen, rc;
    if (!dir)
        return NRT_EIO;
    if (!ctx->ckpt_parts) {   /* rank 0's part of a distributed GPU checkpoint (rt_mpi.c) */
        char part[4200];
        FILE *f;
        snprintf(part, sizeof part, "%s/rank1/" CK_HEADER, dir);
        if ((f = fopen(part, "rb")) != NULL) {
            fclose(f);
            nrt_seterr(ctx, "checkpoint '%s' is rank 0's part of a checkpoint of distributed ranks "
                       "(it holds rank1/): resume it with the distributed simulator and as many ranks", dir);
            return NRT_EIO;
        }
    }
    if (read_header(ctx, dir, &h) != 0) {
        free_header(&h);
        return NRT_EIO;
    }
    seen = nrt_alloc(ctx, ((size_t)n + (size_t)ctx->npops + 1) * sizeof *seen,
                     "checkpoint items");
    if (!seen) {
        free_header(&h);
        return NRT_ENOMEM;
    }
    memset(seen, 0, ((size_t)n + (size_t)ctx->npops + 1) * sizeof *seen);
    rc = load_state(ctx, dir, &h, it, n, seen);
    if (rc == -2 && ctx->backend && strcmp(h.backend, ctx->backend) != 0) {
        size_t k = strlen(ctx->errmsg);
        snprintf(ctx->errmsg + k, sizeof ctx->errmsg - k, "; it was written by the %s back end, "
                 "which holds this model's state in another layout than the %s back end: "
                 "resume it with a %s simulator", h.backend, ctx->backend, h.backend);
    }
    nrt_free(seen);
    free_header(&h);
    return rc != 0 ? NRT_EIO : NRT_OK;
}

/* ===== Reading the state =====} */
