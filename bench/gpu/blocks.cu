/* blocks.cu -- the building blocks of a simulation step, measured on the present GPU.
 *
 * Build and run:  nvcc -O3 -arch=sm_90 -std=c++17 bench/gpu/blocks.cu -o blocks && ./blocks --json b.json
 * (bench/gpu/blocks.sh does exactly this.)  Every CUDA call is checked; a failed call prints
 * file:line and the error string and exits 1. A failed result check is reported, the remaining
 * measurements still run, the JSON records "ok": false, and the program exits 1.
 *
 * Method. Each measurement runs once untimed (warm-up), then REPEATS (9) times between two CUDA
 * events on one non-blocking stream; the table gives the median, min and max of the 9 values.
 * Per-iteration figures divide one timed region (one launch) by its iteration count (10^4 unless
 * stated): the launch's own few µs are left in, spread over about 1 ms or more of loop (< 1 %).
 *
 *  1. launch.back_to_back     10^4 empty-kernel launches (<<<1,1>>>) queued on one stream with no
 *                             synchronisation: µs per launch. This is the launch rate; whichever of
 *                             the host's submission and the GPU's dispatch is slower sets it.
 *  2. launch.sync_round_trip  2,000 x { empty-kernel launch; cudaStreamSynchronize }: µs per round
 *                             trip, i.e. what a step costs when the host waits for the GPU each step.
 *  3. graph.nodes_100/1000    a CUDA graph captured from 100 (or 1000) empty-kernel launches on a
 *                             stream (a chain of kernel nodes), replayed 100 (or 10) times back to
 *                             back: µs per kernel node, the graph launch overhead included.
 *  4. grid_sync.blocks_SM/2SM a cooperative kernel (cudaLaunchCooperativeKernel) whose blocks of 256
 *                             threads loop 10^4 times over cooperative_groups grid.sync(), with as
 *                             many blocks as SMs and twice that: µs per grid-wide barrier. A
 *                             separate untimed run checks the barrier (a global counter that every
 *                             block increments before each barrier must be complete after it).
 *  5a. block.sync_step        one block of 1024 threads, 10^4 steps, two __syncthreads per step
 *                             (thread 0 publishes the step number between them; all read it):
 *                             µs per step. The floor of a whole-network-in-one-block step.
 *  5b. block.lif4000_step     the same block doing real work each step: 4000 LIF neurons (about 4 per
 *                             thread, state in registers) v = fma(a, v, b_i), threshold 1, reset to
 *                             0; an ordered spike compaction (per warp __ballot_sync/__popc, a block
 *                             exclusive scan of the 4 x 32 warp counts by warp 0, each spiking
 *                             thread writes its index at its rank); the step's spike list goes to a
 *                             device ring buffer of 64 steps and its count to a per-step array:
 *                             µs per step. Checked exactly against a host simulation (same fmaf):
 *                             every step's count, the last 64 steps' spike lists, the final v.
 *                             block.lif4000_spikes reports the mean spikes per step of that run.
 *  6. cluster_sync.size_2/4/8 a thread-block cluster kernel (cudaLaunchKernelEx with a cluster
 *                             dimension; sm_90 only) looping 10^4 times over cg::this_cluster().sync(),
 *                             blocks of 256 threads, as many clusters as can be co-resident: µs per
 *                             cluster barrier (10^4 + 1 of them: one more before exit). An untimed
 *                             run checks it via distributed shared memory (each block reads its
 *                             neighbour's iteration number).
 *  6b. cluster_relaxed.size_C barrier.cluster.arrive.relaxed + barrier.cluster.wait (no memory
 *                             ordering), one cluster of C = 2, 4, 8, 16 blocks of 256: µs per barrier.
 *  6c. cluster_mbar.size_C    an all-to-all exchange per iteration: thread r of every block stores the
 *                             iteration into block r's shared memory (distributed shared memory) and
 *                             arrives there on a shared-memory mbarrier (release, cluster scope);
 *                             every thread waits on its own (acquire): µs per exchange. Checked: each
 *                             block sees every peer's value of the iteration.
 *  6d. cluster.lif4000_step_C 5b's 4000 LIF neurons, coupled (each spike adds -0.004 to 80 hashed
 *                             targets at the next step), split over one cluster of C blocks of 256:
 *                             per step the update, an ordered compaction, the spike list pushed into
 *                             every block's shared memory, the 6c exchange, each block's delivery to
 *                             its own targets (shared atomics of one value) and the record: µs per
 *                             step. Checked exactly against a host simulation (counts, last 64 steps'
 *                             lists, final v).
 *  7. atomic.f32_16KiB/400KiB/20MiB  2^28 float atomicAdd(+1) (result unused, i.e. RED) to addresses
 *                             h(i) * n >> 32 with h a cheap integer hash, into a buffer of 4,096 /
 *                             102,400 / 5,242,880 floats (all inside the L2 cache of an H100/H200):
 *                             G atomics per second. Checked: the buffer sums to exactly 2^28.
 *  8. philox.draws            nrt_philox4x32_10 from runtime/include/nrt_philox.h (through nrt_rng,
 *                             the project's keying), every thread 4,096 calls with its own counters,
 *                             the four words of each call summed into a per-thread result that is
 *                             stored: 32-bit draws (4 per call) per second, in T/s. Checked: three
 *                             threads' sums equal the same header's host computation.
 *  9. memory.d2d_memcpy       cudaMemcpyAsync device to device of 512 MiB: GB/s counting bytes read
 *                             plus bytes written (2 x 512 MiB per copy).
 *     memory.d2d_kernel       the same copy by a grid-stride kernel with 16-byte loads and stores.
 *                             Both checked: the destination is poisoned before each copy and must
 *                             equal the source pattern afterwards.
 * Expected total run time on an H100, by arithmetic: a few seconds (context creation and the host
 * reference included); each timed region is at most tens of milliseconds.
 */
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../../runtime/include/nrt_philox.h"

namespace cg = cooperative_groups;

#define CK(call)                                                                              \
    do {                                                                                      \
        cudaError_t ck_err_ = (call);                                                         \
        if (ck_err_ != cudaSuccess) {                                                         \
            fprintf(stderr, "%s:%d: CUDA error: %s (%s) in %s\n", __FILE__, __LINE__,         \
                    cudaGetErrorString(ck_err_), cudaGetErrorName(ck_err_), #call);           \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)
/* After a launch (or a loop of launches): a bad configuration shows here, a fault at the next sync. */
#define CK_LAUNCH() CK(cudaGetLastError())

static const int REPEATS = 9;     /* timed repeats per measurement (median of 9) */
static const int ITERS = 10000;   /* loop length of the per-iteration measurements */

/* ---------------------------------------------------------------- results */

struct Row {
    std::string name, unit, note;
    double med, min, max;
    int n;
};
static std::vector<Row> g_rows;
static bool g_ok = true;

static void fail(const char *what)
{
    fprintf(stderr, "CHECK FAILED: %s\n", what);
    g_ok = false;
}

/* Add a row from the per-repeat values (already converted to the row's unit). */
static void add_row(const std::string &name, const std::string &unit, std::vector<double> v,
                    const std::string &note)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    double med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    g_rows.push_back(Row{name, unit, note, med, v.front(), v.back(), (int)n});
    printf("  %-28s %12.4g %s  (min %.4g, max %.4g)\n", name.c_str(), med, unit.c_str(), v.front(),
           v.back());
    fflush(stdout);
}

/* ---------------------------------------------------------------- timing */

static cudaStream_t g_s;
static cudaEvent_t g_e0, g_e1;

/* Run body() once to warm up, then REPEATS times between two events; before each repeat (outside
 * the timed region) run setup(). Returns the elapsed milliseconds of each repeat. */
template <class Setup, class Body>
static std::vector<double> time_ms(Setup setup, Body body)
{
    setup();
    body();
    CK_LAUNCH();
    CK(cudaStreamSynchronize(g_s));
    std::vector<double> out;
    for (int r = 0; r < REPEATS; r++) {
        setup();
        CK(cudaEventRecord(g_e0, g_s));
        body();
        CK(cudaEventRecord(g_e1, g_s));
        CK_LAUNCH();
        CK(cudaEventSynchronize(g_e1));
        float ms = 0.f;
        CK(cudaEventElapsedTime(&ms, g_e0, g_e1));
        out.push_back(ms);
    }
    return out;
}
template <class Body> static std::vector<double> time_ms(Body body)
{
    return time_ms([] {}, body);
}

/* ms per repeat -> µs per item, or -> items per second scaled by 1/scale. */
static std::vector<double> us_per(const std::vector<double> &ms, double items)
{
    std::vector<double> v;
    for (double m : ms) v.push_back(m * 1e3 / items);
    return v;
}
static std::vector<double> rate(const std::vector<double> &ms, double items, double scale)
{
    std::vector<double> v;
    for (double m : ms) v.push_back(items / (m * 1e-3) / scale);
    return v;
}

/* ---------------------------------------------------------------- kernels */

__global__ void k_empty() {}

/* 4. Grid-wide barrier; with check != 0 every block counts itself in before each barrier and
 * verifies after it that all blocks of this iteration (and at most those of the next) are in. */
__global__ void k_grid_sync(int iters, int check, unsigned *counter, int *err)
{
    cg::grid_group g = cg::this_grid();
    unsigned nb = gridDim.x;
    for (int i = 0; i < iters; i++) {
        if (check && threadIdx.x == 0) atomicAdd(counter, 1u);
        g.sync();
        if (check && threadIdx.x == 0) {
            unsigned c = atomicAdd(counter, 0u);
            if (c < (unsigned)(i + 1) * nb || c > (unsigned)(i + 2) * nb) atomicAdd(err, 1);
        }
    }
}

/* 5a. One block, two barriers per step; thread 0 publishes the step between them. */
__global__ void __launch_bounds__(1024) k_block_sync(int steps, long long *out)
{
    __shared__ int s_step;
    long long acc = 0;
    for (int i = 0; i < steps; i++) {
        __syncthreads();
        if (threadIdx.x == 0) s_step = i;
        __syncthreads();
        acc += s_step;
    }
    if (threadIdx.x == blockDim.x - 1) *out = acc;
}

/* 5b. One block of 1024 threads simulating LIF_N neurons; thread t owns neurons k*1024 + t. */
#define LIF_N 4000
#define LIF_T 1024
#define LIF_TILES ((LIF_N + LIF_T - 1) / LIF_T) /* 4 */
#define LIF_RING 64                             /* steps of spike lists kept on the device */
static_assert(LIF_TILES * 32 == 4 * 32, "the block scan below gives each lane of warp 0 four warp counts");

__global__ void __launch_bounds__(LIF_T)
    k_block_lif(int steps, float a, const float *v0, const float *bvec, float *vout, int *counts,
                int *ring)
{
    /* per step parity: the 4 x 32 warp spike counts, scanned in place into exclusive offsets,
     * then the step's total at [LIF_TILES * 32]. Two buffers so that two barriers per step do. */
    __shared__ int off[2][LIF_TILES * 32 + 1];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const unsigned lt = (1u << lane) - 1u; /* lanes below this one */
    float v[LIF_TILES], b[LIF_TILES];
#pragma unroll
    for (int t = 0; t < LIF_TILES; t++) {
        int n = t * LIF_T + tid;
        v[t] = n < LIF_N ? v0[n] : 0.f;
        b[t] = n < LIF_N ? bvec[n] : 0.f;
    }
    for (int step = 0; step < steps; step++) {
        const int p = step & 1;
        unsigned mask[LIF_TILES];
#pragma unroll
        for (int t = 0; t < LIF_TILES; t++) {
            bool spk = false;
            if (t * LIF_T + tid < LIF_N) {
                v[t] = fmaf(a, v[t], b[t]);
                if (v[t] >= 1.0f) {
                    v[t] = 0.0f;
                    spk = true;
                }
            }
            mask[t] = __ballot_sync(0xffffffffu, spk);
            if (lane == 0) off[p][t * 32 + warp] = __popc(mask[t]);
        }
        __syncthreads();
        if (warp == 0) { /* exclusive scan of 128 counts in (tile, warp) order: 4 per lane */
            int c[4], sum = 0;
#pragma unroll
            for (int k = 0; k < 4; k++) sum += (c[k] = off[p][lane * 4 + k]);
            int inc = sum;
#pragma unroll
            for (int d = 1; d < 32; d <<= 1) {
                int y = __shfl_up_sync(0xffffffffu, inc, d);
                if (lane >= d) inc += y;
            }
            int run = inc - sum;
#pragma unroll
            for (int k = 0; k < 4; k++) {
                off[p][lane * 4 + k] = run;
                run += c[k];
            }
            if (lane == 31) off[p][LIF_TILES * 32] = inc;
        }
        __syncthreads();
        int *out = ring + (step % LIF_RING) * LIF_N;
#pragma unroll
        for (int t = 0; t < LIF_TILES; t++)
            if (mask[t] >> lane & 1u) out[off[p][t * 32 + warp] + __popc(mask[t] & lt)] = t * LIF_T + tid;
        if (tid == 0) counts[step] = off[p][LIF_TILES * 32];
    }
#pragma unroll
    for (int t = 0; t < LIF_TILES; t++)
        if (t * LIF_T + tid < LIF_N) vout[t * LIF_T + tid] = v[t];
}

/* 6. Cluster-wide barrier; with check != 0 each block's thread 0 writes the iteration number to
 * its shared memory before the barrier and reads its neighbour's after it (distributed shared
 * memory). Two slots by parity: slot i&1 is rewritten only after barrier i+1. */
__global__ void k_cluster_sync(int iters, int check, int *err)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __shared__ int slot[2];
    cg::cluster_group cl = cg::this_cluster();
    unsigned rank = cl.block_rank(), nb = cl.num_blocks();
    for (int i = 0; i < iters; i++) {
        if (check && threadIdx.x == 0) slot[i & 1] = i;
        cl.sync();
        if (check && threadIdx.x == 0) {
            int *peer = cl.map_shared_rank(slot, (int)((rank + 1) % nb));
            if (peer[i & 1] != i) atomicAdd(err, 1);
        }
    }
    cl.sync(); /* no block leaves while a neighbour may still read its shared memory */
#else
    (void)iters;
    (void)check;
    if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(err, 1); /* built without sm_90: fails the check */
#endif
}

/* 7. A cheap integer hash (lowbias32). */
__host__ __device__ static inline uint32_t hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/* 6b/6c/6d. The pieces of a cluster step (sm_90). Shared-memory mbarriers: a block's thread r
 * arrives, with release semantics at cluster scope, on peer r's mbarrier of the step's parity
 * (two mbarriers, so that a block one step ahead never counts into the phase its peer still
 * waits for); every thread then waits with acquire semantics on its own mbarrier. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ static inline unsigned smem_u32(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}
__device__ static inline void mbar_init(uint64_t *bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count) : "memory");
}
__device__ static inline void mbar_init_fence()
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ static inline void mbar_arrive_remote(uint64_t *bar, unsigned rank)
{
    asm volatile("{\n\t.reg .b32 ra;\n\t"
                 "mapa.shared::cluster.u32 ra, %0, %1;\n\t"
                 "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [ra];\n\t}" ::"r"(smem_u32(bar)),
                 "r"(rank)
                 : "memory");
}
__device__ static inline void mbar_wait(uint64_t *bar, unsigned parity)
{
    asm volatile("{\n\t.reg .pred P1;\n"
                 "WAIT_%=:\n\t"
                 "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 P1, [%0], %1;\n\t"
                 "@!P1 bra WAIT_%=;\n\t}" ::"r"(smem_u32(bar)),
                 "r"(parity)
                 : "memory");
}
#endif

/* 6b. barrier.cluster.arrive.relaxed + barrier.cluster.wait: the cluster barrier without the
 * release/acquire fences of cluster.sync(). */
__global__ void k_cluster_relaxed(int iters)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    for (int i = 0; i < iters; i++) {
        asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
        asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
    }
    cg::this_cluster().sync();
#else
    (void)iters;
#endif
}

/* 6c. An all-to-all exchange per iteration: thread r of each block writes the iteration number
 * into peer r's shared slot (distributed shared memory) and arrives on peer r's mbarrier; all
 * threads wait on their own. With check, every block verifies every peer's slot. */
__global__ void k_cluster_mbar(int iters, int check, int *err)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __shared__ __align__(8) uint64_t bar[2];
    __shared__ int slot[2][16];
    cg::cluster_group cl = cg::this_cluster();
    const unsigned rank = cl.block_rank(), nb = cl.num_blocks();
    if (threadIdx.x == 0) {
        mbar_init(&bar[0], nb);
        mbar_init(&bar[1], nb);
        mbar_init_fence();
    }
    cl.sync();
    for (int i = 0; i < iters; i++) {
        const int p = i & 1;
        if (threadIdx.x < nb) {
            if (check) *cl.map_shared_rank(&slot[p][rank], threadIdx.x) = i;
            mbar_arrive_remote(&bar[p], threadIdx.x);
        }
        mbar_wait(&bar[p], (unsigned)(i >> 1) & 1u);
        if (check && threadIdx.x < nb && slot[p][threadIdx.x] != i) atomicAdd(err, 1);
    }
    cl.sync();
#else
    (void)iters;
    (void)check;
    if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(err, 1);
#endif
}

/* 6d. 4000 LIF neurons (5b's, the same a, v0 and b) split over one cluster of CL_N blocks of
 * CL_T threads, contiguous ranges, coupled: each spike of step s adds CL_W to the input of its
 * CL_K targets (hash of neuron and k, mod 4000) at step s + 1. Per step and block: the update
 * of its neurons (input from a shared-memory ring of 2 slots), an ordered compaction of its
 * spikes (ballots + one warp scan), the spike list and count pushed into every peer's shared
 * memory (parity buffers), the mbarrier exchange of 6c, then the delivery of all the step's
 * spikes to its own targets (shared atomics: every add is CL_W, so the order does not change
 * the sums) and the spike record (rank order = neuron order). */
#define CL_K 80
#define CL_W (-0.004f)
#define CL_T 256
__host__ __device__ static inline int cl_target(int n, int k)
{
    return (int)(hash32(((uint32_t)n << 7) ^ (uint32_t)k) % LIF_N);
}
template <int NPT>
__global__ void __launch_bounds__(CL_T) k_cluster_lif(int steps, float a, const float *v0, const float *bvec,
                                                     float *vout, int *counts, int *ring, int *err)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __shared__ __align__(8) uint64_t bar[2];
    __shared__ int cnt[2][16];
    __shared__ int lst[2][LIF_N]; /* lst[p][lo_r + i]: spike i of block r (at most its own count) */
    __shared__ float in[2][LIF_N / 2];
    __shared__ int off[NPT * (CL_T / 32) + 1];
    cg::cluster_group cl = cg::this_cluster();
    const int rank = (int)cl.block_rank(), nb = (int)cl.num_blocks();
    const int lo = rank * LIF_N / nb, hi = (rank + 1) * LIF_N / nb, own = hi - lo;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const unsigned lt = (1u << lane) - 1u;
    float v[NPT], b[NPT];
#pragma unroll
    for (int t = 0; t < NPT; t++) {
        const int i = t * CL_T + tid;
        v[t] = i < own ? v0[lo + i] : 0.f;
        b[t] = i < own ? bvec[lo + i] : 0.f;
    }
    for (int i = tid; i < own; i += CL_T) in[0][i] = in[1][i] = 0.f;
    if (tid == 0) {
        mbar_init(&bar[0], nb);
        mbar_init(&bar[1], nb);
        mbar_init_fence();
    }
    cl.sync();
    for (int step = 0; step < steps; step++) {
        const int p = step & 1;
        unsigned mask[NPT];
#pragma unroll
        for (int t = 0; t < NPT; t++) {
            const int i = t * CL_T + tid;
            bool spk = false;
            if (i < own) {
                v[t] = fmaf(a, v[t], b[t]) + in[p][i];
                in[p][i] = 0.f;
                if (v[t] >= 1.0f) {
                    v[t] = 0.0f;
                    spk = true;
                }
            }
            mask[t] = __ballot_sync(0xffffffffu, spk);
            if (lane == 0) off[t * (CL_T / 32) + warp] = __popc(mask[t]);
        }
        __syncthreads();
        if (warp == 0) { /* exclusive scan of NPT * 8 <= 64 warp counts, two per lane */
            const int n = NPT * (CL_T / 32);
            int c0 = 2 * lane < n ? off[2 * lane] : 0, c1 = 2 * lane + 1 < n ? off[2 * lane + 1] : 0;
            int inc = c0 + c1;
#pragma unroll
            for (int d = 1; d < 32; d <<= 1) {
                int y = __shfl_up_sync(0xffffffffu, inc, d);
                if (lane >= d) inc += y;
            }
            if (2 * lane < n) off[2 * lane] = inc - c0 - c1;
            if (2 * lane + 1 < n) off[2 * lane + 1] = inc - c1;
            if (lane == 31) off[n] = inc;
        }
        __syncthreads();
        const int total = off[NPT * (CL_T / 32)];
        /* push: each spike to every peer (lanes spread over peers), then the count */
#pragma unroll
        for (int t = 0; t < NPT; t++)
            if (mask[t] >> lane & 1u) {
                const int at = off[t * (CL_T / 32) + warp] + __popc(mask[t] & lt), n = lo + t * CL_T + tid;
                for (int r = 0; r < nb; r++) *cl.map_shared_rank(&lst[p][lo + at], r) = n;
            }
        if (tid < nb) *cl.map_shared_rank(&cnt[p][rank], tid) = total;
        __syncthreads();
        if (tid < nb) mbar_arrive_remote(&bar[p], tid);
        mbar_wait(&bar[p], (unsigned)(step >> 1) & 1u);
        /* deliver every spike of the step to this block's targets; record this block's spikes */
        int base = 0, all = 0;
        for (int r = 0; r < nb; r++) {
            const int c = cnt[p][r];
            base += r < rank ? c : 0;
            all += c;
        }
        for (int q = tid; q < all * CL_K; q += CL_T) {
            int s = q / CL_K, r = 0;
            while (s >= cnt[p][r]) s -= cnt[p][r++];
            const int tgt = cl_target(lst[p][r * LIF_N / nb + s], q % CL_K);
            if (tgt >= lo && tgt < hi) atomicAdd(&in[p ^ 1][tgt - lo], CL_W);
        }
        int *out = ring + (step % LIF_RING) * LIF_N + base;
        for (int s = tid; s < total; s += CL_T) out[s] = lst[p][lo + s];
        if (rank == 0 && tid == 0) counts[step] = all;
        __syncthreads();
    }
#pragma unroll
    for (int t = 0; t < NPT; t++)
        if (t * CL_T + tid < own) vout[lo + t * CL_T + tid] = v[t];
    cl.sync();
#else
    (void)steps;
    (void)a;
    (void)v0;
    (void)bvec;
    (void)vout;
    (void)counts;
    (void)ring;
    if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(err, 1);
#endif
}

__global__ void k_atomic(float *buf, uint32_t n, uint32_t total)
{
    uint32_t stride = gridDim.x * blockDim.x;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
        uint32_t idx = (uint32_t)(((uint64_t)hash32(i) * n) >> 32);
        atomicAdd(&buf[idx], 1.0f);
    }
}

/* 8. Philox: each thread draws `calls` times from its own counters and stores the sum. */
#define PHILOX_STREAM ((NRT_STREAM_NEURON_STEP << 24) | 5u)
__host__ __device__ static inline uint32_t philox_thread(uint32_t key, uint32_t gid, int calls)
{
    uint32_t acc = 0;
    for (int j = 0; j < calls; j++) {
        nrt_u32x4 r = nrt_rng(key, PHILOX_STREAM, gid, (uint32_t)j, 17u, 3u);
        acc += r.v[0] + r.v[1] + r.v[2] + r.v[3];
    }
    return acc;
}
__global__ void k_philox(uint32_t key, int calls, uint32_t *out)
{
    uint32_t gid = blockIdx.x * blockDim.x + threadIdx.x;
    out[gid] = philox_thread(key, gid, calls);
}

/* 9. Copy and its checks. */
__global__ void k_fill(uint32_t *p, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = hash32((uint32_t)i) | 1u;
}
__global__ void k_copy4(const uint4 *__restrict__ src, uint4 *__restrict__ dst, size_t n4)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x)
        dst[i] = src[i];
}
__global__ void k_verify(const uint32_t *p, size_t n, unsigned long long *bad)
{
    unsigned long long b = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        b += p[i] != (hash32((uint32_t)i) | 1u);
    if (b) atomicAdd(bad, b);
}

/* ---------------------------------------------------------------- measurements */

static void bench_launch()
{
    const int N = ITERS;
    auto ms = time_ms([&] {
        for (int i = 0; i < N; i++) k_empty<<<1, 1, 0, g_s>>>();
    });
    add_row("launch.back_to_back", "us", us_per(ms, N), "empty kernel <<<1,1>>>, 10^4 launches on one stream, per launch");

    const int M = 2000;
    ms = time_ms([&] {
        for (int i = 0; i < M; i++) {
            k_empty<<<1, 1, 0, g_s>>>();
            CK(cudaStreamSynchronize(g_s));
        }
    });
    add_row("launch.sync_round_trip", "us", us_per(ms, M), "empty kernel + cudaStreamSynchronize, per round trip");
}

static void bench_graph(int nodes, int replays)
{
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CK(cudaStreamBeginCapture(g_s, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < nodes; i++) k_empty<<<1, 1, 0, g_s>>>();
    CK_LAUNCH();
    CK(cudaStreamEndCapture(g_s, &graph));
    size_t count = 0;
    CK(cudaGraphGetNodes(graph, nullptr, &count));
    if ((int)count != nodes) fail("graph: captured node count");
    CK(cudaGraphInstantiate(&exec, graph, 0));
    CK(cudaGraphUpload(exec, g_s));
    auto ms = time_ms([&] {
        for (int r = 0; r < replays; r++) CK(cudaGraphLaunch(exec, g_s));
    });
    char name[64], note[128];
    snprintf(name, sizeof name, "graph.nodes_%d", nodes);
    snprintf(note, sizeof note, "graph of %d empty-kernel nodes replayed %d times, per node", nodes, replays);
    add_row(name, "us", us_per(ms, (double)nodes * replays), note);
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(graph));
}

static void bench_grid_sync(int sms)
{
    int coop = 0, per_sm = 0;
    CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_grid_sync, 256, 0));
    if (!coop || per_sm < 2) {
        fail("grid_sync: cooperative launch unsupported or < 2 blocks of 256 per SM");
        return;
    }
    unsigned *counter;
    int *err;
    CK(cudaMalloc(&counter, sizeof *counter));
    CK(cudaMalloc(&err, sizeof *err));
    for (int mult = 1; mult <= 2; mult++) {
        int blocks = sms * mult, iters = ITERS;
        /* check run */
        int check = 1, herr = 0;
        unsigned hcount = 0;
        CK(cudaMemsetAsync(counter, 0, sizeof *counter, g_s));
        CK(cudaMemsetAsync(err, 0, sizeof *err, g_s));
        void *cargs[] = {&iters, &check, &counter, &err};
        CK(cudaLaunchCooperativeKernel((void *)k_grid_sync, blocks, 256, cargs, 0, g_s));
        CK(cudaStreamSynchronize(g_s));
        CK(cudaMemcpy(&herr, err, sizeof herr, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&hcount, counter, sizeof hcount, cudaMemcpyDeviceToHost));
        if (herr || hcount != (unsigned)iters * blocks) fail("grid_sync: barrier check");
        /* timed runs */
        check = 0;
        void *args[] = {&iters, &check, &counter, &err};
        auto ms = time_ms([&] {
            CK(cudaLaunchCooperativeKernel((void *)k_grid_sync, blocks, 256, args, 0, g_s));
        });
        char name[64], note[128];
        snprintf(name, sizeof name, "grid_sync.blocks_%s", mult == 1 ? "SM" : "2SM");
        snprintf(note, sizeof note, "cooperative grid.sync, %d blocks x 256 threads, 10^4 barriers, per barrier", blocks);
        add_row(name, "us", us_per(ms, iters), note);
    }
    CK(cudaFree(counter));
    CK(cudaFree(err));
}

static void bench_block()
{
    long long *out, hout = 0;
    CK(cudaMalloc(&out, sizeof *out));
    int steps = ITERS;
    auto ms = time_ms([&] { k_block_sync<<<1, 1024, 0, g_s>>>(steps, out); });
    CK(cudaMemcpy(&hout, out, sizeof hout, cudaMemcpyDeviceToHost));
    if (hout != (long long)steps * (steps - 1) / 2) fail("block.sync_step: result");
    add_row("block.sync_step", "us", us_per(ms, steps), "1 block x 1024 threads, 2 __syncthreads per step, 10^4 steps, per step");
    CK(cudaFree(out));

    /* LIF: inputs on the host, so that the host reference uses the very same floats. */
    const float a = expf(-0.1f / 20.0f); /* dt 0.1 ms, tau 20 ms */
    std::vector<float> v0(LIF_N), bv(LIF_N);
    for (int n = 0; n < LIF_N; n++) {
        v0[n] = (float)(hash32(2u * n + 1u) >> 8) * (1.0f / 16777216.0f);           /* [0, 1) */
        float drive = 0.5f + 1.5f * (float)(hash32(2u * n + 2u) >> 8) / 16777216.0f; /* [0.5, 2) */
        bv[n] = (1.0f - a) * drive; /* v -> drive: neurons with drive > 1 fire periodically */
    }
    float *d_v0, *d_b, *d_vout;
    int *d_counts, *d_ring;
    CK(cudaMalloc(&d_v0, LIF_N * sizeof(float)));
    CK(cudaMalloc(&d_b, LIF_N * sizeof(float)));
    CK(cudaMalloc(&d_vout, LIF_N * sizeof(float)));
    CK(cudaMalloc(&d_counts, steps * sizeof(int)));
    CK(cudaMalloc(&d_ring, LIF_RING * LIF_N * sizeof(int)));
    CK(cudaMemcpy(d_v0, v0.data(), LIF_N * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_b, bv.data(), LIF_N * sizeof(float), cudaMemcpyHostToDevice));
    auto poison = [&] {
        CK(cudaMemsetAsync(d_counts, 0xff, steps * sizeof(int), g_s));
        CK(cudaMemsetAsync(d_ring, 0xff, LIF_RING * LIF_N * sizeof(int), g_s));
        CK(cudaMemsetAsync(d_vout, 0xff, LIF_N * sizeof(float), g_s));
    };
    ms = time_ms(poison, [&] { k_block_lif<<<1, LIF_T, 0, g_s>>>(steps, a, d_v0, d_b, d_vout, d_counts, d_ring); });

    /* Host reference: the same updates in neuron order, so the spike lists come out ordered. */
    std::vector<int> counts(steps), ring(LIF_RING * LIF_N), hc(steps), hr(LIF_RING * LIF_N);
    std::vector<float> vout(LIF_N), v = v0;
    CK(cudaMemcpy(hc.data(), d_counts, steps * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hr.data(), d_ring, ring.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(vout.data(), d_vout, LIF_N * sizeof(float), cudaMemcpyDeviceToHost));
    long long total = 0;
    for (int s = 0; s < steps; s++) {
        int c = 0, *out = &ring[(s % LIF_RING) * LIF_N];
        for (int n = 0; n < LIF_N; n++) {
            v[n] = fmaf(a, v[n], bv[n]);
            if (v[n] >= 1.0f) {
                v[n] = 0.0f;
                out[c++] = n;
            }
        }
        counts[s] = c;
        total += c;
    }
    bool ok = counts == hc && memcmp(v.data(), vout.data(), LIF_N * sizeof(float)) == 0;
    for (int s = steps - LIF_RING; ok && s < steps; s++)
        ok = memcmp(&ring[(s % LIF_RING) * LIF_N], &hr[(s % LIF_RING) * LIF_N], counts[s] * sizeof(int)) == 0;
    if (!ok) fail("block.lif4000_step: spike counts, lists or v differ from the host reference");
    if (total == 0) fail("block.lif4000_step: no spikes");
    add_row("block.lif4000_step", "us", us_per(ms, steps),
            "1 block x 1024 threads, 4000 LIF + ordered spike compaction + record, 10^4 steps, per step");
    add_row("block.lif4000_spikes", "spikes/step", std::vector<double>(1, (double)total / steps),
            "mean spikes per step in block.lif4000_step (host reference, matched exactly)");
    CK(cudaFree(d_v0));
    CK(cudaFree(d_b));
    CK(cudaFree(d_vout));
    CK(cudaFree(d_counts));
    CK(cudaFree(d_ring));
}

static void bench_cluster(int major)
{
    if (major < 9) {
        printf("  cluster_sync: skipped (needs compute capability 9.0)\n");
        return;
    }
    int *err;
    CK(cudaMalloc(&err, sizeof *err));
    for (int cs = 2; cs <= 8; cs *= 2) {
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = cs;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(cs);
        cfg.blockDim = dim3(256);
        cfg.dynamicSmemBytes = 0;
        cfg.stream = g_s;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        int nclusters = 0;
        CK(cudaOccupancyMaxActiveClusters(&nclusters, (void *)k_cluster_sync, &cfg));
        if (nclusters < 1) {
            fail("cluster_sync: no cluster of this size fits");
            continue;
        }
        cfg.gridDim = dim3(cs * nclusters);
        int iters = ITERS, herr = 0;
        CK(cudaMemsetAsync(err, 0, sizeof *err, g_s));
        CK(cudaLaunchKernelEx(&cfg, k_cluster_sync, iters, 1, err));
        CK(cudaStreamSynchronize(g_s));
        CK(cudaMemcpy(&herr, err, sizeof herr, cudaMemcpyDeviceToHost));
        if (herr) fail("cluster_sync: distributed shared memory check");
        auto ms = time_ms([&] { CK(cudaLaunchKernelEx(&cfg, k_cluster_sync, iters, 0, err)); });
        char name[64], note[160];
        snprintf(name, sizeof name, "cluster_sync.size_%d", cs);
        snprintf(note, sizeof note, "cluster.sync, clusters of %d blocks x 256 threads, %d clusters, 10^4 barriers, per barrier",
                 cs, nclusters);
        add_row(name, "us", us_per(ms, iters + 1), note);
    }
    CK(cudaFree(err));
}

/* A cluster launch configuration: `blocks` blocks of `threads` in clusters of cs. */
struct ClusterCfg {
    cudaLaunchAttribute attr[1];
    cudaLaunchConfig_t cfg;
    ClusterCfg(int cs, int blocks, int threads)
    {
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = cs;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg = {};
        cfg.gridDim = dim3(blocks);
        cfg.blockDim = dim3(threads);
        cfg.stream = g_s;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
    }
};

template <int NPT>
static void cluster_lif_run(int cs, int steps, float a, const std::vector<float> &v0, const std::vector<float> &bv)
{
    auto k = k_cluster_lif<NPT>;
    if (cs > 8) CK(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    float *d_v0, *d_b, *d_vout;
    int *d_counts, *d_ring, *err;
    CK(cudaMalloc(&d_v0, LIF_N * sizeof(float)));
    CK(cudaMalloc(&d_b, LIF_N * sizeof(float)));
    CK(cudaMalloc(&d_vout, LIF_N * sizeof(float)));
    CK(cudaMalloc(&d_counts, steps * sizeof(int)));
    CK(cudaMalloc(&d_ring, LIF_RING * LIF_N * sizeof(int)));
    CK(cudaMalloc(&err, sizeof(int)));
    CK(cudaMemset(err, 0, sizeof(int)));
    CK(cudaMemcpy(d_v0, v0.data(), LIF_N * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_b, bv.data(), LIF_N * sizeof(float), cudaMemcpyHostToDevice));
    ClusterCfg c(cs, cs, CL_T);
    auto ms = time_ms([&] { CK(cudaLaunchKernelEx(&c.cfg, k, steps, a, d_v0, d_b, d_vout, d_counts, d_ring, err)); });
    std::vector<int> hc(steps), hr(LIF_RING * LIF_N), counts(steps), ring(LIF_RING * LIF_N);
    std::vector<float> vout(LIF_N), v = v0, in(LIF_N, 0.f), next(LIF_N, 0.f);
    int herr = 0;
    CK(cudaMemcpy(hc.data(), d_counts, steps * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hr.data(), d_ring, hr.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(vout.data(), d_vout, LIF_N * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&herr, err, sizeof herr, cudaMemcpyDeviceToHost));
    long long total = 0;
    for (int s = 0; s < steps; s++) {
        int cnt = 0, *out = &ring[(s % LIF_RING) * LIF_N];
        for (int n = 0; n < LIF_N; n++) {
            v[n] = fmaf(a, v[n], bv[n]) + in[n];
            if (v[n] >= 1.0f) {
                v[n] = 0.0f;
                out[cnt++] = n;
            }
        }
        std::fill(next.begin(), next.end(), 0.f);
        for (int i = 0; i < cnt; i++)
            for (int q = 0; q < CL_K; q++) next[cl_target(out[i], q)] += CL_W;
        std::swap(in, next);
        counts[s] = cnt;
        total += cnt;
    }
    bool ok = !herr && counts == hc && memcmp(v.data(), vout.data(), LIF_N * sizeof(float)) == 0;
    for (int s = steps - LIF_RING; ok && s < steps; s++)
        ok = memcmp(&ring[(s % LIF_RING) * LIF_N], &hr[(s % LIF_RING) * LIF_N], counts[s] * sizeof(int)) == 0;
    char name[64], note[200];
    snprintf(name, sizeof name, "cluster.lif4000_step_%d", cs);
    if (!ok) fail(name);
    snprintf(note, sizeof note, "one cluster of %d blocks x %d threads: 4000 coupled LIF (%d targets per spike), "
             "compaction, DSMEM spike exchange, mbarrier, delivery, record; %.2f spikes/step; per step",
             cs, CL_T, CL_K, (double)total / steps);
    add_row(name, "us", us_per(ms, steps), note);
    CK(cudaFree(d_v0));
    CK(cudaFree(d_b));
    CK(cudaFree(d_vout));
    CK(cudaFree(d_counts));
    CK(cudaFree(d_ring));
    CK(cudaFree(err));
}

/* 6b-6d: the relaxed cluster barrier, the mbarrier exchange, the cluster LIF step. */
static void bench_cluster_step(int major)
{
    if (major < 9) {
        printf("  cluster exchange: skipped (needs compute capability 9.0)\n");
        return;
    }
    CK(cudaFuncSetAttribute(k_cluster_relaxed, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    CK(cudaFuncSetAttribute(k_cluster_mbar, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    int *err;
    CK(cudaMalloc(&err, sizeof *err));
    const int iters = ITERS;
    for (int cs = 2; cs <= 16; cs *= 2) {
        ClusterCfg c(cs, cs, 256);
        char name[64], note[200];
        auto ms = time_ms([&] { CK(cudaLaunchKernelEx(&c.cfg, k_cluster_relaxed, iters)); });
        snprintf(name, sizeof name, "cluster_relaxed.size_%d", cs);
        snprintf(note, sizeof note, "barrier.cluster.arrive.relaxed + wait, one cluster of %d x 256, per barrier", cs);
        add_row(name, "us", us_per(ms, iters + 1), note);
        int herr = 0;
        CK(cudaMemset(err, 0, sizeof *err));
        CK(cudaLaunchKernelEx(&c.cfg, k_cluster_mbar, iters, 1, err));
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(&herr, err, sizeof herr, cudaMemcpyDeviceToHost));
        snprintf(name, sizeof name, "cluster_mbar.size_%d", cs);
        if (herr) fail(name);
        ms = time_ms([&] { CK(cudaLaunchKernelEx(&c.cfg, k_cluster_mbar, iters, 0, err)); });
        snprintf(note, sizeof note, "all-to-all DSMEM push + remote mbarrier arrive + wait, one cluster of %d x 256, per exchange", cs);
        add_row(name, "us", us_per(ms, iters + 1), note);
    }
    CK(cudaFree(err));
    const float a = expf(-0.1f / 20.0f);
    std::vector<float> v0(LIF_N), bv(LIF_N);
    for (int n = 0; n < LIF_N; n++) {
        v0[n] = (float)(hash32(2u * n + 1u) >> 8) * (1.0f / 16777216.0f);
        float drive = 0.5f + 1.5f * (float)(hash32(2u * n + 2u) >> 8) / 16777216.0f;
        bv[n] = (1.0f - a) * drive;
    }
    cluster_lif_run<8>(2, iters, a, v0, bv);
    cluster_lif_run<4>(4, iters, a, v0, bv);
    cluster_lif_run<2>(8, iters, a, v0, bv);
    cluster_lif_run<1>(16, iters, a, v0, bv);
}

static void bench_atomic(int sms)
{
    const uint32_t total = 1u << 28;
    const struct {
        const char *name;
        uint32_t n;
    } sizes[] = {{"atomic.f32_16KiB", 16u << 8}, {"atomic.f32_400KiB", 400u << 8}, {"atomic.f32_20MiB", 20u << 18}};
    for (const auto &sz : sizes) {
        float *buf;
        CK(cudaMalloc(&buf, sz.n * sizeof(float)));
        auto ms = time_ms([&] { CK(cudaMemsetAsync(buf, 0, sz.n * sizeof(float), g_s)); },
                          [&] { k_atomic<<<sms * 8, 256, 0, g_s>>>(buf, sz.n, total); });
        std::vector<float> h(sz.n);
        CK(cudaMemcpy(h.data(), buf, sz.n * sizeof(float), cudaMemcpyDeviceToHost));
        double sum = 0;
        for (float x : h) sum += x; /* every element is a small integer: exact */
        if (sum != (double)total) fail(sz.name);
        char note[128];
        snprintf(note, sizeof note, "2^28 atomicAdd(+1.0f) to hashed addresses in %u floats", sz.n);
        add_row(sz.name, "G/s", rate(ms, total, 1e9), note);
        CK(cudaFree(buf));
    }
}

static void bench_philox(int sms)
{
    const int blocks = sms * 8, threads = 256, calls = 4096;
    const uint32_t key = nrt_seed_key(0x123456789abcdefull);
    const uint32_t nthreads = (uint32_t)blocks * threads;
    uint32_t *out;
    CK(cudaMalloc(&out, nthreads * sizeof(uint32_t)));
    auto ms = time_ms([&] { k_philox<<<blocks, threads, 0, g_s>>>(key, calls, out); });
    const uint32_t probe[3] = {0u, nthreads / 2 + 7u, nthreads - 1u};
    for (uint32_t g : probe) {
        uint32_t d = 0;
        CK(cudaMemcpy(&d, out + g, sizeof d, cudaMemcpyDeviceToHost));
        if (d != philox_thread(key, g, calls)) fail("philox: device sum differs from the host's");
    }
    char note[128];
    snprintf(note, sizeof note, "nrt_philox4x32_10, %d x %d threads x %d calls x 4 words", blocks, threads, calls);
    add_row("philox.draws", "T/s", rate(ms, 4.0 * nthreads * calls, 1e12), note);
    CK(cudaFree(out));
}

static void bench_memory(int sms)
{
    const size_t bytes = (size_t)512 << 20, n = bytes / 4;
    uint32_t *src, *dst;
    unsigned long long *bad, hbad = 0;
    CK(cudaMalloc(&src, bytes));
    CK(cudaMalloc(&dst, bytes));
    CK(cudaMalloc(&bad, sizeof *bad));
    k_fill<<<sms * 8, 256, 0, g_s>>>(src, n);
    CK_LAUNCH();
    auto poison = [&] { CK(cudaMemsetAsync(dst, 0, bytes, g_s)); };
    auto verify = [&](const char *what) {
        CK(cudaMemsetAsync(bad, 0, sizeof *bad, g_s));
        k_verify<<<sms * 8, 256, 0, g_s>>>(dst, n, bad);
        CK_LAUNCH();
        CK(cudaMemcpyAsync(&hbad, bad, sizeof hbad, cudaMemcpyDeviceToHost, g_s));
        CK(cudaStreamSynchronize(g_s));
        if (hbad) fail(what);
    };
    auto ms = time_ms(poison, [&] { CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, g_s)); });
    verify("memory.d2d_memcpy: copy differs");
    add_row("memory.d2d_memcpy", "GB/s", rate(ms, 2.0 * bytes, 1e9), "cudaMemcpyAsync D2D 512 MiB, read + write bytes");
    ms = time_ms(poison, [&] { k_copy4<<<sms * 8, 256, 0, g_s>>>((const uint4 *)src, (uint4 *)dst, bytes / 16); });
    verify("memory.d2d_kernel: copy differs");
    add_row("memory.d2d_kernel", "GB/s", rate(ms, 2.0 * bytes, 1e9), "grid-stride uint4 copy kernel 512 MiB, read + write bytes");
    CK(cudaFree(src));
    CK(cudaFree(dst));
    CK(cudaFree(bad));
}

/* ---------------------------------------------------------------- output */

static std::string jnum(double x)
{
    char b[32];
    if (!std::isfinite(x)) return "null";
    snprintf(b, sizeof b, "%.6g", x);
    return b;
}

static std::string jstr(const std::string &s)
{
    std::string o = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') o += '\\';
        if ((unsigned char)c >= 0x20) o += c;
    }
    return o + "\"";
}

int main(int argc, char **argv)
{
    const char *json = nullptr;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json") && i + 1 < argc) {
            json = argv[++i];
        } else {
            fprintf(stderr, "usage: %s [--json FILE]\n", argv[0]);
            return 2;
        }
    }

    int dev = 0, drv = 0, rt = 0, sms = 0, clk = 0, mclk = 0, bus = 0, l2 = 0, major = 0, minor = 0;
    CK(cudaSetDevice(dev));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, dev));
    CK(cudaDriverGetVersion(&drv));
    CK(cudaRuntimeGetVersion(&rt));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, dev));
    CK(cudaDeviceGetAttribute(&mclk, cudaDevAttrMemoryClockRate, dev));
    CK(cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, dev));
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    CK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    CK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    printf("GPU: %s, compute capability %d.%d, %d SMs, SM clock %d MHz, memory clock %d MHz, %d-bit bus, "
           "L2 %d KiB, %.1f GiB\n",
           prop.name, major, minor, sms, clk / 1000, mclk / 1000, bus, l2 >> 10, prop.totalGlobalMem / 1073741824.0);
    printf("driver %d.%d, runtime %d.%d; %d timed repeats per measurement (median, min, max)\n", drv / 1000,
           drv % 1000 / 10, rt / 1000, rt % 1000 / 10, REPEATS);
    fflush(stdout);

    CK(cudaStreamCreateWithFlags(&g_s, cudaStreamNonBlocking));
    CK(cudaEventCreate(&g_e0));
    CK(cudaEventCreate(&g_e1));
    CK(cudaFree(nullptr)); /* context up before the first timing */

    bench_launch();
    bench_graph(100, 100);
    bench_graph(1000, 10);
    bench_grid_sync(sms);
    bench_block();
    bench_cluster(major);
    bench_cluster_step(major);
    bench_atomic(sms);
    bench_philox(sms);
    bench_memory(sms);
    CK(cudaDeviceSynchronize());

    printf("\n%-28s %12s %12s %12s  %-12s %s\n", "name", "median", "min", "max", "unit", "what");
    for (const Row &r : g_rows)
        printf("%-28s %12.4g %12.4g %12.4g  %-12s %s\n", r.name.c_str(), r.med, r.min, r.max, r.unit.c_str(),
               r.note.c_str());
    printf("%s\n", g_ok ? "all checks passed" : "SOME CHECKS FAILED");

    if (json) {
        FILE *f = fopen(json, "w");
        if (!f) {
            perror(json);
            return 1;
        }
        fprintf(f, "{\n  \"device\": {\"name\": %s, \"compute_capability\": \"%d.%d\", \"sm_count\": %d, "
                   "\"sm_clock_khz\": %d, \"mem_clock_khz\": %d, \"mem_bus_bits\": %d, \"l2_bytes\": %d, "
                   "\"global_mem_bytes\": %zu, \"driver_version\": %d, \"runtime_version\": %d},\n",
                jstr(prop.name).c_str(), major, minor, sms, clk, mclk, bus, l2, prop.totalGlobalMem, drv, rt);
        fprintf(f, "  \"repeats\": %d,\n  \"ok\": %s,\n  \"results\": [\n", REPEATS, g_ok ? "true" : "false");
        for (size_t i = 0; i < g_rows.size(); i++) {
            const Row &r = g_rows[i];
            fprintf(f, "    {\"name\": %s, \"value\": %s, \"min\": %s, \"max\": %s, \"unit\": %s, \"n\": %d, \"note\": %s}%s\n",
                    jstr(r.name).c_str(), jnum(r.med).c_str(), jnum(r.min).c_str(), jnum(r.max).c_str(),
                    jstr(r.unit).c_str(), r.n, jstr(r.note).c_str(),
                    i + 1 < g_rows.size() ? "," : "");
        }
        fprintf(f, "  ]\n}\n");
        if (fclose(f) != 0) {
            perror(json);
            return 1;
        }
        printf("wrote %s\n", json);
    }
    return g_ok ? 0 : 1;
}
