/* test_gpu_opencl.c -- the OpenCL device layer (rt_opencl.c) on whatever OpenCL device is
 * installed (PoCL's CPU device on the development machine).
 *
 * The shared checks of gpu_checks.h (selection, memory, kernels of gpu_kernels.simt built
 * behind the text of nrt_simt.h, exact results), then what is OpenCL's own: no graphs or
 * cooperative launches, and a program that fails to build (NRT_EDEVICE, the compiler's
 * log on stderr, its first error in errmsg), and SIGINT's handler left as it was. Without
 * an OpenCL device: exit 77 (skipped).
 * NRT_SIMT_H and NRT_TEST_KERNELS are the paths of nrt_simt.h and gpu_kernels.simt.
 */
#include "gpu_checks.h"

#include <signal.h>

/* nrt_simt.h's text, then `tail` (a file's text when from_file). */
static char *program(const char *tail, int from_file, size_t *len)
{
    size_t n1 = 0, n2;
    char *simt = read_file(NRT_SIMT_H, &n1), *t, *p;
    t = from_file ? read_file(tail, NULL) : NULL;
    if (!simt || (from_file && !t)) {
        fprintf(stderr, "cannot read %s or %s\n", NRT_SIMT_H, tail);
        exit(1);
    }
    n2 = strlen(from_file ? t : tail);
    p = malloc(n1 + n2 + 2);
    memcpy(p, simt, n1);
    p[n1] = '\n';
    memcpy(p + n1 + 1, from_file ? t : tail, n2 + 1);
    free(simt);
    free(t);
    *len = n1 + 1 + n2;
    return p;
}

/* The arena (nrt_gpu_arena, rt_gpu_arena.c): buffers as ranges of one buffer, found by a
 * kernel through their offsets in a table, or passed as buffers (sub-buffers); contents,
 * offsets and kernel arguments kept across the arena's growth; room at the top reused. */
static const char arena_kernels[] =
    "NC_KERNEL incr(NC_G int32_t *x, int32_t n)\n"
    "{\n    if (NC_GID < n) x[NC_GID] += 1;\n}\n"
    "NC_KERNEL tab_add(__global uchar *arena, __global const long *t)\n"
    "{\n    __global int32_t *x = (__global int32_t *)(arena + t[0]);\n"
    "    if (NC_GID < t[1]) x[NC_GID] += 10;\n}\n";

static int arena_sum(nrt_gpu *g, nrt_dmem m, int n, int32_t want)
{
    int32_t v[100];
    int i, ok = nrt_gpu_read(g, m, 0, v, (size_t)n * 4) == NRT_OK;
    for (i = 0; i < n && ok; i++)
        ok = v[i] == want + i;
    return ok;
}

static void check_arena(nrt_ctx *ctx)
{
    nrt_gpu *g = NULL;
    nrt_dmem t, a, b, c, d;
    nrt_kernel *ki, *kt;
    int32_t v[100], w[4];
    int64_t tab[2];
    size_t len;
    char *src;
    int i;
    CHECKF(nrt_gpu_open(ctx, NRT_API_OPENCL, &g) == NRT_OK, "%s", ctx->errmsg);
    if (!g)
        return;
    src = program(arena_kernels, 0, &len);
    CHECKF(nrt_gpu_load(g, src, len, "-cl-std=CL1.2") == NRT_OK, "%s", ctx->errmsg);
    free(src);
    ki = nrt_gpu_kernel(g, "incr", 2);
    kt = nrt_gpu_kernel(g, "tab_add", 2);
    CHECK(ki && kt);
    if (!ki || !kt) {
        nrt_gpu_close(g);
        return;
    }
    CHECK(nrt_gpu_arg_arena(kt, 0) == NRT_EINVAL && strstr(ctx->errmsg, "has none"));
    CHECK(nrt_gpu_alloc(g, &t, sizeof tab, "table") == NRT_OK);
    CHECK(nrt_gpu_mem_word(g, t) == -1);               /* a buffer outside the arena */
    CHECK(nrt_gpu_arena(g) == NRT_OK);
    CHECK(nrt_gpu_alloc(g, &d, 5, "small") == NRT_OK); /* a range not at 0 next */
    CHECK(nrt_gpu_alloc(g, &a, sizeof v, "a") == NRT_OK);
    CHECK(nrt_gpu_mem_word(g, d) == 0 && nrt_gpu_mem_word(g, a) >= 128 &&
          nrt_gpu_mem_word(g, a) % 128 == 0);
    for (i = 0; i < 100; i++)
        v[i] = i;
    CHECK(nrt_gpu_write(g, a, 0, v, sizeof v) == NRT_OK);
    CHECK(nrt_gpu_write(g, a, sizeof v - 4, v, 8) == NRT_EINVAL); /* past a's range */
    CHECK(nrt_gpu_fill32(g, d, 0, 7u, 4) == NRT_OK);
    CHECK(nrt_gpu_read(g, d, 0, w, 4) == NRT_OK && w[0] == 7);
    /* a range as a buffer argument, and found through the table */
    CHECK(nrt_gpu_arg_mem(ki, 0, a) == NRT_OK && nrt_gpu_arg_i32(ki, 1, 100) == NRT_OK);
    CHECK(nrt_gpu_launch(ki, 1, 128, 0) == NRT_OK);
    tab[0] = nrt_gpu_mem_word(g, a);
    tab[1] = 100;
    CHECK(nrt_gpu_write(g, t, 0, tab, sizeof tab) == NRT_OK);
    CHECK(nrt_gpu_arg_arena(kt, 0) == NRT_OK && nrt_gpu_arg_mem(kt, 1, t) == NRT_OK);
    CHECK(nrt_gpu_launch(kt, 1, 128, 0) == NRT_OK);
    CHECK(arena_sum(g, a, 100, 11));
    CHECK(arena_sum(g, d, 1, 7));
    /* the arena grows (it starts at 1 MiB): a keeps its offset and contents, and both
     * kernels, their arguments not set again, follow it to its new buffer */
    CHECK(nrt_gpu_alloc(g, &b, (size_t)3 << 20, "b") == NRT_OK);
    CHECK(nrt_gpu_mem_word(g, a) == tab[0]);
    CHECK(arena_sum(g, a, 100, 11));
    CHECK(nrt_gpu_read(g, b, ((size_t)3 << 20) - 400, v, sizeof v) == NRT_OK);
    for (i = 0; i < 100; i++)
        CHECK(v[i] == 0);                                /* zeroed */
    CHECK(nrt_gpu_launch(ki, 1, 128, 0) == NRT_OK && nrt_gpu_launch(kt, 1, 128, 0) == NRT_OK);
    CHECK(arena_sum(g, a, 100, 22));
    /* the top's room comes back, zeroed */
    CHECK(nrt_gpu_fill32(g, b, 0, 5u, (size_t)3 << 20) == NRT_OK);
    tab[1] = nrt_gpu_mem_word(g, b);
    nrt_gpu_free(g, &b);
    CHECK(nrt_gpu_alloc(g, &c, (size_t)2 << 20, "c") == NRT_OK);
    CHECK(nrt_gpu_mem_word(g, c) == tab[1]);
    CHECK(nrt_gpu_read(g, c, 0, w, sizeof w) == NRT_OK && w[0] == 0 && w[3] == 0);
    /* another range as the same argument */
    CHECK(nrt_gpu_arg_mem(ki, 0, c) == NRT_OK && nrt_gpu_launch(ki, 1, 4, 0) == NRT_OK);
    CHECK(nrt_gpu_read(g, c, 0, w, sizeof w) == NRT_OK && w[0] == 1 && w[3] == 1);
    printf("arena: a at offset %lld, kept through the growth for 3 MiB\n", (long long)tab[0]);
    nrt_gpu_close(g);
}

/* $NEUROC_GPU_SYNC: a malformed value is refused at open; 1 waits after every launch and fill
 * (nrt_gpu_waited), the results unchanged. Fills: a 128-byte pattern in pieces of at most
 * 256 MiB, the unaligned ends written (rt_opencl.c). */
static void check_sync_fill(nrt_ctx *ctx)
{
    const size_t big = ((size_t)1 << 28) + 12;
    nrt_gpu *g = NULL;
    nrt_dmem m;
    nrt_kernel *ki;
    int32_t w[4];
    size_t len;
    char *src;
    setenv("NEUROC_GPU_SYNC", "yes", 1);
    CHECK(nrt_gpu_open(ctx, NRT_API_OPENCL, &g) == NRT_EINVAL && !g &&
          strstr(ctx->errmsg, "invalid $NEUROC_GPU_SYNC 'yes'"));
    setenv("NEUROC_GPU_SYNC", "1", 1);
    CHECKF(nrt_gpu_open(ctx, NRT_API_OPENCL, &g) == NRT_OK, "%s", ctx->errmsg);
    unsetenv("NEUROC_GPU_SYNC");
    if (!g)
        return;
    CHECKF(nrt_gpu_alloc(g, &m, big + 1, "big") == NRT_OK, "%s", ctx->errmsg); /* zeroed: 1-byte tail */
    CHECK(nrt_gpu_read(g, m, big - 4, w, 4) == NRT_OK && w[0] == 0);
    CHECK(nrt_gpu_fill32(g, m, 4, 7u, big - 4) == NRT_OK);
    CHECK(nrt_gpu_read(g, m, 0, w, sizeof w) == NRT_OK && w[0] == 0 && w[1] == 7 && w[3] == 7);
    CHECK(nrt_gpu_read(g, m, big - 8, w, 8) == NRT_OK && w[0] == 7 && w[1] == 7);
    CHECK(nrt_gpu_read(g, m, ((size_t)1 << 28) - 4, w, 8) == NRT_OK && w[0] == 7 && w[1] == 7);
    /* a range without a whole 128-byte element (one write), its neighbours kept */
    CHECK(nrt_gpu_fill32(g, m, 260, 9u, 200) == NRT_OK);
    CHECK(nrt_gpu_read(g, m, 256, w, 8) == NRT_OK && w[0] == 7 && w[1] == 9);
    CHECK(nrt_gpu_read(g, m, 456, w, 8) == NRT_OK && w[0] == 9 && w[1] == 7);
    src = program(arena_kernels, 0, &len);
    CHECKF(nrt_gpu_load(g, src, len, "-cl-std=CL1.2") == NRT_OK, "%s", ctx->errmsg);
    free(src);
    ki = nrt_gpu_kernel(g, "incr", 2);
    CHECK(ki && nrt_gpu_arg_mem(ki, 0, m) == NRT_OK && nrt_gpu_arg_i32(ki, 1, 4) == NRT_OK &&
          nrt_gpu_launch(ki, 1, 4, 0) == NRT_OK);
    CHECK(nrt_gpu_read(g, m, 0, w, sizeof w) == NRT_OK && w[0] == 1 && w[1] == 8 && w[3] == 8);
    nrt_gpu_free(g, &m);
    nrt_gpu_close(g);
    printf("sync: $NEUROC_GPU_SYNC checked; a fill of %zu bytes in pieces\n", big);
}

int main(void)
{
    nrt_ctx ctx;
    nrt_gpu *g = NULL, *g2 = NULL;
    nrt_graph *gr;
    size_t len;
    char *src, *log;
    stderr_cap cap;
    int n;

    memset(&ctx, 0, sizeof ctx);
    n = nrt_gpu_count(&ctx, NRT_API_OPENCL);
    if (n == 0) {
        printf("skipped: no OpenCL device (%s)\n", ctx.errmsg);
        return 77;
    }
    CHECK(nrt_gpu_list(&ctx, NRT_API_OPENCL) == NRT_OK);
    gpu_check_select(NRT_API_OPENCL, n);

    ctx.device = 0;
    CHECKF(nrt_gpu_open(&ctx, NRT_API_OPENCL, &g) == NRT_OK, "%s", ctx.errmsg);
    if (!g)
        return tcheck_done("test_gpu_opencl");
    gpu_check_info(g, NRT_API_OPENCL);
    CHECK(nrt_gpu_kernel(g, "incr", 2) == NULL && strstr(ctx.errmsg, "no device program"));
    gpu_check_memory(&ctx, g);

    src = program(NRT_TEST_KERNELS, 1, &len);
    CHECKF(nrt_gpu_load(g, src, len, "-cl-std=CL1.2") == NRT_OK, "%s", ctx.errmsg);
    free(src);
    gpu_check_kernels(&ctx, g, NRT_API_OPENCL);

    /* CUDA-only features */
    CHECK(nrt_gpu_capture_begin(g) == NRT_EINVAL && strstr(ctx.errmsg, "CUDA only"));
    CHECK(nrt_gpu_capture_end(g, &gr) == NRT_EINVAL && gr == NULL);
    {
        nrt_kernel *k = nrt_gpu_kernel(g, "wide", 3);
        CHECK(k != NULL);
        if (k) {
            CHECK(nrt_gpu_max_resident(k, 32, 0) ==
                  (size_t)nrt_gpu_get_info(g)->compute_units);
            CHECK(nrt_gpu_launch_coop(k, 1, 32, 0) == NRT_EINVAL);
            CHECKF(strstr(ctx.errmsg, "cooperative launches are not available"), "'%s'",
                   ctx.errmsg);
        }
    }
    nrt_gpu_close(g); /* frees the buffers and kernels the checks left */
    check_arena(&ctx);
    check_sync_fill(&ctx);

    /* a program that does not build: its log goes to stderr */
    CHECKF(nrt_gpu_open(&ctx, NRT_API_OPENCL, &g2) == NRT_OK, "%s", ctx.errmsg);
    if (g2) {
        src = program("NC_KERNEL broken(NC_G int32_t *p)\n{\n    p[0] = undeclared_thing;\n}\n",
                      0, &len);
        stderr_begin(&cap);
        CHECK(nrt_gpu_load(g2, src, len, NULL) == NRT_EDEVICE);
        log = stderr_end(&cap);
        CHECKF(strstr(ctx.errmsg, "the model's device program failed to build for OpenCL "
                      "device") && strstr(ctx.errmsg, "undeclared_thing") &&
               strstr(ctx.errmsg, "log is on stderr"), "'%s'", ctx.errmsg);
        CHECKF(log && strstr(log, "neurort: the OpenCL compiler's build log") &&
               strstr(log, "undeclared_thing") && strstr(log, "end of the OpenCL build log"),
               "stderr: '%s'", log ? log : "");
        printf("build failure: %s\n", ctx.errmsg);
        free(log);
        free(src);
        /* the failed load leaves the device usable for a good program */
        src = program("NC_KERNEL fine(NC_G int32_t *p)\n{\n    p[NC_GID] = 7;\n}\n", 0, &len);
        CHECKF(nrt_gpu_load(g2, src, len, NULL) == NRT_OK, "%s", ctx.errmsg);
        free(src);
        nrt_gpu_close(g2);
    }
    { /* the driver's own SIGINT handler (PoCL has one) was not left installed */
        struct sigaction sa;
        sigaction(SIGINT, NULL, &sa);
        CHECK(sa.sa_handler == SIG_DFL);
    }
    return tcheck_done("test_gpu_opencl");
}
