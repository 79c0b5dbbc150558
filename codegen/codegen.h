/* codegen.h -- the back-end interface and the layer every back end shares.
 *
 * Back ends turn an IrModel into source text and build it. They see only ir.h: no AST,
 * no units, no ODEs. The shared layer is the indenting writer (out.c) and the printer of
 * IR expressions and statements (cg_print.c), parameterised by a small dialect record so
 * that C, CUDA and OpenCL spell the same IR with their own math names and indexing.
 */
#ifndef NEUROC_CODEGEN_H
#define NEUROC_CODEGEN_H

#include "ir.h"
#include "neuroc.h"

/* --- out.c: deterministic, indenting, brace-balancing writer ------------- */

typedef struct Out {
    StrBuf buf;
    int indent;                   /* current depth */
} Out;

void out_line(Out *o, const char *fmt, ...) NC_PRINTF(2, 3);   /* one indented line */
void out_open(Out *o, const char *fmt, ...) NC_PRINTF(2, 3);   /* "<text> {" and indent */
void out_begin(Out *o);                                         /* a bare "{" block */
void out_close(Out *o);                                         /* "}" */
void out_close_with(Out *o, const char *tail);                 /* "}<tail>" e.g. " else {" */
void out_blank(Out *o);
/* Write the buffer to path; returns 0 on success (errno set otherwise). Asserts balance. */
int out_write_file(Out *o, const char *path);
void out_free(Out *o);

/* --- cg_print.c: IR expressions and statements as C-family text ---------- */

typedef struct CgDialect {
    int dbl;                      /* precision = double */
    const char *real;             /* "double" / "float" / "real" */
    const char *index;            /* neuron index variable in bodies ("n") */
    const char *rng_elem;         /* RNG element, sub and step expressions for draws */
    const char *rng_sub;
    const char *rng_step;
    const char *pre, *post;       /* synapse initialisers: pre and post index variables */
    const char *edge[2];          /* IE_EDGE: an edge file's w and delay of this synapse */
    /* storage spelling of a variable: per-neuron arrays are indexed by `index` */
    void (*var)(const struct CgDialect *d, const IrVar *v, StrBuf *out);
    /* storage spelling of a propagator entry */
    void (*prop)(const struct CgDialect *d, const IrExpr *e, StrBuf *out);
    /* arrivals of projection p for the current neuron (IS_RECV; clears the slot) */
    void (*recv)(const struct CgDialect *d, const IrProj *p, const char *local, Out *o);
    /* the current neuron spikes (IS_SPIKE) */
    void (*spike)(const struct CgDialect *d, const IrPop *pop, Out *o);
    /* synapse handlers: add the value `e` to the receptor input of p (IS_DELIVER) */
    void (*deliver)(const struct CgDialect *d, const IrProj *p, const char *e, Out *o);
    /* plastic synapse code (NULL elsewhere): the synapse index, the presynaptic and
     * postsynaptic neuron within its base population, and, in handlers, the element of
     * the history of `pre { }` states seen at the synapse (NULL: the current state) */
    const char *syn, *pre_n, *post_n, *pre_hist;
    int pre_after;                /* pre_hist indexes `_ha`, the history after `on spike` */
    const char *step;             /* IE_STEP's spelling (NULL: "step") */
    const IrPop *pop;             /* for local names */
    /* NULL, or the spelling of a real constant (IE_CONST) and of a draw's stream (IE_RAND)
     * instead of their values: the C back end's projection families print a slot of their
     * table there (codegen/c/c_family.c) */
    void (*lit)(const struct CgDialect *d, const IrExpr *e, StrBuf *out);
    /* NULL, or cg_row_loops' numbers of the projection spelt as expressions (a C
     * projection family's table, c_family.c) */
    const struct CgRowSpell *row;
    const void *user;
    int cold;                     /* construction code: uniform and normal draws call the
                                     nc_*_cold helpers (cg_rand_helpers), which a GPU
                                     program keeps out of line */
} CgDialect;

/* 1 when the `on post` and `on pre & post` of plastic projection j read the pre { }
 * scope from `<var>_ha`, its history after each step's `on spike` (docs/language.md §9):
 * order pre_first with per-synapse delays and pre { } states. Without delays they read
 * the current state. */
static inline int cg_pre_after(const IrProj *j)
{
    return !j->plast->post_first && j->delay && j->plast->npre;
}

/* The common defaults: real type "real", neuron index "n", draws keyed (n, 0, step),
 * synapse indices i and j; back ends then set their hooks. */
CgDialect cg_dialect(int dbl, const IrPop *pop);
void cg_expr(const CgDialect *d, const IrExpr *e, StrBuf *out);
void cg_block(const CgDialect *d, const IrBlock *b, Out *o);
/* The C type of an IR value in dialect d: real, int64_t (int) or int (bool). */
const char *cg_type_name(const CgDialect *d, IrType t);
/* The storage spelling of v as read by an IE_VAR with `at` (IR_AT_*): d->var with the
 * index each kind of variable uses (neuron, synapse, pre or post scope). */
void cg_var_ref(const CgDialect *d, const IrVar *v, int at, StrBuf *out);
const char *cg_fn_name(const CgDialect *d, IrFn fn);
/* A C literal for v with the dialect's real type ("0.1", "0.1f", "INFINITY"). */
void cg_real(const CgDialect *d, double v, StrBuf *out);
/* Escape s (model text: file names, paths, names) as the contents of a C, CUDA or OpenCL
 * string literal: quotes, backslashes, '?' (no trigraph), control and non-ASCII bytes
 * escaped, and a '/' after '*' written \057, so the result is also safe inside a comment.
 * The one way model text other than checked identifiers reaches generated code. */
void cg_cstring(const char *s, StrBuf *out);

/* A Poisson draw's split for mean lam (docs/language.md §11): m counts of mean l, e0 =
 * nrt_exp(-l), at most kmax steps of inversion each; 0 when lam is not in (0, 2^22], where
 * nc_poisson_k decides at run time. The generated nc_poisson_k computes the same values. */
int cg_poisson_split(double lam, int *m, double *l, double *e0, int *kmax);
/* The loop's cumulative probabilities of counts 0 .. CG_POISSON_TAB - 1 for mean l (F[0] =
 * e0 = e^-l) and the probability *pk of the last, by the operations nc_poisson_m makes, so
 * that nc_poisson_t's comparisons with them find the loop's count. */
enum { CG_POISSON_TAB = 8 };
void cg_poisson_table(double l, double e0, double F[CG_POISSON_TAB], double *pk);

/* The random draws nc_uniform, nc_normal and nc_poisson (the names cg_expr prints for IE_RAND),
 * as functions `qual` of an explicit key (nc_*_k) and macros over the program's `seedkey`, for
 * a C ("static inline") or SIMT ("NC_DEV") program, and nc_uniform_cold and nc_normal_cold
 * (CgDialect.cold) as functions `cold_qual` unless it is NULL. */
void cg_rand_helpers(Out *o, const char *qual, const char *cold_qual, int normal_tr);

/* --- cg_conn.c, cg_proc.c: a projection's connectivity as generated code -- */

const char *cg_rule_name(IrRule r);   /* the runtime's nrt_rule name of a rule (not from_file) */
/* The connectivity spec of a projection as C statements declaring `spec`. */
void cg_conn_spec(Out *o, const IrProj *j);
/* j's part of its device kernels' names (nc_k_syn_<part>, nc_rows_count_<part>): its C name,
 * or its id where the C name is long (an OpenCL driver may name a file after a kernel, as
 * PoCL's cache does, and a file name has at most 255 bytes); buf holds the id. */
const char *cg_kname(const IrProj *j, char buf[16]);

/* The row function nc_row_<proj> of an IR_PAIRS projection, for a C (qual "static") or
 * SIMT ("NC_DEV", outq "NC_G") program. */
void cg_conn_row(Out *o, const CgDialect *d, const IrProj *j, const char *qual, const char *outq);

/* 1 when e reads column col (0: w, 1: delay) of an edge file. */
int cg_uses_edge(const IrExpr *e, int col);

/* Row i's synapses visited in ascending order of post (FIXED_TOTAL: in draw order), as
 * rt_conn.c draws them (cg_proc.c): with i, key0, rank (int64_t, 0) and for FIXED_TOTAL
 * <proj>_rp in scope, the loops bind j and run body(o, arg) per synapse, then rank++.
 * ALL_TO_ALL, ONE_TO_ONE, FIXED_PROB, FIXED_TOTAL and PAIRS only. */
typedef void (*CgRowBody)(Out *o, const void *arg);
/* CgDialect.row: the expressions cg_row_loops prints for a projection's numbers. */
typedef struct CgRowSpell {
    const char *np;               /* post size (int64_t) */
    const char *aut;              /* pre offset - post offset: j == i + aut is an autapse */
    const char *stream;           /* NRT_STREAM_CONNECT's stream of the projection (uint32_t) */
    const char *lp;               /* FIXED_PROB: log1p(-p) (double) */
    const char *rp;               /* FIXED_TOTAL: the row pointers (int64_t *) */
} CgRowSpell;
void cg_row_loops(Out *o, const CgDialect *d, const IrProj *j, CgRowBody body, const void *arg);
/* FIXED_TOTAL: row i's length nc_n and what its draws need (nc_js, nc_a), from <proj>_rp
 * (d NULL) or as d->row spells the numbers; then, in a synapse's scope, `j` from the 32-bit
 * word `word` of its draw (rt_conn.c). */
void cg_total_head(Out *o, const IrProj *j, const CgDialect *d);
void cg_total_post(Out *o, const char *word);

/* --- cg_family.c: projection families (docs/architecture.md, "Projection families") --- */

enum { CG_FAM_MIN = 2 };   /* the fewest members that make a family */
/* One projection's place: its family (-1: none), its index q there, the run of its family's
 * members it is in (unit); its key, and w and delay as templates whose constants are the
 * slots F->x[k] (double), F->r[k] (real), F->ks[k] (uint32_t: draw streams), with the
 * slots' initialisers (xs, rs, ks: "0.1f, 2.5f") and counts. */
typedef struct CgFamCand {
    int fam, q, unit;
    const char *key;              /* NULL: not a candidate */
    uint64_t hash;                /* of key (FNV-1a): compared first */
    const char *wt, *dt;
    const char *xs, *rs, *ks;
    int nx, nr, nk;
} CgFamCand;
/* A run of members a .. b - 1 of family f that are consecutive projections. */
typedef struct CgFamUnit {
    int f, a, b;
} CgFamUnit;
typedef struct CgFamPlan {
    CgFamCand *c;                 /* per projection; NULL: no family (off, or too few) */
    int n;                        /* projections */
    int nfam;
    int *size, *first;            /* per family: members, the first member's projection */
    CgFamUnit *u;                 /* the runs, in projection order */
    int nu;
} CgFamPlan;
/* What the back end adds: the dialects its construction prints w (d) and delay (dd) of j
 * with, and ok (NULL: all) to refuse a projection it keeps per projection. */
typedef struct CgFamHooks {
    void (*dialects)(void *user, const IrModel *m, const IrProj *j, CgDialect *d, CgDialect *dd);
    int (*ok)(void *user, const IrModel *m, const IrProj *j);
    void *user;
} CgFamHooks;
void cg_fam_plan(Compiler *cc, const IrModel *m, const CgFamHooks *h, CgFamPlan *P);
int cg_fam_of(const CgFamPlan *P, const IrProj *j);   /* j's family, or -1 */
/* Projection k a run's first member: the run's length (its projections k, k + 1, ...) and
 * *u its index in P->u; 0 when k is no member. */
int cg_fam_unit(const CgFamPlan *P, int k, int *u);
/* The stretch of projections from k on that are all family members: its length (0: k is
 * none), and the runs of members it holds, P->u[*u0 .. *u1 - 1]. */
int cg_fam_seg(const CgFamPlan *P, int k, int *u0, int *u1);
/* Text both back ends write for a family f whose first member is j0 (c0 its candidate):
 * spec_fam<f>(F, spec), member F's nrt_conn_spec as cg_conn_spec writes a projection's; the
 * slots' fields of its nc_fam<f>_t; a member's slot initialisers (", {...}") appended to b;
 * nc_units[] and X_units(..., u0, u1) for each call X: X_fam<f> of the runs u0 .. u1 - 1 in
 * order ("who" names the back end's file in a comment). */
typedef struct CgFamCall {
    const char *name, *ret, *arg, *pass;   /* "save", "int", "int64_t step, ", "step, " */
} CgFamCall;
void cg_fam_spec(Out *o, const IrProj *j0, int f);
/* mem_fam<f>(a, b)'s opening, to its member's spec and the bytes of a synapse and of its ring
 * (the back end writes the rest and closes it) */
void cg_fam_mem_head(Out *o, const IrProj *j0, int f);
void cg_fam_slot_fields(Out *o, const CgFamCand *c0);
void cg_fam_slot_inits(StrBuf *b, const CgFamCand *c);
void cg_fam_units(Out *o, const CgFamPlan *P, const char *who, const CgFamCall *calls, int ncalls);

/* --- cg_host.c, cg_mem.c, cg_finite.c: parts of every host program ------ */

/* nc_sf_has(ptr, idx, nsteps, step, n): the spike file (CSR by step, nrt_spike_file) lists
 * neuron n in step `step` (a binary search), for a C (qual "static inline", gq "") or SIMT
 * ("NC_DEV", "NC_G ") program; and the model's spike-file constants <pop>_sfn. */
void cg_sf_helper(Out *o, const IrModel *m, const char *qual, const char *gq);
/* nc_series(v, rows, cols, k, lin, step, n): series values v (rows x cols, nrt_series_file)
 * read at step `step` for neuron n (column n, or 0 when cols is 1): sample step / k held, or
 * (lin) linear between it and the next, the last sample held after the end; one text for
 * the C and the SIMT programs (qual, gq as cg_sf_helper), with each series' constants
 * nc_ser<i>_k and nc_ser<i>_lin. Nothing when the model has no series. */
void cg_series_helper(Out *o, const IrModel *m, const char *qual, const char *gq);
/* Series i read at start-up into `void *v` and <cname>_ns, <cname>_nc (nrt_series_file,
 * values as `real`), then (cg_series_check) its columns checked against each population that
 * reads it; both `return st` (an nrt_status named st) on an error. */
void cg_series_read(Out *o, const IrModel *m, int i);
void cg_series_check(Out *o, const IrModel *m, int i);

/* Opens main() with the run context (and nc_model_hash, cg_ckpt_hash_decl) and the
 * populations registered; `before_init`, unless NULL, is a statement run just before
 * nrt_init. */
void cg_main_open(Out *o, const IrModel *m, const char *backend, const char *before_init);
/* --mpi (Backend.check): -1 with an error when the model has a `set` of a state or with an
 * expression (PH_ASSIGN), which distributed programs do not run; else 0. */
int cg_assign_mpi_check(Compiler *cc, const IrModel *m);
/* --mpi: 1 when synapse code reads p's changing variables as presynaptic neurons (a
 * procedural projection's w or delay, a plastic rule's code), so a rank needs the state of
 * neurons that other ranks step. */
int cg_mpi_reads_pre(const IrModel *m, const IrPop *p);
/* --mpi, right after cg_main_open: the ranks (`mpi`), the options that need one rank or a
 * normal simulator refused once, quiet ranks leave a --dry-run (C programs; GPU programs in
 * simt_mpi_host_start, once every rank chose its device, a collective call). ckpt
 * (GPU programs): checkpoints are written and resumed a part per rank (nrt_mpi_ckpt_parts)
 * and --save-connectivity gathered on rank 0 (simt_mpi.c); else both refused with more
 * than one rank. */
void cg_mpi_start(Out *o, int ckpt);
/* The runtime call opening spike recording rec: nrt_rec_spikes_h5 for an .h5 file (a
 * SONATA spike file; the program must then link BuildOpts.hdf5_lib), else nrt_rec_spikes. */
const char *cg_spikes_open(const IrRecord *rec);
/* After recording r is opened: nrt_rec_view naming the view it records (a declared view, or
 * a slice), nothing for a whole population or a projection. */
void cg_rec_view(Out *o, const IrRecord *rec, int r);
/* `<prefix>rec<r> = nrt_rec_rate(...)`: opening the rate recording rec (rec->bin > 0), with
 * `prefix` ("if (root) ", or "") before it; C and GPU programs. */
void cg_rate_open(Out *o, const IrRecord *rec, int r, const char *prefix);
/* The name of recorded variable k of rec (its column in the file). */
const char *cg_rec_var(const IrRecord *rec, int k);
/* The C initialisers of state recording rec's column names and units, appended to vars and
 * units: `"V", "U"` and `"mV", "1"`. */
void cg_rec_columns(const IrRecord *rec, StrBuf *vars, StrBuf *units);
/* `record ... from A to B`: nrt_rec_window on rec<r> once it is open (nothing without a
 * window, so programs without windows stay as they were). */
void cg_rec_window(Out *o, const IrRecord *rec, int r);
/* 1 when m records a state and its state recordings start at t = 0 (IrModel.t0_rows): then
 * the program writes every state recording's row at t = 0, after initialisation
 * (record_initial(); not in a resumed run). */
int cg_state_records(const IrModel *m);
/* 1 when a recording of m is an .h5 file. */
int cg_needs_hdf5(const IrModel *m);
/* 1 when the runtime's writer (nrt_rec_state_row) hands rec's rows to the pool of --threads
 * (--explain): a state row of 2,048 values or more as .csv text, of 16,384 as .npy bytes
 * (rt_internal.h's NRT_NPY_COST), a projection's (its synapses are not known yet) always. */
int cg_rec_row_par(const IrRecord *rec);
/* The run-time parameters (`runtime`, IrModel.rtparams) that write per-neuron values of p's
 * variable rtparams[i].var, when i is the first of them: their indices, in order, into ks
 * ("3, 5") and their count; 0 when i is not the first, or not of p. */
int cg_rt_values_of(const IrModel *m, const IrPop *p, int i, StrBuf *ks);
/* `static void mem_plan(void)` of a host program: nrt_mem_add for every population and
 * projection (cg_mem.c), in the layout of the C back end (gpu = 0) or of the GPU back ends
 * (gpu = 1). Needs ctx, real, nc_row_* and <proj>_file declared before. */
typedef int (*CgMemUnit)(Out *o, const IrModel *m, int k);
void cg_mem_plan(Out *o, const IrModel *m, int gpu, CgMemUnit unit);
/* `unit`, when not NULL, may write the plan of projections k, k + 1, ... itself (the C back
 * end's families) and returns how many it wrote, 0 for none. The delay ring's slots that
 * the plan counts for j (0 where j adds into another projection's ring): */
double cg_mem_slots(const IrModel *m, const IrProj *j);
/* The state check (cg_finite.c): the variables it looks at, its test of a value, the
 * report of a failed one; the C program's check_finite(step). */
int cg_finite_var(const IrVar *v);
int cg_finite_ranged(const IrVar *v);
int cg_finite_any(const IrPop *p);
void cg_finite_ok(const IrModel *m, const IrVar *v, const char *x, StrBuf *out);
void cg_finite_lo(const IrModel *m, const IrVar *v, StrBuf *out);
void cg_finite_report(const IrModel *m, const IrVar *v, const char *x, const char *n,
                      const char *step, const char *how, StrBuf *out);
void cg_finite_c(Out *o, const IrModel *m);

/* --- cg_ckpt.c: checkpoints ---------------------------------------------- */

typedef enum CgCkptWhat {
    CK_VAR,                       /* a variable: per neuron / synapse / pre / post, or a scalar */
    CK_RING,                      /* a projection's receptor-input ring (delays in flight) */
    CK_PRE_HIST,                  /* the history of a pre { } variable, [slot][pre] */
    CK_HIST,                      /* a plastic projection's presynaptic spikes, [slot][k] */
    CK_HIST_N                     /* ... and their count per slot */
} CgCkptWhat;

typedef struct CgCkpt {
    CgCkptWhat what;
    const IrVar *var;             /* CK_VAR, CK_PRE_HIST */
    const IrProj *proj;           /* CK_RING, CK_PRE_HIST, CK_HIST, CK_HIST_N */
    const char *name;             /* the storage's C name, unique: the entry's name */
    int64_t n;                    /* elements: n, times the ring slots D of proj (per = 1),
                                   * or times proj's synapse count (per = 2); scalar: 0 */
    int per;
    const char *ctype;            /* element type in the C program: "real", "int32_t", "int64_t" */
    char scalar;                  /* settable scalar: 'f', 'd' or 'i'; arrays 0 */
} CgCkpt;

int cg_ckpt_list(Compiler *cc, const IrModel *m, CgCkpt **out);
uint64_t cg_ckpt_hash(Compiler *cc, const IrModel *m);
void cg_ckpt_hash_decl(Compiler *cc, Out *o, const IrModel *m);
void cg_ckpt_c(Compiler *cc, Out *o, IrModel *m);

/* --- cg_dump.c: --dump=ir, the lowered model as readable text ------------ */
void cg_dump_ir(IrModel *m, StrBuf *out);

/* --- back ends ------------------------------------------------------------ */

typedef struct BuildOpts {
    const char *output;           /* executable to produce */
    const char *emit_dir;         /* where sources go (kept with --emit-only) */
    int emit_only;
    const char *include_dir;      /* runtime headers */
    const char *lib_dir;          /* libneurort.a */
    const char *cc;               /* C compiler */
    const char *cflags;           /* extra flags for it, split at blanks (cg_cc_argv) */
    int verbose;
    const char *gpu_mode;         /* GPU schedule: auto, block, launch, graph, persistent */
    const char *gpu_arch;         /* CUDA: sm_XX (NULL: the present GPU's, else sm_90) */
    const char *nvcc;             /* CUDA compiler */
    const char *hdf5_lib;         /* libhdf5 to link (a model with .h5 recordings), else "-lm" */
} BuildOpts;

/* A back end: its name, what it is, and the hooks through which the driver (driver/driver.c)
 * and --explain (driver/explain.c) reach it, in the manner of chibicc's and QBE's target
 * records. The back ends are the rows of `backends` (backends.c); nothing above codegen/
 * names one. A NULL hook does nothing: a check that passes, no lines. */
typedef struct Backend {
    const char *name;             /* "c", "cuda", "opencl": --backend NAME */
    int gpu;                      /* runs on a GPU: --gpu-mode picks its schedule */
    /* Before --explain and code generation: refuse what the back end cannot build of m with
     * the options o (a --gpu-mode, --mpi); 0, or -1 diagnosed. */
    int (*check)(Compiler *cc, const IrModel *m, const Options *o);
    /* The target when --gpu-arch is not given (arena-owned); NULL: no target to choose. */
    const char *(*arch_default)(Compiler *cc);
    /* Before emit, with bo complete (its gpu_arch the target): refuse what the back end
     * cannot build of m for that target; 0, or -1 diagnosed. */
    int (*check_target)(Compiler *cc, const IrModel *m, const BuildOpts *bo);
    /* Write the sources into o->emit_dir; returns 0 on success (diagnosed otherwise). */
    int (*emit)(Compiler *cc, IrModel *m, const BuildOpts *o);
    /* Compile and link the emitted sources into o->output. */
    int (*build)(Compiler *cc, IrModel *m, const BuildOpts *o);
    /* --explain, for the target arch (NULL where arch_default is): the back end's lines
     * after the run-time parameters (its schedule, its kernel plan), */
    void (*explain)(Compiler *cc, const IrModel *m, const char *arch);
    /* and its warnings after the model's, numbered from nw + 1; returns the new count.
     * neurons, synapses: the model's totals (synapses estimated, as --explain prints). */
    int (*explain_warn)(Compiler *cc, const IrModel *m, const char *arch, double neurons,
                        double synapses, int nw);
} Backend;

/* --- backends.c: the table of back ends ----------------------------------- */

/* Every back end, NULL-terminated, in the order the messages list them. */
extern const Backend *const backends[];
/* The back end called name, or NULL. */
const Backend *backend_find(const char *name);
/* The one --backend auto picks. */
const Backend *backend_auto(void);
/* The rows of the table (c/backend_c.c, gpu/backend_cuda.c, gpu/backend_opencl.c): named
 * by backends.c alone. */
extern const Backend backend_c;
extern const Backend backend_cuda;
extern const Backend backend_opencl;

/* --- cache.c: the compile cache (key of the emitted build, entries in a folder) --- */
typedef struct CacheKey {
    uint64_t h[2];
} CacheKey;

typedef enum CacheResult {
    CACHE_MISS,                   /* no entry (or the output could not be written) */
    CACHE_HIT,                    /* the executable was copied from the cache */
    CACHE_DAMAGED                 /* an entry exists but fails its size or checksum */
} CacheResult;

const char *cache_dir(Compiler *cc);
int cache_key(Compiler *cc, const char *backend, const BuildOpts *bo, CacheKey *k);
const char *cache_entry(Compiler *cc, const char *dir, const CacheKey *k);
CacheResult cache_fetch(Compiler *cc, const char *entry, const char *output);
int cache_store(Compiler *cc, const char *entry, const char *output);
/* A short answer kept in the cache folder under a key that says what it depends on (the
 * CUDA arch of a GPU, by the GPU's identity): the value (one line, arena-owned) or NULL
 * (none kept, or no cache: --no-cache, NEUROC_CACHE=off). */
const char *cache_memo_get(Compiler *cc, const char *key);
void cache_memo_put(Compiler *cc, const char *key, const char *val);

/* Run a command (argv) and wait; returns its exit status, or -1 if it could not start. */
int cg_run(Compiler *cc, char *const argv[], int verbose);
/* cg_run in two halves, so that commands run side by side: cg_spawn starts it (its process
 * id, or -1), cg_wait waits for it (its exit status, or -1; -1 for pid -1). */
int cg_spawn(Compiler *cc, char *const argv[], int verbose);
int cg_wait(int pid);
/* The C compiler's command line: bo->cc -std=c11 `opt` (CG_OPT_SIM or CG_OPT_HOST)
 * -ffp-contract=off ... -w, the host's flags (cg_host_cflags), bo->cflags split at blanks,
 * then args (NULL-terminated); arena-allocated, for cg_run (no shell: nothing is
 * interpreted). */
char **cg_cc_argv(Compiler *cc, const BuildOpts *bo, const char *opt, const char *const *args);
/* -O3 for the C back end's simulator; -O1 for a GPU back end's host program, which only sets
 * up, launches and writes out (the microcircuit's: 1.1 s of CPU time instead of 2.4 s). */
#define CG_OPT_SIM "-O3"
#define CG_OPT_HOST "-O1"
/* The flags for the CPU neuroc runs on, blank-separated (x86: -mfma, -mavx2 and AVX-512 DQ/VL
 * where it has them; else ""): they change speed only, never a value (no contraction, and
 * nrt_math.h's explicit fma() is correctly rounded with or without them). */
const char *cg_host_cflags(void);

/* Where projection j adds into its ring (IrProj.ring): its post index j plus this; 0 unless
 * receptors merged across views of the base population (docs/language.md §6). */
static inline long long cg_ring_base(const IrProj *j)
{
    return (long long)(j->post.offset - j->ring->ring_off);
}

#endif
