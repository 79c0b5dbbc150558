/* test_gpu_cuda.c -- the CUDA device layer (rt_cuda.c).
 *
 * Without libcuda or a CUDA device: the calls fail cleanly (NRT_EDEVICE with a message),
 * then exit 77 (skipped). With one: the shared checks of gpu_checks.h on the kernels of
 * gpu_kernels.simt (NRT_TEST_FATBIN, built by nvcc from gpu_kernels.cu when nvcc was found
 * at configure time; else the kernel checks are skipped), then what is CUDA's own: graph
 * capture and replay, cooperative launches and their residency limit, an image that does
 * not load (NRT_EDEVICE, the JIT log on stderr), and last a kernel that faults, reported
 * by nrt_gpu_sync as "device fault: ...".
 */
#include "gpu_checks.h"

#ifdef NRT_TEST_FATBIN
static void check_cuda_only(nrt_ctx *ctx, nrt_gpu *g)
{
    nrt_dmem x;
    nrt_kernel *k;
    nrt_graph *gr = NULL;
    int32_t v[256], junk = 0;
    size_t most;
    int i, ok;

    CHECK(nrt_gpu_alloc(g, &x, sizeof v, "graph x") == NRT_OK);
    k = nrt_gpu_kernel(g, "incr", 2);
    CHECKF(k != NULL, "%s", ctx->errmsg);
    if (!k)
        return;
    CHECK(nrt_gpu_arg_mem(k, 0, x) == NRT_OK && nrt_gpu_arg_i32(k, 1, 256) == NRT_OK);

    /* capture two launches, replay the graph three times */
    CHECKF(nrt_gpu_capture_begin(g) == NRT_OK, "%s", ctx->errmsg);
    CHECK(nrt_gpu_capture_begin(g) == NRT_EINVAL);
    CHECK(nrt_gpu_launch(k, 4, 64, 0) == NRT_OK);
    CHECK(nrt_gpu_launch(k, 4, 64, 0) == NRT_OK);
    CHECK(nrt_gpu_write(g, x, 0, &junk, 4) == NRT_EINVAL && strstr(ctx->errmsg, "captured"));
    CHECK(nrt_gpu_sync(g) == NRT_EINVAL);
    CHECKF(nrt_gpu_capture_end(g, &gr) == NRT_OK && gr, "%s", ctx->errmsg);
    CHECK(nrt_gpu_read(g, x, 0, v, sizeof v) == NRT_OK && v[0] == 0); /* not run yet */
    for (i = 0; i < 3; i++)
        CHECKF(nrt_gpu_graph_launch(g, gr) == NRT_OK, "%s", ctx->errmsg);
    CHECK(nrt_gpu_read(g, x, 0, v, sizeof v) == NRT_OK);
    for (ok = 1, i = 0; i < 256; i++)
        ok &= v[i] == 6;
    CHECKF(ok, "x[0] = %d after 3 replays of 2 increments", v[0]);
    nrt_gpu_graph_free(gr);
    CHECK(nrt_gpu_capture_end(g, &gr) == NRT_EINVAL);

    /* cooperative launches up to the residency limit */
    most = nrt_gpu_max_resident(k, 64, 0);
    CHECK(most >= (size_t)nrt_gpu_get_info(g)->compute_units);
    if (nrt_gpu_get_info(g)->cooperative) {
        CHECKF(nrt_gpu_launch_coop(k, 4, 64, 0) == NRT_OK, "%s", ctx->errmsg);
        CHECK(nrt_gpu_read(g, x, 0, v, sizeof v) == NRT_OK && v[0] == 7 && v[255] == 7);
        CHECK(nrt_gpu_launch_coop(k, most + 1, 64, 0) == NRT_EINVAL);
        CHECKF(strstr(ctx->errmsg, "cannot all be resident"), "'%s'", ctx->errmsg);
    }
    printf("max resident groups of 64: %zu\n", most);

    /* a kernel compiled for groups of 32 launched with 64: refused at the launch, naming the
     * kernel, also inside a capture (where CUDA itself would fail only at instantiation) */
    k = nrt_gpu_kernel(g, "incr32", 2);
    CHECKF(k != NULL, "%s", ctx->errmsg);
    if (!k)
        return;
    CHECK(nrt_gpu_arg_mem(k, 0, x) == NRT_OK && nrt_gpu_arg_i32(k, 1, 256) == NRT_OK);
    CHECK(nrt_gpu_max_resident(k, 64, 0) == 0 && nrt_gpu_max_resident(k, 32, 0) > 0);
    CHECK(nrt_gpu_launch(k, 4, 64, 0) == NRT_EDEVICE);
    CHECKF(strstr(ctx->errmsg, "'incr32'") && strstr(ctx->errmsg, "do not fit"), "'%s'", ctx->errmsg);
    CHECKF(nrt_gpu_launch(k, 8, 32, 0) == NRT_OK, "%s", ctx->errmsg);
    CHECKF(nrt_gpu_capture_begin(g) == NRT_OK, "%s", ctx->errmsg);
    CHECK(nrt_gpu_launch(k, 4, 64, 0) == NRT_EDEVICE);
    CHECK(nrt_gpu_launch(k, 8, 32, 0) == NRT_OK);
    CHECKF(nrt_gpu_capture_end(g, &gr) == NRT_OK && gr, "%s", ctx->errmsg);
    CHECKF(gr && nrt_gpu_graph_launch(g, gr) == NRT_OK, "%s", ctx->errmsg);
    nrt_gpu_graph_free(gr);
    CHECK(nrt_gpu_read(g, x, 0, v, sizeof v) == NRT_OK);
    CHECKF(v[0] == v[255] && v[0] >= 8, "x[0] = %d, x[255] = %d", v[0], v[255]);
}
#endif

int main(void)
{
    nrt_ctx ctx;
    nrt_gpu *g = NULL;
    int n;

    memset(&ctx, 0, sizeof ctx);
    n = nrt_gpu_count(&ctx, NRT_API_CUDA);
    if (n == 0) {
        char why[512];
        snprintf(why, sizeof why, "%s", ctx.errmsg);
        CHECK(why[0] != '\0');
        CHECK(nrt_gpu_open(&ctx, NRT_API_CUDA, &g) == NRT_EDEVICE && g == NULL);
        CHECK(strcmp(ctx.errmsg, why) == 0);
        CHECK(nrt_gpu_list(&ctx, NRT_API_CUDA) == NRT_EDEVICE && ctx.errmsg[0]);
        if (tcheck_failed)
            return tcheck_done("test_gpu_cuda");
        printf("skipped: no CUDA device (%s)\n", why);
        return 77;
    }
    CHECK(nrt_gpu_list(&ctx, NRT_API_CUDA) == NRT_OK);
    gpu_check_select(NRT_API_CUDA, n);

    ctx.device = 0;
    CHECKF(nrt_gpu_open(&ctx, NRT_API_CUDA, &g) == NRT_OK, "%s", ctx.errmsg);
    if (!g)
        return tcheck_done("test_gpu_cuda");
    gpu_check_info(g, NRT_API_CUDA);
    CHECK(strncmp(nrt_gpu_get_info(g)->platform, "CUDA ", 5) == 0);
    gpu_check_memory(&ctx, g);
#ifdef NRT_TEST_FATBIN
    {
        size_t len = 0;
        char *img = read_file(NRT_TEST_FATBIN, &len), *log;
        nrt_gpu *g2 = NULL;
        stderr_cap cap;
        int loaded = 0;
        static const char bad_ptx[] = ".version 7.0\n.target sm_75\n.address_size 64\n"
                                      ".visible .entry broken()\n{\n  bogus.instruction;\n}\n";
        CHECKF(img != NULL, "cannot read %s", NRT_TEST_FATBIN);
        if (img) {
            loaded = nrt_gpu_load(g, img, len, NULL) == NRT_OK;
            CHECKF(loaded, "%s", ctx.errmsg);
            free(img);
        }
        if (loaded) {
            gpu_check_kernels(&ctx, g, NRT_API_CUDA);
            check_cuda_only(&ctx, g);
        }

        /* an image that does not load */
        CHECKF(nrt_gpu_open(&ctx, NRT_API_CUDA, &g2) == NRT_OK, "%s", ctx.errmsg);
        if (g2) {
            stderr_begin(&cap);
            CHECK(nrt_gpu_load(g2, bad_ptx, sizeof bad_ptx - 1, NULL) == NRT_EDEVICE);
            log = stderr_end(&cap);
            CHECKF(strstr(ctx.errmsg, "the model's device program failed to load on CUDA "
                          "device"), "'%s'", ctx.errmsg);
            printf("load failure: %s\nstderr: %s\n", ctx.errmsg, log ? log : "");
            free(log);
            nrt_gpu_close(g2);
        }

        /* a kernel that faults: nrt_gpu_sync says so (the context is lost after this) */
        if (loaded) {
            nrt_kernel *k = nrt_gpu_kernel(g, "poke", 2);
            nrt_dmem p;
            CHECK(k != NULL && nrt_gpu_alloc(g, &p, 64, "poked") == NRT_OK);
            if (k) {
                CHECK(nrt_gpu_arg_mem(k, 0, p) == NRT_OK);
                CHECK(nrt_gpu_arg_i64(k, 1, (int64_t)1 << 40) == NRT_OK);
                CHECK(nrt_gpu_launch(k, 1, 32, 0) == NRT_OK);
                CHECK(nrt_gpu_sync(g) == NRT_EDEVICE);
                CHECKF(strncmp(ctx.errmsg, "device fault: ", 14) == 0, "'%s'", ctx.errmsg);
                printf("fault: %s\n", ctx.errmsg);
            }
        }
    }
#else
    printf("kernel checks skipped: nvcc was not found when this test was built\n");
#endif
    nrt_gpu_close(g);
    return tcheck_done("test_gpu_cuda");
}
