/* gpu_checks.h -- the checks of the device layer (nrt_gpu.h) that CUDA and OpenCL share,
 * included by test_gpu_opencl.c and test_gpu_cuda.c.
 *
 * gpu_check_select: device selection by ctx->device and $NEUROC_DEVICE, out-of-range
 * messages. gpu_check_memory: allocation (zeroed, absurd sizes, zero bytes), write/read,
 * fill32, range checks, mark + read_after. gpu_check_kernels: the kernels of
 * gpu_kernels.simt launched and their results compared exactly, arguments persisting
 * across launches, unset and out-of-range arguments, unknown kernels.
 */
#ifndef GPU_CHECKS_H
#define GPU_CHECKS_H

#define _POSIX_C_SOURCE 200809L

#include "nrt_gpu.h"
#include "tcheck.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Each test uses a part of these (test_gpu_cuda.c without nvcc: no kernels). */
#if defined(__GNUC__)
#define GPU_CHECK static __attribute__((unused))
#else
#define GPU_CHECK static
#endif

/* The whole file, NUL-terminated (length in *len); NULL if unreadable. */
GPU_CHECK char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *b;
    long n;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b = calloc(1, (size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (len)
        *len = (size_t)n;
    return b;
}

/* Send stderr to a temporary file until stderr_end, which returns what was written. */
typedef struct stderr_cap {
    FILE *f;
    int saved;
} stderr_cap;

GPU_CHECK void stderr_begin(stderr_cap *c)
{
    fflush(stderr);
    c->f = tmpfile();
    c->saved = dup(2);
    if (c->f)
        dup2(fileno(c->f), 2);
}

GPU_CHECK char *stderr_end(stderr_cap *c)
{
    char *text;
    long n;
    fflush(stderr);
    dup2(c->saved, 2);
    close(c->saved);
    if (!c->f)
        return calloc(1, 1);
    n = ftell(c->f);
    rewind(c->f);
    text = calloc(1, (size_t)n + 1);
    if (text && fread(text, 1, (size_t)n, c->f) != (size_t)n)
        text[0] = '\0';
    fclose(c->f);
    return text;
}

GPU_CHECK const char *api_name(nrt_api api)
{
    return api == NRT_API_CUDA ? "CUDA" : "OpenCL";
}

/* Device selection with n devices present. */
GPU_CHECK void gpu_check_select(nrt_api api, int n)
{
    nrt_ctx c;
    nrt_gpu *g = NULL;
    char want[128];
    if (n == 1)
        snprintf(want, sizeof want, "there is only 1 %s device (index 0)", api_name(api));
    else
        snprintf(want, sizeof want, "there are only %d %s devices (indices 0 to %d)", n,
                 api_name(api), n - 1);

    memset(&c, 0, sizeof c);
    c.device = n + 3;
    CHECK(nrt_gpu_open(&c, api, &g) == NRT_EINVAL && g == NULL);
    CHECKF(strstr(c.errmsg, want) != NULL && strstr(c.errmsg, "--list-devices") != NULL,
           "'%s'", c.errmsg);

    c.device = -1;
    setenv("NEUROC_DEVICE", "abc", 1);
    CHECK(nrt_gpu_open(&c, api, &g) == NRT_EINVAL);
    CHECKF(strstr(c.errmsg, "invalid $NEUROC_DEVICE 'abc'") != NULL, "'%s'", c.errmsg);
    setenv("NEUROC_DEVICE", "77", 1);
    CHECK(nrt_gpu_open(&c, api, &g) == NRT_EINVAL);
    CHECKF(strstr(c.errmsg, "$NEUROC_DEVICE=77") && strstr(c.errmsg, want), "'%s'", c.errmsg);
    setenv("NEUROC_DEVICE", "0", 1);
    CHECKF(nrt_gpu_open(&c, api, &g) == NRT_OK, "%s", c.errmsg);
    CHECK(g && nrt_gpu_get_info(g)->index == 0);
    nrt_gpu_close(g);
    unsetenv("NEUROC_DEVICE");

    c.device = n - 1;
    g = NULL;
    CHECKF(nrt_gpu_open(&c, api, &g) == NRT_OK, "%s", c.errmsg);
    CHECK(g && nrt_gpu_get_info(g)->index == n - 1 && nrt_gpu_api(g) == api);
    nrt_gpu_close(g);
    nrt_gpu_close(NULL);
}

GPU_CHECK void gpu_check_info(nrt_gpu *g, nrt_api api)
{
    const nrt_gpu_info *in = nrt_gpu_get_info(g);
    CHECK(nrt_gpu_api(g) == api);
    CHECK(in->name[0] != '\0' && in->platform[0] != '\0');
    CHECK(in->compute_units > 0 && in->max_group_size >= 64);
    CHECK(in->global_mem > 0 && in->max_param_bytes >= 256);
    CHECK(api == NRT_API_CUDA ? in->cc_major > 0 : (in->cc_major == 0 && !in->cooperative));
    printf("device %d: %s [%s], %d compute units, max group %d, fp64 %d, cooperative %d\n",
           in->index, in->name, in->platform, in->compute_units, in->max_group_size, in->fp64,
           in->cooperative);
}

GPU_CHECK void gpu_check_memory(nrt_ctx *ctx, nrt_gpu *g)
{
    nrt_dmem a, b, x, old, z;
    uint32_t w[16], i;
    int32_t *pin;
    char junk[4096];

    /* zeroed, also where freed memory held data */
    CHECKF(nrt_gpu_alloc(g, &a, 4096, "scratch") == NRT_OK, "%s", ctx->errmsg);
    CHECK(a.h != 0 && a.bytes == 4096);
    memset(junk, 0x5a, sizeof junk);
    CHECK(nrt_gpu_write(g, a, 0, junk, sizeof junk) == NRT_OK);
    old = a;
    nrt_gpu_free(g, &a);
    CHECK(a.h == 0 && a.bytes == 0);
    CHECKF(nrt_gpu_alloc(g, &b, 4096, "zeroed") == NRT_OK, "%s", ctx->errmsg);
    memset(junk, 1, sizeof junk);
    CHECK(nrt_gpu_read(g, b, 0, junk, sizeof junk) == NRT_OK);
    for (i = 0; i < sizeof junk; i++)
        if (junk[i] != 0)
            break;
    CHECKF(i == sizeof junk, "byte %u of a new buffer is %d", (unsigned)i, junk[i]);

    /* ranges */
    CHECK(nrt_gpu_write(g, b, 4092, junk, 8) == NRT_EINVAL);
    CHECKF(strstr(ctx->errmsg, "bytes 4092 to 4100 of 'zeroed', which has 4096 bytes"),
           "'%s'", ctx->errmsg);
    CHECK(nrt_gpu_read(g, b, 5000, junk, 1) == NRT_EINVAL);
    if (old.h != b.h) { /* a freed buffer is no buffer (unless b reused its handle) */
        CHECK(nrt_gpu_read(g, old, 0, junk, 4) == NRT_EINVAL);
        CHECKF(strstr(ctx->errmsg, "not a live buffer"), "'%s'", ctx->errmsg);
    }
    CHECK(nrt_gpu_write(g, b, 0, junk, 0) == NRT_OK);

    /* fill32 */
    CHECKF(nrt_gpu_alloc(g, &x, sizeof w, "fill test") == NRT_OK, "%s", ctx->errmsg);
    CHECKF(nrt_gpu_fill32(g, x, 8, 0xDEADBEEFu, 16) == NRT_OK, "%s", ctx->errmsg);
    CHECK(nrt_gpu_fill32(g, x, 60, 7, 8) == NRT_EINVAL && strstr(ctx->errmsg, "'fill test'"));
    CHECK(nrt_gpu_fill32(g, x, 2, 7, 8) == NRT_EINVAL && strstr(ctx->errmsg, "multiples of 4"));
    CHECK(nrt_gpu_read(g, x, 0, w, sizeof w) == NRT_OK);
    for (i = 0; i < 16; i++)
        CHECKF(w[i] == ((i >= 2 && i < 6) ? 0xDEADBEEFu : 0u), "w[%u] = %08x", (unsigned)i,
               (unsigned)w[i]);
    CHECK(nrt_gpu_fill32(g, x, 0, 0x01020304u, sizeof w) == NRT_OK);
    CHECK(nrt_gpu_read(g, x, 4, w, 4) == NRT_OK && w[0] == 0x01020304u);

    /* an absurd size fails cleanly, naming what */
    CHECK(nrt_gpu_alloc(g, &z, (size_t)1 << 60, "the absurd table") == NRT_EDEVICE);
    CHECKF(strstr(ctx->errmsg, "out of device memory allocating the absurd table (1.0 EiB "
                  "asked") != NULL, "'%s'", ctx->errmsg);
    CHECK(z.h == 0 && z.bytes == 0);
    printf("absurd allocation: %s\n", ctx->errmsg);
    CHECK(nrt_gpu_alloc(g, &z, 0, "nothing") == NRT_OK && z.h == 0 && z.bytes == 0);

    /* page-locked host memory */
    pin = nrt_gpu_host_alloc(g, 1024, "pinned");
    CHECKF(pin != NULL, "%s", ctx->errmsg);
    if (pin) {
        CHECK(pin[0] == 0 && pin[255] == 0);
        CHECK(nrt_gpu_read(g, x, 0, pin, 64) == NRT_OK && (uint32_t)pin[15] == 0x01020304u);
        nrt_gpu_host_free(g, pin);
    }
    nrt_gpu_host_free(g, NULL);
    nrt_gpu_free(g, &x);
    nrt_gpu_free(g, &z);
    /* b is left for nrt_gpu_close */

    /* slots */
    CHECK(nrt_gpu_mark(g, 8) == NRT_EINVAL && strstr(ctx->errmsg, "slots are 0 to 7"));
    CHECK(nrt_gpu_mark(g, -1) == NRT_EINVAL);
    CHECK(nrt_gpu_read_after(g, 6, b, 0, junk, 4) == NRT_EINVAL);
    CHECKF(strstr(ctx->errmsg, "never marked"), "'%s'", ctx->errmsg);
    CHECK(nrt_gpu_sync(g) == NRT_OK);
}

GPU_CHECK void gpu_check_kernels(nrt_ctx *ctx, nrt_gpu *g, nrt_api api)
{
    enum { N = 1000, GS = 64 };
    nrt_dmem in, out, cnt, sum, gin, gout, wo, x, y;
    nrt_kernel *k, *kg, *kw, *kx, *ky, *bad;
    float h_in[N], h_out[N], s;
    int32_t c, gi[256], go[4], *pin;
    int64_t wv[4];
    int i, ok, knows;

    CHECK(nrt_gpu_load(g, "x", 1, NULL) == NRT_EINVAL && strstr(ctx->errmsg, "already"));
    for (i = 0; i < N; i++)
        h_in[i] = 0.5f * (float)i;
    CHECK(nrt_gpu_alloc(g, &in, sizeof h_in, "in") == NRT_OK);
    CHECK(nrt_gpu_alloc(g, &out, sizeof h_out, "out") == NRT_OK);
    CHECK(nrt_gpu_alloc(g, &cnt, 4, "count") == NRT_OK);
    CHECK(nrt_gpu_alloc(g, &sum, 4, "sum") == NRT_OK);
    CHECK(nrt_gpu_write(g, in, 0, h_in, sizeof h_in) == NRT_OK);

    /* NC_GID, atomics (int and float), float arguments */
    k = nrt_gpu_kernel(g, "affine", 7);
    CHECKF(k != NULL, "%s", ctx->errmsg);
    if (!k)
        return;
    CHECK(nrt_gpu_arg_mem(k, 0, out) == NRT_OK && nrt_gpu_arg_mem(k, 1, in) == NRT_OK);
    CHECK(nrt_gpu_arg_f32(k, 2, 2.0f) == NRT_OK && nrt_gpu_arg_f32(k, 3, 0.25f) == NRT_OK);
    CHECK(nrt_gpu_arg_i32(k, 4, N) == NRT_OK);
    CHECK(nrt_gpu_arg_mem(k, 5, cnt) == NRT_OK && nrt_gpu_arg_mem(k, 6, sum) == NRT_OK);
    CHECKF(nrt_gpu_launch(k, (N + GS - 1) / GS, GS, 0) == NRT_OK, "%s", ctx->errmsg);
    CHECK(nrt_gpu_read(g, out, 0, h_out, sizeof h_out) == NRT_OK);
    CHECK(nrt_gpu_read(g, cnt, 0, &c, 4) == NRT_OK && nrt_gpu_read(g, sum, 0, &s, 4) == NRT_OK);
    for (ok = 1, i = 0; i < N; i++)
        ok &= h_out[i] == 2.0f * h_in[i] + 0.25f;
    CHECK(ok);
    CHECKF(c == N && s == 500.0f, "count %d, sum %g", c, (double)s);

    /* arguments persist: change one, launch again */
    CHECK(nrt_gpu_arg_f32(k, 2, 3.0f) == NRT_OK);
    CHECKF(nrt_gpu_launch(k, (N + GS - 1) / GS, GS, 0) == NRT_OK, "%s", ctx->errmsg);
    CHECK(nrt_gpu_read(g, out, 0, h_out, sizeof h_out) == NRT_OK);
    CHECK(nrt_gpu_read(g, cnt, 0, &c, 4) == NRT_OK && nrt_gpu_read(g, sum, 0, &s, 4) == NRT_OK);
    for (ok = 1, i = 0; i < N; i++)
        ok &= h_out[i] == 3.0f * h_in[i] + 0.25f;
    CHECK(ok);
    CHECKF(c == 2 * N && s == 1000.0f, "count %d, sum %g", c, (double)s);
    CHECK(nrt_gpu_launch(k, 0, GS, 0) == NRT_OK); /* nothing */
    CHECK(nrt_gpu_launch(k, 1, 0, 0) == NRT_EINVAL && strstr(ctx->errmsg, "group size 0"));
    CHECK(nrt_gpu_max_resident(k, GS, 0) > 0);

    /* local memory and NC_BARRIER */
    for (i = 0; i < 256; i++)
        gi[i] = i;
    CHECK(nrt_gpu_alloc(g, &gin, sizeof gi, "group in") == NRT_OK);
    CHECK(nrt_gpu_alloc(g, &gout, sizeof go, "group out") == NRT_OK);
    CHECK(nrt_gpu_write(g, gin, 0, gi, sizeof gi) == NRT_OK);
    kg = nrt_gpu_kernel(g, "group_sum", 2);
    CHECKF(kg != NULL, "%s", ctx->errmsg);
    if (kg) {
        CHECK(nrt_gpu_arg_mem(kg, 0, gout) == NRT_OK && nrt_gpu_arg_mem(kg, 1, gin) == NRT_OK);
        CHECKF(nrt_gpu_launch(kg, 4, 64, 0) == NRT_OK, "%s", ctx->errmsg);
        CHECK(nrt_gpu_read(g, gout, 0, go, sizeof go) == NRT_OK);
        for (i = 0; i < 4; i++)
            CHECKF(go[i] == 4096 * i + 2016, "group %d: %d", i, go[i]);
    }

    /* 64-bit arguments, grid shape */
    CHECK(nrt_gpu_alloc(g, &wo, sizeof wv, "wide out") == NRT_OK);
    kw = nrt_gpu_kernel(g, "wide", 3);
    CHECKF(kw != NULL, "%s", ctx->errmsg);
    if (kw) {
        CHECK(nrt_gpu_arg_mem(kw, 0, wo) == NRT_OK);
        CHECK(nrt_gpu_arg_i64(kw, 1, -1234567890123LL) == NRT_OK);
        CHECK(nrt_gpu_arg_f64(kw, 2, 2.5) == NRT_OK);
        CHECKF(nrt_gpu_launch(kw, 3, 32, 0) == NRT_OK, "%s", ctx->errmsg);
        CHECK(nrt_gpu_read(g, wo, 0, wv, sizeof wv) == NRT_OK);
        CHECKF(wv[0] == -1234567890123LL && wv[1] == 10 && wv[2] == 96 && wv[3] == 3,
               "%lld %lld %lld %lld", (long long)wv[0], (long long)wv[1], (long long)wv[2],
               (long long)wv[3]);
    }

    /* unknown kernels, wrong argument counts, unset arguments */
    CHECK(nrt_gpu_kernel(g, "no_such_kernel", 1) == NULL);
    CHECKF(strstr(ctx->errmsg, "no kernel 'no_such_kernel'"), "'%s'", ctx->errmsg);
    bad = nrt_gpu_kernel(g, "incr", 3);
    knows = api == NRT_API_OPENCL || bad == NULL; /* CUDA tells parameters from 12.4 on */
    if (knows)
        CHECKF(bad == NULL && strstr(ctx->errmsg, "kernel 'incr' takes 2 arguments, not 3"),
               "'%s'", ctx->errmsg);
    kx = nrt_gpu_kernel(g, "incr", 2);
    ky = nrt_gpu_kernel(g, "incr", 2);
    CHECKF(kx && ky, "%s", ctx->errmsg);
    if (!kx || !ky)
        return;
    CHECK(nrt_gpu_arg_i32(kx, 2, 1) == NRT_EINVAL && strstr(ctx->errmsg, "has 2 arguments"));
    CHECK(nrt_gpu_alloc(g, &x, 256 * 4, "x") == NRT_OK);
    CHECK(nrt_gpu_alloc(g, &y, 256 * 4, "y") == NRT_OK);
    CHECK(nrt_gpu_arg_mem(kx, 0, x) == NRT_OK);
    CHECK(nrt_gpu_launch(kx, 4, 64, 0) == NRT_EINVAL);
    CHECKF(strstr(ctx->errmsg, "kernel 'incr': argument 1 was never set"), "'%s'",
           ctx->errmsg);
    if (api == NRT_API_CUDA && knows) /* declared int32 (PoCL does not check sizes) */
        CHECKF(nrt_gpu_arg_i64(kx, 1, 256) == NRT_EINVAL &&
               strstr(ctx->errmsg, "declares it with 4 bytes, not as int64"), "'%s'",
               ctx->errmsg);
    CHECK(nrt_gpu_arg_i32(kx, 1, 256) == NRT_OK);
    CHECK(nrt_gpu_arg_mem(ky, 0, y) == NRT_OK && nrt_gpu_arg_i32(ky, 1, 256) == NRT_OK);

    /* mark + read_after: the copy sees the work before the mark, into page-locked memory */
    pin = nrt_gpu_host_alloc(g, 256 * 4, "pinned x");
    CHECKF(pin != NULL, "%s", ctx->errmsg);
    for (i = 0; i < 5; i++)
        CHECK(nrt_gpu_launch(kx, 4, 64, 0) == NRT_OK);
    CHECKF(nrt_gpu_mark(g, 3) == NRT_OK, "%s", ctx->errmsg);
    for (i = 0; i < 4; i++)
        CHECK(nrt_gpu_launch(ky, 4, 64, 0) == NRT_OK);
    if (pin) {
        CHECKF(nrt_gpu_read_after(g, 3, x, 0, pin, 256 * 4) == NRT_OK, "%s", ctx->errmsg);
        for (ok = 1, i = 0; i < 256; i++)
            ok &= pin[i] == 5;
        CHECKF(ok, "x[0] = %d after 5 increments", pin[0]);
    }
    for (i = 0; i < 3; i++)
        CHECK(nrt_gpu_launch(kx, 4, 64, 0) == NRT_OK);
    CHECK(nrt_gpu_mark(g, 3) == NRT_OK); /* a slot is reused */
    CHECK(nrt_gpu_read_after(g, 3, x, 512, &c, 4) == NRT_OK && c == 8);
    CHECK(nrt_gpu_sync(g) == NRT_OK);
    CHECK(nrt_gpu_read(g, y, 1020, &c, 4) == NRT_OK && c == 4);
    /* pin, in, out, ... are left for nrt_gpu_close */
}

#endif
