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
    int opencl;                   /* OpenCL C: overloaded math, no 'f' suffix functions */
    const char *real;             /* "double" / "float" / "real" */
    const char *index;            /* neuron index variable in bodies ("n") */
    const char *rng_elem;         /* RNG element, sub and step expressions for draws */
    const char *rng_sub;
    const char *rng_step;
    const char *pre, *post;       /* synapse initialisers: pre and post index variables */
    /* storage spelling of a variable: per-neuron arrays are indexed by `index` */
    void (*var)(const struct CgDialect *d, const IrVar *v, StrBuf *out);
    /* storage spelling of a propagator entry */
    void (*prop)(const struct CgDialect *d, const IrExpr *e, StrBuf *out);
    /* arrivals of projection p for the current neuron (IS_RECV; clears the slot) */
    void (*recv)(const struct CgDialect *d, const IrProj *p, const char *local, Out *o);
    /* the current neuron spikes (IS_SPIKE) */
    void (*spike)(const struct CgDialect *d, const IrPop *pop, Out *o);
    const IrPop *pop;             /* for local names */
    const void *user;
} CgDialect;

/* The common defaults: real type "real", neuron index "n", draws keyed (n, 0, step),
 * synapse indices i and j; back ends then set their hooks. */
CgDialect cg_dialect(int dbl, const IrPop *pop);
void cg_expr(const CgDialect *d, const IrExpr *e, StrBuf *out);
void cg_block(const CgDialect *d, const IrBlock *b, Out *o);
const char *cg_fn_name(const CgDialect *d, IrFn fn);
/* A C literal for v with the dialect's real type ("0.1", "0.1f", "INFINITY"). */
void cg_real(const CgDialect *d, double v, StrBuf *out);
/* Escape s as the contents of a C string literal. */
void cg_cstring(const char *s, StrBuf *out);

/* --dump=ir: the lowered model as readable text (cg_print.c). */
void cg_dump_ir(IrModel *m, StrBuf *out);

/* --- back ends ------------------------------------------------------------ */

typedef struct BuildOpts {
    const char *output;           /* executable to produce */
    const char *emit_dir;         /* where sources go (kept with --emit-only) */
    int emit_only;
    const char *include_dir;      /* runtime headers */
    const char *lib_dir;          /* libneurort.a */
    const char *cc;               /* C compiler */
    int verbose;
} BuildOpts;

typedef struct Backend {
    const char *name;             /* "c", "cuda", "opencl" */
    /* Write the sources into o->emit_dir; returns 0 on success (diagnosed otherwise). */
    int (*emit)(Compiler *cc, IrModel *m, const BuildOpts *o);
    /* Compile and link the emitted sources into o->output. */
    int (*build)(Compiler *cc, IrModel *m, const BuildOpts *o);
} Backend;

extern const Backend backend_c;

/* Run a command (argv) and wait; returns its exit status, or -1 if it could not start. */
int cg_run(Compiler *cc, char *const argv[], int verbose);

#endif
