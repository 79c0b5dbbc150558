/* test_record.c -- recordings read back by a small C reader: .npy header layout (magic,
 * version 1.0, 64-byte multiple, descr, shape), values bit-exact, the file valid after every
 * flush, .csv text, manifest.json contents, and failures: bad names, missing or read-only
 * folders, /dev/full, a file-size limit hit mid-run (NRT_EIO, earlier rows intact). A GPU
 * drain's spike lists sorted step by step on 3 threads (nrt_spikes_sort).
 */
#define _POSIX_C_SOURCE 200809L

#include "neurort.h"
#include "rt_internal.h"   /* nrt_pool_regions */
#include "tcheck.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *dir;

static char *path_in(const char *name)
{
    static char buf[4][1024];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static unsigned char *slurp(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b;
    long n;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    if (b)
        b[n] = 0;
    fclose(f);
    *len = n;
    return b;
}

struct npy {
    char descr[1024];
    long long rows;
    long hdr;                     /* bytes before the data */
    long size;                    /* file size */
    unsigned char *data;          /* whole file */
};

/* Parse an .npy v1.0 file strictly. 0 on success, else a reason code. */
static int npy_read(const char *path, struct npy *o)
{
    long n;
    unsigned hl;
    const char *d, *p, *q;
    char *dict;
    memset(o, 0, sizeof *o);
    o->data = slurp(path, &n);
    if (!o->data)
        return 1;
    o->size = n;
    if (n < 10 || memcmp(o->data, "\x93NUMPY\x01\x00", 8) != 0)
        return 2;
    hl = o->data[8] | (unsigned)o->data[9] << 8;
    o->hdr = 10 + (long)hl;
    if (o->hdr > n || o->hdr % 64 != 0 || o->data[o->hdr - 1] != '\n')
        return 3;
    dict = malloc(hl + 1);
    memcpy(dict, o->data + 10, hl);
    dict[hl] = 0;
    d = dict;
    if (strncmp(d, "{'descr': ", 10) != 0) {
        free(dict);
        return 4;
    }
    p = d + 10;
    q = strstr(p, ", 'fortran_order': False, 'shape': (");
    if (!q || (size_t)(q - p) >= sizeof o->descr) {
        free(dict);
        return 5;
    }
    memcpy(o->descr, p, (size_t)(q - p));
    o->descr[q - p] = 0;
    q += strlen(", 'fortran_order': False, 'shape': (");
    o->rows = strtoll(q, (char **)&p, 10);
    if (strncmp(p, ",), }", 5) != 0) {
        free(dict);
        return 6;
    }
    for (p += 5; *p == ' '; p++)
        ;
    if (strcmp(p, "\n") != 0) {
        free(dict);
        return 7;
    }
    free(dict);
    return 0;
}

static double get_f64(const unsigned char *p)
{
    uint64_t v = 0;
    double x;
    int i;
    for (i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    memcpy(&x, &v, sizeof x);
    return x;
}

static int32_t get_i32(const unsigned char *p)
{
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24);
}

/* the file on disk right now is a valid npy whose shape matches its size; rows or -1 */
static long long npy_valid_now(const char *path, const char *descr, long row_bytes)
{
    struct npy z;
    int rc = npy_read(path, &z);
    long long rows = -1;
    if (rc == 0 && strcmp(z.descr, descr) == 0 && z.size == z.hdr + z.rows * row_bytes)
        rows = z.rows;
    else
        fprintf(stderr, "  %s: rc %d descr %s rows %lld hdr %ld size %ld\n", path, rc,
                z.descr, z.rows, z.hdr, z.size);
    free(z.data);
    return rows;
}

static const char *SPK = "[('t', '<f8'), ('i', '<i4')]";

static void test_spikes_npy(nrt_ctx *ctx)
{
    const long n = 300000;
    long s, changes = 0, bad = 0;
    long long last = 0, now;
    struct npy z;
    nrt_rec *r = nrt_rec_spikes(ctx, "spikes.npy", "exc", 1000);
    CHECKF(r != NULL, "%s", ctx->errmsg);
    if (!r)
        return;
    CHECK(npy_valid_now(path_in("spikes.npy"), SPK, 12) == 0);
    for (s = 0; s < n; s++) {
        if (nrt_rec_spike(r, s / 100, (int32_t)(s % 1000)) != NRT_OK)
            bad++;
        if (s % 997 == 0) {
            now = npy_valid_now(path_in("spikes.npy"), SPK, 12);
            if (now < last || now > s + 1)
                bad++;
            if (now != last)
                changes++;
            last = now;
        }
    }
    CHECK(bad == 0);
    CHECKF(changes >= 3, "only %ld flushes seen", changes);
    CHECK(npy_read(path_in("spikes.npy"), &z) == 0);
    CHECK(z.hdr == 64 || z.hdr == 128);
    free(z.data);
}

static void check_spikes_npy_final(void)
{
    struct npy z;
    long s, bad = 0;
    CHECK(npy_read(path_in("spikes.npy"), &z) == 0);
    CHECK(strcmp(z.descr, SPK) == 0);
    CHECK(z.rows == 300000);
    CHECK(z.size == z.hdr + 300000L * 12);
    for (s = 0; s < z.rows && z.size >= z.hdr + 12 * (s + 1); s++) {
        const unsigned char *p = z.data + z.hdr + 12 * s;
        if (get_f64(p) != (double)(s / 100 + 1) * 0.1 || get_i32(p + 8) != s % 1000)
            bad++;
    }
    CHECK(bad == 0);
    free(z.data);
}

static void test_spikes_csv(nrt_ctx *ctx)
{
    nrt_rec *r = nrt_rec_spikes(ctx, "spikes.csv", "inh", 10);
    int s;
    CHECKF(r != NULL, "%s", ctx->errmsg);
    if (!r)
        return;
    for (s = 0; s < 50; s++)
        CHECK(nrt_rec_spike(r, s * 3, s % 10) == NRT_OK);
    CHECK(nrt_rec_spike(r, 0, 10) == NRT_EINVAL); /* outside the population */
    CHECK(nrt_rec_spike(r, 0, -1) == NRT_EINVAL);
}

static void check_spikes_csv_final(void)
{
    long n;
    char *b = (char *)slurp(path_in("spikes.csv"), &n), *line, *save = NULL;
    int s = -1, bad = 0;
    CHECK(b != NULL);
    if (!b)
        return;
    for (line = strtok_r(b, "\n", &save); line; line = strtok_r(NULL, "\n", &save), s++) {
        char want[64];
        if (s < 0) {
            CHECK(strcmp(line, "t_ms,i") == 0);
            continue;
        }
        snprintf(want, sizeof want, "%.1f,%d", (s * 3 + 1) * 0.1, s % 10);
        if (strcmp(line, want) != 0) {
            if (bad++ < 3)
                fprintf(stderr, "  csv row %d: '%s', expected '%s'\n", s, line, want);
        }
    }
    CHECK(s == 50);
    CHECK(bad == 0);
    free(b);
}

static double vfun(int v, int k, long step)
{
    return v == 0 ? -65.0 + 0.5 * (double)step + k : (double)step / 1024.0 + 1e-7 * k;
}

static void test_state(nrt_ctx *ctx)
{
    const char *vars[2] = {"V", "m"}, *units[2] = {"mV", ""};
    const int64_t idx[3] = {0, 2500, 7};
    double vals[6];
    long step;
    int v, k;
    nrt_rec *a = nrt_rec_state(ctx, "state.npy", "exc", 2, vars, units, 3, idx, 10);
    nrt_rec *b = nrt_rec_state(ctx, "state.csv", "exc", 2, vars, units, 3, idx, 10);
    CHECKF(a && b, "%s", ctx->errmsg);
    if (!a || !b)
        return;
    CHECK(nrt_rec_due(a, 0) && nrt_rec_due(a, 20) && !nrt_rec_due(a, 5));
    for (step = 0; step < 5000; step++) {
        if (!nrt_rec_due(a, step))
            continue;
        for (v = 0; v < 2; v++)
            for (k = 0; k < 3; k++)
                vals[v * 3 + k] = vfun(v, k, step);
        CHECK(nrt_rec_state_row(a, step, vals) == NRT_OK);
        CHECK(nrt_rec_state_row(b, step, vals) == NRT_OK);
    }
    CHECK(nrt_rec_state_row(a, 0, NULL) == NRT_EINVAL);
}

static void check_state_final(void)
{
    struct npy z;
    long row, bad = 0, n;
    int v, k, s = -1;
    char *b, *line, *save = NULL;
    const char *want_descr = "[('t', '<f8'), ('V', '<f8', (3,)), ('m', '<f8', (3,))]";
    CHECK(npy_read(path_in("state.npy"), &z) == 0);
    CHECKF(strcmp(z.descr, want_descr) == 0, "descr %s", z.descr);
    CHECK(z.rows == 500 && z.size == z.hdr + 500 * 56);
    for (row = 0; row < z.rows && z.size >= z.hdr + 56 * (row + 1); row++) {
        const unsigned char *p = z.data + z.hdr + 56 * row;
        long step = row * 10;
        if (get_f64(p) != (double)(step + 1) * 0.1)
            bad++;
        for (v = 0; v < 2; v++)
            for (k = 0; k < 3; k++)
                if (get_f64(p + 8 * (1 + v * 3 + k)) != vfun(v, k, step))
                    bad++;
    }
    CHECK(bad == 0);
    free(z.data);

    b = (char *)slurp(path_in("state.csv"), &n);
    CHECK(b != NULL);
    if (!b)
        return;
    bad = 0;
    for (line = strtok_r(b, "\n", &save); line; line = strtok_r(NULL, "\n", &save), s++) {
        char want[512], *p;
        long step = (long)s * 10;
        if (s < 0) {
            CHECKF(strcmp(line, "t_ms,V[0],V[2500],V[7],m[0],m[2500],m[7]") == 0, "'%s'", line);
            continue;
        }
        p = want + sprintf(want, "%.1f", (double)(step + 1) * 0.1);
        for (v = 0; v < 2; v++)
            for (k = 0; k < 3; k++)
                p += sprintf(p, ",%.9g", vfun(v, k, step));
        if (strcmp(line, want) != 0 && bad++ < 3)
            fprintf(stderr, "  state csv row %d: '%s', expected '%s'\n", s, line, want);
    }
    CHECK(s == 500);
    CHECK(bad == 0);
    free(b);
}

/* one row of 2 x 70000 doubles (1.1 MB) is larger than the 1 MiB buffer: a flush per row */
static void test_wide_state(nrt_ctx *ctx)
{
    enum { NV = 2, NI = 70000 };
    const char *vars[NV] = {"V", "w"};
    int64_t *idx = malloc(NI * sizeof *idx);
    double *vals = malloc(NV * NI * sizeof *vals);
    long long rows;
    int i, step, bad = 0;
    nrt_rec *r;
    char descr[128];
    for (i = 0; i < NI; i++)
        idx[i] = i;
    for (i = 0; i < NV * NI; i++)
        vals[i] = i * 0.25;
    r = nrt_rec_state(ctx, "wide.npy", "big", NV, vars, NULL, NI, idx, 1);
    CHECKF(r != NULL, "%s", ctx->errmsg);
    snprintf(descr, sizeof descr, "[('t', '<f8'), ('V', '<f8', (%d,)), ('w', '<f8', (%d,))]",
             NI, NI);
    for (step = 0; r && step < 6; step++) {
        CHECK(nrt_rec_state_row(r, step, vals) == NRT_OK);
        rows = npy_valid_now(path_in("wide.npy"), descr, 8 * (1 + NV * NI));
        if (rows != step + 1)
            bad++;
    }
    CHECK(bad == 0);
    free(idx);
    free(vals);
}

static void test_bad_paths(nrt_ctx *ctx)
{
    FILE *f;
    char *p;
    const char *vars[1] = {"V"}, *dupv[2] = {"V", "V"}, *tv[1] = {"t"};
    const int64_t idx[1] = {0}, bad_idx[1] = {5000};

    CHECK(nrt_rec_spikes(ctx, "spikes.txt", "exc", 10) == NULL);
    CHECKF(strstr(ctx->errmsg, "spikes.txt") != NULL, "'%s'", ctx->errmsg);
    CHECK(nrt_rec_spikes(ctx, "nodir/x.npy", "exc", 10) == NULL);
    CHECKF(strstr(ctx->errmsg, "nodir/x.npy") && strstr(ctx->errmsg, strerror(ENOENT)),
           "'%s'", ctx->errmsg);
    f = fopen(path_in("afile"), "w");
    if (f)
        fclose(f);
    CHECK(nrt_rec_spikes(ctx, "afile/x.csv", "exc", 10) == NULL);
    CHECKF(strstr(ctx->errmsg, "afile/x.csv") && strstr(ctx->errmsg, strerror(ENOTDIR)),
           "'%s'", ctx->errmsg);
    if (geteuid() != 0) { /* root writes anywhere */
        p = path_in("ro");
        mkdir(p, 0755);
        chmod(p, 0555);
        CHECK(nrt_rec_spikes(ctx, "ro/x.npy", "exc", 10) == NULL);
        CHECKF(strstr(ctx->errmsg, "ro/x.npy") && strstr(ctx->errmsg, strerror(EACCES)),
               "'%s'", ctx->errmsg);
        chmod(p, 0755);
    }
    if (access("/dev/full", W_OK) == 0) {
        p = path_in("full.npy");
        unlink(p);
        CHECK(symlink("/dev/full", p) == 0);
        CHECK(nrt_rec_spikes(ctx, "full.npy", "exc", 10) == NULL);
        CHECKF(strstr(ctx->errmsg, "full.npy") && strstr(ctx->errmsg, strerror(ENOSPC)),
               "'%s'", ctx->errmsg);
        unlink(p);
        p = path_in("full.csv");
        unlink(p);
        CHECK(symlink("/dev/full", p) == 0);
        CHECK(nrt_rec_state(ctx, "full.csv", "exc", 1, vars, NULL, 1, idx, 1) == NULL);
        CHECKF(strstr(ctx->errmsg, "full.csv") && strstr(ctx->errmsg, strerror(ENOSPC)),
               "'%s'", ctx->errmsg);
        unlink(p);
    }
    CHECK(nrt_rec_state(ctx, "s.npy", "exc", 2, dupv, NULL, 1, idx, 1) == NULL);
    CHECK(nrt_rec_state(ctx, "s.npy", "exc", 1, tv, NULL, 1, idx, 1) == NULL);
    CHECK(nrt_rec_state(ctx, "s.npy", "exc", 1, vars, NULL, 0, idx, 1) == NULL);
    CHECK(nrt_rec_state(ctx, "s.npy", "exc", 1, vars, NULL, 1, idx, 0) == NULL);
    CHECK(nrt_rec_state(ctx, "s.npy", "exc", 1, vars, NULL, 1, bad_idx, 1) == NULL);
    CHECKF(strstr(ctx->errmsg, "5000") != NULL, "'%s'", ctx->errmsg);
}

/* In a child: a 1.5 MiB file-size limit. The first 1 MiB flush fits, the second does not:
 * NRT_EIO naming the file, and the file keeps exactly the rows of the first flush. */
static int fsize_child(const char *sub)
{
    nrt_ctx c;
    const char *argv[] = {"prog", "--out", sub, "--quiet", NULL};
    struct rlimit rl;
    nrt_rec *r;
    long s;
    nrt_status st = NRT_OK;
    memset(&c, 0, sizeof c);
    c.model = "fsize";
    c.dt = 0.5;
    if (nrt_init(&c, 4, (char **)argv) != NRT_OK)
        return 10;
    signal(SIGXFSZ, SIG_IGN);
    r = nrt_rec_spikes(&c, "s.npy", "p", 0);
    if (!r)
        return 11;
    rl.rlim_cur = 3 << 19;
    rl.rlim_max = RLIM_INFINITY;
    if (getrlimit(RLIMIT_FSIZE, &rl) == 0) {
        rl.rlim_cur = 3 << 19;
        setrlimit(RLIMIT_FSIZE, &rl);
    }
    for (s = 0; s < 400000 && st == NRT_OK; s++)
        st = nrt_rec_spike(r, s, (int32_t)s);
    if (st != NRT_EIO)
        return 12;
    if (!strstr(c.errmsg, "s.npy") || !strstr(c.errmsg, strerror(EFBIG)))
        return 13;
    if (nrt_rec_spike(r, 0, 0) != NRT_EIO) /* stays failed */
        return 14;
    if (nrt_finish(&c) != NRT_EIO || !strstr(c.errmsg, "s.npy"))
        return 15;
    return 0;
}

static void test_fsize(void)
{
    char sub[1024];
    pid_t pid;
    int status = -1;
    struct npy z;
    long s, bad = 0;
    snprintf(sub, sizeof sub, "%s/fsize", dir);
    fflush(NULL);
    pid = fork();
    if (pid == 0)
        _exit(fsize_child(sub));
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
    snprintf(sub, sizeof sub, "%s/fsize/s.npy", dir);
    CHECK(npy_read(sub, &z) == 0);
    CHECKF(z.rows > 0 && z.size == z.hdr + z.rows * 12, "rows %lld size %ld", z.rows, z.size);
    for (s = 0; s < z.rows && z.size >= z.hdr + 12 * (s + 1); s++)
        if (get_f64(z.data + z.hdr + 12 * s) != (double)(s + 1) * 0.5 ||
            get_i32(z.data + z.hdr + 12 * s + 8) != s)
            bad++;
    CHECK(bad == 0);
    free(z.data);
    snprintf(sub, sizeof sub, "%s/fsize/manifest.json", dir);
    CHECK(access(sub, R_OK) == 0);
}

/* In a child: $NEUROC_FAULT_WRITE_AFTER grants the header (128 bytes) and two 1 MiB flushes
 * of 87381 rows exactly (header rewrites add no bytes): the third flush fails with ENOSPC,
 * nrt_fail reports it once and the manifest gives it. */
static int inject_child(const char *sub)
{
    nrt_ctx c;
    const char *argv[] = {"prog", "--out", sub, "--quiet", NULL};
    nrt_rec *r;
    long s, n;
    nrt_status st = NRT_OK;
    char budget[32], *m;
    memset(&c, 0, sizeof c);
    c.model = "inject";
    c.dt = 0.5;
    c.total_steps = 300000;
    snprintf(budget, sizeof budget, "%ld", 128L + 2L * 87381 * 12);
    setenv("NEUROC_FAULT_WRITE_AFTER", budget, 1);
    if (nrt_init(&c, 4, (char **)argv) != NRT_OK)
        return 10;
    r = nrt_rec_spikes(&c, "s.npy", "p", 0);
    if (!r)
        return 11;
    for (s = 0; s < 300000 && st == NRT_OK; s++, c.step = s)
        st = nrt_rec_spike(r, s, (int32_t)s);
    if (st != NRT_EIO || strcmp(c.errmsg, "writing s.npy: No space left on device") != 0)
        return 12;
    if (s != 3 * 87381)
        return 13;
    if (nrt_fail(&c, "prog") != 1)
        return 14;
    m = (char *)slurp(path_in("inject/manifest.json"), &n);
    if (!m || !strstr(m, "\"error\": \"writing s.npy: No space left on device\"") ||
        !strstr(m, "\"interrupted\": true") || !strstr(m, "\"rows\": 174762,"))
        return 15;
    free(m);
    return 0;
}

static void test_inject(void)
{
    char sub[1024];
    pid_t pid;
    int status = -1;
    struct npy z;
    long s, bad = 0;
    snprintf(sub, sizeof sub, "%s/inject", dir);
    fflush(NULL);
    pid = fork();
    if (pid == 0)
        _exit(inject_child(sub));
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
    snprintf(sub, sizeof sub, "%s/inject/s.npy", dir);
    CHECK(npy_read(sub, &z) == 0);
    CHECKF(z.rows == 2 * 87381 && z.size == z.hdr + z.rows * 12, "rows %lld size %ld", z.rows,
           z.size);
    for (s = 0; s < z.rows && z.size >= z.hdr + 12 * (s + 1); s++)
        if (get_f64(z.data + z.hdr + 12 * s) != (double)(s + 1) * 0.5 ||
            get_i32(z.data + z.hdr + 12 * s + 8) != s)
            bad++;
    CHECK(bad == 0);
    free(z.data);
}

static void check_manifest(void)
{
    long n;
    char *m = (char *)slurp(path_in("manifest.json"), &n);
    CHECK(m != NULL);
    if (!m)
        return;
    CHECK(strstr(m, "\"model\": \"rec\\\"test\"") != NULL); /* escaped quote */
    CHECK(strstr(m, "\"seed\": 18446744073709551615") != NULL);
    CHECK(strstr(m, "\"completed_steps\": 5000") != NULL);
    CHECK(strstr(m, "\"interrupted\": false") != NULL);
    CHECK(strstr(m, "{\"file\": \"spikes.npy\", \"format\": \"npy\", \"kind\": \"spikes\"") != NULL);
    CHECK(strstr(m, "{\"file\": \"spikes.csv\", \"format\": \"csv\", \"kind\": \"spikes\"") != NULL);
    CHECK(strstr(m, "\"rows\": 300000, \"shape\": [300000]") != NULL);
    CHECK(strstr(m, "\"neurons\": [0, 2500, 7]") != NULL);
    CHECK(strstr(m, "\"units\": {\"t\": \"ms\", \"V\": \"mV\", \"m\": \"\"}") != NULL);
    CHECK(strstr(m, "\"every_steps\": 10") != NULL);
    CHECK(strstr(m, "{\"name\": \"exc\", \"size\": 3000, \"spikes\": 300000}") != NULL);
    CHECK(strstr(m, "wide.npy") != NULL);
    free(m);
}

/* nrt_spikes_sort on a pool of 3 threads: 100 steps of 0 to 79 indices (4,000 or so, some
 * repeated, some steps empty), each step's sorted in place and still its own multiset, the
 * steps handed to the workers once; and a chunk of under 2,048 on the calling thread. */
static void test_spikes_sort(void)
{
    enum { STEPS = 100, MAXN = 8000 };
    static int32_t ids[MAXN], orig[MAXN], ends[STEPS];
    nrt_ctx pc;
    int32_t n = 0;
    unsigned x = 12345;
    for (int k = 0; k < STEPS; k++) {
        const int m = k % 7 == 3 ? 0 : (int)((x = x * 1103515245u + 12345u) >> 16) % 80;
        for (int i = 0; i < m; i++)
            ids[n++] = (int32_t)((x = x * 1103515245u + 12345u) >> 12) % 500;
        ends[k] = n;
    }
    memcpy(orig, ids, sizeof ids);
    memset(&pc, 0, sizeof pc);
    pc.threads = 3;
    CHECKF(nrt_pool_start(&pc) == NRT_OK && pc.threads == 3, "%s", pc.errmsg);
    nrt_spikes_sort(ids, ends, STEPS);
    CHECKF(n >= 2048 && nrt_pool_regions() == 1, "%d indices, %lld regions", n, (long long)nrt_pool_regions());
    nrt_spikes_sort(ids, ends, 10);   /* under 2,048: inline; sorted stays sorted */
    CHECK(nrt_pool_regions() == 1);
    nrt_pool_stop();
    for (int k = 0, from = 0; k < STEPS; from = ends[k++]) {
        int ok = 1;
        for (int i = from + 1; i < ends[k]; i++)
            ok &= ids[i - 1] <= ids[i];
        for (int i = from; i < ends[k]; i++) {   /* each value as often as before */
            int a = 0, b = 0;
            for (int j = from; j < ends[k]; j++)
                a += ids[j] == ids[i], b += orig[j] == ids[i];
            ok &= a == b;
        }
        CHECKF(ok, "step %d (indices %d .. %d) not its own sorted", k, from, ends[k]);
    }
}

int main(int argc, char **argv)
{
    nrt_ctx ctx, c2;
    const char *args[] = {"test_record", "--out", NULL, "--quiet", "--seed",
                    "18446744073709551615", NULL};
    if (argc < 2) {
        fprintf(stderr, "usage: test_record WORKDIR\n");
        return 2;
    }
    dir = argv[1];
    args[2] = dir;
    memset(&ctx, 0, sizeof ctx);
    ctx.model = "rec\"test";
    ctx.backend = "c";
    ctx.dt = 0.1;
    ctx.total_steps = 5000;
    CHECKF(nrt_init(&ctx, 6, (char **)args) == NRT_OK, "%s", ctx.errmsg);
    nrt_pop_register(&ctx, "exc", 3000);
    nrt_pop_register(&ctx, "inh", 10);
    ctx.pops[0].spikes = 300000;

    test_spikes_npy(&ctx);
    test_spikes_csv(&ctx);
    test_state(&ctx);
    test_wide_state(&ctx);
    test_bad_paths(&ctx);
    test_spikes_sort();
    ctx.step = 5000;
    CHECKF(nrt_finish(&ctx) == NRT_OK, "%s", ctx.errmsg);
    CHECK(ctx.recs == NULL && ctx.finished);
    CHECK(nrt_finish(&ctx) == NRT_OK); /* twice is fine */
    check_spikes_npy_final();
    check_spikes_csv_final();
    check_state_final();
    check_manifest();
    test_fsize();
    test_inject();

    /* nrt_finish without nrt_init: nothing to write, no crash */
    memset(&c2, 0, sizeof c2);
    CHECK(nrt_finish(&c2) == NRT_OK);
    nrt_ctx_free(&ctx);
    return tcheck_done("test_record");
}
