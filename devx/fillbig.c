/* device experiment: NVIDIA OpenCL fills/copies at large sizes and offsets (not committed) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "neurort.h"
#include "nrt_gpu.h"
static nrt_ctx ctx;
#define T(x) do { nrt_status st_ = (x); printf("%-60s %s %s\n", #x, st_ == NRT_OK ? "ok" : "FAIL", st_ == NRT_OK ? "" : ctx.errmsg); fflush(stdout); if (st_ != NRT_OK) return 1; } while (0)
static int one(int arena, size_t big)
{
    nrt_gpu *g = NULL;
    nrt_dmem a, b;
    uint32_t w[4] = {0};
    printf("== arena %d, %zu bytes\n", arena, big);
    ctx.device = 0;
    T(nrt_gpu_open(&ctx, NRT_API_OPENCL, &g));
    if (arena) T(nrt_gpu_arena(g));
    T(nrt_gpu_alloc(g, &a, 1 << 20, "small"));
    T(nrt_gpu_alloc(g, &b, big, "big"));
    T(nrt_gpu_read(g, b, big - 16, w, 16));
    printf("   tail %u %u\n", w[0], w[3]);
    T(nrt_gpu_fill32(g, b, big - (1 << 20), 7u, 1 << 20));
    T(nrt_gpu_read(g, b, big - 16, w, 16));
    printf("   tail %u %u\n", w[0], w[3]);
    T(nrt_gpu_fill32(g, b, 0, 5u, big & ~(size_t)3));
    T(nrt_gpu_read(g, b, big - 16, w, 16));
    printf("   tail %u %u\n", w[0], w[3]);
    if (arena) {   /* a second big range: the arena moves, copying the first */
        nrt_dmem c;
        nrt_kernel *k;
        static const char src[] = "__kernel void poke(__global uchar *ar, long off) { *(__global int *)(ar + off) = 9; }\n";
        T(nrt_gpu_alloc(g, &c, big, "big2"));
        T(nrt_gpu_read(g, b, big - 16, w, 16));
        printf("   first's tail after the move %u %u\n", w[0], w[3]);
        T(nrt_gpu_load(g, src, sizeof src - 1, "-cl-std=CL1.2"));
        k = nrt_gpu_kernel(g, "poke", 2);
        T(nrt_gpu_arg_arena(k, 0));
        T(nrt_gpu_arg_i64(k, 1, nrt_gpu_mem_word(g, c) + (int64_t)big - 8));
        T(nrt_gpu_launch(k, 1, 1, 0));
        T(nrt_gpu_sync(g));
        T(nrt_gpu_read(g, c, big - 8, w, 8));
        printf("   poked at arena offset %lld: %u\n", (long long)(nrt_gpu_mem_word(g, c) + (int64_t)big - 8), w[0]);
    }
    nrt_gpu_close(g);
    return 0;
}
int main(int argc, char **argv)
{
#ifdef SMALL
    size_t sizes[] = {(size_t)15 << 20, (size_t)3 << 20, (size_t)41 << 20, (size_t)6 << 20};
#else
    size_t sizes[] = {(size_t)1500 << 20, (size_t)3 << 30, (size_t)4100 << 20, (size_t)6 << 30};
#endif
    for (int ar = 0; ar < 2; ar++)
        for (int i = 0; i < 4; i++)
            one(ar, sizes[i]);
    return 0;
}
