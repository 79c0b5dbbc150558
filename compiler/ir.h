/* ir.h -- the lowered model: what every back end (C, CUDA, OpenCL) consumes.
 *
 * The IR knows nothing of the AST, units or integrators: sema has checked dimensions,
 * ode.c has turned `dynamics` into explicit per-step updates, and instances are fully
 * bound. A population carries one fused per-neuron body (receptors, stimuli, integration,
 * threshold, reset, refractoriness); projections carry connectivity rules and per-synapse
 * initialisers; the program is a list of phases (run N steps / set a value).
 */
#ifndef NEUROC_IR_H
#define NEUROC_IR_H

#include <stdint.h>

#include "units.h"

typedef struct IrExpr IrExpr;
typedef struct IrStmt IrStmt;
typedef struct IrVar IrVar;
typedef struct IrPop IrPop;
typedef struct IrProj IrProj;
typedef struct IrProp IrProp;
typedef struct IrPlast IrPlast;
typedef struct IrTopk IrTopk;

typedef enum IrType { IRT_REAL, IRT_INT, IRT_BOOL } IrType;

/* ORDER: binary operators; ir_binop_c[] in ir.c follows it. */
typedef enum IrBinop {
    IB_ADD, IB_SUB, IB_MUL, IB_DIV, IB_MOD, IB_POW,
    IB_LT, IB_LE, IB_GT, IB_GE, IB_EQ, IB_NE, IB_AND, IB_OR
} IrBinop;

/* ORDER: built-in math functions; ir_builtins[] in ir.c follows it. */
typedef enum IrFn {
    IF_EXP, IF_LOG, IF_SQRT, IF_ABS, IF_MIN, IF_MAX, IF_EXPREL, IF_SIN, IF_COS, IF_TAN,
    IF_TANH, IF_FLOOR, IF_CEIL, IF_ROUND, IF_EXPM1, IF_LOG1P, IF_LOG10, IF_ATAN, IF_SINH,
    IF_COSH, IF_CLIP, IF__COUNT
} IrFn;

/* IR_POISSON: mean in `a`; IR_NORMAL_TR: mean, sd, lo, hi in args[0..3], the bounds given in
 * `bounds` (1: lo, 2: hi), drawn by redrawing (docs/language.md §11) */
typedef enum IrRand { IR_UNIFORM, IR_NORMAL, IR_POISSON, IR_NORMAL_TR } IrRand;
/* A truncated normal redraws at most this many times; attempt r draws at the call's
 * site + (r << 20), and past the last the value is NaN. 4096 << 20 = 2^32: the attempts fill
 * the site's high bits, as the blocks of a Poisson draw do. */
#define IR_REDRAW_MAX 4096

typedef enum IrExprOp {
    IE_CONST,                     /* val */
    IE_VAR,                       /* var: per-neuron array element [n] or scalar */
    IE_LOCAL,                     /* local temporary, by id */
    IE_T,                         /* time at the start of the step (ms) */
    IE_DT,                        /* dt (ms) */
    IE_INDEX,                     /* index within the population (or view) being processed */
    IE_PRE, IE_POST,              /* synapse initialisers: pre and post index */
    IE_BIN,                       /* a op b */
    IE_NEG, IE_NOT,               /* unary */
    IE_CALL,                      /* fn(args) */
    IE_COND,                      /* a ? b : c */
    IE_RAND,                      /* rand kind; stream and site; element/sub/step from context */
    IE_PROP,                      /* propagator entry prop->[which](row, col) */
    IE_EDGE,                      /* from_file: column sub (0: w, 1: delay) of this synapse */
    IE_SFILE,                     /* spike when from_file: the population's spike file lists
                                     this neuron in this step (bool) */
    IE_STEP,                      /* the current step number (int); synapse catch-up only */
    IE_SERIES                     /* `name(t)`: series sub (IrModel.series) at this step, in
                                     this neuron's column (real) */
} IrExprOp;

struct IrExpr {
    IrExprOp op;
    IrType type;
    double val;                   /* IE_CONST */
    IrVar *var;                   /* IE_VAR */
    int local;                    /* IE_LOCAL id */
    int sub;                      /* IrBinop, IrFn, IrRand, or propagator matrix (0..3) */
    uint32_t stream, site;        /* IE_RAND */
    int bounds;                   /* IE_RAND of IR_NORMAL_TR: 1 lo given, 2 hi given */
    IrProp *prop;                 /* IE_PROP */
    int row, col;                 /* IE_PROP */
    IrExpr *a, *b, *c;
    IrExpr **args;                /* IE_CALL */
    int nargs;
    int at;                       /* IE_VAR of a neuron variable in a synapse: IR_AT_* */
    uint32_t height;              /* levels below and including this node (a leaf: 1) */
    uint32_t size;                /* nodes as a tree, a shared subtree counted at each use
                                     (what a printer writes), saturating at UINT32_MAX */
};

/* Whose neuron an IE_VAR reads inside synapse code: the neuron being processed (self), or
 * the synapse's presynaptic or postsynaptic neuron. */
enum { IR_AT_SELF, IR_AT_PRE, IR_AT_POST };

typedef enum IrVarKind {
    IV_STATE,                     /* neuron state */
    IV_PARAM,                     /* parameter that is an array or a settable scalar */
    IV_RSTATE,                    /* receptor state (per post neuron) */
    IV_PREV,                      /* value of a state at the end of the previous step */
    IV_REFR,                      /* refractory countdown in steps (int) */
    IV_SYN,                       /* plastic synapse state, one per synapse */
    IV_PRE,                       /* synapse `pre { }` state, one per presynaptic neuron */
    IV_POST                       /* synapse `post { }` state, one per postsynaptic neuron */
} IrVarKind;

struct IrVar {
    const char *cname;            /* C identifier, unique in the model ("P_V") */
    const char *label;            /* user name for messages and recordings ("V") */
    IrVarKind kind;
    IrType type;
    Dim dim;
    const char *unit;             /* printable unit ("mV") */
    const char *decl_unit;        /* parameters: the unit as declared ("Hz"), or NULL */
    double decl_scale;            /* its value in the internal unit (0.001 for Hz) */
    int per_neuron;               /* 1: array over the population; 0: scalar */
    double init;                  /* scalar initial value */
    int has_lo, has_hi;           /* states: a declared valid range (`range(lo, hi)`) bounds it */
    int nocheck;                  /* neuroc --no-check-finite: the state check leaves it out */
    double lo, hi;                /* the bounds (internal units); a value outside is an error of
                                     the run, like a non-finite one (docs/robustness.md) */
    IrPop *pop;
};

typedef struct IrBlock {
    IrStmt **v;
    int n, cap;
} IrBlock;

typedef enum IrStmtKind {
    IS_ASSIGN,                    /* var = e */
    IS_LOCAL,                     /* declare local (id, type) = e */
    IS_SETLOCAL,                  /* local = e */
    IS_IF,                        /* if (e) body else els */
    IS_SPIKE,                     /* the current neuron spikes this step */
    IS_RECV,                      /* local = arrivals of projection proj for this neuron (cleared) */
    IS_DELIVER                    /* synapse handlers: add e to the receptor input of proj */
} IrStmtKind;

struct IrStmt {
    IrStmtKind kind;
    IrVar *var;
    int local;
    IrType type;
    IrExpr *e;
    IrBlock body, els;
    IrProj *proj;
};

/* Exact propagator: x(t+dt) = Phi x + Psi b, computed at load time from A (n x n
 * expressions over parameters) by nrt_propagator; A_refr (or NULL) is A with the rows of
 * variables frozen while refractory set to zero. */
struct IrProp {
    int id;
    const char *cname;            /* storage prefix ("P_prop0") */
    int n;
    IrExpr **A, **A_refr;         /* n*n, row-major */
    int per_neuron;               /* coefficients depend on per-neuron parameters */
    IrPop *pop;
};

typedef struct IrLocalInfo {
    const char *name;             /* C name */
    IrType type;
} IrLocalInfo;

/* A lattice layout (grid(n0, ..) spacing s [periodic]): neuron index
 * i = c0 + n0 * (c1 + n1 * (c2 + n2 * c3)), coordinate d at (c_d + 0.5) * spacing (um). */
typedef struct IrGrid {
    int ndim;                     /* 1..4; 0: no grid (no positions) */
    int64_t n[4];
    double spacing;               /* um */
    int periodic;                 /* distances wrap around the extent n_d * spacing */
} IrGrid;

struct IrPop {
    int id;
    const char *name;             /* population name ("P") */
    const char *cname;
    const char *model;            /* neuron model name */
    int64_t size;
    IrVar **vars;
    int nvars;
    IrBlock init;                 /* per-neuron initialisation (context: n, RNG NEURON_INIT) */
    IrBlock body;                 /* per-neuron step (context: n, step) */
    IrProp **props;
    int nprops;
    IrLocalInfo *locals;          /* locals of init and body, by id */
    int nlocals, caplocals;
    int has_refractory;
    int has_spikes;               /* the model has a spike condition */
    IrGrid grid;
    IrVar *active;                /* `set P.active` used: settable int scalar (1: active), else NULL */
    IrTopk *topk;                 /* `spike when ... topk(key, k)`, else NULL */
    const char *sfile;            /* `spike when from_file("f")`: absolute path, else NULL;
                                     read at start by nrt_spike_file (CSR by step) */
    int *series;                  /* the series (IrModel.series) its body reads, each once */
    int nseries;
};

/* A k-winners-take-all spike condition (docs/language.md, "Top-k"). The step of the
 * population is split in two: `body` runs for every neuron and ends by writing key[n]
 * (the value of the topk expression) and win[n] (1: a candidate: not refractory, active,
 * and the other terms of the condition hold); then the back end selects, among the
 * candidates whose key is not NaN, the min(k, candidates) largest in the total order
 *   (key descending, tie draw descending, index ascending),
 * tie draw = the first 32-bit word of nrt_rng(seed, stream, n, 0, step, 0), -0 = +0;
 * it sets win[n] = 1 for those and 0 for every other neuron; then `after` runs for every
 * neuron (its spike statement is guarded by win[n]). */
struct IrTopk {
    IrExpr *k;                    /* int, the same for every neuron (constant or settable scalar) */
    IrVar *key, *win;             /* per-neuron real and int */
    uint32_t stream;              /* NRT_STREAM_TIEBREAK << 24 | population id */
    IrBlock after;
};

/* ORDER: nrt_rule in neurort.h (cg_conn.c maps one to the other by name). */
typedef enum IrRule {
    IR_ALL_TO_ALL = 1, IR_ONE_TO_ONE, IR_FIXED_PROB, IR_FIXED_INDEGREE, IR_FIXED_OUTDEGREE,
    IR_FIXED_TOTAL, IR_FROM_FILE,
    IR_PAIRS                      /* pairs visited row by row: prob(expr), within, where */
} IrRule;

typedef struct IrView {
    IrPop *pop;
    int64_t offset, size;
} IrView;

struct IrProj {
    int id;
    const char *name;
    const char *cname;
    IrView pre, post;
    IrRule rule;
    double p;                     /* FIXED_PROB */
    int64_t k;                    /* FIXED_INDEGREE, FIXED_OUTDEGREE; FIXED_TOTAL: the total */
    int autapses, multapses;
    /* IR_PAIRS: candidate posts of row i are all of POST, or, when within > 0, those of
     * the post grid's box around i's position; a candidate is kept when it is not an
     * autapse to drop, cond holds and a pair-keyed draw falls below prob. */
    IrExpr *prob;                 /* per-pair probability (context IE_PRE, IE_POST), or NULL: 1 */
    IrExpr *cond;                 /* per-pair filter (where, dist <= within), or NULL */
    double within;                /* um; 0: no neighbourhood */
    const char *file;             /* IR_FROM_FILE: the edge list (absolute path) */
    IrExpr *w;                    /* per-synapse weight (context: IE_PRE, IE_POST, SYNAPSE_INIT) */
    IrExpr *delay;                /* per-synapse delay in ms, or NULL for one step */
    IrType wtype;
    IrPlast *plast;               /* plastic synapse model, or NULL (static: `w` is delivered) */
    int procedural;               /* rows regenerated at each spike, not stored (static only;
                                   * ALL_TO_ALL, ONE_TO_ONE, FIXED_PROB, PAIRS) */
    /* Merged receptors (sema.c): projections onto one base population whose receptor instances
     * merged into one add into the delay ring of the first of them, `ring` (the projection
     * itself when it has its own); only a ring's owner is read (IS_RECV) and allocated.
     * The ring's slots D are the most any of its projections needs. */
    IrProj *ring;
    int ring_n;                   /* on an owner: the projections adding into its ring (>= 1) */
    int ring_last;                /* the last projection (in projs order) adding into `ring` */
    int ring_delay;               /* on an owner: one of its projections has a delay */
    int64_t ring_off, ring_size;  /* on an owner: the neurons of the base population its ring
                                     holds, its post view's unless projections onto other views
                                     merged into it (then from the first view to the last):
                                     a projection adds at post.offset - ring->ring_off + j */
};

/* A projection whose synapse model has more than `on pre { deliver(w) }`. Its variables
 * and locals belong to `scope`, a pseudo-population (not in IrModel.pops, size 0) that
 * also owns the exact propagators of its dynamics. Blocks run in the order of
 * docs/language.md §9; their context (indices in CgDialect):
 *   syn_init, on_pre, on_step, on_post, on_prepost, syn_step: synapse s, pre i, post j;
 *   pre_init, pre_step, pre_spike: presynaptic neuron i (within the view);
 *   post_init, post_step, post_spike: postsynaptic neuron j (within the view).
 * Handlers read IV_PRE variables as they were at the synapse (delayed, see §7), IV_POST
 * variables and neuron variables (IE_VAR with at = IR_AT_PRE/POST) as they are now. */
struct IrPlast {
    IrPop *scope;
    IrVar **syn, **pre, **post;   /* IV_SYN, IV_PRE, IV_POST variables */
    int nsyn, npre, npost;
    IrBlock syn_init, pre_init, post_init;
    IrBlock on_pre, on_step, on_post, on_prepost;
    IrBlock pre_step, post_step;  /* scope dynamics (and clamps) */
    IrBlock pre_spike, post_spike;/* scope `on spike` */
    IrBlock syn_step;             /* per-synapse dynamics (clock-driven) and clamps */
    /* Event-driven per-synapse dynamics (docs/language.md, "Per-synapse dynamics"): syn_step
     * is then empty, `last` (an IV_SYN int in syn) is the step up to which a synapse's state
     * is current, and syn_catch (context as the handlers, plus `step`) advances it exactly
     * from `last` to `step` and sets last = step. Back ends run syn_catch before each
     * handler, before recording it (step + 1) and at the end of each run phase. */
    int event;
    IrVar *last;
    IrBlock syn_catch;
    /* `order` (docs/language.md §7, §9). pre_first (0, the default): `on pre` of the spikes
     * that reach a synapse in step s + 1 runs in step s's learning phase, before `on post`,
     * and `on post` reads the pre { } scope after its `on spike` of the coincident spikes.
     * post_first: `on pre` runs at the start of step s + 1, after `on post` of step s. */
    int post_first;
    int order_set;                /* sema: `order` was written */
};

/* PH_SET: one constant into a parameter. PH_ASSIGN: `set X.x = expr` (or `set X { .. }`)
 * evaluated per element: for each neuron n of `view` (IE_INDEX: n, the base index), or for
 * each synapse of `proj` (row i, synapse s, post j, rank: the syn_init context), `body` runs:
 * locals take every new value, read from the values before the statement, then the
 * assignments. Draws are keyed (NRT_STREAM_SET << 24 | id, element n or row i, sub 0 or
 * rank, step `at`, site); `t` was folded to at * dt. `owner` owns the body's locals. */
typedef enum IrPhaseKind { PH_RUN, PH_SET, PH_ASSIGN } IrPhaseKind;

typedef struct IrPhase {
    IrPhaseKind kind;
    int64_t steps;                /* PH_RUN */
    IrVar *var;                   /* PH_SET: a settable scalar or per-neuron parameter */
    IrView view;                  /* PH_SET on a per-neuron array, PH_ASSIGN: the neurons affected */
    IrProj *proj;                 /* PH_SET of a plastic synapse's scalar parameter, PH_ASSIGN
                                     of its synapses, else NULL */
    double value;
    int id;                       /* PH_ASSIGN: the set statement's number (its RNG stream) */
    int64_t at;                   /* PH_ASSIGN: the step of the phase boundary */
    IrBlock body;                 /* PH_ASSIGN: per element */
    IrPop *owner;                 /* PH_ASSIGN: owner of body's locals (view.pop or the scope) */
    int params;                   /* PH_ASSIGN: it assigns a parameter (propagators recomputed) */
    const char *what;             /* PH_ASSIGN: "set P.V", for messages */
} IrPhase;

typedef struct IrRecord {
    const char *file;             /* as written in the model */
    int spikes;                   /* 1: spikes; 0: state */
    IrView view;
    IrVar **vars;                 /* state recording */
    int nvars;
    int64_t *idx;                 /* neuron indices (within the base population) */
    int nidx;
    int64_t every;                /* steps */
    IrProj *proj;                 /* synapse state of a plastic projection (vars are IV_SYN) */
    const char *view_name;        /* the declared view recorded (`record spikes of exc`), or NULL */
    int64_t bin;                  /* > 0: a population rate (`record rate of T bin B`), bin in
                                     steps; spikes and vars unset, view the target */
    const char *target;           /* the target as written (population or view name) */
    const char **names;           /* the columns' names when not the vars' labels (receptor
                                     states: `g`, not `E_g`), or NULL */
    /* a subset of proj's synapses (`record w of PROJ[pre a:b, post c:d]`, `[sample k]`):
     * syn_sel 1: the synapses with pre in [pre_lo, pre_hi) and post in [post_lo, post_hi)
     * (indices within the projection's views); 2: nsample of them, evenly spaced in the
     * connectivity order (synapse m * nnz / k); 0: every synapse */
    int syn_sel;
    int64_t pre_lo, pre_hi, post_lo, post_hi, nsample;
    int64_t win_lo, win_hi;       /* `from A to B`: the steps [win_lo, win_hi) whose samples
                                     and spikes are written; win_hi = 0: the whole run */
} IrRecord;

/* A declared view (`population exc = P[0:80]`, an alias `population Q = P` too): the back
 * ends hand the table to the runtime, whose summary and manifest report each view. */
typedef struct IrNamedView {
    const char *name;
    IrView view;                  /* base population, offset in it, size */
} IrNamedView;

/* A run-time parameter (`runtime P.x`, docs/language.md): a settable scalar whose initial
 * value the simulator takes from `--set P.x=VALUE` at start-up, before anything reads it. */
typedef struct IrRtParam {
    const char *name;             /* "P.x", as --set spells it */
    IrVar *var;                   /* IV_PARAM, IRT_REAL or IRT_INT, no weight slot */
    IrView view;                  /* var->per_neuron: the neurons --set gives (a view, or the
                                     whole population); else pop NULL */
    IrProj *proj;                 /* a plastic synapse's scalar (`runtime PROJ.x`), else NULL */
} IrRtParam;

/* An analog input series (`series NAME: UNIT = "f" every STEP [linear]`, docs/language.md
 * §5.3): read at start-up by nrt_series_file into a table of rows x
 * columns reals (values times `scale`), read by IE_SERIES at step s as row s / every (held)
 * or between rows s / every and s / every + 1 (linear), the last row held after the end. */
typedef struct IrSeries {
    const char *name;             /* as declared */
    const char *cname;            /* "nc_ser<index>": <cname>_v the table, _ns its rows, _nc
                                     its columns, _k the steps per sample, _lin the rule */
    const char *path;             /* absolute */
    double scale;                 /* the declared unit in internal units */
    int64_t every;                /* steps per sample (>= 1) */
    int linear;                   /* 1: linear between samples; 0: held */
} IrSeries;

typedef struct IrModel {
    const char *name;             /* model (file) name */
    double dt;                    /* ms */
    uint64_t seed;
    int dbl;                      /* precision = double */
    IrPop **pops;
    int npops;
    IrProj **projs;
    int nprojs;
    IrRecord *recs;
    int nrecs;
    IrPhase *phases;
    int nphases;
    int64_t total_steps;
    const char **notes;           /* --explain lines: integrators chosen and why, plans */
    int nnotes;
    const char **merges;          /* --explain lines: receptor instances merged (sema.c) */
    int nmerges;
    IrRtParam *rtparams;          /* `runtime P.x`: scalars the simulator's --set may change */
    int nrtparams;
    int mpi;                      /* set by the driver for --mpi: emit the per-rank program */
    IrNamedView *views;           /* declared views, in model order */
    int nviews;
    IrSeries *series;             /* `series` declarations, in order */
    int nseries;
    int t0_rows;                  /* state recordings start with the row at t = 0 (sema) */
    int normal_tr;                /* a truncated normal is drawn: emit its helper */
} IrModel;

/* --- ir.c --------------------------------------------------------------- */

struct Compiler;
IrExpr *ir_const(struct Compiler *cc, double v, IrType t);
IrExpr *ir_var(struct Compiler *cc, IrVar *v);
IrExpr *ir_local(struct Compiler *cc, int id, IrType t);
IrExpr *ir_leaf(struct Compiler *cc, IrExprOp op, IrType t);
IrExpr *ir_bin(struct Compiler *cc, IrBinop op, IrExpr *a, IrExpr *b);   /* folds constants */
IrExpr *ir_neg(struct Compiler *cc, IrExpr *a);
IrExpr *ir_not(struct Compiler *cc, IrExpr *a);
IrExpr *ir_call(struct Compiler *cc, IrFn fn, IrExpr **args, int nargs);  /* folds constants */
IrExpr *ir_cond(struct Compiler *cc, IrExpr *c, IrExpr *a, IrExpr *b);
IrExpr *ir_rand(struct Compiler *cc, IrRand kind, uint32_t stream, uint32_t site);
/* Recompute e's height and size from its children's, after setting a child by hand. */
void ir_measure(IrExpr *e);
int ir_is_const(const IrExpr *e, double *v);
/* Copy of e with every IE_VAR in `from` replaced by the matching expression in `to`. */
IrExpr *ir_subst(struct Compiler *cc, IrExpr *e, IrVar **from, IrExpr **to, int n);
int ir_uses_var(const IrExpr *e, IrVar *v);
/* 1 if e reads anything that changes during a run: states, IE_T, IE_RAND, locals. */
int ir_is_time_varying(const IrExpr *e);
int ir_has_per_neuron(const IrExpr *e);
/* Mark (used[id] = 1) the locals block b reads or sets, and (decl[id] = 1) those it declares,
 * nested blocks included; both arrays have the owner's nlocals entries. */
void ir_block_locals(const IrBlock *b, unsigned char *used, unsigned char *decl);

IrStmt *ir_stmt(struct Compiler *cc, IrStmtKind k);
void ir_block_add(struct Compiler *cc, IrBlock *b, IrStmt *s);
int ir_new_local(struct Compiler *cc, IrPop *p, const char *hint, IrType t);
/* The C name of a population or projection: prefix, then the name with each '_' written
 * "_0". Back ends append "_<var>" and "_<suffix>" to it; as a name never has "_" followed
 * by '0', the names of two populations or projections cannot run into each other's
 * (pop "a" var "b_N" is pop_a_b_N, pop "a_b" suffix N is pop_a_0b_N). */
const char *ir_cname(struct Compiler *cc, const char *prefix, const char *name);
IrVar *ir_new_var(struct Compiler *cc, IrPop *p, IrVarKind k, const char *label, IrType t,
                  Dim d, int per_neuron);

extern const char *const ir_builtin_name[IF__COUNT];
extern const int ir_builtin_arity[IF__COUNT];
extern const char *const ir_binop_c[];

#endif
