/* test_nrt_math_cl.c -- nrt_math.h compiled as OpenCL C gives the same bits as the C build.
 *
 * The header's text is pasted into a kernel that evaluates every float function (and every
 * double one where the device has cl_khr_fp64) on the inputs of nrt_math_cases.h, built with
 * -cl-fp32-correctly-rounded-divide-sqrt; each result must equal the C result bit for bit
 * (NaN matches any NaN). Exit 77 ("skipped") when there is no OpenCL platform or device.
 *
 * Usage: test_nrt_math_cl PATH/TO/nrt_math.h (its halves nrt_math_d.h and nrt_math_f.h beside it)
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nrt_math.h"
#include "nrt_math_cases.h"

static const char kernel_src[] =
    "\n__kernel void run_f(int fn, __global const float *x, __global const float *y,\n"
    "                    __global float *out)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    float a = x[i], b = y[i];\n"
    "    out[i] = fn == 0 ? nrt_expf(a) : fn == 1 ? nrt_expm1f(a) : fn == 2 ? nrt_logf(a) :\n"
    "             fn == 3 ? nrt_log1pf(a) : fn == 4 ? nrt_log10f(a) : fn == 5 ? nrt_sinf(a) :\n"
    "             fn == 6 ? nrt_cosf(a) : fn == 7 ? nrt_tanf(a) : fn == 8 ? nrt_sinhf(a) :\n"
    "             fn == 9 ? nrt_coshf(a) : fn == 10 ? nrt_tanhf(a) : fn == 11 ? nrt_atanf(a) :\n"
    "             nrt_powf(a, b);\n"
    "}\n"
    "#if NRT_MATH_HAS_DOUBLE\n"
    "__kernel void run_d(int fn, __global const double *x, __global const double *y,\n"
    "                    __global double *out)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    double a = x[i], b = y[i];\n"
    "    out[i] = fn == 0 ? nrt_exp(a) : fn == 1 ? nrt_expm1(a) : fn == 2 ? nrt_log(a) :\n"
    "             fn == 3 ? nrt_log1p(a) : fn == 4 ? nrt_log10(a) : fn == 5 ? nrt_sin(a) :\n"
    "             fn == 6 ? nrt_cos(a) : fn == 7 ? nrt_tan(a) : fn == 8 ? nrt_sinh(a) :\n"
    "             fn == 9 ? nrt_cosh(a) : fn == 10 ? nrt_tanh(a) : fn == 11 ? nrt_atan(a) :\n"
    "             nrt_pow(a, b);\n"
    "}\n"
    "#endif\n";

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    long n;
    char *buf;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    fclose(f);
    return buf;
}

static int same_bits_f(float a, float b)
{
    uint32_t ua, ub;
    if (a != a) return b != b;
    memcpy(&ua, &a, 4);
    memcpy(&ub, &b, 4);
    return ua == ub;
}
static int same_bits_d(double a, double b)
{
    uint64_t ua, ub;
    if (a != a) return b != b;
    memcpy(&ua, &a, 8);
    memcpy(&ub, &b, 8);
    return ua == ub;
}

#define CK(call)                                                                           \
    do {                                                                                   \
        cl_int e_ = (call);                                                                \
        if (e_ != CL_SUCCESS) {                                                            \
            fprintf(stderr, "%s:%d: OpenCL error %d in %s\n", __FILE__, __LINE__, (int)e_, \
                    #call);                                                                \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

/* nrt_math.h and its halves nrt_math_d.h and nrt_math_f.h (beside it) as one text, the way
 * the GPU back ends paste them into a device program */
static char *read_math(const char *path)
{
    static const char *const parts[] = {"", "nrt_math_d.h", "nrt_math_f.h"};
    static const char pasted[] = "#define NRT_MATH_PASTED 1\n";
    size_t dir = strrchr(path, '/') ? (size_t)(strrchr(path, '/') - path + 1) : 0, len = sizeof pasted;
    char *text[3], *all, name[4096];
    int i;
    for (i = 0; i < 3; i++) {
        if (i == 0)
            snprintf(name, sizeof name, "%s", path);
        else
            snprintf(name, sizeof name, "%.*s%s", (int)dir, path, parts[i]);
        text[i] = read_file(name);
        if (!text[i]) return NULL;
        len += strlen(text[i]) + 1;
    }
    all = malloc(len);
    if (!all) return NULL;
    strcpy(all, pasted);
    for (i = 0; i < 3; i++) {
        strcat(all, text[i]);
        strcat(all, "\n");
        free(text[i]);
    }
    return all;
}

int main(int argc, char **argv)
{
    cl_platform_id plat;
    cl_device_id dev;
    cl_uint nplat = 0;
    cl_int err;
    cl_context ctx;
    cl_command_queue q;
    cl_program prog;
    char *hdr, *src, ext[4096], name[256];
    const char *srcs[1];
    int has_fp64, fn, i, bad = 0, checked = 0;
    size_t n = NRT_CASES_N;
    static float xf[NRT_CASES_N], yf[NRT_CASES_N], of[NRT_CASES_N];
    static double xd[NRT_CASES_N], yd[NRT_CASES_N], od[NRT_CASES_N];

    if (argc != 2) {
        fprintf(stderr, "usage: %s nrt_math.h\n", argv[0]);
        return 2;
    }
    if (clGetPlatformIDs(1, &plat, &nplat) != CL_SUCCESS || nplat == 0 ||
        clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS) {
        printf("skipped: no OpenCL device\n");
        return 77;
    }
    CK(clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL));
    CK(clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL));
    has_fp64 = strstr(ext, "cl_khr_fp64") != NULL;
    printf("OpenCL device: %s (fp64: %s)\n", name, has_fp64 ? "yes" : "no");

    hdr = read_math(argv[1]);
    if (!hdr) {
        fprintf(stderr, "cannot read %s or its halves beside it\n", argv[1]);
        return 1;
    }
    src = malloc(strlen(hdr) + sizeof kernel_src + 1);
    strcpy(src, hdr);
    strcat(src, kernel_src);
    srcs[0] = src;

    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CK(err);
    q = clCreateCommandQueue(ctx, dev, 0, &err);
    CK(err);
    prog = clCreateProgramWithSource(ctx, 1, srcs, NULL, &err);
    CK(err);
    err = clBuildProgram(prog, 1, &dev, "-cl-fp32-correctly-rounded-divide-sqrt", NULL, NULL);
    if (err != CL_SUCCESS) {
        static char log[1 << 16];
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        fprintf(stderr, "OpenCL build failed (%d):\n%s\n", (int)err, log);
        return 1;
    }

    for (fn = 0; fn < NRT_C_COUNT; fn++) {
        /* float */
        cl_kernel k = clCreateKernel(prog, "run_f", &err);
        cl_mem bx, by, bo;
        int nbad = 0;
        CK(err);
        nrt_cases_f(fn, xf, yf);
        bx = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, xf, &err);
        CK(err);
        by = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, yf, &err);
        CK(err);
        bo = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, n * 4, NULL, &err);
        CK(err);
        CK(clSetKernelArg(k, 0, sizeof fn, &fn));
        CK(clSetKernelArg(k, 1, sizeof bx, &bx));
        CK(clSetKernelArg(k, 2, sizeof by, &by));
        CK(clSetKernelArg(k, 3, sizeof bo, &bo));
        CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, NULL));
        CK(clEnqueueReadBuffer(q, bo, CL_TRUE, 0, n * 4, of, 0, NULL, NULL));
        for (i = 0; i < NRT_CASES_N; i++) {
            float c = NRT_CASE_DISPATCH(fn, xf[i], yf[i], f);
            checked++;
            if (!same_bits_f(c, of[i])) {
                if (nbad < 5)
                    printf("  MISMATCH %sf(%.9g, %.9g): C %.9g (%a), OpenCL %.9g (%a)\n",
                           nrt_case_names[fn], xf[i], yf[i], c, c, of[i], of[i]);
                nbad++;
            }
        }
        printf("  %-6s float:  %d of %d differ\n", nrt_case_names[fn], nbad, NRT_CASES_N);
        bad += nbad;
        clReleaseMemObject(bx);
        clReleaseMemObject(by);
        clReleaseMemObject(bo);
        clReleaseKernel(k);
        if (!has_fp64) continue;
        /* double */
        k = clCreateKernel(prog, "run_d", &err);
        CK(err);
        nbad = 0;
        nrt_cases_d(fn, xd, yd);
        bx = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 8, xd, &err);
        CK(err);
        by = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 8, yd, &err);
        CK(err);
        bo = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, n * 8, NULL, &err);
        CK(err);
        CK(clSetKernelArg(k, 0, sizeof fn, &fn));
        CK(clSetKernelArg(k, 1, sizeof bx, &bx));
        CK(clSetKernelArg(k, 2, sizeof by, &by));
        CK(clSetKernelArg(k, 3, sizeof bo, &bo));
        CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, NULL));
        CK(clEnqueueReadBuffer(q, bo, CL_TRUE, 0, n * 8, od, 0, NULL, NULL));
        for (i = 0; i < NRT_CASES_N; i++) {
            double c = NRT_CASE_DISPATCH(fn, xd[i], yd[i], );
            checked++;
            if (!same_bits_d(c, od[i])) {
                if (nbad < 5)
                    printf("  MISMATCH %s(%.17g, %.17g): C %.17g (%a), OpenCL %.17g (%a)\n",
                           nrt_case_names[fn], xd[i], yd[i], c, c, od[i], od[i]);
                nbad++;
            }
        }
        printf("  %-6s double: %d of %d differ\n", nrt_case_names[fn], nbad, NRT_CASES_N);
        bad += nbad;
        clReleaseMemObject(bx);
        clReleaseMemObject(by);
        clReleaseMemObject(bo);
        clReleaseKernel(k);
    }
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    free(src);
    free(hdr);
    printf("%s: %d of %d results differ between C and OpenCL\n", bad ? "FAILED" : "ok", bad,
           checked);
    return bad ? 1 : 0;
}
