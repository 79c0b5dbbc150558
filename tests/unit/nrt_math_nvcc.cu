/* nrt_math_nvcc.cu -- nrt_math.h as CUDA: every function on the device and on the host.
 *
 * CTest compiles this file only (nvcc -arch=sm_90 --fmad=false -c -x cu), which checks that
 * the header is valid CUDA C++ for both __device__ and __host__ code. Linked and run on a
 * machine with a GPU, it evaluates every function on the inputs of nrt_math_cases.h on the
 * device and on the host (the same header compiled by the host compiler, as the C back end
 * does) and requires the same bits (NaN matches any NaN); exit 77 without a GPU.
 */
#include <stdio.h>
#include <string.h>

#include "nrt_math.h"
#include "nrt_math_cases.h"

__global__ void nrt_math_run_f(int fn, const float *x, const float *y, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = NRT_CASE_DISPATCH(fn, x[i], y[i], f);
}

__global__ void nrt_math_run_d(int fn, const double *x, const double *y, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = NRT_CASE_DISPATCH(fn, x[i], y[i], );
}

static int same_f(float a, float b)
{
    if (a != a) return b != b;
    return memcmp(&a, &b, 4) == 0;
}
static int same_d(double a, double b)
{
    if (a != a) return b != b;
    return memcmp(&a, &b, 8) == 0;
}

int main(void)
{
    static float xf[NRT_CASES_N], yf[NRT_CASES_N], of[NRT_CASES_N];
    static double xd[NRT_CASES_N], yd[NRT_CASES_N], od[NRT_CASES_N];
    float *dxf, *dyf, *dof;
    double *dxd, *dyd, *dod;
    int ndev = 0, fn, i, bad = 0, checked = 0;
    const int n = NRT_CASES_N;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("skipped: no CUDA device\n");
        return 77;
    }
    cudaMalloc(&dxf, n * 4);
    cudaMalloc(&dyf, n * 4);
    cudaMalloc(&dof, n * 4);
    cudaMalloc(&dxd, n * 8);
    cudaMalloc(&dyd, n * 8);
    cudaMalloc(&dod, n * 8);
    for (fn = 0; fn < NRT_C_COUNT; fn++) {
        int nbf = 0, nbd = 0;
        nrt_cases_f(fn, xf, yf);
        nrt_cases_d(fn, xd, yd);
        cudaMemcpy(dxf, xf, n * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(dyf, yf, n * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(dxd, xd, n * 8, cudaMemcpyHostToDevice);
        cudaMemcpy(dyd, yd, n * 8, cudaMemcpyHostToDevice);
        nrt_math_run_f<<<(n + 127) / 128, 128>>>(fn, dxf, dyf, dof, n);
        nrt_math_run_d<<<(n + 127) / 128, 128>>>(fn, dxd, dyd, dod, n);
        if (cudaMemcpy(of, dof, n * 4, cudaMemcpyDeviceToHost) != cudaSuccess ||
            cudaMemcpy(od, dod, n * 8, cudaMemcpyDeviceToHost) != cudaSuccess) {
            printf("CUDA error: %s\n", cudaGetErrorString(cudaGetLastError()));
            return 1;
        }
        for (i = 0; i < n; i++) {
            float cf = NRT_CASE_DISPATCH(fn, xf[i], yf[i], f);
            double cd = NRT_CASE_DISPATCH(fn, xd[i], yd[i], );
            checked += 2;
            if (!same_f(cf, of[i])) {
                if (nbf < 5)
                    printf("  MISMATCH %sf(%.9g, %.9g): host %a, device %a\n", nrt_case_names[fn],
                           xf[i], yf[i], cf, of[i]);
                nbf++;
            }
            if (!same_d(cd, od[i])) {
                if (nbd < 5)
                    printf("  MISMATCH %s(%.17g, %.17g): host %a, device %a\n", nrt_case_names[fn],
                           xd[i], yd[i], cd, od[i]);
                nbd++;
            }
        }
        printf("  %-6s float: %d of %d differ; double: %d of %d differ\n", nrt_case_names[fn], nbf,
               n, nbd, n);
        bad += nbf + nbd;
    }
    printf("%s: %d of %d results differ between host and CUDA device\n", bad ? "FAILED" : "ok", bad,
           checked);
    return bad ? 1 : 0;
}
