/* simt_priv.h -- what simt.c shares with simt_plast.c (the GPU code of plastic
 * projections): the layout record of a model's device program and its helpers. */
#ifndef NEUROC_SIMT_PRIV_H
#define NEUROC_SIMT_PRIV_H

#include "codegen.h"

enum { ARG_MEM, ARG_I64, ARG_U32 };

typedef struct Arg {
    const char *name;
    const char *type;             /* element type (ARG_MEM) or scalar type */
    int kind;
    int64_t res;                  /* block schedule (CUDA): offset in shared memory, or -1 */
    int64_t bytes;                /* its size when resident (at most) */
    const char *len;              /* its size when resident: a C expression of the arguments */
    const IrPop *pop;             /* resident per-neuron variable of pop (copied back by owner) */
    const IrProj *ring;           /* resident delay ring of this owner projection (likewise) */
    int ro;                       /* resident and read-only: not copied back */
    int64_t cres;                 /* cluster schedule: offset in shared memory, or -1 */
    int cslice;                   /* cluster schedule: its group's slice at a run-time offset */
} Arg;

typedef struct Simt {
    Compiler *cc;
    const IrModel *m;
    const SimtTarget *t;
    Arg *args;
    int nargs, capargs;
    int nscal;                    /* slots of nc_scal: scalar variables, then scalar props */
    int ch;                       /* steps per recording chunk */
    int block;                    /* work-items of the block schedule */
    int cnt_rec, cnt_maxd, cnt_err, ncnt; /* nc_cnt layout (after 2 per population) */
    const char *arch;             /* CUDA: the --gpu-arch target (sm_XY); NULL for OpenCL */
    int64_t res_bytes;            /* block schedule: shared memory of the resident buffers */
    int64_t cres_bytes;           /* cluster schedule: its whole buffers (slices and tables follow) */
    int free;                     /* the model can take the free schedule (simt_free_ok) */
    int has_block;                /* nc_k_block is compiled (block_fits, or asked for) */
    int has_persistent;           /* nc_k_persistent is compiled (CUDA; the same rule) */
    int has_cluster;              /* nc_k_cluster is compiled (CUDA sm_90+, cluster_ok) */
    int nxm;                      /* cluster schedule: entries of nc_xw (spike words, xw_off) */
    int cluster_whole;            /* cluster schedule: every buffer its step writes is in its shared
                                   * memory, so a stalled launch leaves no trace (nc_mbar_wait) */
    int mode_asked;               /* the schedule was named (--gpu-mode), not auto */
    int push;                     /* cluster schedule: the push step is compiled too (simt_push_ok) */
    int table;                    /* the kernels read their arguments from a table (simt_table) */
} Simt;

/* simt.c */
void simt_add_arg(Simt *S, const char *name, const char *type, int kind);

/* The device dialect of pop's code (storage in kernel arguments and nc_scal). */
CgDialect simt_dev_dialect(const Simt *S, const IrPop *pop);
/* Slot of a scalar variable in nc_scal, or -1. */
int simt_scal_var(const Simt *S, const IrVar *v);
/* Spike-recording capacity of a chunk half; rows of a state recording's chunk half. */
int64_t simt_spike_rec_cap(const Simt *S, const IrRecord *r);
int64_t simt_state_rec_rows(const Simt *S, const IrRecord *r);
/* Host code reading back a projection's longest delay into `maxd` (simt.c). */
void simt_host_maxd(Out *o, const Simt *S, const IrProj *j);
/* Whether the cluster kernel may hold j's own synapses in shared memory (fused, one weight,
 * a ring of its own, no per-synapse delay). */
int simt_own_table(const IrModel *m, const IrProj *j);
/* The dynamic shared memory of a cluster work-group (NC_CLUSTER_SHMEM). */
int64_t simt_cluster_shmem(const Simt *S);
/* Device code after a cluster launch's step loop: the stall check (nc_halt) of every group. */
void simt_cluster_stall_end(Out *o);
/* Device dialect spelling of a variable held in a local for the step (nc_h_<var>). */
void simt_var_held(const CgDialect *d, const IrVar *v, StrBuf *out);

/* simt_push.c: the cluster schedule's push step (docs/architecture.md, "The push step"). */
int simt_push_ok(const Simt *S);
void simt_push_device(Out *o, const Simt *S);
void simt_push_host(Out *o, const Simt *S);
void simt_push_host_enqueue(Out *o, const Simt *S);

/* simt_mpi.c: distributed CUDA simulators (--mpi), one GPU per rank, spikes through NCCL. */
enum { SIMT_MPI_GROUP = 512 };    /* work-items of nc_k_merge's groups */
void simt_mpi_args(Simt *S);
void simt_mpi_neuron_range(Out *o, const Simt *S, const IrPop *p);
void simt_mpi_spike(Out *o);
void simt_mpi_proc_guard(Out *o, const Simt *S, const IrProj *j);
void simt_mpi_owner(Out *o, const Simt *S, const IrPop *p);
void simt_mpi_device(Out *o, const Simt *S, void (*spike_recs)(const Simt *, const IrPop *, Out *));
void simt_mpi_host_decls(Out *o, const Simt *S);
void simt_mpi_host_restrict(Out *o, const IrProj *j);
void simt_mpi_host_start(Out *o, const Simt *S);
void simt_mpi_host_slices(Out *o, const Simt *S);
void simt_mpi_host_exchange(Out *o, const Simt *S);

/* simt_plast.c: plastic projections (docs/architecture.md, "Plastic synapses on the GPU").
 * The phases of a step, in the order of docs/language.md §9; each ends with a barrier
 * (block), a grid barrier (persistent) or a kernel boundary (launch, graph). */
enum {
    PL_ARRIVE,                    /* 0: `on pre` of the arriving spikes (delivers) */
    PL_ON_STEP,                   /*    `on step` of every synapse (delivers) */
    PL_SCOPES,                    /* 2a: pre { } / post { } dynamics, pre history */
    PL_ON_POST,                   /* 2b */
    PL_PREPOST,                   /* 2c */
    PL_SPIKES,                    /* 2d: scope `on spike`, 2f: this step's presynaptic spikes */
    PL_SYN_STEP,                  /* 2e: per-synapse dynamics */
    PL__COUNT
};
void simt_plast_args(Simt *S, const IrProj *j);
/* 1 when pop's neuron phase must write its spike flags in the grid schedules too. */
int simt_plast_needs_flags(const IrModel *m, const IrPop *pop);
/* The dialect of plastic synapse code of j, for the C-like scope and handler contexts. */
CgDialect simt_plast_dialect(const Simt *S, const IrProj *j, const char *pre_hist, int atomic);
/* Device functions of every plastic projection. */
void simt_plast_device(Out *o, const Simt *S);
/* 1 when some plastic projection has work in `phase`. */
int simt_plast_has_phase(const IrModel *m, int phase);
/* Calls of `phase` for every plastic projection (variant "grid" or "block"). */
void simt_plast_calls(Out *o, const Simt *S, int phase, const char *variant);
/* Host: the rest of build_<proj> after the CSR is on the device (nnz defined). */
void simt_plast_host_build(Out *o, const Simt *S, const IrProj *j);

/* simt_table.c: table mode, the kernels' arguments in a table (see its header comment). */
/* 1 when S's arguments take more bytes than every device of its target accepts. */
int simt_table_needed(const Simt *S);
/* The arguments a kernel takes in table mode before its own: 1 (CUDA), 2 (OpenCL). */
int simt_table_kargs(const Simt *S);
/* Open a model kernel: `fmt` names NC_ARGS for the model's arguments. In table mode the
 * kernel takes NC_KARGS instead and its first line unpacks them (NC_UNPACK). */
void simt_kernel_open(Out *o, const Simt *S, const char *fmt, ...) NC_PRINTF(3, 4);
/* Device: NC_KARGS, NC_ARGP, NC_UNPACK. Host: nc_argt, nc_args_row and bind(). */
void simt_table_device(Out *o, const Simt *S);
void simt_table_host(Out *o, const Simt *S);

/* simt_finite.c: --check-finite on the device (nc_fin); see its header comment. */
void simt_finite_args(Simt *S);
void simt_finite_reset(Out *o, const Simt *S);
void simt_finite_tail(Out *o, const Simt *S);
void simt_finite_host(Out *o, const Simt *S);
void simt_finite_init(Out *o, const Simt *S);
void simt_finite_one(Out *o, const Simt *S, const IrPop *p, int held);

/* simt_free.c: the free schedule (models without projections; simt_free_ok in codegen.h). */
void simt_free_args(Simt *S);
void simt_free_device(Out *o, const Simt *S);
void simt_free_host_alloc(Out *o, const Simt *S);
void simt_free_host_enqueue(Out *o, const Simt *S);
void simt_free_post(Out *o, const Simt *S);
void simt_free_host_post(Out *o);

#endif
