/* gpu.h -- the GPU layer's own interface: what the CUDA and OpenCL back ends
 * (backend_cuda.c, backend_opencl.c) call of the SIMT layer (simt*.c) they share.
 *
 * Private to codegen/gpu: the driver and the other back ends reach the GPU back ends only
 * through their Backend records (codegen.h), never through these. simt_priv.h, the SIMT
 * files' own header, includes it.
 */
#ifndef NEUROC_GPU_H
#define NEUROC_GPU_H

#include "codegen.h"

/* backend_cuda.c: the arch nvcc targets when --gpu-arch is not given (the present GPU's,
 * else sm_90) */
const char *cuda_default_arch(Compiler *cc);

/* --- simt.c: the layer the GPU back ends share ---------------------------- */

typedef struct SimtTarget {
    const char *name;             /* "cuda" / "opencl" */
    const char *api;              /* NRT_API_CUDA / NRT_API_OPENCL (C text) */
    const char *load_options;     /* passed to nrt_gpu_load (OpenCL build options) */
    int graphs;                   /* CUDA graphs and cooperative launches exist */
} SimtTarget;

/* The schedule a model gets: `requested` unless "auto"/NULL (see simt.c); graphs: CUDA. */
const char *simt_schedule(const IrModel *m, const char *arch, const char *requested);
/* 1 when m can take the free schedule: no projections, no top-k (simt_free.c). */
int simt_free_ok(const IrModel *m);
/* Why the cluster schedule cannot run m on CUDA target arch (sm_XY), or NULL (simt.c). */
const char *simt_cluster_why(const IrModel *m, const char *arch);
/* 1 when m's cluster schedule takes the push step: every projection of one weight into a
 * two-slot ring of its own, no synapse recording (simt_push.c). */
int simt_push_model(const IrModel *m);
/* --mpi with the cuda back end: refuse what distributed GPU runs do not take (simt_mpi.c). */
int simt_mpi_check(Compiler *cc, const IrModel *m, const char *gpu_mode);
/* The device program (one text for CUDA and OpenCL) and the host program of m. */
int simt_emit_device(Compiler *cc, IrModel *m, const BuildOpts *bo, const SimtTarget *t, Out *o);
/* program_header: the header that defines nc_program[] and nc_program_len, or NULL: they
 * are defined by another object (the CUDA build's <model>_program.c) */
int simt_emit_host(Compiler *cc, IrModel *m, const BuildOpts *bo, const SimtTarget *t,
                   const char *program_header, Out *o);
/* A C header holding `data` as nc_program[] / nc_program_len. */
int simt_write_program_header(Compiler *cc, const char *path, const unsigned char *data, size_t len);
/* Compile and link the host program: sources or objects a and b (b may be NULL), with
 * libneurort, into bo->output. */
int simt_link_host(Compiler *cc, const IrModel *m, const BuildOpts *bo, const char *a, const char *b);
/* Start compiling the host program `src` into the object `obj` (cg_spawn's process id), so
 * that it compiles while nvcc runs; simt_link_host then links it. */
int simt_spawn_host(Compiler *cc, const BuildOpts *bo, const char *src, const char *obj);

/* --- simt_topk.c: top-k selection and gathered delivery on the GPU back ends ---- */

enum { SIMT_TOPK_LOCAL = 8 + 256 };           /* ints of local memory a top-k pass uses */
int simt_topk_any(const IrModel *m);           /* a population has a top-k condition */
int simt_topk_words(const IrModel *m);         /* 32-bit words of the selection key */
int simt_topk_passes(const IrModel *m);        /* radix passes (8 bits each) */
int simt_gathers(const IrProj *j);             /* delivered by a per-target gather */
int simt_needs_flags(const IrModel *m, const IrPop *p); /* its spike flags are read by a gather */
void simt_topk_common(Out *o, const IrModel *m);        /* device helpers shared by populations */
void simt_topk_pop(Out *o, const CgDialect *d, const IrModel *m, const IrPop *p); /* nc_tk_pass_<P> */
void simt_gather(Out *o, const IrModel *m, const IrProj *j);   /* nc_deliver_<J>_grid */
void simt_gather_host(Out *o, const IrProj *j);  /* host: build and upload the column index */

/* --- simt_hooks.c: the GPU back ends' answers to the driver and --explain --- */

/* Backend.check of both GPU back ends: the free schedule, --mpi (simt_mpi_check). */
int simt_check(Compiler *cc, const IrModel *m, const Options *o);
/* Backend.explain and Backend.explain_warn for target t (its name and graphs). */
void simt_explain(Compiler *cc, const IrModel *m, const char *arch, const SimtTarget *t);
int simt_explain_warn(Compiler *cc, const IrModel *m, const char *arch, const SimtTarget *t,
                      double neurons, double synapses, int nw);
/* --explain's line of the projection families (simt_family.c), if any. */
void simt_fam_explain(Compiler *cc, const IrModel *m, const char *arch, const SimtTarget *t);

#endif
