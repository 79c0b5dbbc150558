/* nrt_simt.h -- the device dialect shared by CUDA and OpenCL kernels.
 *
 * Every GPU program neuroc generates starts with this header (pasted in as text), then
 * nrt_philox.h, nrt_conn_dev.h and the model's kernels. Kernel code is written once, in the
 * common subset of CUDA C++ and OpenCL C, with the macros below for what differs: kernel and
 * address-space qualifiers, work-item indices, barriers and atomics. Floating point follows
 * IEEE-754 without contraction on both (nvcc --fmad=false; FP_CONTRACT OFF here), so the
 * same arithmetic gives the same bits as the C back end.
 *
 * Index macros: NC_GID (global work-item), NC_GSIZE (all work-items), NC_LID, NC_LSIZE
 * (within the group), NC_GROUP, NC_NGROUPS. NC_BARRIER() synchronises a group and makes its
 * global and local memory writes visible within it.
 */
#ifndef NRT_SIMT_H
#define NRT_SIMT_H

#if defined(__OPENCL_VERSION__)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL FP_CONTRACT OFF
typedef int int32_t;
typedef uint uint32_t;
typedef long int64_t;
typedef ulong uint64_t;
#define NC_KERNEL __kernel void
#define NC_KERNEL_BOUNDED(n) __kernel void
#define NC_DEV static inline
#define NC_DEV_COLD static /* construction code (nc_uniform_cold, ...) */
#define NC_G __global
#define NC_L __local
#define NC_LP __local
#define NC_CONST_TABLE __constant
#define NC_CONST_ARG __global const
#define NC_GID ((int64_t)get_global_id(0))
#define NC_GSIZE ((int64_t)get_global_size(0))
#define NC_LID ((int)get_local_id(0))
#define NC_LSIZE ((int)get_local_size(0))
#define NC_GROUP ((int64_t)get_group_id(0))
#define NC_NGROUPS ((int64_t)get_num_groups(0))
#define NC_BARRIER() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
/* atomics on 32-bit integers (return the old value) */
#define nc_atomic_add_i32(p, v) atomic_add((volatile __global int *)(p), (v))
#define nc_atomic_max_i32(p, v) atomic_max((volatile __global int *)(p), (v))
#define nc_atomic_min_i32(p, v) atomic_min((volatile __global int *)(p), (v))
#define nc_atomic_add_i32_local(p, v) atomic_add((volatile __local int *)(p), (v))
/* set bits of a 32-bit word; the set bits of a word */
#define nc_atomic_or_u32(p, v) ((void)atomic_or((volatile __global uint *)(p), (v)))
#define nc_popc(x) ((int)popcount((uint)(x)))
#define nc_ctz(x) (31 - (int)clz((uint)(x) & (0u - (uint)(x))))
/* the bits of a float / double */
#define nc_f32_bits(x) as_uint(x)
#define nc_f64_bits(x) as_ulong(x)
#if defined(NC_NV_PTX)
/* NVIDIA's OpenCL compiler takes inline PTX (the runtime defines NC_NV_PTX where the device
 * has cl_nv_compiler_options, and builds again without it if the build fails): the GPU's own
 * float atomic adds, as CUDA's atomicAdd, instead of a compare-and-swap loop */
NC_DEV void nc_atomic_add_f32(NC_G float *p, float v)
{
    asm volatile("red.global.add.f32 [%0], %1;" : : "l"(p), "f"(v) : "memory");
}
NC_DEV void nc_atomic_add_f64(NC_G double *p, double v)
{
    asm volatile("red.global.add.f64 [%0], %1;" : : "l"(p), "d"(v) : "memory");
}
#else
/* float atomic add by compare-and-swap (portable OpenCL 1.2) */
NC_DEV void nc_atomic_add_f32(NC_G float *p, float v)
{
    volatile __global uint *u = (volatile __global uint *)p;
    uint old = *u, assumed;
    do {
        assumed = old;
        old = atomic_cmpxchg(u, assumed, as_uint(as_float(assumed) + v));
    } while (old != assumed);
}
NC_DEV void nc_atomic_add_f64(NC_G double *p, double v)
{
    volatile __global ulong *u = (volatile __global ulong *)p;
    ulong old = *u, assumed;
    do {
        assumed = old;
        old = atom_cmpxchg(u, assumed, as_ulong(as_double(assumed) + v));
    } while (old != assumed);
}
#endif
#define expf(x) exp((float)(x))
#define expm1f(x) expm1((float)(x))
#define logf(x) log((float)(x))
#define log1pf(x) log1p((float)(x))
#define log10f(x) log10((float)(x))
#define sqrtf(x) sqrt((float)(x))
#define fabsf(x) fabs((float)(x))
#define sinf(x) sin((float)(x))
#define cosf(x) cos((float)(x))
#define tanf(x) tan((float)(x))
#define tanhf(x) tanh((float)(x))
#define sinhf(x) sinh((float)(x))
#define coshf(x) cosh((float)(x))
#define atanf(x) atan((float)(x))
#define floorf(x) floor((float)(x))
#define ceilf(x) ceil((float)(x))
#define roundf(x) round((float)(x))
#define fminf(x, y) fmin((float)(x), (float)(y))
#define fmaxf(x, y) fmax((float)(x), (float)(y))
#define powf(x, y) pow((float)(x), (float)(y))
#define fmodf(x, y) fmod((float)(x), (float)(y))
#if defined(NC_NV_PTX) && !defined(NC_NV_NOSHFL)
/* NVIDIA's warp shuffle in inline PTX, for nc_block_scan (below, after both dialects; lanes
 * are work-items 32 w .. 32 w + 31 of a 1-D work-group) */
#define NC_SHFL_SCAN 1
NC_DEV int nc_shfl_up(int x, int o)
{
    int y;
    asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(y) : "r"(x), "r"(o));
    return y;
}
#else
/* Exclusive prefix sum of v over the work-group (every work-item calls it); *total gets
 * the sum. tmp: NC_LSIZE + 33 ints of local memory. Two levels, no barrier inside a loop
 * (CPU implementations such as PoCL compile barriers in loops slowly): 32 work-items scan
 * segments, one scans the 32 segment sums. */
NC_DEV int nc_block_scan(int v, NC_LP int *tmp, int *total)
{
    const int l = NC_LID, n = NC_LSIZE, seg = (n + 31) / 32;
    tmp[l] = v;
    NC_BARRIER();
    if (l < 32) {
        int sum = 0;
        for (int q = l * seg; q < (l + 1) * seg && q < n; q++) {
            const int x = tmp[q];
            tmp[q] = sum;
            sum += x;
        }
        tmp[n + l] = sum;
    }
    NC_BARRIER();
    if (l == 0) {
        int sum = 0;
        for (int q = 0; q < 32; q++) {
            const int x = tmp[n + q];
            tmp[n + q] = sum;
            sum += x;
        }
        tmp[n + 32] = sum;
    }
    NC_BARRIER();
    const int r = tmp[l] + tmp[n + l / seg];
    *total = tmp[n + 32];
    NC_BARRIER();
    return r;
}
#endif
#elif defined(__CUDACC__)
#include <math.h>
#include <stdint.h>
#define NC_KERNEL extern "C" __global__ void
/* a kernel launched with up to n threads per block: registers are capped so that n fit */
#define NC_KERNEL_BOUNDED(n) extern "C" __global__ void __launch_bounds__(n)
#define NC_DEV static __device__ __forceinline__
/* construction code's draws (nc_uniform_cold, ...): called, not inlined into each construction
 * kernel (two thirds of nvcc's time for the microcircuit's 55 projections when inlined) */
#define NC_DEV_COLD static __device__ __noinline__
#define NC_G
#define NC_L __shared__
#define NC_LP
#define NC_CONST_TABLE static __constant__ const
#define NC_CONST_ARG const
#define NC_GID ((int64_t)blockIdx.x * blockDim.x + threadIdx.x)
#define NC_GSIZE ((int64_t)gridDim.x * blockDim.x)
#define NC_LID ((int)threadIdx.x)
#define NC_LSIZE ((int)blockDim.x)
#define NC_GROUP ((int64_t)blockIdx.x)
#define NC_NGROUPS ((int64_t)gridDim.x)
#define NC_BARRIER() __syncthreads()
#define nc_atomic_add_i32(p, v) atomicAdd((int *)(p), (v))
#define nc_atomic_max_i32(p, v) atomicMax((int *)(p), (v))
#define nc_atomic_min_i32(p, v) atomicMin((int *)(p), (v))
#define nc_atomic_add_i32_local(p, v) atomicAdd((int *)(p), (v))
#define nc_atomic_or_u32(p, v) ((void)atomicOr((unsigned int *)(p), (v)))
#define nc_popc(x) __popc((unsigned int)(x))
#define nc_ctz(x) (__ffs((int)(x)) - 1)
#define nc_f32_bits(x) __float_as_uint(x)
#define nc_f64_bits(x) ((uint64_t)__double_as_longlong(x))
#define nc_atomic_add_f32(p, v) ((void)atomicAdd((float *)(p), (v)))
#define nc_atomic_add_f64(p, v) ((void)atomicAdd((double *)(p), (v)))
/* Exclusive prefix sum of v over the block (every thread calls it; blockDim.x a multiple
 * of 32); *total gets the sum. tmp: 32 ints of shared memory. Warp shuffles, two barriers. */
/* Exclusive prefix sum of v over the warp (all 32 lanes call it); *total gets the sum. */
NC_DEV int nc_warp_scan(int v, int *total)
{
    const int lane = threadIdx.x & 31;
    int x = v;
    for (int o = 1; o < 32; o <<= 1) {
        const int y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o)
            x += y;
    }
    *total = __shfl_sync(0xffffffffu, x, 31);
    return x - v;
}
/* The cluster schedule (sm_90): each group's spike words of a step go to every group by
 * asynchronous 16-byte stores into the peer's shared memory (nc_st_async4), each completing
 * on the peer's mbarrier by the bytes it carries; a group arms its mbarrier with the bytes of
 * the whole step (nc_mbar_expect) and waits for it (nc_mbar_wait). Measured against single
 * tagged 8-byte stores and against one bulk copy per peer (docs/performance.md). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define NC_SMEM(p) ((unsigned)__cvta_generic_to_shared(p))
NC_DEV void nc_mbar_init(uint64_t *bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(NC_SMEM(bar)), "r"(count) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
NC_DEV void nc_mbar_expect(uint64_t *bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(NC_SMEM(bar)), "r"(bytes) : "memory");
}
/* Waits for the phase of `parity` to complete: 1, or 0 when it has not within NC_STALL_NS of
 * wall-clock time (%globaltimer). A step's words do not come when the cluster stalls, which
 * happens when other processes' kernels share the GPU (docs/architecture.md, "The cluster
 * schedule"); the kernel then stops and the host redoes the launch's steps in the block
 * schedule. */
#define NC_STALL_NS 2000000000ull
NC_DEV int nc_mbar_wait(uint64_t *bar, unsigned parity)
{
    uint64_t t0 = 0, t;
    for (unsigned k = 1;; k++) {
        unsigned ok;
        asm volatile("{\n\t.reg .pred P1;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 P1, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, P1;\n\t}" : "=r"(ok) : "r"(NC_SMEM(bar)), "r"(parity) : "memory");
        if (ok)
            return 1;
        if (k % 64)   /* the clock now and then: the loop stays tight while words are on their way */
            continue;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (!t0)
            t0 = t;
        else if (t - t0 > NC_STALL_NS)
            return 0;
    }
}
/* 16 bytes to dst in group `rank`, completing on `bar` there (st.async: no fence needed,
 * the data comes from registers). */
NC_DEV void nc_st_async4(void *dst, int rank, uint4 v, uint64_t *bar)
{
    asm volatile("{\n\t.reg .b32 d, m;\n\t"
                 "mapa.shared::cluster.u32 d, %0, %1;\n\t"
                 "mapa.shared::cluster.u32 m, %2, %1;\n\t"
                 "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [d], {%3, %4, %5, %6}, [m];\n\t}"
                 ::"r"(NC_SMEM(dst)), "r"(rank), "r"(NC_SMEM(bar)), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
/* The push step (nc_k_push): one more spike at a synapse's target, a 32-bit count in group
 * `rank`'s shared memory, completing on that group's mbarrier by its 4 bytes; then the
 * sending warp's arrival there, with the bytes of all its adds to that group this step
 * (relaxed: the adds complete on the mbarrier themselves, nothing else needs ordering; with
 * release semantics at cluster scope the CUBA step took 1.5 us instead of 1.0). */
NC_DEV void nc_red_async1(uint32_t *dst, int rank, uint64_t *bar)
{
    asm volatile("{\n\t.reg .b32 d, m;\n\t"
                 "mapa.shared::cluster.u32 d, %0, %1;\n\t"
                 "mapa.shared::cluster.u32 m, %2, %1;\n\t"
                 "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [d], 1, [m];\n\t}"
                 ::"r"(NC_SMEM(dst)), "r"(rank), "r"(NC_SMEM(bar)) : "memory");
}
NC_DEV void nc_arrive_remote(uint64_t *bar, int rank, uint32_t bytes)
{
    asm volatile("{\n\t.reg .b32 m;\n\t"
                 "mapa.shared::cluster.u32 m, %0, %1;\n\t"
                 "mbarrier.arrive.expect_tx.relaxed.cluster.shared::cluster.b64 _, [m], %2;\n\t}"
                 ::"r"(NC_SMEM(bar)), "r"(rank), "r"(bytes) : "memory");
}
#else   /* never called where the device has no clusters (nc_k_cluster, nc_k_push trap) */
NC_DEV void nc_mbar_init(uint64_t *bar, unsigned count) { (void)bar; (void)count; __trap(); }
NC_DEV void nc_mbar_expect(uint64_t *bar, unsigned bytes) { (void)bar; (void)bytes; __trap(); }
NC_DEV int nc_mbar_wait(uint64_t *bar, unsigned parity) { (void)bar; (void)parity; __trap(); return 0; }
NC_DEV void nc_st_async4(void *dst, int rank, uint4 v, uint64_t *bar)
{
    (void)dst; (void)rank; (void)v; (void)bar;
    __trap();
}
NC_DEV void nc_red_async1(uint32_t *dst, int rank, uint64_t *bar)
{
    (void)dst; (void)rank; (void)bar;
    __trap();
}
NC_DEV void nc_arrive_remote(uint64_t *bar, int rank, uint32_t bytes)
{
    (void)bar; (void)rank; (void)bytes;
    __trap();
}
#endif
#define NC_SHFL_SCAN 1
#define nc_shfl_up(x, o) __shfl_up_sync(0xffffffffu, (x), (o))
#else
#error "nrt_simt.h is device code: compile it as CUDA or OpenCL C"
#endif

#if defined(NC_SHFL_SCAN)
/* Exclusive prefix sum of v over the work-group (every work-item calls it) by warp shuffles:
 * each warp scans its 32 values, warp 0 scans the warps' sums. *total gets the sum. tmp: 32
 * ints of local memory at least. */
NC_DEV int nc_block_scan(int v, NC_LP int *tmp, int *total)
{
    const int l = NC_LID, lane = l & 31, warp = l >> 5, nw = (NC_LSIZE + 31) >> 5;
    int x = v;
    for (int o = 1; o < 32; o <<= 1) {
        const int y = nc_shfl_up(x, o);
        if (lane >= o)
            x += y;
    }
    if (lane == 31)
        tmp[warp] = x;
    NC_BARRIER();
    if (warp == 0) {
        int w = lane < nw ? tmp[lane] : 0;
        for (int o = 1; o < 32; o <<= 1) {
            const int y = nc_shfl_up(w, o);
            if (lane >= o)
                w += y;
        }
        if (lane < nw)
            tmp[lane] = w;
    }
    NC_BARRIER();
    *total = tmp[nw - 1];
    const int r = (warp ? tmp[warp - 1] : 0) + x - v;
    NC_BARRIER();
    return r;
}
#endif


/* Neurons [nc_part(size, r, nr), nc_part(size, r + 1, nr)) of a population of `size` are
 * work-group r's of nr (the cluster schedule; nr = 1: all): whole pieces of 128 neurons,
 * four 32-neuron spike words, so that each group's words start 16-byte aligned. */
NC_DEV int64_t nc_part(int64_t size, int64_t r, int64_t nr)
{
    const int64_t a = ((size + 127) >> 7) * r; /* a shift for the power-of-two nr of clusters */
    const int64_t x = 128 * ((nr & (nr - 1)) == 0 && nr < 0x80000000 ? a >> nc_ctz((uint32_t)nr) : a / nr);
    return x < size ? x : size;
}
#endif
