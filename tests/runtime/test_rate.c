/* test_rate.c -- rate recordings (nrt_rec_rate) and recording sizes (nrt_recsize.h) through
 * the runtime's API: bad arguments refused, a row per whole bin with the exact value, more
 * rows than one buffer (flushes) with the .npy valid and exactly as large as
 * nrt_rec_size_of says, state files of many shapes (short and long names, many neurons, a
 * version-2 header) against nrt_rec_size_of, and nrt_mem_check's free-space refusal.
 */
#define _POSIX_C_SOURCE 200809L

#include "neurort.h"
#include "nrt_recsize.h"
#include "tcheck.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *dir;

static char *path_in(const char *name)
{
    static char buf[4][1024];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static long file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

/* The float64 at byte offset off of the file (little-endian, as the runtime writes it). */
static double f64_at(const char *path, long off)
{
    unsigned char b[8];
    uint64_t v = 0;
    double x;
    FILE *f = fopen(path, "rb");
    if (!f || fseek(f, off, SEEK_SET) != 0 || fread(b, 1, 8, f) != 8) {
        if (f)
            fclose(f);
        return -1;
    }
    fclose(f);
    for (int i = 7; i >= 0; i--)
        v = v << 8 | b[i];
    memcpy(&x, &v, sizeof x);
    return x;
}

static void test_bad(nrt_ctx *ctx)
{
    CHECK(nrt_rec_rate(ctx, "r0.npy", "exc", "exc", 0, 0, 10) == NULL);    /* no neurons */
    CHECK(strstr(ctx->errmsg, "rate recording 'r0.npy'") != NULL);
    CHECK(nrt_rec_rate(ctx, "r1.npy", "exc", "exc", 0, 100, 0) == NULL);   /* bin 0 */
    CHECK(nrt_rec_rate(ctx, "r2.npy", "exc", "v", 90, 20, 10) == NULL);    /* past the population */
    CHECK(nrt_rec_rate(ctx, "r3.txt", "exc", "exc", 0, 100, 10) == NULL);  /* no format */
    CHECK(nrt_rec_rate_add(NULL, 0, 1) == NRT_EINVAL);
}

/* 200000 bins of one step (3.2 MB: several flushes) and a view's bins of 7 steps, 10 neurons:
 * every row's value is count / (size x bin x dt) x 1000. */
static void test_rows(nrt_ctx *ctx)
{
    nrt_rec *a = nrt_rec_rate(ctx, "all.npy", "exc", "exc", 0, 100, 1);
    nrt_rec *v = nrt_rec_rate(ctx, "view.csv", "exc", "part", 30, 10, 7);
    int64_t s;
    CHECKF(a && v, "%s", ctx->errmsg);
    if (!a || !v)
        return;
    for (s = 0; s < 200000; s++) {
        CHECK(nrt_rec_rate_add(a, s, s % 7) == NRT_OK);
        CHECK(nrt_rec_rate_add(v, s, s % 3) == NRT_OK);
    }
    CHECK(nrt_rec_rate_add(v, 1, 1) == NRT_OK);   /* a step out of order still counts: no check */
}

static void check_rows(void)
{
    const char *p = path_in("all.npy");
    nrt_rec_size z = nrt_rec_size_of('r', 0, 0, 0, 1, 1, 0, 200000, 0.1, 0, 0, 0, 0);
    long hdr = (long)nrt_npy_header_bytes(31);
    CHECKF(file_size(p) == (long)z.bytes, "all.npy: %ld bytes, nrt_rec_size_of %.0f", file_size(p), z.bytes);
    CHECK(z.how == NRT_SIZE_EXACT && z.rows == 200000);
    for (long r = 0; r < 200000; r += 9973) {
        CHECK(f64_at(p, hdr + 16 * r) == (double)(r + 1) * 0.1);
        CHECK(f64_at(p, hdr + 16 * r + 8) == (double)(r % 7) / (100.0 * 1.0 * 0.1) * 1000.0);
    }
    FILE *f = fopen(path_in("view.csv"), "r");
    char line[128];
    long n = 0;
    CHECK(f && fgets(line, sizeof line, f) && strcmp(line, "t_ms,rate_Hz\n") == 0);
    while (f && fgets(line, sizeof line, f)) {
        long c = 0;
        for (long s = 7 * n; s < 7 * n + 7; s++)
            c += s % 3;
        CHECK_REL(strtod(strchr(line, ',') + 1, NULL), (double)c / (10.0 * 7.0 * 0.1) * 1000.0, 1e-8);
        n++;
    }
    if (f)
        fclose(f);
    CHECK(n == 200000 / 7);   /* the last, partial bin is not written */
}

/* State .npy files of several shapes: their sizes are nrt_rec_size_of's, header included. */
static void test_state_sizes(nrt_ctx *ctx)
{
    static const char *const names[] = {"V", "g_ampa_long_name", "u"};
    int64_t idx[3000];
    for (int i = 0; i < 3000; i++)
        idx[i] = i;
    struct { const char *file; int nv; int64_t ni, every; } c[] = {
        {"s1.npy", 1, 1, 1}, {"s2.npy", 3, 7, 3}, {"s3.npy", 2, 3000, 50}, {"s4.npy", 3, 120, 1000}};
    for (int k = 0; k < 4; k++) {
        nrt_rec *r = nrt_rec_state(ctx, c[k].file, "big", c[k].nv, names, NULL, (int)c[k].ni, idx, c[k].every);
        double *vals = calloc((size_t)(c[k].nv * c[k].ni), sizeof *vals);
        CHECKF(r && vals, "%s", ctx->errmsg);
        for (int64_t s = 0; r && vals && s < 2000; s++)
            if ((s + 1) % c[k].every == 0)
                CHECK(nrt_rec_state_row(r, s, vals) == NRT_OK);
        free(vals);
    }
}

static void check_state_sizes(void)
{
    struct { const char *file; int nv; double names; int64_t ni, every; } c[] = {
        {"s1.npy", 1, 1, 1, 1}, {"s2.npy", 3, 18, 7, 3}, {"s3.npy", 2, 17, 3000, 50}, {"s4.npy", 3, 18, 120, 1000}};
    for (int k = 0; k < 4; k++) {
        nrt_rec_size z = nrt_rec_size_of('v', 0, c[k].nv, c[k].names, c[k].ni, c[k].every, 0, 2000, 0.1, 0, 0, 0, 0);
        CHECKF(file_size(path_in(c[k].file)) == (long)z.bytes, "%s: %ld bytes, nrt_rec_size_of %.0f", c[k].file,
               file_size(path_in(c[k].file)), z.bytes);
    }
    /* a window keeps the samples of steps [lo, hi); the row at t = 0 only in a run from step 0
     * whose window starts there */
    CHECK(nrt_rec_size_of('v', 0, 1, 1, 1, 3, 0, 2000, 0.1, 0, 100, 1000, 1).rows == 1000 / 3 - 100 / 3);
    CHECK(nrt_rec_size_of('v', 0, 1, 1, 1, 3, 0, 2000, 0.1, 0, 0, 0, 1).rows == 2000 / 3 + 1);
    CHECK(nrt_rec_size_of('v', 0, 1, 1, 1, 3, 600, 2000, 0.1, 0, 0, 0, 1).rows == 2000 / 3 - 600 / 3);
    CHECK(nrt_rec_size_of('s', 0, 0, 0, 100, 1, 0, 2000, 0.1, 0, 1000, 1500, 0).rows == 100 * 10 * 50 / 1000);
    /* a header past 65535 bytes is version 2.0: 12 bytes before the dict */
    CHECK(nrt_npy_header_bytes(100000) == (double)((12 + 71 + 100000 + 1 + 63) / 64 * 64));
    CHECK(nrt_npy_header_bytes(28) == 128);
}

/* nrt_mem_check: the recordings against $NEUROC_FREE_BYTES */
static void test_free_space(void)
{
    nrt_ctx c;
    const char *args[] = {"test_rate", "--out", NULL, "--quiet", NULL, NULL};
    args[2] = path_in("free");
    memset(&c, 0, sizeof c);
    c.model = "rate";
    c.backend = "c";
    c.dt = 0.1;
    c.total_steps = 1000;
    CHECKF(nrt_init(&c, 4, (char **)args) == NRT_OK, "%s", c.errmsg);
    nrt_rec_plan(&c, "r.npy", 'r', 0, 0, 1, 10, 0, 0, 0, 0);             /* 128 + 100 x 16 = 1728 bytes */
    nrt_rec_plan(&c, "s.npy", 's', 0, 0, 1000000, 1, 0, 0, 0, 0);        /* an estimate: not counted */
    CHECK(c.rplan_sure == 1728);
    setenv("NEUROC_FREE_BYTES", "1727", 1);
    CHECK(nrt_mem_check(&c, 0) == NRT_EIO);
    CHECK(strstr(c.errmsg, "need 1.7 KiB (1728 bytes), more than the 1.7 KiB (1727 bytes) free") != NULL);
    setenv("NEUROC_FREE_BYTES", "1728", 1);
    CHECK(nrt_mem_check(&c, 0) == NRT_OK);
    c.ignore_free = 1;
    setenv("NEUROC_FREE_BYTES", "0", 1);
    CHECK(nrt_mem_check(&c, 0) == NRT_OK);
    unsetenv("NEUROC_FREE_BYTES");
    c.step = 1000;
    CHECK(nrt_finish(&c) == NRT_OK);
}

int main(int argc, char **argv)
{
    nrt_ctx ctx;
    const char *args[] = {"test_rate", "--out", NULL, "--quiet", NULL};
    if (argc < 2) {
        fprintf(stderr, "usage: test_rate WORKDIR\n");
        return 2;
    }
    dir = argv[1];
    args[2] = dir;
    memset(&ctx, 0, sizeof ctx);
    ctx.model = "rate";
    ctx.backend = "c";
    ctx.dt = 0.1;
    ctx.total_steps = 200000;
    CHECKF(nrt_init(&ctx, 4, (char **)args) == NRT_OK, "%s", ctx.errmsg);
    nrt_pop_register(&ctx, "exc", 100);
    nrt_pop_register(&ctx, "big", 3000);
    test_bad(&ctx);
    test_rows(&ctx);
    test_state_sizes(&ctx);
    ctx.step = 200000;
    CHECKF(nrt_finish(&ctx) == NRT_OK, "%s", ctx.errmsg);
    check_rows();
    check_state_sizes();
    test_free_space();
    nrt_ctx_free(&ctx);
    return tcheck_done("test_rate");
}
