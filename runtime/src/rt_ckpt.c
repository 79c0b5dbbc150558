/* rt_ckpt.c -- checkpoints of a running simulation: write, check and read back.
 *
 * A checkpoint is a folder: `checkpoint.txt`, a line-based header (format version, model,
 * program hash, back end, seed, dt, step, phase, spike counts, settable scalars, and the
 * name and size of every array), and one raw file `<name>.bin` per array of mutable state,
 * in the host's byte order. The generated program lists its state as nrt_ckpt_items
 * (codegen/cg_ckpt.c); this file only moves bytes and checks them (docs/cli.md §2.5).
 */
#define _POSIX_C_SOURCE 200809L

#include "rt_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK_MAGIC "neuroc-checkpoint"
#define CK_VERSION 1
#define CK_HEADER "checkpoint.txt"

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

/* {===== Reading the header ===== */

/* The header of a checkpoint, as read by read_header. */
typedef struct ck_header {
    char model[256];
    uint64_t hash;
    char backend[32];
    uint64_t seed;
    double dt;
    int64_t step, total_steps;
    int phase;
} ck_header;

/* Open <dir>/checkpoint.txt and check its first line. NULL with errmsg otherwise. */
static FILE *open_header(nrt_ctx *ctx, const char *dir)
{
    char path[4200], line[256];
    FILE *f;
    int ver;
    if (ck_path(ctx, path, sizeof path, dir, CK_HEADER, "") != 0)
        return NULL;
    f = fopen(path, "r");
    if (!f) {
        nrt_seterr(ctx, "cannot read checkpoint '%s': %s (a checkpoint folder holds %s, "
                   "written last)", path, strerror(errno), CK_HEADER);
        return NULL;
    }
    if (!fgets(line, sizeof line, f) || sscanf(line, CK_MAGIC " %d", &ver) != 1) {
        nrt_seterr(ctx, "'%s' is not a neuroc checkpoint", path);
        fclose(f);
        return NULL;
    }
    if (ver != CK_VERSION) {
        nrt_seterr(ctx, "checkpoint '%s' has format version %d; this program reads version %d",
                   path, ver, CK_VERSION);
        fclose(f);
        return NULL;
    }
    return f;
}

/* A "param NAME VALUE" line: the run-time parameter's value of the checkpointed run, which
 * the resumed run takes (docs/language.md §12.9). 0, or -1 with errmsg. */
static int param_line(nrt_ctx *ctx, const char *dir, const char *line)
{
    char name[256];
    double v;
    if (sscanf(line, "param %255s %lf", name, &v) != 2) {
        nrt_seterr(ctx, "checkpoint '%s/%s': malformed line '%.60s'", dir, CK_HEADER, line);
        return -1;
    }
    for (int i = 0; i < ctx->nparams; i++)
        if (strcmp(ctx->params[i].name, name) == 0) {
            ctx->params[i].value = v;
            return 0;
        }
    nrt_seterr(ctx, "checkpoint '%s' sets run-time parameter '%s', which this program does not "
               "have", dir, name);
    return -1;
}

/* Read the header's fields (and the run-time parameters, into ctx->params) and check them
 * against this program. 0, or -1 with errmsg. */
static int read_header(nrt_ctx *ctx, const char *dir, ck_header *h)
{
    char line[512], key[32];
    int have = 0;
    FILE *f = open_header(ctx, dir);
    if (!f)
        return -1;
    memset(h, 0, sizeof *h);
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%31s", key) != 1)
            continue;
        if (strcmp(key, "model") == 0 && sscanf(line, "model %255s", h->model) == 1)
            have |= 1;
        else if (strcmp(key, "hash") == 0 && sscanf(line, "hash %" SCNx64, &h->hash) == 1)
            have |= 2;
        else if (strcmp(key, "backend") == 0 && sscanf(line, "backend %31s", h->backend) == 1)
            have |= 4;
        else if (strcmp(key, "seed") == 0 && sscanf(line, "seed %" SCNu64, &h->seed) == 1)
            have |= 8;
        else if (strcmp(key, "dt") == 0 && sscanf(line, "dt %lf", &h->dt) == 1)
            have |= 16;
        else if (strcmp(key, "step") == 0 && sscanf(line, "step %" SCNd64, &h->step) == 1)
            have |= 32;
        else if (strcmp(key, "phase") == 0 && sscanf(line, "phase %d", &h->phase) == 1)
            have |= 64;
        else if (strcmp(key, "total_steps") == 0 &&
                 sscanf(line, "total_steps %" SCNd64, &h->total_steps) == 1)
            have |= 128;
    }
    if (have != 255) {
        fclose(f);
        nrt_seterr(ctx, "checkpoint '%s/%s' is incomplete (a field is missing)", dir, CK_HEADER);
        return -1;
    }
    if (strcmp(h->model, ctx->model) != 0 || h->hash != ctx->model_hash) {
        nrt_seterr(ctx, "checkpoint '%s' was written by another model or neuroc version "
                   "(model '%s', program %016" PRIx64 "; this is '%s', program %016" PRIx64 ")",
                   dir, h->model, h->hash, ctx->model, ctx->model_hash);
        fclose(f);
        return -1;
    }
    if (h->dt != ctx->dt || h->total_steps != ctx->total_steps || h->step < 0 ||
        h->step > ctx->total_steps || h->phase < 0) {
        nrt_seterr(ctx, "checkpoint '%s' does not fit this program (dt %g ms, step %" PRId64
                   " of %" PRId64 ")", dir, h->dt, h->step, h->total_steps);
        fclose(f);
        return -1;
    }
    rewind(f);   /* this program's checkpoint: now its run-time parameters */
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "param ", 6) == 0 && param_line(ctx, dir, line) != 0) {
            fclose(f);
            return -1;
        }
    fclose(f);
    return 0;
}

/* Contract: reads and checks the header of checkpoint `dir` for --resume (nrt_init): the
 * model name and program hash must be this program's (ctx->model, ctx->model_hash), dt
 * and the step count its own. Sets ctx->seed (an explicit --seed must equal the
 * checkpoint's: seed_given), the run-time parameters' values, ctx->start_step,
 * ctx->start_phase and ctx->step. 0, or -1 with errmsg. */
int nrt_ckpt_open(nrt_ctx *ctx, const char *dir, int seed_given)
{
    ck_header h;
    if (read_header(ctx, dir, &h) != 0)
        return -1;
    if (seed_given && ctx->seed != h.seed) {
        nrt_seterr(ctx, "--seed %" PRIu64 " differs from the seed %" PRIu64 " of checkpoint "
                   "'%s' (leave --seed out when resuming)", ctx->seed, h.seed, dir);
        return -1;
    }
    ctx->seed = h.seed;
    ctx->start_step = h.step;
    ctx->start_phase = h.phase;
    ctx->step = h.step;
    return 0;
}

/* ===== Reading the header =====} */

/* Write all of `bytes` to <dir>/<name>.bin. 0, or -1 with errmsg. */
static int write_array(nrt_ctx *ctx, const char *dir, const nrt_ckpt_item *it)
{
    char path[4200];
    FILE *f;
    int bad;
    if (ck_path(ctx, path, sizeof path, dir, it->name, ".bin") != 0)
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

static void write_scalar(FILE *f, const nrt_ckpt_item *it)
{
    double v = 0;
    switch (it->type) {
    case 'f': v = (double)*(const float *)it->data; break;
    case 'd': v = *(const double *)it->data; break;
    default: v = (double)*(const int32_t *)it->data; break;
    }
    fprintf(f, "scalar %s %.17g\n", it->name, v);
}

/* Contract: see neurort.h. Removes <dir>/checkpoint.txt first, writes every array, then
 * the header through checkpoint.txt.tmp and a rename, so a folder whose header exists
 * holds a complete checkpoint. Records the step in ctx->ckpt_written. */
nrt_status nrt_ckpt_save(nrt_ctx *ctx, int phase, const nrt_ckpt_item *it, int n)
{
    char path[4200], tmp[4208];
    const char *dir = ctx->ckpt_dir;
    FILE *f;
    int i;
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
    for (i = 0; i < n; i++)
        if (!it[i].type && write_array(ctx, dir, &it[i]) != 0)
            return NRT_EIO;
    f = fopen(tmp, "w");
    if (!f) {
        nrt_seterr(ctx, "cannot write '%s': %s", tmp, strerror(errno));
        return NRT_EIO;
    }
    fprintf(f, CK_MAGIC " %d\n", CK_VERSION);
    fprintf(f, "model %s\nhash %016" PRIx64 "\nbackend %s\nseed %" PRIu64 "\n", ctx->model,
            ctx->model_hash, ctx->backend ? ctx->backend : "c", ctx->seed);
    fprintf(f, "dt %.17g\nstep %" PRId64 "\nphase %d\ntotal_steps %" PRId64 "\n", ctx->dt,
            ctx->step, phase, ctx->total_steps);
    for (i = 0; i < ctx->nparams; i++)
        fprintf(f, "param %s %.17g\n", ctx->params[i].name, ctx->params[i].value);
    for (i = 0; i < ctx->npops; i++)
        fprintf(f, "spikes %s %" PRId64 "\n", ctx->pops[i].name, ctx->pops[i].spikes);
    for (i = 0; i < n; i++) {
        if (it[i].type)
            write_scalar(f, &it[i]);
        else
            fprintf(f, "array %s %zu\n", it[i].name, it[i].bytes);
    }
    if (nrt_commit_file(ctx, f, tmp, path) != NRT_OK)
        return NRT_EIO;
    ctx->ckpt_written = ctx->step;
    return NRT_OK;
}

/* Read <dir>/<name>.bin, which must hold exactly it->bytes bytes. 0, or -1 with errmsg. */
static int read_array(nrt_ctx *ctx, const char *dir, const nrt_ckpt_item *it)
{
    char path[4200];
    FILE *f;
    size_t got;
    int extra;
    if (ck_path(ctx, path, sizeof path, dir, it->name, ".bin") != 0)
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
    return 0;
}

static int find_item(const nrt_ckpt_item *it, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(it[i].name, name) == 0)
            return i;
    return -1;
}

/* Contract: see neurort.h. Every item must be listed in the header (arrays with the same
 * size), every array file must hold exactly its bytes; the spike counts of ctx->pops are
 * restored by name. */
nrt_status nrt_ckpt_load(nrt_ctx *ctx, const nrt_ckpt_item *it, int n)
{
    const char *dir = ctx->resume_dir;
    char line[512], name[256], backend[32] = "";
    unsigned char *seen;
    FILE *f;
    int i;
    if (!dir || !(f = open_header(ctx, dir)))
        return NRT_EIO;
    seen = nrt_alloc(ctx, (size_t)n + 1, "checkpoint items");
    if (!seen) {
        fclose(f);
        return NRT_ENOMEM;
    }
    while (fgets(line, sizeof line, f)) {
        double v;
        size_t bytes;
        int64_t count;
        if (sscanf(line, "backend %31s", backend) == 1) {
            continue;
        } else if (sscanf(line, "spikes %255s %" SCNd64, name, &count) == 2) {
            for (i = 0; i < ctx->npops; i++)
                if (strcmp(ctx->pops[i].name, name) == 0)
                    ctx->pops[i].spikes = count;
        } else if (sscanf(line, "scalar %255s %lf", name, &v) == 2) {
            i = find_item(it, n, name);
            if (i < 0 || !it[i].type)
                goto unknown;
            seen[i] = 1;
            if (it[i].type == 'f')
                *(float *)it[i].data = (float)v;
            else if (it[i].type == 'd')
                *(double *)it[i].data = v;
            else
                *(int32_t *)it[i].data = (int32_t)v;
        } else if (sscanf(line, "array %255s %zu", name, &bytes) == 2) {
            i = find_item(it, n, name);
            if (i < 0 || it[i].type)
                goto unknown;
            if (bytes != it[i].bytes) {
                nrt_seterr(ctx, "checkpoint '%s': '%s' has %zu bytes, this program holds %zu",
                           dir, name, bytes, it[i].bytes);
                goto fail;
            }
            if (read_array(ctx, dir, &it[i]) != 0)
                goto fail;
            seen[i] = 1;
        }
    }
    for (i = 0; i < n; i++)
        if (!seen[i]) {
            nrt_seterr(ctx, "checkpoint '%s' lacks '%s'", dir, it[i].name);
            goto fail;
        }
    fclose(f);
    nrt_free(seen);
    return NRT_OK;
unknown:
    nrt_seterr(ctx, "checkpoint '%s' holds '%s', which this program does not have", dir, name);
fail:
    if (ctx->backend && strcmp(backend, ctx->backend) != 0) {
        size_t k = strlen(ctx->errmsg);
        snprintf(ctx->errmsg + k, sizeof ctx->errmsg - k, "; it was written by the %s back end, "
                 "which holds this model's state in another layout than the %s back end: "
                 "resume it with a %s simulator", backend, ctx->backend, backend);
    }
    fclose(f);
    nrt_free(seen);
    return NRT_EIO;
}
