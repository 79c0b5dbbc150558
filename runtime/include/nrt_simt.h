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
#define NC_DEV static inline
#define NC_G __global
#define NC_L __local
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
#define nc_atomic_add_i32_local(p, v) atomic_add((volatile __local int *)(p), (v))
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
#elif defined(__CUDACC__)
#include <stdint.h>
#define NC_KERNEL extern "C" __global__ void
#define NC_DEV static __device__ __forceinline__
#define NC_G
#define NC_L __shared__
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
#define nc_atomic_add_i32_local(p, v) atomicAdd((int *)(p), (v))
#define nc_atomic_add_f32(p, v) ((void)atomicAdd((float *)(p), (v)))
#define nc_atomic_add_f64(p, v) ((void)atomicAdd((double *)(p), (v)))
#else
#error "nrt_simt.h is device code: compile it as CUDA or OpenCL C"
#endif

#endif
