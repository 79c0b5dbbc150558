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
