/* simt_priv.h -- the layer both GPU back ends share: one device program, one host program.
 *
 * The CUDA and OpenCL back ends differ only in how the device program is compiled and
 * loaded (nvcc to a fatbin at build time; the OpenCL driver at run time) and in which
 * driver nrt_gpu.h talks to. Everything else is generated here, once:
 *
 *   device program  nrt_simt.h (the dialect macros) + nrt_math.h + nrt_philox.h + nrt_conn_dev.h + the
 *                   model's kernels, written in the common subset of CUDA C++ and OpenCL C.
 *                   Every kernel takes the same argument list (NC_ARGS: every buffer).
 *   host program    C against nrt_gpu.h: allocation, on-device initialisation and
 *                   connectivity, the step schedule, double-buffered recording.
 *
 * Schedules (chosen at compile time, overridable with $NEUROC_GPU_MODE at run time; each an
 * entry of simt_scheds[], simt_sched.c):
 *   block       the whole network in one work-group; one launch runs a chunk of steps.
 *               Spikes are compacted in neuron order and delivered spike by spike, so the
 *               sums into each ring slot happen in the C back end's order: same bits.
 *   launch      per step, one kernel for every population's neurons and one for every
 *               projection's spikes (presynaptic-parallel, atomic adds) plus recording.
 *   graph       `launch`, captured once per chunk length into a CUDA graph and replayed.
 *   persistent  one cooperative kernel per chunk, grid barriers between the phases (CUDA).
 *   cluster     block, split over one thread-block cluster (CUDA, sm_90): each work-group
 *               steps its own neurons and sums its own targets; the step's spike words go
 *               to every group through distributed shared memory (simt_neurons.c); the
 *               push step (simt_push.c) adds spikes straight into the targets' groups.
 *   free        a model without projections: each work-item runs its neuron through a whole
 *               chunk of steps with no barrier (simt_free.c).
 * The step counter lives on the device (nc_ctl), so no launch needs per-step arguments.
 * Plastic projections (simt_plast.c) add phases before the neurons (arrivals, `on step`)
 * and after them (learning), separated like the others by barriers, grid barriers or
 * kernel boundaries (nc_k_plast<phase> in launch and graph).
 *
 * Recording: a chunk of up to NC_CH steps writes spikes (per-step ends + indices), state
 * rows and per-population spike counts into one half of double-buffered device storage;
 * while the device runs the next chunk into the other half, the host copies and writes the
 * finished one. Spikes within a step are written in index order, as the C back end does.
 */
/*
 * Its files (each includes this header alone of the project's; calls go one way: from the
 * drivers, simt_device.c and simt_main.c, through simt_layout.c and simt_sched.c to the
 * concerns, and from everything to simt_base.c):
 *   simt_base.c     what every file uses: arguments, nc_scal slots, recording sizes, the
 *                   device dialect, how projections are delivered (fused, own tables)
 *   simt_layout.c   the Simt record: schedule kernels, arguments, shared-memory plan
 *   simt_sched.c    the schedules as objects (simt_scheds[]): fit and why not, auto,
 *                   their host parts (enqueue, pick_mode, the chunk loop)
 *   simt_device.c   the device program's driver and its kernels (launch/graph, block,
 *                   cluster, persistent)
 *   simt_neurons.c, simt_deliver.c, simt_records.c, simt_shmem.c, simt_plast.c,
 *   simt_topk.c, simt_free.c, simt_push.c, simt_mpi.c, simt_finite.c, simt_table.c,
 *   simt_family.c
 *                   the concerns: neuron phase, spike delivery (stored and procedural),
 *                   recordings and checkpoints, resident buffers, plastic projections,
 *                   top-k, the free schedule, the push step, --mpi, --check-finite,
 *                   table mode, projection families
 *   simt_host.c, simt_alloc.c, simt_main.c
 *                   the host program: prelude, building the network on the device,
 *                   main() and its driver simt_emit_host
 */
#ifndef NEUROC_SIMT_PRIV_H
#define NEUROC_SIMT_PRIV_H

#include "codegen.h"
#include "gpu.h"

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

/* Projections per construction kernel (nc_k_syn_g<n>, a switch over nc_sel; simt_device.c):
 * ptxas compiles the out-of-line construction draws once per kernel, so one kernel per
 * projection cost the microcircuit's 55 about 2 s of CPU time; in groups of 8 each kernel
 * still takes less time than nc_k_synapses, which ptxas compiles beside them. */
enum { SIMT_SYN_GROUP = 8 };

/* The schedules, in the order of simt_scheds[] (simt_sched.c) and of the host's M_* constants. */
enum { SCHED_BLOCK, SCHED_LAUNCH, SCHED_GRAPH, SCHED_PERSISTENT, SCHED_FREE, SCHED_CLUSTER, SCHED__COUNT };

typedef struct Simt {
    Compiler *cc;
    const IrModel *m;
    const SimtTarget *t;
    Arg *args;                    /* the kernels' arguments, args[0 .. nargs - 1], then the */
    int nargs, capargs;           /* buffers only the host names, args[nargs .. nall - 1] */
    int nall;                     /* (family members' own: simt_fam_args) */
    int nscal;                    /* slots of nc_scal: scalar variables, then scalar props */
    int ch;                       /* steps per recording chunk */
    int block;                    /* work-items of the block schedule */
    int cnt_rec, cnt_maxd, cnt_err, ncnt; /* nc_cnt layout (after 2 per population) */
    int cnt_view;                 /* nc_cnt: 2 per declared view (by half), after cnt_err */
    int cnt_mind;                 /* --mpi, plastic per-synapse delays: per projection 2^30 - its shortest delay, after the views */
    const char *arch;             /* CUDA: the --gpu-arch target (sm_XY); NULL for OpenCL */
    int64_t res_bytes;            /* block schedule: shared memory of the resident buffers */
    int64_t cres_bytes;           /* cluster schedule: its whole buffers (slices and tables follow) */
    int has[SCHED__COUNT];        /* the schedules whose kernels are compiled (SimtSched.compiled) */
    int nxm;                      /* cluster schedule: entries of nc_xw (spike words, xw_off) */
    int cluster_whole;            /* cluster schedule: every buffer its step writes is in its shared
                                   * memory, so a stalled launch leaves no trace (nc_mbar_wait) */
    int mode_asked;               /* the schedule was named (--gpu-mode), not auto */
    int push;                     /* cluster schedule: the push step is compiled too (simt_push_ok) */
    int table;                    /* the kernels read their arguments from a table (simt_table) */
    CgFamPlan fam;                /* projection families (simt_family.c) */
    const char *fam_rep;          /* --mpi: per population, whether it is replicated (fam_ok's, once) */
    int fam_grid;                 /* their members delivered by family in the grid (nc_fdt<f>) */
} Simt;

/* simt_base.c */
void simt_add_arg(Simt *S, const char *name, const char *type, int kind);

/* The device dialect of pop's code (storage in kernel arguments and nc_scal). */
CgDialect simt_dev_dialect(const Simt *S, const IrPop *pop);
/* Slot of a scalar variable in nc_scal, or -1. */
int simt_scal_var(const Simt *S, const IrVar *v);
/* 1 when pop's neuron phase must write its spike flags in the grid schedules too (an
 * `on pre & post` handler reads them); a spike of a distributed simulator (simt_mpi.c). */
int simt_plast_needs_flags(const IrModel *m, const IrPop *pop);
void simt_mpi_spike(Out *o);
/* Spike-recording capacity of a chunk half; rows of a state recording's chunk half. */
int64_t simt_spike_rec_cap(const Simt *S, const IrRecord *r);
int64_t simt_state_rec_rows(const Simt *S, const IrRecord *r);
/* Host code reading back a projection's longest delay into `maxd`. */
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

/* simt_sched.c: the schedules as objects, an entry of simt_scheds[] each. */
enum { SIMT_CUDA = 1, SIMT_OPENCL = 2 };
typedef struct SchedCtx {
    const char *arch;             /* CUDA: the --gpu-arch target (sm_XY); NULL for OpenCL */
} SchedCtx;
typedef struct SimtSched SimtSched;
struct SimtSched {
    const char *name;             /* as --gpu-mode and $NEUROC_GPU_MODE name it */
    const char *mode;             /* the host program's constant M_<mode> */
    unsigned backends;            /* SIMT_CUDA, SIMT_OPENCL */
    int one_gpu;                  /* the whole network on one GPU: $NEUROC_GPU_MODE naming it is
                                   * refused by a distributed simulator (free: its why_not) */
    /* NULL when the schedule fits m, else why not (the back end aside: simt_sched_why_not) */
    const char *(*why_not)(const IrModel *m, const SchedCtx *c);
    int (*suits)(const IrModel *m);               /* auto takes it for m, where it fits */
    void (*enqueue)(Out *o, const Simt *S);       /* its case of the host's enqueue(len) */
    /* whether S's programs have its kernels, `chosen` being the schedule the model takes */
    int (*compiled)(const Simt *S, const SimtSched *chosen);
};
extern const SimtSched simt_scheds[SCHED__COUNT];
/* Host: pick_mode(prog), $NEUROC_GPU_MODE checked against the schedules this simulator has. */
void simt_emit_host_pick_mode(Out *o, const Simt *S);
/* The schedule named `name`, or NULL. */
const SimtSched *simt_sched_find(const char *name);
/* NULL when s fits m on the back end of c (c->arch: CUDA), else why not. */
const char *simt_sched_why_not(const SimtSched *s, const IrModel *m, const SchedCtx *c);

/* simt_push.c: the cluster schedule's push step (docs/architecture.md, "The push step"). */
int simt_push_ok(const Simt *S);
void simt_push_device(Out *o, const Simt *S);
void simt_push_host(Out *o, const Simt *S);
void simt_push_host_enqueue(Out *o, const Simt *S);

/* simt_mpi.c: distributed CUDA simulators (--mpi), one GPU per rank, spikes through NCCL. */
enum { SIMT_MPI_GROUP = 512 };    /* work-items of nc_k_merge's groups */
void simt_mpi_args(Simt *S);
void simt_mpi_neuron_range(Out *o, const Simt *S, const IrPop *p);
void simt_mpi_proc_guard(Out *o, const Simt *S, const IrProj *j);
void simt_mpi_owner(Out *o, const Simt *S, const IrPop *p);
void simt_mpi_device(Out *o, const Simt *S, void (*spike_recs)(const Simt *, const IrPop *, Out *));
void simt_mpi_host_decls(Out *o, const Simt *S);
void simt_mpi_host_restrict(Out *o, const Simt *S, const IrProj *j);
int simt_mpi_gid(const IrModel *m, const IrProj *j);
int simt_mpi_rk(const IrModel *m, const IrProj *j);
int simt_mpi_replicated(const IrModel *m, const IrPop *p);
/* Whether a population's merge takes several work-groups (nc_k_merge_<pop>, nc_mb), and
 * the host's binds of their kernels (" || bind(...)", or ""): simt_mpi.c. */
int simt_mpi_merge_blocks(const IrModel *m);
const char *simt_mpi_merge_binds(const Simt *S);
/* simt_merge.c: a population's merge groups (1: in nc_k_merge; more: its own kernels), the
 * first of population i's in nc_mb (i = npops: how many), its work-group in nc_k_merge
 * (i = npops: its groups), and the merge kernels of the device program. */
int simt_merge_groups(const IrPop *p);
int simt_merge_first(const IrModel *m, int i);
int simt_merge_small(const IrModel *m, int i);
void simt_merge_device(Out *o, const Simt *S, void (*spike_recs)(const Simt *, const IrPop *, Out *));
int simt_merge_local_pops(const IrModel *m);
void simt_merge_local_device(Out *o, const Simt *S);
void simt_mpi_host_start(Out *o, const Simt *S);
void simt_mpi_host_slices(Out *o, const Simt *S);
void simt_mpi_host_interval(Out *o, const Simt *S);
void simt_mpi_host_steps(Out *o, const Simt *S, int64_t gn, int64_t gp, int64_t gs, int sg);
void simt_mpi_min_delay(Out *o, const Simt *S, const IrProj *j);
const char *simt_mpi_every_step(const IrModel *m);
int simt_mpi_cut_first(const IrModel *m, const IrProj *j);
void simt_mpi_host_cut_first(Out *o, const Simt *S, const IrProj *j);
void simt_mpi_host_after_values(Out *o, const Simt *S, const IrProj *j);
void simt_mpi_host_save(Out *o, const Simt *S, const IrProj *j);
/* ... and of projection families' members (simt_family.c's calls, f the family, j0 its first) */
void simt_mpi_fam_min_delay(Out *o, const Simt *S);
int simt_min_delays(const IrModel *m);
void simt_mpi_fam_guard(Out *o, const Simt *S, const IrPop *post, const char *post_off);
void simt_mpi_fam_overlap(Out *o, const Simt *S, const IrPop *post, const char *post_off, const char *n);
void simt_mpi_fam_cut(Out *o, const Simt *S, const IrProj *j0);
void simt_mpi_fam_decls(Out *o, const Simt *S, int f);
void simt_mpi_fam_after_values(Out *o, const Simt *S, const IrProj *j0, int f);
void simt_mpi_fam_save(Out *o, const Simt *S, const IrProj *j0, int f);

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
/* The dialect of plastic synapse code of j, for the C-like scope and handler contexts. */
CgDialect simt_plast_dialect(const Simt *S, const IrProj *j, const char *pre_hist, int atomic);
/* Device functions of every plastic projection. */
void simt_plast_device(Out *o, const Simt *S);
/* Whether the pre { } work runs in kernels of its own (distributed simulators), and those
 * kernels, nc_k_pre0 (where some projection has pre { } states or dynamics) and nc_k_pre1. */
int simt_plast_split(const IrModel *m);
int simt_plast_split_pre0(const IrModel *m);
void simt_plast_split_kernels(Out *o, const Simt *S);
/* 1 when some plastic projection has work in `phase`. */
int simt_plast_has_phase(const IrModel *m, int phase);
/* Calls of `phase` for every plastic projection (variant "grid" or "block"). */
void simt_plast_calls(Out *o, const Simt *S, int phase, const char *variant);
/* Host: the rest of build_<proj> after the CSR is on the device (nnz defined). */
void simt_plast_host_build(Out *o, const Simt *S, const IrProj *j);

/* simt_family.c: projection families, built by one kernel each (see its header comment). */
void simt_fam_plan(Simt *S);                          /* S->fam (simt_setup) */
int simt_fam_member(const Simt *S, const IrProj *j);  /* j is built by its family's kernel */
/* j's construction case: its index among the projections that are no member (nc_k_syn_g<n>
 * holds SIMT_SYN_GROUP of them) */
int simt_syn_index(const Simt *S, const IrProj *j);
void simt_fam_device(Out *o, const Simt *S);          /* nc_k_synf<f> */
void simt_fam_host(Out *o, const Simt *S);            /* nc_fam<f>[], build_fam<f>, k_synf<f> */
void simt_fam_kernels(Out *o, const Simt *S);         /* main: k_synf<f> loaded */
/* build_instance's line for projection k where it starts a run of members: the run's
 * length (the caller skips it), or 0 */
int simt_fam_build(Out *o, const Simt *S, int k);
/* Delivery in the grid (launch, graph, persistent): the tables nc_fdt<f> as arguments
 * (simt_setup; OpenCL then in table mode, for the buffers' words), and the members' own
 * buffers moved after them to args[nargs .. nall - 1] (host only) unless the block or cluster
 * schedule is compiled; whether j is delivered by its family there, the device functions and
 * their calls, the host's fam_tables(). */
void simt_fam_args(Simt *S);
int simt_fam_grid(const Simt *S, const IrProj *j);
void simt_fam_grid_device(Out *o, const Simt *S);
void simt_fam_grid_calls(Out *o, const Simt *S);
void simt_fam_tables_host(Out *o, const Simt *S);
/* The stretch of projections from k on that are all members (cg_fam_seg): its length, 0 for
 * none; the host's save_units and stat_units take runs *u0 .. *u1 - 1. */
int simt_fam_seg(const Simt *S, int k, int *u0, int *u1);
void simt_fam_mem_plan(Out *o, const Simt *S);   /* mem_plan(), a line per stretch of members */
/* The dialect of projection j's construction code: draws keyed by row i and rank (simt_device.c). */
CgDialect simt_syn_dialect(const Simt *S, const IrProj *j);

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
/* simt_series.c: analog input series (docs/language.md §5.3): their kernel arguments; the
 * host's load_series() (read, upload, check); build_instance's call of it */
void simt_series_args(Simt *S);
void simt_series_host(Out *o, const Simt *S);
void simt_series_load(Out *o, const Simt *S);
void simt_free_args(Simt *S);
void simt_free_device(Out *o, const Simt *S);
void simt_free_host_alloc(Out *o, const Simt *S);
void simt_free_host_enqueue(Out *o, const Simt *S);
void simt_free_post(Out *o, const Simt *S);
void simt_free_host_post(Out *o);

/* The variants of the phases: grid (0: every work-group of the grid, atomic compaction),
 * block (1: one work-group, ordered compaction) and cluster (2: the block code for this
 * group's neurons and targets, nc_part of the cluster's groups). A phase function is named
 * by its variant; the block variant has the group rank 0 of 1 as constants. */
enum { V_GRID, V_BLOCK, V_CLUSTER };

/* What simt_emit_resident writes for each resident buffer: its copy into shared memory,
 * its name in the kernel, its copy back. */
enum { RES_IN, RES_NAMES, RES_OUT };

/* simt_base.c */
const char *simt_vtype(const IrVar *v);
int simt_n_scal_vars(const IrModel *m);
int simt_n_prop_owners(const IrModel *m);
const IrPop *simt_prop_owner(const IrModel *m, int i);
int simt_scal_prop(const Simt *S, const IrProp *p);
int64_t simt_max_pop(const IrModel *m);
double simt_est_synapses(const IrProj *j);
int simt_batched(const Simt *S);
int simt_xw_words(const IrPop *p);
int simt_xw_off(const Simt *S, const IrPop *p);
const char *simt_ring_slot(const Simt *S, const IrProj *j, const char *x, int add);
void simt_d_recv_grid(const CgDialect *d, const IrProj *p, const char *local, Out *o);
void simt_spike_recs(const Simt *S, const IrPop *pop, Out *o, const char *rank);
/* 1 for a recording with a device counter and per-step ends (rec<r>_ends): spikes, and the
 * rate of a part of a population (a whole one's rate is the population's count, nc_pcnt). */
int simt_rec_counted(const IrRecord *rec);
int simt_rec_stride(const IrRecord *rec, long long *a, long long *s);
const char *simt_rec_index(const Simt *S, int r, const char *q);
const char *simt_rec_q(const Simt *S, int r, const char *n, const char *cond);
void simt_rec_column(Out *o, const Simt *S, int r, const char *q, const char *n, const char *cond);
void simt_spike_recs_atomic(const Simt *S, const IrPop *pop, Out *o);
void simt_rec_bases(const Simt *S, const IrPop *pop, Out *o, const char *total);
int simt_has_spike_recs(const Simt *S, const IrPop *pop);
int simt_spike_flags(const IrModel *m, const IrPop *p);
void simt_d_spike_block(const CgDialect *d, const IrPop *pop, Out *o);
const char *simt_vname(int v);
const char *simt_own_lo(const Simt *S, int v, const IrPop *p);
const char *simt_own_hi(const Simt *S, int v, const IrPop *p);
int simt_coop_row(const IrProj *j);
int simt_any_coop(const IrModel *m);
int simt_order_free(const IrProj *j);
int simt_fused(const IrProj *j);
int simt_fused_in(const IrModel *m, const IrProj *j, int v);
/* simt_fused_in, less the members delivered by their family (simt_fam_grid) */
int simt_fused_at(const Simt *S, const IrProj *j, int v);
int simt_n_own_tables(const IrModel *m);
int simt_n_fused(const Simt *S, const IrPop *pre, int v);

/* simt_layout.c */
void simt_setup(Simt *S, Compiler *cc, const IrModel *m, const BuildOpts *bo, const SimtTarget *t);

/* simt_neurons.c */
void simt_emit_neurons(Out *o, const Simt *S, const IrPop *p, int block);

/* simt_deliver.c */
void simt_emit_scan64(Out *o);
void simt_emit_pscan(Out *o, const Simt *S, const IrProj *j);
void simt_own_range(Out *o, long long off, long long np, const char *lo, const char *hi);
void simt_own_targets(Out *o, const IrProj *j, const char *lo, const char *hi);
void simt_emit_prop(Out *o, const Simt *S, const IrProj *j, int block);
void simt_emit_prop_fused(Out *o, const Simt *S, const IrPop *pre, int v);

/* simt_records.c */
void simt_emit_tail(Out *o, const Simt *S);
void simt_emit_host_save(Out *o, const Simt *S, const IrProj *j);
void simt_emit_host_records(Out *o, const Simt *S);
void simt_emit_host_ckpt(Out *o, const Simt *S);

/* simt_shmem.c */
void simt_emit_resident(Out *o, const Simt *S, int what);
void simt_emit_resident_cluster(Out *o, const Simt *S, int what);
void simt_emit_own_tables(Out *o, const Simt *S);

/* simt_sched.c */
int simt_block_fits(const IrModel *m);
void simt_emit_host_schedule(Out *o, const Simt *S, const char *mode);
void simt_emit_pick_cluster(Out *o, const Simt *S);

/* simt_host.c */
int simt_mirrored(const IrVar *v);
void simt_emit_host_prelude(Out *o, const Simt *S, const char *program_header);
void simt_emit_host_props(Out *o, const Simt *S, const IrPop *p);

/* simt_alloc.c */
void simt_emit_host_build(Out *o, const Simt *S, const IrProj *j);
void simt_emit_host_batch(Out *o, const Simt *S);
void simt_emit_host_build_instance(Out *o, const Simt *S);

/* --- simt_set.c: `set` with expressions between runs (PH_ASSIGN) ---------- */
void simt_set_kernels(Out *o, const Simt *S);              /* nc_k_set<p> of each such phase */
void simt_set_handles(Out *o, const Simt *S, int load);    /* k_set<p>: declared, or loaded */
void simt_set_phase(Out *o, const Simt *S, int p);         /* main: phase p, every instance */

#endif
