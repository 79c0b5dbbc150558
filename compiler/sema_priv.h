/* sema_priv.h -- what the passes of semantic analysis share (sema_*.c); not for outside.
 *
 * sema.h is the public entry (sema_lower). Here: the environments (Bind, Env), the model
 * instances being built (Inst, RInst, Stim, PopRef), the analysis state (Sema), the
 * conversion context (Ctx) and the value of a converted expression (Val); then the
 * functions one pass calls in another, sectioned by the file that defines them.
 */
#ifndef NEUROC_SEMA_PRIV_H
#define NEUROC_SEMA_PRIV_H

#include "neuro.h"
#include "sema.h"

typedef enum BindKind { B_VAL, B_DERIVED, B_FUNC, B_MODEL, B_POP, B_PROJ, B_RULE, B_STR, B_SERIES } BindKind;

typedef struct Inst Inst;

typedef struct PopRef PopRef;

typedef struct Bind {
    const char *name;
    BindKind kind;
    SrcLoc loc;
    IrExpr *e;                    /* B_VAL: the value */
    Dim dim;
    IrVar *var;                   /* assignable storage (states), or NULL */
    int port;                     /* 1: an input port (e is its local) */
    int is_param;
    AstNode *ast;                 /* B_DERIVED: expression; B_FUNC/B_MODEL/B_RULE: node */
    struct Env *denv;             /* B_DERIVED: where to evaluate */
    IrExpr *memo;                 /* B_DERIVED: its value as declared (checked without error), */
    int memo_anydim;              /* read at each use, which would otherwise convert it again: */
    struct SynCtx *memo_syn;      /* a chain of n derived values using the previous one twice
                                     cost 2^n conversions (the synapse context must match) */
    int memo_bad;                 /* B_DERIVED: its declaration has an error (reported there,
                                     or muted like every use's would be) */
    PopRef *pop;                  /* B_POP */
    IrProj *proj;                 /* B_PROJ */
    const char *path;             /* B_STR (a string parameter, ast = its string or NULL): the
                                     absolute path it names; NULL when it has no value (generic
                                     check) or the value was reported */
    int sidx;                     /* B_SERIES: its IrModel.series index, -1 after an error,
                                     -2 for a `series` parameter without a value (generic check) */
} Bind;

typedef struct Env {
    struct Env *parent;
    Bind *v;
    int n, cap;
    int *slot;                    /* past ENV_LINEAR names: open hash of v (index + 1, 0 free),
                                     2 * cap slots keyed by the interned name's address */
} Env;

#define ENV_LINEAR 16             /* scopes this small are searched in order */

typedef struct Port {
    const char *name;
    Dim dim;
    int local;                    /* body local accumulating the port this step */
    IrVar *rec;                   /* `record NAME of P`: the port's value of the step, stored
                                     for the recording (sema_build_body), or NULL */
} Port;

typedef struct RInst {
    AstNode *model;
    Env env;
    IrProj *proj;
    int64_t off, size;            /* post view within the base population */
    Port *port;                   /* target port of the post neuron */
    int input_local;
    AstNode *inits;               /* PC_RECEPTOR node (list = inits) */
    Inst *post;
    uint32_t site;
    struct Stim *stim;            /* fed by a `stimulus ... via` instead of a projection */
    Dim input_dim;                /* of its input, with `weight` bound (stimulus receptors) */
    /* Merged receptors (merge_lead): an instance equal to an earlier linear one on the same
     * base population adds its input into that one's (`lead`) and has no state of its own. */
    int merge;                    /* may merge: not a plastic projection's, not onto top-k */
    int lin;                      /* the model is linear (-1: not checked yet) */
    struct RInst *lead;           /* the instance whose state this one's input joins, or NULL */
    IrProj *ring;                 /* on a lead: the projection whose delay ring the group's
                                     projections add into (the first of them), or NULL */
    int slot;                     /* finish_rings: a lead's place in its instance's recs */
    int64_t span_off, span_size;  /* on a lead: the neurons of its group's views, from the
                                     first to the last (its ring's and its body's range) */
} RInst;

typedef struct Stim {
    AstNode *node;
    uint32_t id;
    int64_t off, size;
    Port *port;
    RInst *rec;                   /* `via Model(args)`: the receptor it feeds, else NULL */
} Stim;

struct Inst {
    AstNode *model;
    IrPop *pop;
    Env env;
    Port *ports;
    int nports;
    RInst **recs;
    int nrecs;
    Stim *stims;
    int nstims;
    uint32_t step_site;           /* RNG call sites of NEURON_STEP draws */
    IrVar *refr;
    int refr_local;               /* the local holding `refractory` (valid with refr) */
    int dummy;
};

struct PopRef {
    const char *name;
    Inst *inst;                   /* the base population's instance */
    int64_t off, size;            /* the view */
    SrcLoc loc;
};

/* The functions being inlined, innermost first (recursion check). */
typedef struct FnFrame {
    AstNode *fn;
    const struct FnFrame *up;
} FnFrame;

typedef struct Sema {
    Compiler *cc;
    IrModel *m;
    Env global;
    AstNode *sim;
    const char **set_pop, **set_par; /* `set P.x` targets, by base population */
    int *set_view;                /* ... set through a view (the parameter becomes an array) */
    int nsets;
    AstNode **rt;                 /* `runtime` targets (FIELD nodes), settable like `set` ones */
    int nrt;
    Inst **insts;
    int ninsts;
    int nstims;
    SrcLoc useloc;                /* where the model being instantiated is used */
    const FnFrame *calls;         /* functions being inlined now (conv_func nests) */
    AstNode **recursive;          /* functions already reported as recursive */
    int nrecursive;
    IrGrid grid_next;             /* the layout of the population being instantiated */
    IrProj *proj;                 /* the projection being lowered (dist, dx .. du) */
    struct SemaPlast {            /* plastic synapses (sema_plast.c) */
        Dim wsub;                 /* the synapse being lowered: the bound `weight` unit, */
        int has_wsub;             /* substituted into its parameters' declared dimensions */
        struct SynCtx *syn;       /* the synapse whose code is being converted, or NULL */
        AstNode **seen;           /* synapse models lowered once (later uses are muted) */
        int nseen;
        struct EvPending *ev;     /* event-driven synapse dynamics, built once the runs are known */
        int nev;
        Env **envs;               /* by projection id: its synapse's states (parent: its
                                     parameters), for `set proj.x = expr` (sema_set.c) */
        int nenvs;
    } plast;
    struct SemaTopk {             /* the spike condition being converted (sema_body.c) */
        AstNode *call;            /* its `topk` term (conv_topk, sema_call.c) */
        IrExpr *key, *k;          /* ... its converted arguments */
    } topk;
    int conv_depth;               /* conv() calls open: 0 outside an expression */
    int inf_seen;                 /* conv(): the expression so far reads an infinite name */
    int no_float_check;           /* a compile-time number (a count, a time in steps) */
    const char *limit_msg;        /* the first expression over a size limit (conv), */
    SrcLoc limit_loc;             /* reported even where diagnostics were muted */
} Sema;

typedef struct EvPending {
    IrPlast *pl;
    OdeEq *eqs;
    int n;
} EvPending;

#define A_T 1u

#define A_INDEX 2u

#define A_PREPOST 4u

#define A_CROSSED 8u

#define A_POS 16u                 /* lattice positions pos.x .. pos.u of the neuron */

#define A_REFR 32u                /* `refractory`: this step's flag (docs/language.md §9, step 4) */

typedef struct Ctx {
    Sema *S;
    Compiler *cc;
    Env *env;
    IrPop *pop;                   /* owner of locals (NULL: none may be created) */
    IrBlock *out;                 /* sink for statements (let) */
    uint32_t stream;              /* RNG stream; 0: no random draws here */
    uint32_t *site;
    const char *where;            /* "a parameter value", for messages */
    unsigned allow;
    Inst *inst;                   /* for crossed(): where to add prev variables */
    int depth;                    /* func inlining depth */
    int64_t ioff;                 /* `i` = base index - ioff (views) */
} Ctx;

typedef struct Val {
    IrExpr *e;
    Dim d;
    int ok;                       /* 0 after an error: suppress follow-up checks */
    int anydim;                   /* the literal 0: matches every dimension */
} Val;

/* Mute diagnostics (model bodies re-converted for real instances after the generic
 * check already reported their errors). */
typedef struct Mute {
    FILE *out;
    StrBuf *cap;
    int nerr, on;
} Mute;

/* Longest run or recording interval, in steps (~3 years at dt 0.1 ms); the sum of all runs
 * is held to it too, so step counts stay far from int64_t overflow. */
#define MAX_STEPS 1e15

/* --- sema_env.c --------------------------------------------------------- */

Bind *sema_env_find_here(Env *e, const char *name);
Bind *sema_env_find(Env *e, const char *name);
void *sema_grow(Compiler *cc, void *v, int n, size_t size);
void sema_add_bind(Compiler *cc, Env *e, Bind b);
int sema_declare(Compiler *cc, Env *e, Bind b);
Mute sema_mute(Compiler *cc, int on);
void sema_unmute(Compiler *cc, Mute m);
void sema_suggest(Ctx *x, const char *name);
void sema_declare_q(Compiler *cc, Env *e, Bind b, int quiet);
Bind *sema_global_find(Sema *S, const char *name, BindKind k);

/* --- sema_expr.c -------------------------------------------------------- */

const char *sema_fmt_dim(Compiler *cc, Dim d);
Val sema_bad(Compiler *cc);
Val sema_mkval(IrExpr *e, Dim d);
int sema_same_dim(Ctx *x, Val a, Val b, SrcLoc loc, const char *what);
int sema_expect_dim(Ctx *x, Val v, Dim want, SrcLoc loc, const char *what);
int sema_type_of(Compiler *cc, AstNode *t, Dim *d, IrType *ty);
int sema_unit_scale(Compiler *cc, AstNode *u, Dim *d, double *sc);
const char *sema_decl_unit_text(Compiler *cc, AstNode *u);
Val sema_conv(Ctx *x, AstNode *n);
int sema_const_eval(Ctx *x, AstNode *n, double *out, Dim *d);
const char *sema_unit_text(Compiler *cc, Dim d);

/* --- sema_call.c -------------------------------------------------------- */

AstNode *sema_topk_term(Compiler *cc, AstNode *e, AstNode *found, int *dup);
int sema_model_has_topk(Compiler *cc, AstNode *model);
Val sema_conv_call(Ctx *x, AstNode *n);
Bind sema_inline_let(Ctx *y, AstNode *st, int *ok);

/* --- sema_lattice.c ----------------------------------------------------- */

Dim sema_dim_len(void);
int sema_space_axis(const char *s);
Val sema_conv_pos(Ctx *x, AstNode *n);
int sema_space_ok(Compiler *cc, const IrProj *pj, SrcLoc loc, const char *what);
Val sema_conv_space(Ctx *x, AstNode *n);
int64_t sema_grid_layout(Sema *S, AstNode *gn, IrGrid *g, int *ok);

/* --- sema_stmt.c -------------------------------------------------------- */

void sema_emit_assign(Compiler *cc, IrBlock *out, IrVar *v, IrExpr *e);
int sema_emit_local(Ctx *x, const char *hint, IrType t, IrExpr *e, IrBlock *out);
void sema_conv_stmt(Ctx *x, AstNode *st, IrBlock *out);
void sema_conv_block(Ctx *x, AstNode *blk, IrBlock *out);
OdeMethod sema_method_of(Compiler *cc, AstNode *dyn, int *substeps);
int sema_collect_eqs(Ctx *x, AstNode *dyn, OdeEq **eqs_out, int *n_out);
void sema_add_note(Sema *S, const char *s);
void sema_apply_clamps(Ctx *x, AstNode *model, IrBlock *out);

/* --- sema_inst.c -------------------------------------------------------- */

int sema_check_args(Compiler *cc, AstList *args, AstNode *model, const char *what);
void sema_bind_params(Sema *S, Env *env, AstNode *model, AstList *args, AstList *inits,
                      IrPop *pop, const char *setname, int quiet, SrcLoc useloc);
void sema_bind_funcs_derived(Sema *S, Env *env, AstNode *model, int quiet, int derived);
void sema_state_range(Sema *S, AstNode *decl, IrVar *v);
void sema_check_range_places(Compiler *cc, AstNode *model);
Inst *sema_instantiate_neuron(Sema *S, const char *popname, AstNode *model, AstList *args,
                              AstList *inits, int64_t size, int dummy);
AstNode *sema_member(AstNode *model, AstKind k, int op);

/* --- sema_body.c -------------------------------------------------------- */

IrExpr *sema_in_view(Compiler *cc, int64_t off, int64_t size, int64_t total);
void sema_guarded(Compiler *cc, IrBlock *out, IrExpr *cond, IrBlock *tmp);
void sema_receptor_part(Sema *S, Inst *in, RInst *r, int phase, IrBlock *out);
void sema_build_body(Sema *S, Inst *in);

/* --- sema_recept.c ------------------------------------------------------ */

void sema_finish_rings(Sema *S);
RInst *sema_instantiate_receptor(Sema *S, AstNode *model, AstNode *clause, Inst *post,
                                 Port *port, int64_t off, int64_t size, IrProj *pj, Stim *st,
                                 int dummy, int merge);
int sema_emit_dim(Sema *S, RInst *r, Dim *d);
int sema_bind_weight(Dim have, Dim want, Dim *w, int *has_w);
/* The receptor instance that projection pj, or else (pj NULL) the stimulus named `stim`,
 * feeds, or NULL; *st receives the stimulus (record and set of receptor states). */
RInst *sema_receptor_of(Sema *S, const IrProj *pj, const char *stim, Stim **st);

/* --- sema_conn.c -------------------------------------------------------- */

const char *sema_data_file_path(Sema *S, AstNode *n, const char *what);
Val sema_edge_value(Compiler *cc, int col);
int sema_do_rule(Sema *S, AstNode *rule, IrProj *pj, int same);
int sema_storage_clause(Sema *S, IrProj *pj, AstNode *sc, int plastic);

/* --- sema_plast.c ------------------------------------------------------- */

int sema_syn_is_plastic(AstNode *smodel);
void sema_syn_order(Compiler *cc, IrPlast *pl, AstNode *mem);
int sema_syn_name(Ctx *x, AstNode *n, Val *out);
Val sema_syn_field(Ctx *x, AstNode *n);
int sema_syn_assign_check(Ctx *x, AstNode *st, Bind *b);
void sema_syn_deliver(Ctx *x, AstNode *st, IrBlock *out);
int sema_plastic_projection(Sema *S, IrProj *pj, AstNode *smodel, AstNode *syn, AstNode *wc,
                            Dim rin, Inst *pre, Inst *post);

/* --- sema_proj.c -------------------------------------------------------- */

void sema_do_projection(Sema *S, AstNode *it);

/* --- sema_net.c --------------------------------------------------------- */

int64_t sema_const_int(Sema *S, AstNode *e, const char *what, int64_t lo, int64_t hi, int *ok);
int64_t sema_steps_of(Sema *S, AstNode *e, const char *what, int *ok);
int sema_resolve_target(Sema *S, AstNode *name_node, const char *name, AstNode *index,
                        PopRef *out, int64_t **idx, int *nidx);
void sema_do_population(Sema *S, AstNode *it);
void sema_do_stimulus(Sema *S, AstNode *it);
void sema_do_record(Sema *S, AstNode *it);
/* Every `record ... from A to B` ends within the run of `total` steps (else an error). */
void sema_check_windows(Sema *S, AstNode **items, int nitems, int64_t total);
void sema_add_phase(Sema *S, IrPhase ph);
void sema_do_set(Sema *S, AstNode *it);

/* --- sema_set.c --------------------------------------------------------- */
/* 1 if e is a constant (muted: errors are reported where it is converted). */
int sema_set_is_const(Sema *S, AstNode *e);
/* `set P.x = e` with a state or a per-neuron value, or `set P { .. }`: a PH_ASSIGN phase
 * (and PH_SET for constants into scalar parameters). */
void sema_set_neurons(Sema *S, AstNode *it, PopRef ref);
/* `set proj.x = e` of per-synapse states of a plastic projection, or `set proj { .. }`. */
void sema_set_synapses(Sema *S, AstNode *it, IrProj *pj);
/* `set PROJ.g = e` / `set STIM.g = e` of the receptor's states that projection pj (or, when
 * pj is NULL, the stimulus named it->name) feeds: 1 when done here (errors included), 0 when
 * the statement is no receptor's (pj's synapses, or no stimulus of that name). */
int sema_set_receptor(Sema *S, AstNode *it, IrProj *pj);
/* After the bodies: a state set also sets its crossed() copy (as initial values do). */
void sema_set_prev(Sema *S);
void sema_do_runtime(Sema *S, AstNode *f);
void sema_do_sim(Sema *S, AstNode *sim);
void sema_do_const(Sema *S, AstNode *it);

/* --- sema_series.c ------------------------------------------------------ */

void sema_declare_series(Sema *S, AstNode *it);   /* collect, in order: the global name */
void sema_do_series(Sema *S, AstNode *it);        /* after collect: the IrSeries */
Val sema_call_series(Ctx *x, AstNode *n, Bind *b);
void sema_bind_series_param(Sema *S, Env *env, AstNode *model, AstNode *decl, AstNode *arg, int quiet,
                            SrcLoc useloc);

#endif
