/* neurort.h -- the public API of libneurort, the runtime every generated simulator links.
 *
 * The runtime owns what is the same for every model: command-line options of the generated
 * program, memory, connectivity construction, recording (.npy/.csv + manifest.json),
 * progress and the final summary, timing, and load-time numerics (matrix exponentials).
 * Errors are returned as nrt_status with a message in ctx->errmsg; the runtime prints only
 * from the reporting calls (nrt_progress, nrt_report, nrt_fail) and never exits the process.
 */
#ifndef NEURORT_H
#define NEURORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nrt_status {
    NRT_OK = 0,
    NRT_ENOMEM,                   /* host allocation failed */
    NRT_EIO,                      /* a file could not be written (disk full, permissions) */
    NRT_EINVAL,                   /* bad argument or option */
    NRT_EDEVICE,                  /* accelerator error */
    NRT_EHELP                     /* --help was printed: exit 0 */
} nrt_status;

#define NRT_MAX_POPS 256         /* items of the printed plans kept (mem, rplan); the rest
                                  * are counted ("... and N more") */
#define NRT_MAX_SWEEPS 8         /* --sweep options of one command line */
#define NRT_MAX_THREADS 256      /* --threads N of a C simulator (rt_pool.c) */

/* A run-time parameter (`runtime P.x` in the model): a table of them is filled by the
 * generated code before nrt_init, which applies each `--set NAME=VALUE`. */
typedef struct nrt_param {
    const char *name;             /* "exc.tau_m" */
    const char *unit;             /* the internal unit, printable ("ms"; "1" for numbers) */
    signed char dim[6];           /* exponents over length, mass, time, current, temperature, amount */
    int is_int;                   /* an int parameter: integral values only */
    double value;                 /* the model's value; after nrt_init, --set's (internal units) */
    const char *decl_unit;        /* the unit the model declared ("Hz"); NULL: as `unit` */
    double decl_scale;            /* one decl_unit in internal units (0.001 for Hz) */
    /* A per-neuron parameter (`runtime P.x` of a parameter the initialisers assign per
     * neuron, or `runtime V.x` of a view V): count > 0 neurons from `offset` of the base
     * population; --set gives one value for all of them or a file of count values. */
    int64_t count;                /* 0: one value (a scalar) */
    int64_t offset;               /* the target's first neuron in its population */
    const char *scope;            /* for --help: "per neuron of P[0:80]", "projection AB";
                                     NULL: a scalar of a whole population */
    int real_bytes;               /* per-neuron: the model's precision (4: float, 8: double),
                                     in which `--set P.x=EXPR` computes (rt_expr.c) */
    /* set by nrt_param_set on a per-neuron parameter */
    int given;                    /* 0: the model's values; 1: `value` for every neuron;
                                     2: `values` (from `file` or `expr`) */
    int64_t seq;                  /* the order of the --set (overlapping views: later wins) */
    double *values;               /* given == 2: count values (internal units) */
    const char *file;             /* given == 2: the file, as --set named it, or NULL */
    const char *expr;             /* given == 2: the expression of i (`--set P.x=EXPR`), or NULL */
} nrt_param;

typedef struct nrt_rec nrt_rec;

typedef struct nrt_pop_stat {
    const char *name;
    int64_t size;
    int64_t spikes;               /* total spikes emitted */
} nrt_pop_stat;

/* A declared view of a population (`population exc = P[0:80]`), registered by the generated
 * code after its base population (nrt_view_register). */
typedef struct nrt_view_stat {
    const char *name;
    int pop;                      /* index of the base population in ctx->pops */
    int64_t offset, size;         /* neurons offset .. offset + size - 1 of it */
    int64_t spikes;               /* spikes of its neurons, when ctx->view_spikes */
} nrt_view_stat;

/* One run of a generated simulator. Fill model/default_* before nrt_init. */
typedef struct nrt_ctx {
    /* set by the generated code before nrt_init */
    const char *model;            /* model name, e.g. "cuba" */
    const char *backend;          /* "c", "cuda", "opencl" */
    uint64_t default_seed;        /* sim { seed } */
    double dt;                    /* ms */
    int64_t total_steps;          /* all run phases together (for progress) */
    int nphases;                  /* the model's phases, run and set (a checkpoint's phase
                                   * index must be below it) */
    nrt_param *params;            /* run-time parameters (--set), or NULL */
    int nparams;
    /* set by nrt_init from the command line */
    const char *out_dir;          /* --out DIR; default: <model>_out beside the binary */
    uint64_t seed;                /* --seed N, else default_seed */
    int quiet;                    /* --quiet: no progress, no summary */
    int device;                   /* --device N (GPU back ends); -1: not given */
    int dry_run;                  /* --dry-run: print the memory plan, build and run nothing */
    int save_conn;                /* --save-connectivity: nrt_conn_save every projection */
    int64_t check_finite;         /* check the states (finite, in range) every K steps: by
                                     default NRT_CHECK_EVERY on every back end;
                                     --check-finite=K; 0: off (--check-finite=off) */
    int plot;                     /* --plot: nrt_plot the output folder in nrt_finish */
    int threads;                  /* --threads N (C simulators; a GPU program's host side);
                                   * 0: not given, the default (nrt_pool_threads);
                                   * nrt_pool_start sets the count it started */
    int64_t own_step;             /* the step after which nrt_own_balance moved the delivery
                                   * owners (0: never); own_busy[0], [1]: the busiest thread's
                                   * measured delivery work over the mean, before and after;
                                   * own_s: its wall seconds */
    double own_busy[2], own_s;
    int own_moved;                /* the rings whose owners moved */
    /* --instances B (rt_instances.c): B > 1 runs instance b = 0 .. B-1 as the run with seed
     * seed + b into <out>/instance_<b>/, each in a child process, --jobs J at a time; or,
     * where the program set `batch` before nrt_init, all B side by side in this process
     * (nrt_instance_open, nrt_instances_close: the CUDA block schedule, one work-group each) */
    int batch;                    /* set by the generated code: it runs a batch itself */
    int64_t instances;            /* B (1: a plain run) */
    int64_t jobs;                 /* --jobs J: at most J instances at a time (default 1) */
    int64_t instance;             /* this run's instance index (0 in a plain run) */
    /* --sweep NAME=V0,V1,... (repeatable: a grid, the last option varying fastest) and
     * --seeds K (rt_set.c): instance b is grid point p = b / K with seed N + b % K, the run
     * --seed N+(b%K) --set NAME_i=V(p's index in sweep i) for each sweep i */
    const char *sweep[NRT_MAX_SWEEPS]; /* the --sweep texts as given */
    int nsweeps;
    int64_t sweep_n[NRT_MAX_SWEEPS]; /* how many values each lists (nrt_sweep_count) */
    int64_t seeds;                /* K: --seeds K; else 1 with --sweep, B with --instances B */
    int seeds_given;              /* --seeds was given */
    int exit_status;              /* what main returns after nrt_init's NRT_EHELP (0, or the
                                   * batch's status: 1 if an instance failed, 130 if stopped) */
    /* checkpoints (rt_ckpt.c; docs/cli.md §2.5) */
    uint64_t model_hash;          /* set by the generated code: hash of the program's IR */
    const char *ckpt_dir;         /* --checkpoint DIR, else NULL */
    int64_t ckpt_step;            /* --checkpoint-at: write after this many steps; -1: never */
    int ckpt_stop;                /* --stop-after-checkpoint */
    int64_t ckpt_written;         /* the step of the checkpoint written, -1: none */
    const char *resume_dir;       /* --resume DIR, else NULL */
    int64_t start_step;           /* the checkpoint's step on --resume, else 0 */
    int start_phase;              /* ... and its phase index (IrModel.phases), else 0 */
    int ckpt_parts;               /* a distributed GPU program: a checkpoint is a part per rank
                                   * (nrt_mpi_ckpt_parts); else a folder with rank1/ is refused */
    /* run state */
    int64_t step;                 /* steps completed so far */
    volatile int stop_requested;  /* the signal number of SIGINT/SIGTERM: finish the step,
                                   * flush, stop */
    char errmsg[512];             /* message of the last failing call */
    /* bookkeeping */
    nrt_pop_stat *pops;           /* the populations (nrt_pop_register), grown as they come */
    int npops, cap_pops;
    nrt_rec *recs;                /* linked list of open recordings */
    double t0;                    /* wall clock at nrt_init (s) */
    double t_build, t_construct, t_simulate; /* seconds spent in each phase */
    double t_last_progress;
    int interrupted;              /* stopped early (signal or error) */
    /* runtime-private (added by the runtime; generated code leaves them alone) */
    char out_dir_buf[4096];       /* storage for the default out_dir */
    double t_progress_start;      /* wall clock of the first nrt_progress call */
    int64_t progress_start_step;  /* ctx->step at that call */
    int progress_started;
    int progress_line_open;       /* a '\r' progress line is on the terminal */
    int finished;                 /* nrt_finish has run */
    nrt_status finish_status;     /* what it returned */
    int failed;                   /* nrt_fail stopped the run: errmsg says why (manifest) */
    struct nrt_faults {           /* injected faults (rt_fault.c, docs/robustness.md) */
        int write;                /* $NEUROC_FAULT_WRITE_AFTER is set */
        int build_signal;         /* $NEUROC_FAULT_BUILD_SIGNAL: the signal; 0: none */
        uint64_t write_left;      /* bytes the recordings may still add to their files */
        uint64_t device_mem;      /* $NEUROC_FAULT_DEVICE_MEM; 0: none */
        int64_t cluster_stall;    /* $NEUROC_FAULT_CLUSTER_STALL: the step whose spike words the
                                   * CUDA cluster schedule acts as if it had not had; -1: none */
    } fault;
    struct nrt_mem_item {         /* the memory plan (nrt_mem_add), first NRT_MAX_POPS items */
        const char *what;
        double count, bytes;
    } mem[NRT_MAX_POPS];
    int nmem;                     /* items added (may exceed NRT_MAX_POPS) */
    struct nrt_rplan_item {       /* the recordings' sizes (nrt_rec_plan), first NRT_MAX_POPS */
        const char *file;
        char kind;                /* 's' spikes, 'v' state, 'r' rate */
        double rows, bytes;
        int how;                  /* nrt_recsize.h: NRT_SIZE_EXACT, _AT_MOST, _ESTIMATE */
    } rplan[NRT_MAX_POPS];
    int nrplan;                   /* items added (may exceed NRT_MAX_POPS) */
    int64_t rec_row_max;          /* the most work of one state row ('v' items: its .csv
                                   * values, or .npy values / NRT_NPY_COST): a GPU program's
                                   * default --threads (rt_pool.c) */
    double rplan_sure, rplan_total; /* bytes: exact and at-most items; every item */
    double max_rec_bytes;         /* --max-record-size: warn above it (default 1 GiB; 0: never) */
    int ignore_free;              /* --ignore-free-space: run even if the recordings do not fit */
    double mem_total;             /* bytes of every item */
    /* --bench (rt_bench.c) */
    const char *bench;            /* --bench: "-" (stdout), --bench=FILE; NULL: no report */
    const char *schedule;         /* set by a GPU program: the schedule it runs */
    char device_name[256];        /* set by nrt_gpu_open */
    double dev_bytes, dev_peak;   /* device memory allocated now, and at most (nrt_gpu_alloc) */
    double cpu_sim0, cpu_simulate; /* process CPU time (s) at nrt_sim_begin, and spent until nrt_sim_end */
    double sim_t0;                /* nrt_now() at nrt_sim_begin; 0 before (nrt_fail's t_simulate) */
    double t_drain;               /* a GPU program's host: seconds in its drains of the chunks
                                   * but their reads from the device (--bench host_drain_s) */
    int64_t step0;                /* the first step of the time loop (start_step: 0, or --resume's) */
    int64_t *spikes0;             /* each population's spike count then (--bench counts from
                                   * it), cap_pops entries */
    struct nrt_proj_stat {        /* per projection (nrt_proj_stat), grown as they come */
        int pre;                  /* index of the presynaptic population in pops */
        double synapses;
    } *projs;
    int nprojs, cap_projs, projs_lost; /* projs_lost: a stat dropped (out of memory) */
    struct nrt_stage_stat {       /* construction stages (nrt_stage), grown as they come */
        const char *what;         /* "AA: connectivity": the caller's string, kept */
        double s;                 /* wall seconds */
    } *stages;
    int nstages, cap_stages, stages_lost; /* stages_lost: a stage dropped (out of memory) */
    /* declared views (nrt_view_register): the summary, manifest.json and the plots report
     * each; view_spikes, set by the generated code, says it counts their spikes (else the
     * summary prints "-" and the manifest null) */
    nrt_view_stat *views;         /* grown as they come */
    int nviews, cap_views;
    int view_spikes;
    struct nrt_conn_saved {       /* files nrt_conn_save wrote (manifest.json, plots), grown
                                   * as they come */
        const char *name;         /* the projection */
        int64_t synapses;
    } *conn_saved;
    int nconn_saved, cap_conn_saved;
} nrt_ctx;

/* --sweep and --seeds (rt_set.c): nrt_sweep_count checks every sweep (each value as --set
 * checks it, no parameter twice), fills ctx->sweep_n and returns the number of grid points
 * (1 without --sweep; 0 with errmsg when one is wrong). nrt_sweep_apply sets, for instance
 * b, each swept parameter to its value at point b / ctx->seeds (NRT_OK; nothing without
 * --sweep). nrt_instance_seed is instance b's seed: ctx->seed + b % ctx->seeds. */
int64_t nrt_sweep_count(nrt_ctx *ctx);
nrt_status nrt_sweep_apply(nrt_ctx *ctx, int64_t b);
uint64_t nrt_instance_seed(const nrt_ctx *ctx, int64_t b);
/* A batch in one process (ctx->batch; parent is the context nrt_init filled): make `child`
 * the context of instance b, the run with seed nrt_instance_seed(parent, b) (with --sweep:
 * its values of the parameters, in a table of run-time parameters of its own) into
 * <out>/instance_<b>/ (created), quiet; the first call prints the batch's header unless
 * parent->quiet. The
 * parent keeps the signal handlers: the program passes its stop_requested on. NRT_EIO
 * (errmsg in child) when the folder cannot be made. */
nrt_status nrt_instance_open(const nrt_ctx *parent, int64_t b, nrt_ctx *child);
/* After nrt_finish of each of the n instances (kids[b], opened by nrt_instance_open):
 * print a line per instance, write <out>/manifest.json listing them (as a batch of
 * processes does) and set parent->exit_status (0; 1 if one failed; 130 if stopped). */
nrt_status nrt_instances_close(nrt_ctx *parent, nrt_ctx *const *kids, int64_t n);

/* Run fn(i, arg) once for each i in 0 .. n-1, on up to `threads` threads at a time (0: the
 * CPUs online; the caller's thread is one of them; rt_par.c), in no fixed order: fn must not
 * share mutable state across indices. Returns the smallest i for which fn returned nonzero,
 * or -1 when none did. Programs calling it link with -pthread. */
int64_t nrt_parallel(int64_t n, int threads, int (*fn)(int64_t i, void *arg), void *arg);

/* The thread pool of a C simulator and of a GPU program's host side (rt_pool.c; programs
 * calling it link with -pthread). nrt_pool_start starts ctx->threads threads (0: the CPUs
 * this process may use, divided among the --jobs instances or the MPI ranks of this host, at
 * most one per 5,000 neurons, or for a GPU program one per 1,024 values of its largest state
 * row and 1 where no row has 2,048; at most NRT_MAX_THREADS) and
 * sets ctx->threads to the count, the calling thread being thread 0; NRT_EIO with errmsg
 * if one cannot start. nrt_pool_run(fn, arg, work) calls fn(arg, t, T) once for every
 * t = 0 .. T-1 (T = ctx->threads), each on thread t, or all on the calling thread one after
 * another where `work` (the neurons or synapses the calls visit) is too little to hand over
 * or the caller is not the thread that started the pool, and returns when all calls have
 * returned; their writes are then visible to the caller. The parts are the same either way:
 * fn's result must depend on (t, T) only. One pool per process; nrt_pool_stop joins its
 * threads (a C program calls it on every way out, and nrt_pool_start registers it with
 * atexit; a second call does nothing). */
nrt_status nrt_pool_start(nrt_ctx *ctx);
void nrt_pool_run(void (*fn)(void *arg, int t, int T), void *arg, double work);
void nrt_pool_stop(void);
/* The threads nrt_pool_start will start for ctx (its --threads, or the default). */
int nrt_pool_threads(const nrt_ctx *ctx);
/* The thread of T owning index c of [lo, lo + len) split into T ranges [lo + len t / T, ...). */
static inline int nrt_owner(int64_t c, int64_t lo, int64_t len, int T)
{
    int t = len > 0 ? (int)(((c - lo) * T) / len) : 0;   /* a guess, at most one range off */
    t = t < 0 ? 0 : (t >= T ? T - 1 : t);
    while (t > 0 && c < lo + len * t / T)
        t--;
    while (t < T - 1 && c >= lo + len * (t + 1) / T)
        t++;
    return t;
}

/* The synapses of a procedural projection's rows on T threads (c_proc.c): thread t regenerates
 * the rows of its share of the spikes into bufs[t T + u], the entries onto posts thread u owns,
 * in spike and row order; thread u then adds bufs[t T + u] for t = 0 .. T-1 in that order: the
 * one-thread order. nrt_pbufs_new: T x T empty buffers, freed by nrt_pool_stop (NULL and errmsg
 * if out of memory). nrt_pbuf_push may run on any thread, each buffer on one; a buffer that
 * cannot grow drops the entry and is marked, and nrt_pbufs_check (after the rows) reports it
 * (NRT_ENOMEM with errmsg). */
typedef struct nrt_pent {
    int32_t post, slot;           /* the post (in the projection's post view), the ring slot */
    double w;                     /* the weight (a float weight converts exactly) */
} nrt_pent;
typedef struct nrt_pbuf {
    nrt_pent *e;
    int64_t n, cap;
    int failed;                   /* an entry was dropped: out of memory */
} nrt_pbuf;
nrt_pbuf *nrt_pbufs_new(nrt_ctx *ctx, int T);
int nrt_pbuf_grow(nrt_pbuf *b);   /* 0, or -1 (b->failed set) */
static inline void nrt_pbuf_push(nrt_pbuf *b, int64_t post, int64_t slot, double w)
{
    if (b->n == b->cap && nrt_pbuf_grow(b) != 0)
        return;
    b->e[b->n].post = (int32_t)post;
    b->e[b->n].slot = (int32_t)slot;
    b->e[b->n++].w = w;
}
nrt_status nrt_pbufs_check(nrt_ctx *ctx, const nrt_pbuf *bufs, int T);

/* The spike list of a population stepped by T threads, thread t having listed tn[t] spikes
 * at spk + len t / T (len: the neurons stepped): moved together in thread order, so the list
 * is the one a single thread makes; returns its length. */
int64_t nrt_spikes_join(int64_t *spk, int64_t len, const int64_t *tn, int T);

/* Parse argv (--out DIR, --seed N, --quiet, --instances B, --help; for backend "cuda" and
 * "opencl" also --device N and --list-devices), install SIGINT/SIGTERM handlers that set
 * ctx->stop_requested, create the output folder. NRT_EHELP after printing help (or the
 * device list) to stdout, and after running a batch of --instances (main then returns
 * ctx->exit_status; in each instance's process nrt_init returns NRT_OK as for a single run;
 * with ctx->batch set it returns NRT_OK and the program runs the batch itself);
 * NRT_EINVAL with errmsg on a bad option; NRT_EIO if the folder cannot be made;
 * NRT_EDEVICE if --list-devices finds no driver or device. */
nrt_status nrt_init(nrt_ctx *ctx, int argc, char **argv);

double nrt_now(void);             /* monotonic wall clock, seconds */

/* `--set NAME=VALUE` (rt_set.c): finds NAME in ctx->params and stores VALUE, a number with
 * a unit of the parameter's dimension ("15ms", "-60 mV", "2 steps"; a bare 0 fits any), in
 * internal units. NRT_EINVAL with errmsg for a malformed argument, an unknown name (the
 * message lists the valid ones), a wrong dimension (naming the expected one) or a
 * non-integral value of an int parameter. nrt_init calls it for each --set. */
nrt_status nrt_param_set(nrt_ctx *ctx, const char *arg);
/* Print the run-time parameters with their values to stdout (part of --help). */
void nrt_param_usage(const nrt_ctx *ctx);
/* The per-neuron run-time parameters ks[0 .. n) of one array: the r-th of those that --set
 * gave, in the order of the command line (so that a later --set of an overlapping view
 * wins), or NULL when fewer than r + 1 were given. Value j of its target (neuron
 * offset + j of the population): nrt_param_at. */
const nrt_param *nrt_param_nth(const nrt_ctx *ctx, const int *ks, int n, int r);
double nrt_param_at(const nrt_param *p, int64_t j);

/* Register a population for the summary; returns its index. The generated code indexes
 * ctx->pops by the population's number without checking the result, so a failure (out of
 * memory) prints the message and exits with status 1. */
int nrt_pop_register(nrt_ctx *ctx, const char *name, int64_t size);
/* Register a declared view of population `pop` (its index) for the summary and manifest;
 * returns its index; a failure as nrt_pop_register's. */
int nrt_view_register(nrt_ctx *ctx, const char *name, int pop, int64_t offset, int64_t size);
/* Free the tables a context grew (populations, views, construction stages, saved
 * connectivity, projection stats) and empty them. A simulator's context lives until the
 * process ends and needs no call; one that ends before (a test's, on the stack) does. */
void nrt_ctx_free(nrt_ctx *ctx);

/* Host memory: zeroed; NULL with errmsg naming `what` and the size on failure. */
void *nrt_alloc(nrt_ctx *ctx, size_t bytes, const char *what);
void nrt_free(void *p);

/* {===== Connectivity ===== */

typedef enum nrt_rule {
    NRT_ALL_TO_ALL = 1,
    NRT_ONE_TO_ONE,
    NRT_FIXED_PROB,               /* each pair independently with probability p */
    NRT_FIXED_INDEGREE,           /* each post neuron gets exactly k presynaptic partners */
    NRT_FIXED_OUTDEGREE,          /* each pre neuron gets exactly k postsynaptic partners */
    NRT_FIXED_TOTAL,              /* k synapses, each pair drawn uniformly */
    NRT_PAIRS                     /* rows from the model's row function (prob, within, where) */
} nrt_rule;

/* NRT_PAIRS: writes the posts of row i, ascending, to out (when out is not NULL) and
 * returns how many; key0 = nrt_seed_key(seed). Generated by neuroc for each such projection. */
typedef int64_t (*nrt_row_fn)(int64_t i, uint32_t key0, int32_t *out);

typedef struct nrt_conn_spec {
    nrt_rule rule;
    int64_t n_pre, n_post;        /* sizes of the pre and post targets */
    double p;                     /* NRT_FIXED_PROB */
    int64_t k;                    /* NRT_FIXED_IN/OUTDEGREE: degree; NRT_FIXED_TOTAL: total */
    int autapses;                 /* allow i -> i where pre and post overlap */
    int multapses;                /* allow repeated pairs (NRT_FIXED_INDEGREE) */
    int same_base;                /* pre and post are views of one population */
    int64_t pre_offset, post_offset; /* view offsets in that population (autapse test) */
    uint64_t seed;
    uint32_t proj_id;             /* low 24 bits of the RNG stream */
    nrt_row_fn row;               /* NRT_PAIRS on the host */
    const char *row_kernels;      /* NRT_PAIRS on a device: kernels nc_rows_count_<name> and
                                   * nc_rows_fill_<name> of the loaded program */
} nrt_conn_spec;

/* Synapses by presynaptic row; within a row, post indices ascend (multapses adjacent), except
 * for NRT_FIXED_TOTAL, whose rows keep their draw order (rt_conn.c). Synapse s of row i is
 * identified by (i, s - row_ptr[i]) for per-synapse random draws. */
typedef struct nrt_csr {
    int64_t n_pre, n_post;
    int64_t nnz;
    int64_t *row_ptr;             /* n_pre + 1 */
    int32_t *col;                 /* nnz post indices, local to the post target */
} nrt_csr;

nrt_status nrt_conn_build(nrt_ctx *ctx, const nrt_conn_spec *spec, nrt_csr *out);
void nrt_csr_free(nrt_csr *c);
/* Rows [*a, *b) of c: part t of T by equal shares of its synapses (whole rows; the parts of
 * t = 0 .. T-1 cover every row once, in order). */
void nrt_rows_part(const nrt_csr *c, int t, int T, int64_t *a, int64_t *b);
/* The synapses of a CSR by the thread that delivers them: thread t of T owns the posts
 * [lo + (hi - lo) t / T, lo + (hi - lo) (t + 1) / T) (lo may be negative: the generated code
 * gives every projection into one delay ring the same owners, by the ring's neurons), and a
 * column outside [lo, hi) the nearest range's thread. Row i's synapses
 * of thread t are seg[i (T + 1) + t] .. seg[i (T + 1) + t + 1] - 1: synapse indices where
 * perm is NULL (every row ascending by post: found by bisection), else positions q in perm,
 * synapse row_ptr[i] + perm[q], perm listing each row's synapses (by their rank in the row)
 * grouped by thread and in row order within a thread. So a
 * thread adding its synapses' values into its posts adds them in the order of the row, and
 * each post's sum is the one-thread sum, bit for bit. The CSR is not reordered (but by
 * nrt_split_group). With
 * T <= 1 seg and perm are NULL. nrt_split_build: NRT_ENOMEM (errmsg) if out of memory,
 * NRT_EINVAL for a row of more than 2^32 synapses. */
typedef struct nrt_split {
    int T;
    int64_t *seg;                 /* n_pre (T + 1) bounds, or NULL */
    uint32_t *perm;               /* nnz ranks in their row, or NULL (rows sorted, or grouped) */
    void *w;                      /* grouped (nrt_split_group): the values moved with the */
    int wsize;                    /* columns, w of wsize bytes and d, kept grouped by */
    int32_t *d;                   /* nrt_own_balance */
    int grouped;
} nrt_split;
nrt_status nrt_split_build(nrt_ctx *ctx, const nrt_csr *c, int64_t lo, int64_t hi, int T, nrt_split *out);
void nrt_split_free(nrt_split *sp);
/* Where sp has ranks (unsorted rows): each row of c, its weights w (wsize bytes each) and
 * delays d (or NULL) moved into the ranks' order, once -- thread t's synapses of a row then
 * lie together, each post's in row order, so a delivery adds the same sums, bit for bit --
 * and the ranks freed (sp->perm NULL, sp->grouped set; seg now bounds the rows' synapses
 * directly). For a simulator's delivery after --save-connectivity has written the rows in
 * their own order. NRT_ENOMEM (errmsg) without scratch memory, the rows unchanged. */
nrt_status nrt_split_group(nrt_ctx *ctx, nrt_csr *c, nrt_split *sp, void *w, int wsize, int32_t *d);
/* base[t] (t = 0 .. T, T = sp->T or 1 without bounds): the synapses of c that threads 0 ..
 * t - 1 visit, so that thread t may list its own at base[t] .. base[t + 1] - 1. */
void nrt_split_base(const nrt_split *sp, const nrt_csr *c, int64_t *base);
/* Delivery owners by measured work (rt_pool.c; docs/architecture.md, "Threads"). A C simulator
 * on T > 1 threads starts with thread t owning the neurons [R t / T, R (t + 1) / T) of each
 * ring of R neurons; it counts each presynaptic neuron's spikes for nrt_own_warmup() steps,
 * then calls nrt_own_balance once with every projection delivered on the threads: the parts
 * adding into one ring (the same `ring`) get the new owners together, bounds at equal shares
 * of the ring's measured events (a part's synapses of each row spiking cnt[i] times, counted
 * at their post), and their splits (sp) rebuilt for them in place. `step`:
 * the steps counted. Any owners give the same bits: each
 * ring neuron keeps one writer, adding in the one-thread order. Sets ctx->own_step,
 * own_busy and own_s; NRT_ENOMEM (errmsg) as nrt_split_build. */
typedef struct nrt_own_part {
    const void *ring;             /* the ring it adds into */
    int64_t R;                    /* that ring's neurons */
    int64_t base;                 /* post p of the projection is ring neuron base + p */
    nrt_csr *c;                   /* its rows (moved where the split is grouped) */
    nrt_split *sp;                /* built for the owners [R t / T, ...); rebuilt */
    const int32_t *cnt;           /* the warm-up's spikes of row i: cnt[i] */
} nrt_own_part;
nrt_status nrt_own_balance(nrt_ctx *ctx, nrt_own_part *v, int n, int64_t step);
/* The warm-up: $NEUROC_THREADS_WARMUP steps if set (at most 2^31 - 1), else 0: the owners
 * never move (on the device host's 16 threads the microcircuit ran 3.8 s with moved owners and
 * 3.5 s without, docs/performance.md "Threads"). dt_ms is unused. */
int64_t nrt_own_warmup(double dt_ms);
/* The bytes nrt_split_build will take for T threads over spec's synapses (the memory plan,
 * --dry-run): the bounds, and the ranks where the rule leaves rows unsorted (fixed_total). */
double nrt_split_bytes(const nrt_conn_spec *spec, int T);
/* NRT_FIXED_TOTAL: the row pointers of spec's synapses (row_ptr, n_pre + 1 entries): the
 * multinomial split of the k synapses over the rows that nrt_conn_build and the device build
 * use, so that a procedural projection regenerates the same rows (rt_conn.c, FIXED_TOTAL).
 * Errors as nrt_conn_build. */
nrt_status nrt_conn_total_rows(nrt_ctx *ctx, const nrt_conn_spec *spec, int64_t *row_ptr);
/* A Binomial(n, p) variate, exact up to rounding, a function of (key0, stream, element)
 * alone: its uniforms are nrt_rng(key0, stream, element, c, 0, 1), c = 0, 1, .. (rt_binom.c).
 * 0 for n <= 0 or p <= 0 (or NaN), n for p >= 1. */
int64_t nrt_binomial(uint32_t key0, uint32_t stream, uint32_t element, int64_t n, double p);
/* The column index of c (plastic projections' post handlers): cptr (n_post + 1), csyn and
 * cpre (nnz each) such that csyn[cptr[j]] .. csyn[cptr[j + 1] - 1] are the synapses onto
 * post neuron j in ascending order and cpre[q] the row of csyn[q]: a stable counting sort by
 * column (rt_conn.c). NRT_ENOMEM with errmsg when its scratch memory is not there. */
nrt_status nrt_col_index(nrt_ctx *ctx, const nrt_csr *c, int64_t *cptr, int64_t *csyn, int64_t *cpre);

/* Synapses from an edge file (.csv or .npy; layouts in docs/language.md, from_file) of a
 * projection of n_pre x n_post neurons. *w and *delay receive the file's weight and delay
 * columns in CSR order (nrt_alloc'd; the caller frees them), or NULL where the file has none;
 * need_w: a missing weight column is an error. NRT_EINVAL with errmsg "FILE:LINE: problem"
 * for malformed files and out-of-range indices, NRT_EIO when the file cannot be read. */
/* The spikes of a population of n neurons (`spike when from_file`) read from a .csv or .npy
 * spike file (layouts and rounding rule in rt_edges.c and docs/language.md §5) as CSR by
 * step: (*step_ptr)[s] .. (*step_ptr)[s + 1] index *idx, the neurons that fire in step s,
 * ascending and distinct, for s < n_steps (times of later steps are dropped). Both arrays
 * are nrt_alloc'd (at least one element); the caller frees them. Errors as nrt_conn_file. */
nrt_status nrt_spike_file(nrt_ctx *ctx, const char *path, int64_t n, double dt, int64_t n_steps,
                          int64_t **step_ptr, int32_t **idx, int64_t *nnz);
/* An analog input series (`series`, docs/language.md §5.3) read from a .csv or .npy file
 * (layouts in rt_series.c): *rows samples of *cols columns, row-major, each value times
 * `scale` (the declared unit in internal units) stored as a float (real_size 4) or a double
 * (8) in *values (nrt_alloc'd; the caller frees it). NRT_EINVAL with errmsg "FILE:LINE: problem"
 * (a .csv's bad number "FILE:LINE:COL: ...") for a malformed or empty file and values that are
 * not finite, NRT_EIO when it cannot be read. nrt_series_width: NRT_EINVAL with errmsg unless
 * cols is 1 or n, the neurons of population `pop` that reads the series. */
nrt_status nrt_series_file(nrt_ctx *ctx, const char *path, double scale, int real_size,
                           void **values, int64_t *rows, int64_t *cols);
nrt_status nrt_series_width(nrt_ctx *ctx, const char *path, int64_t cols, const char *pop, int64_t n);
/* The values of a per-neuron file (`--set P.x=@FILE`, rt_edges.c): a .csv of one number a
 * line (blank and '#' lines skipped; a first line that is no number is a header) or a .npy
 * 1-D array (or N x 1) of integers or f4/f8; exactly `want` values into *out (nrt_alloc'd,
 * the caller frees it). Errors "FILE:LINE: what", as nrt_conn_file. */
nrt_status nrt_values_file(nrt_ctx *ctx, const char *path, int64_t want, double **out);
nrt_status nrt_conn_file(nrt_ctx *ctx, const char *path, int64_t n_pre, int64_t n_post,
                         int need_w, nrt_csr *out, double **w, double **delay);

/* Write a projection's synapses to <out_dir>/connectivity_<name>.npy, records
 * [('pre','<i4'), ('post','<i4'), ('w','<f8'), ('delay','<i4')] in CSR order (rows by pre,
 * posts ascending); w holds nnz floats (wsize 4) or doubles (8), delay nnz steps or NULL
 * (one step each). NRT_EIO with errmsg when the file cannot be written. */
nrt_status nrt_conn_save(nrt_ctx *ctx, const char *name, const nrt_csr *c, const void *w,
                         int wsize, const int32_t *delay);

/* The memory plan, made before anything is allocated: `what` ("projection EE") takes
 * `bytes`; count is its synapse count (< 0: not synapses). */
void nrt_mem_add(nrt_ctx *ctx, const char *what, double count, double bytes);
/* The recording plan, with the memory plan: recording `file` of kind 's' (spikes of nidx
 * neurons), 'v' (nvars variables, their names names_len characters together, of nidx
 * neurons or synapses, `estimated`: nidx is an estimate, every `every` steps) or 'r' (a rate,
 * bin `every` steps) will hold nrt_rec_size_of's bytes (nrt_recsize.h) after this run; a
 * window keeps steps [lo, hi) (hi 0: none), t0: a state recording's row at t = 0. */
void nrt_rec_plan(nrt_ctx *ctx, const char *file, char kind, int nvars, double names_len, int64_t nidx,
                  int64_t every, int estimated, int64_t lo, int64_t hi, int t0);
/* With --dry-run, print the plan to stdout (an item per line and the total, then the
 * recordings' sizes and the output folder's free space) and return NRT_EHELP (exit 0).
 * Else, when the state and rate recordings need more than the output folder's free space
 * (statvfs, or $NEUROC_FREE_BYTES), NRT_EIO with errmsg unless --ignore-free-space; a
 * warning on stderr when every recording together passes --max-record-size. Else, when device_bytes > 0 and the total (times the instances of a
 * batch side by side, ctx->batch) exceeds 90% of it, NRT_EDEVICE with errmsg naming the
 * need, the device's memory and the largest item. Else NRT_OK. */
nrt_status nrt_mem_check(nrt_ctx *ctx, double device_bytes);

/* Bytes a projection's synapses will take (row pointers, columns, and per synapse
 * `syn_bytes` more: weights, delays), from the spec alone: exact for every rule but
 * fixed_prob (the expected count); for NRT_PAIRS it runs the row function's count pass.
 * *nnz receives the synapse count it assumed. */
double nrt_conn_bytes(const nrt_conn_spec *spec, double syn_bytes, double *nnz);

/* ===== Connectivity =====} */

/* {===== Recording ===== */

/* Spikes of a population (or view): rows (t in ms, neuron index). Format from the
 * extension: .npy (structured dtype [('t','<f8'),('i','<i4')]) or .csv ("t_ms,i"). */
nrt_rec *nrt_rec_spikes(nrt_ctx *ctx, const char *file, const char *pop, int64_t pop_size);
nrt_status nrt_rec_spike(nrt_rec *r, int64_t step, int32_t index);
/* Sorts each of len steps' spike indices ascending: step k's are ids[ends[k - 1] .. ends[k])
 * (running ends; step 0's from 0), as a GPU program's drain reads them back in the order its
 * atomics listed them. On the pool of --threads (rt_pool.c) where they are 2,048 or more,
 * part t of T the steps [len t / T, len (t + 1) / T). */
void nrt_spikes_sort(int32_t *ids, const int32_t *ends, int64_t len);
/* The recording r is of the declared view `view` (NULL: an unnamed slice) at `offset` in
 * its base population: manifest.json names it ("view", "offset"). Does nothing on NULL r. */
void nrt_rec_view(nrt_rec *r, const char *view, int64_t offset);
/* The same into a SONATA spike file <out_dir>/<file> (.h5): datasets
 * /spikes/<pop>/timestamps (float64, attribute units = "ms") and node_ids (uint64, the
 * index within the recorded population or view), group attribute sorting = by_time.
 * Only in a runtime built with HDF5 (rt_hdf5.c); the simulator then links libhdf5. */
nrt_rec *nrt_rec_spikes_h5(nrt_ctx *ctx, const char *file, const char *pop, int64_t pop_size);

/* State variables of selected neurons every `every` steps: rows of time plus one column per
 * (variable, neuron). .npy: structured dtype [('t','<f8'), (var,'<f8',(nidx,)), ...];
 * .csv: "t_ms,V[0],V[2500],...". `units` are the variables' units as text ("mV"). */
nrt_rec *nrt_rec_state(nrt_ctx *ctx, const char *file, const char *pop, int nvars,
                       const char *const *vars, const char *const *units, int nidx,
                       const int64_t *idx, int64_t every);
/* `vals` holds nvars * nidx values, variable-major. Time of the row is (step + 1) * dt.
 * Every call writes one row: the caller decides when a sample is due (see nrt_rec_due). */
nrt_status nrt_rec_state_row(nrt_rec *r, int64_t step, const double *vals);
/* 1 when `step` is a sampling step of the state recording r (step % every == 0, and
 * lo < step <= hi when it has a window), else 0. */
int nrt_rec_due(const nrt_rec *r, int64_t step);
/* `record ... from A to B`: only the spikes and samples of the steps s with lo <= s < hi
 * (times (lo*dt, hi*dt]) are written (the others are dropped by nrt_rec_spike and
 * nrt_rec_state_row); manifest.json gives "window_steps": [lo, hi]. NULL r: nothing. */
void nrt_rec_window(nrt_rec *r, int64_t lo, int64_t hi);
/* A subset of c's synapses for recording `file`: pre_post = {pre_lo, pre_hi, post_lo,
 * post_hi} (the synapses of rows [pre_lo, pre_hi) whose post index is in [post_lo,
 * post_hi), in CSR order), or, with nsample > 0, min(nsample, nnz) synapses evenly spaced
 * in CSR order (synapse m * nnz / k for m < k). Returns their indices (nrt_free them), *n
 * their count; NULL with errmsg when the subset is empty or on out of memory. */
int64_t *nrt_syn_select(nrt_ctx *ctx, const char *file, const nrt_csr *c, const int64_t *pre_post,
                        int64_t nsample, int64_t *n);
/* The recording r of the synapses sel[0..n) of c (opened with nrt_rec_state): their (pre,
 * post) indices go to <out_dir>/<stem>_synapses.npy (dtype [('pre','<i4'),('post','<i4')],
 * <stem> the file name without its extension), which manifest.json names as the
 * recording's "synapses_file". NULL r: nothing (a rank that writes no file). */
nrt_status nrt_rec_synapses(nrt_rec *r, const nrt_csr *c, const int64_t *sel, int64_t n);

/* The population rate of a target (`record rate of T bin B`): the spikes of the `size`
 * neurons [offset, offset + size) of population `pop` (named `target` in the model) per bin
 * of `bin` steps, over size x bin, in Hz; a row (t at the end of the bin, rate) per whole
 * bin. .npy: [('t','<f8'),('rate','<f8')]; .csv: "t_ms,rate_Hz". NULL with errmsg on bad
 * arguments, or when a checkpoint (--checkpoint-at) or a resumed run's first step falls
 * inside a bin. */
nrt_rec *nrt_rec_rate(nrt_ctx *ctx, const char *file, const char *pop, const char *target,
                      int64_t offset, int64_t size, int64_t bin);
/* Add the target's `count` spikes of step `step` (steps in order, each once); at the end of
 * a bin ((step + 1) % bin == 0) write its row. NRT_EIO with errmsg on a write failure. */
nrt_status nrt_rec_rate_add(nrt_rec *r, int64_t step, int64_t count);

/* Flush and close every recording, write manifest.json (with "completed_steps",
 * "interrupted" and the phase timings), free the recordings and restore the signal
 * handlers; with --plot, then nrt_plot the output folder. Safe to call after an error or a signal, and more than once (later calls
 * return the first call's status and do nothing). */
nrt_status nrt_finish(nrt_ctx *ctx);

/* The state check's default interval, the same on every back end (so that a run that fails
 * stops at the same step on each): a check after every step cost 16-18 % of CUBA's and
 * COBA's step on C and 8-18 % of CUBA's, COBA's and the microcircuit's on an H200; every
 * 100th step keeps it within about 1 % (docs/robustness.md, bench/finite_cost.py). */
#define NRT_CHECK_EVERY 100

/* --check-finite found a NaN or infinity in `var` of neuron n of population `pop` after
 * step `step`: errmsg "non-finite value: population P, variable v, neuron n, step s
 * (t = T ms)", T the end of the step. Returns -1, for `return nrt_nonfinite(...)`. */
int nrt_nonfinite(nrt_ctx *ctx, const char *pop, const char *var, int64_t n, int64_t step);

/* The same check found `var` of neuron n outside its declared range (`range(lo, hi)`, a
 * finite value): errmsg "value out of range: population P, variable v, neuron n, step s
 * (t = T ms): above the upper bound B U" (below the lower bound, when not `above`), B the
 * bound in `unit` (omitted when "1"). Returns -1. */
int nrt_outofrange(nrt_ctx *ctx, const char *pop, const char *var, int64_t n, int64_t step,
                   int above, double bound, const char *unit);

/* Stop after an error: print "PROG: error: <errmsg>" to stderr, mark the run interrupted
 * and nrt_finish (its own error printed too, unless it repeats the first); returns 1, the
 * exit status. */
int nrt_fail(nrt_ctx *ctx, const char *prog);
/* Figures of a run folder `dir` (its manifest.json and the recordings it lists; a finished
 * or an interrupted run): raster_<rec>.svg per spike recording, rates.svg (binned rates of
 * every spike recording), state_<rec>.svg per state recording, and index.html showing them
 * with the run's summary (docs/outputs.md). Uses ctx only for errmsg. NRT_EINVAL when the
 * folder has no valid manifest or a recording is not what it says, NRT_EIO when a figure
 * cannot be written, NRT_ENOMEM. */
nrt_status nrt_plot(nrt_ctx *ctx, const char *dir);

/* ===== Recording ===== } */

/* {===== Checkpoints (rt_ckpt.c) ===== */

/* One piece of mutable state: an array written raw to <dir>/<name>.bin (type 0), or a
 * settable scalar written into the header as text (type 'f' float, 'd' double, 'i' int32). */
typedef struct nrt_ckpt_item {
    const char *name;             /* unique in the model: the C name of the storage */
    void *data;                   /* host copy of the contents */
    size_t bytes;
    char type;
} nrt_ckpt_item;

/* Write a checkpoint of the state after ctx->step steps, in run phase `phase`, to
 * ctx->ckpt_dir (created like mkdir -p): the header last, so that a folder with a header
 * is complete. NRT_EIO / NRT_EINVAL with errmsg. */
nrt_status nrt_ckpt_save(nrt_ctx *ctx, int phase, const nrt_ckpt_item *it, int n);
/* Read the checkpoint ctx->resume_dir (its header was checked by nrt_init) into the items
 * and the populations' spike counts. NRT_EIO with errmsg naming the file when an item is
 * missing, unknown, of another size or truncated. */
nrt_status nrt_ckpt_load(nrt_ctx *ctx, const nrt_ckpt_item *it, int n);

/* ===== Checkpoints ===== } */

/* {===== Top-k selection (rt_topk.c) ===== */

/* A candidate of a k-winners-take-all step: `v` is the order-preserving image of its value
 * (nrt_topk_key_f / _d), `draw` its tie-breaking draw, `idx` its neuron index. */
typedef struct nrt_topk_item {
    uint64_t v;
    uint32_t draw;
    uint32_t idx;
} nrt_topk_item;

/* Order-preserving images of float and double values: a < b (as numbers, -0 = +0) exactly
 * when key(a) < key(b). NaN is not a candidate and has no image. */
uint64_t nrt_topk_key_f(float x);
uint64_t nrt_topk_key_d(double x);

/* Reorder it[0..n) so that it[0..k) are the k first items of the total order (v descending,
 * draw descending, idx ascending), in no particular order among themselves. k <= n.
 * Expected O(n) (quickselect with median-of-three pivots). */
void nrt_topk_select(nrt_topk_item *it, int64_t n, int64_t k);
/* The candidates gathered by T threads, thread t having listed tc[t] at it + len t / T (len:
 * the neurons stepped): moved together in thread order, which is the one-thread order (the
 * order nrt_topk_select receives them in); returns their count. */
int64_t nrt_topk_join(nrt_topk_item *it, int64_t len, const int64_t *tc, int T);

/* ===== Top-k selection ===== } */

/* Progress on stderr at most about once a second for runs longer than ~2 s of wall time:
 * percent, simulated time, elapsed wall time, real-time factor; on a terminal as a bar
 * redrawn in place, with the estimated time left. */
void nrt_progress(nrt_ctx *ctx);
/* The simulation phase: nrt_sim_begin returns nrt_now() and notes the process's CPU time;
 * nrt_sim_end(ctx, t0) returns the wall time since t0 and keeps the CPU time spent since
 * (ctx->cpu_simulate, --bench's simulate_cpu_s). */
double nrt_sim_begin(nrt_ctx *ctx);
double nrt_sim_end(nrt_ctx *ctx, double t0);
/* Projection k (0-based, in model order) takes spikes of population `pre` (its index in
 * ctx->pops) and has `synapses` synapses: the memory plan's count first, the built count
 * after construction (rt_bench.c counts synaptic events as spikes x mean out-degree). */
void nrt_proj_stat(nrt_ctx *ctx, int k, int pre, double synapses);
/* A stage of construction ended: adds nrt_now() - t0 to stage `what` (a string that outlives
 * ctx, e.g. a literal "AA: column index"; a stage named again adds up) and returns nrt_now(),
 * the next stage's t0. manifest.json and --bench list the stages (construct_stages_s). */
double nrt_stage(nrt_ctx *ctx, const char *what, double t0);
/* With --bench, the JSON report of this run (rt_bench.c, docs/cli.md): on stdout or into
 * the file --bench=FILE names; an instance of --instances writes <its folder>/bench.json.
 * NRT_EIO with errmsg when the file cannot be written. */
nrt_status nrt_bench(nrt_ctx *ctx);
/* Final summary on stderr: spikes and mean rate per population, build/construct/simulate
 * times, RTF. Nothing when quiet. */
void nrt_report(nrt_ctx *ctx);

/* {===== Load-time numerics ===== */

/* out = exp(A) for an n x n row-major matrix, in double (Pade 13 + scaling and squaring). */
nrt_status nrt_expm(int n, const double *A, double *out);
/* Exact propagator of x' = A x + b over dt, b held constant over the step:
 *   x(t + dt) = Phi x(t) + Psi b,   Phi = exp(A dt),  Psi = integral_0^dt exp(A s) ds.
 * Computed from the exponential of the block matrix [[A, I], [0, 0]] * dt (valid for
 * singular A). Phi and Psi are n x n row-major. */
nrt_status nrt_propagator(int n, const double *A, double dt, double *Phi, double *Psi);

/* ===== Load-time numerics ===== } */

#ifdef __cplusplus
}
#endif
#endif
