/* neuroc.h -- the compiler's internal header, one section per .c file (style rule 3).
 *
 * Pipeline (driver/driver.c): source -> lex -> parse (AST) -> sema (names, units,
 * types) -> ir_build (lowered, integrator-explicit model) -> cg (backend vtable) -> text.
 * Everything the compiler allocates lives in the Compiler's arena and is freed at once.
 */
#ifndef NEUROC_H
#define NEUROC_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define NEUROC_VERSION "0.1.0"

#if defined(__GNUC__)
#define NC_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define NC_NORETURN __attribute__((noreturn))
#define NC_NOINLINE __attribute__((noinline))
#else
#define NC_PRINTF(f, a)
#define NC_NORETURN
#define NC_NOINLINE
#endif

typedef struct Compiler Compiler;
typedef struct AstNode AstNode;

/* --- arena.c ------------------------------------------------------------ */

typedef struct ArenaChunk ArenaChunk;
typedef struct Arena {
    ArenaChunk *head;             /* newest chunk */
} Arena;
typedef struct ArenaMark {
    ArenaChunk *chunk;
    size_t used;
} ArenaMark;

void *arena_alloc(Arena *a, size_t n);          /* zeroed, 16-byte aligned; never NULL */
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...) NC_PRINTF(2, 3);
ArenaMark arena_mark(Arena *a);
void arena_release(Arena *a, ArenaMark m);
void arena_free(Arena *a);
void *xmalloc(size_t n);                        /* nc_fatal on failure */
void *xrealloc(void *p, size_t n);
NC_NORETURN void nc_fatal(const char *fmt, ...) NC_PRINTF(1, 2);
NC_NORETURN void nc_ice_at(const char *file, int line, const char *fmt, ...) NC_PRINTF(3, 4);
/* Front-end setup/teardown (arena, intern table, file table, diag defaults); the driver's
 * compiler_init/compiler_free call these. */
void compiler_init_front(Compiler *cc);
void compiler_free_front(Compiler *cc);
#define nc_ice(...) nc_ice_at(__FILE__, __LINE__, __VA_ARGS__)
#define NC_UNREACHABLE() nc_ice_at(__FILE__, __LINE__, "unreachable")

/* Growable string buffer (arena-independent; free with sb_free). */
typedef struct StrBuf {
    char *s;
    size_t len, cap;
} StrBuf;
void sb_putc(StrBuf *b, char c);
void sb_puts(StrBuf *b, const char *s);
void sb_printf(StrBuf *b, const char *fmt, ...) NC_PRINTF(2, 3);
/* Empty b, then print into it: a scratch string of any length (names, say). */
const char *sb_setf(StrBuf *b, const char *fmt, ...) NC_PRINTF(2, 3);
void sb_vprintf(StrBuf *b, const char *fmt, va_list ap);
void sb_putn(StrBuf *b, const char *s, size_t n);
void sb_free(StrBuf *b);

/* Interning: equal strings give the same pointer, so names compare with ==. */
const char *intern(Compiler *cc, const char *s, size_t n);
const char *intern_cstr(Compiler *cc, const char *s);

/* --- source.c ----------------------------------------------------------- */

typedef struct SrcLoc {
    uint32_t file;                /* index into cc->files; 0 = none */
    uint32_t line, col;           /* 1-based; col counts display columns */
    uint32_t len;                 /* span length in columns (>= 1 for a token) */
} SrcLoc;

typedef struct SrcFile {
    const char *path;             /* as given or resolved (used in messages) */
    const char *text;             /* whole file, NUL-terminated (arena) */
    size_t size;                  /* bytes, excluding the sentinel */
    uint32_t *line_start;         /* byte offset of each line, [0] = 0 */
    uint32_t nlines;
} SrcFile;

#define NC_MAX_SOURCE ((size_t)1 << 30)          /* bytes in one source file (1 GiB) */
/* Load a file into the arena; returns its index (>= 1), or 0 if it cannot be read, with the
 * reason in *why ("is a directory", "is not a regular file", "is larger than 1 GiB, ...",
 * strerror) when why is not NULL. Only a regular file is opened (no FIFO, no device). */
uint32_t src_load(Compiler *cc, const char *path, const char **why);
/* Why path is not a source file that src_load may read, or NULL if it is one. */
const char *src_unreadable(const char *path);
/* Register in-memory text (tests, fuzzing); returns its index. */
uint32_t src_add(Compiler *cc, const char *path, const char *text, size_t size);
/* The text of line `line` of file `file`, without its newline; *len receives the length. */
const char *src_line(Compiler *cc, uint32_t file, uint32_t line, size_t *len);
SrcLoc loc_span(SrcLoc a, SrcLoc b);            /* from the start of a to the end of b */

/* --- diag.c ------------------------------------------------------------- */

typedef enum DiagLevel { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } DiagLevel;

/* A sink: tests can capture messages instead of reading stderr. */
typedef struct Diag {
    FILE *out;                    /* where rendered messages go (NULL: only counted/captured) */
    StrBuf *capture;              /* if non-NULL, rendered messages are appended here too */
    int nerrors, nwarnings;
    int error_limit;              /* stop reporting after this many errors (default 20) */
    int color;                    /* reserved; rendering is plain text */
    uint64_t *shown;              /* hashes of the errors/warnings printed (no repeats) */
    int nshown, capshown;
    int skip_notes;               /* the last error was a repeat: drop its notes too */
} Diag;

void diag_at(Compiler *cc, DiagLevel lvl, SrcLoc loc, const char *fmt, ...) NC_PRINTF(4, 5);
void diag_vat(Compiler *cc, DiagLevel lvl, SrcLoc loc, const char *fmt, va_list ap);
#define error_at(cc, loc, ...) diag_at((cc), DIAG_ERROR, (loc), __VA_ARGS__)
#define warning_at(cc, loc, ...) diag_at((cc), DIAG_WARNING, (loc), __VA_ARGS__)
#define note_at(cc, loc, ...) diag_at((cc), DIAG_NOTE, (loc), __VA_ARGS__)
/* A plain continuation line under the last message ("  right-hand side is mV/ms"). */
void diag_extra(Compiler *cc, const char *fmt, ...) NC_PRINTF(2, 3);
/* Append s[0..n) for a terminal: control characters (C0, DEL, C1) and bytes that are not
 * UTF-8 written as \n, \t, \r, \xHH or \uHHHH. Every diagnostic goes through it (its path and
 * its message); print other text from a model or the command line with diag_safe. */
void sb_put_escaped(StrBuf *b, const char *s, size_t n);
const char *diag_safe(Compiler *cc, const char *s);    /* escaped copy of s (arena) */

/* --- lex.c (grammar/lexer.re) ------------------------------------------- */

/* Token codes TK_* come from Lemon's generated neuro.h. */
typedef struct Token {
    int code;                     /* TK_* or 0 at end of input */
    SrcLoc loc;
    const char *text;             /* interned: identifier, unit text, string contents (unescaped) */
    double num;                   /* NUMBER value */
} Token;

typedef struct Lexer {
    Compiler *cc;
    uint32_t file;
    const char *start, *cur, *end, *line_begin;
    uint32_t line;
    const char *col_at;           /* lex_loc: byte whose column is col (on this line, or stale) */
    uint32_t col;
    int depth;                    /* ( and [ nesting: newlines inside are blanks */
    int prev;                     /* previous token code, for newline -> SEMI */
    int after_number;             /* next token may be a UNIT */
    Token pending;                /* one token of lookahead for 'else' joining */
    int has_pending;
    SrcLoc last;                  /* the previous token returned (end-of-input errors point after it) */
} Lexer;

/* Token fields per code: IDENT/keywords: text = spelling; NUMBER: num = value, text = lexeme;
 * UNIT: text = unit text ("ms", "1/mV"), num = 1 if written in brackets else 0;
 * STRING: text = unescaped contents; SEMI: text = "\n" when inserted for a newline. */
void lex_init(Lexer *lx, Compiler *cc, uint32_t file);
Token lex_next(Lexer *lx);                      /* code 0 at end; TK_ILLEGAL on bad input (diagnosed) */
const char *tok_name(int code);                 /* "identifier", "'{'", "'neuron'" */
int lex_dump(Compiler *cc, uint32_t file, FILE *out);
int tok_count(void);                            /* one past the largest TK_ code (grammar/neuro.y) */
/* Internal to the lexer (grammar/lexer.re <-> lex.c): one raw token, newlines included. */
#define LEX_NEWLINE (-1)
int lex_scan(Lexer *lx, Token *t);
SrcLoc lex_loc(Lexer *lx, const char *b, const char *e);   /* location of bytes [b, e) on the current line */

/* --- parse.c ------------------------------------------------------------ */

/* The most levels an expression tree may have (operators of every kind, calls, unit
 * expressions; after sema inlines lets, functions and derived values too): every pass
 * over expressions recurses, so deeper input is refused, not a stack overflow. */
#define NC_MAX_EXPR_DEPTH 1000
/* The most nodes an expression may have once inlined, a shared subtree counted at each use
 * (sema.c): `let b = a * a` in a chain doubles the size at each step. */
#define NC_MAX_EXPR_SIZE 1000000

/* Parse file `file` into an AST_FILE node; NULL after a syntax error (diagnosed). */
AstNode *parse_file(Compiler *cc, uint32_t file);
/* Report "unexpected X[, expected A or B]" at t (used by the grammar's %syntax_error). */
void parse_syntax_error(Compiler *cc, const Token *t, const int *expected, int nexpected);
/* Lemon glue, defined in grammar/neuro.y (%code). */
typedef struct NcParser NcParser;
NcParser *ncparse_new(Compiler *cc);            /* arena-allocated push parser */
void ncparse_feed(NcParser *p, Token t);        /* NcParse(); code 0 = end of input */
int ncparse_accepts(NcParser *p, int code);     /* would `code` be shifted next? (no side effects) */
int ncparse_accepts_seq(NcParser *p, const int *codes, int n);  /* would these n tokens be taken next? */
int ncparse_expected(NcParser *p, int *codes, int max);  /* acceptable terminals; returns the count */
int ncparse_failed(NcParser *p);                /* 0 ok, 1 syntax error reported, 2 stack overflow */
AstNode *ncparse_too_deep(NcParser *p);         /* the tallest expression over NC_MAX_EXPR_DEPTH, or NULL */
AstNode *ncparse_finish(NcParser *p);           /* the AST_FILE or NULL; finalizes */

/* --- hint.c ------------------------------------------------------------- */

/* A bracket the parser has seen opened and not closed yet, with what hint.c needs to name
 * its construct ("the arguments of LIF(...)") should it stay unclosed. */
typedef struct OpenBracket {
    int code;                     /* TK_LPAREN, TK_LBRACK or TK_LBRACE */
    SrcLoc loc;
    Token prev[2];                /* the two tokens before it */
    int head;                     /* the enclosing statement's first token, restored at the close */
    const char *head_name;        /* and the first identifier after it */
    const char *closed;           /* the name before the ')' just before it, for "X(...)[" */
    int owner_kind;               /* the model around it: TK_NEURON.. (0: none) */
    const char *owner_name;
} OpenBracket;

#define HINT_MAXOPEN 64

/* What parse.c remembers of the tokens fed so far, to explain a syntax error. */
typedef struct ParseHint {
    OpenBracket open[HINT_MAXOPEN];
    int nopen;                    /* may exceed HINT_MAXOPEN: deeper ones are not remembered */
    OpenBracket suspect;          /* a '{' whose '}' sits left of its line's indent (code 0: none) */
    Token prev[2];                /* the last two tokens fed; prev[0] the latest */
    int head;                     /* the current statement's first token (0: none yet) */
    const char *head_name;        /* the first identifier after it */
    const char *closed;           /* the name before the ')' just closed, for "X(...)[" */
    uint32_t last_line;           /* line of the last token fed (inserted ';' excluded) */
} ParseHint;

void hint_track(Compiler *cc, ParseHint *h, const Token *t);   /* one token fed to the parser */
/* Report the syntax error at t (not accepted by p; `next` is the token after it, or NULL)
 * and return 1 when something explains it better than "unexpected X": an unclosed bracket,
 * a reserved word used as a name, an unknown unit.  Else 0, and after parse.c's "unexpected
 * X", hint_idiom() adds a hint where t looks like Brian2's dV/dt or `V = V_th`. */
int hint_syntax_error(Compiler *cc, ParseHint *h, NcParser *p, const Token *t, const Token *next);
void hint_idiom(Compiler *cc, ParseHint *h, NcParser *p, const Token *t, const Token *next);
/* Notes after "unknown name 'x'" / "unknown unit 'x'" / "unknown ... model 'X'". */
void hint_unknown_name(Compiler *cc, SrcLoc loc, const char *name);
void hint_unknown_unit(Compiler *cc, const char *name);
void hint_unknown_model(Compiler *cc, const char *name);
/* The known unit nearest to `name` (a case slip or one edit away), in buf; NULL if none. */
const char *hint_unit_near(const char *name, char *buf, int len);
/* The edit distance of two short strings (99 when either is over 30 bytes). */
int hint_distance(const char *a, const char *b);

/* --- ast.c -------------------------------------------------------------- */

typedef enum AstKind {
#define X(e, s) AST_##e,
#include "ast_nodes.def"
#undef X
    AST__COUNT
} AstKind;

typedef struct AstList {
    AstNode **v;
    int n, cap;
} AstList;

enum { TY_UNIT = 1, TY_INT, TY_BOOL, TY_WEIGHT, TY_STRING, TY_SERIES };          /* AST_TYPE op */
enum { EV_SPIKE = 1, EV_PRE, EV_POST, EV_PREPOST, EV_STEP }; /* AST_ON op */

struct Dim;
struct Sym;

/* One fat node (style rule 6). Which fields a kind uses is listed in ast_nodes.def. */
struct AstNode {
    AstKind kind;
    SrcLoc loc;                   /* whole construct */
    int op;                       /* operator token code, block kind, event, model kind */
    int flag;                     /* small per-kind flag */
    const char *name;             /* interned identifier */
    const char *name2;            /* second identifier */
    const char *str;              /* string literal contents, or unit text of a NUM */
    double num;                   /* number value as written (unit not applied) */
    AstNode *a, *b, *c, *d;       /* children */
    AstList list, list2;          /* ordered children */
    SrcLoc loc2;                  /* location of name2 / str where useful */
    int height;                   /* expressions and unit expressions: levels of the tree
                                     below and including this node, 0 for a leaf (parser) */
    /* filled by sema */
    void *sema;                   /* per-kind annotation (see sema.c) */
};

AstNode *ast_new(Compiler *cc, AstKind k, SrcLoc loc);
void ast_append(Compiler *cc, AstList *l, AstNode *n);
const char *ast_kind_name(AstKind k);
#define ast_is_expr(n) ((n)->kind <= AST_IN)

/* --- ast_print.c -------------------------------------------------------- */

/* Pretty-print back to .neuro syntax (the --dump=ast form; golden tests diff it). */
void ast_print(Compiler *cc, AstNode *n, StrBuf *out);
void ast_print_expr(AstNode *e, StrBuf *out);    /* fully parenthesised where needed */

/* --- the command line's options (driver/main.c sets them) ---------------- */

typedef enum Dump { DUMP_NONE, DUMP_TOKENS, DUMP_AST, DUMP_IR } Dump;

typedef struct Options {
    const char *input;            /* model file */
    const char *output;           /* -o */
    const char *backend;          /* "auto" | "c" | "cuda" | "opencl" */
    const char *emit_only;        /* --emit-only DIR */
    const char **incdirs;         /* -I */
    int nincdirs;
    Dump dump;
    int explain;                  /* --explain */
    const char *stdlib_dir;       /* located from the executable */
    const char *prefix_dir;       /* install prefix: bin/.. */
    const char *cc_cmd;           /* C compiler for the generated code */
    const char *cflags;           /* --cflags: extra flags for it, split at blanks (no shell) */
    int verbose;
    const char *gpu_mode;         /* --gpu-mode: auto, block, launch, graph, persistent */
    const char *gpu_arch;         /* --gpu-arch sm_XX */
    const char *nvcc;             /* --nvcc */
    int no_cache;                 /* --no-cache: build without the compile cache */
    int mpi;                      /* --mpi: a distributed simulator (runtime/include/nrt_mpi.h) */
    int no_check;                 /* --no-check-finite: no state check in the generated code */
    int no_proj_tables;           /* --proj-tables=off: no projection families */
    int proj_tables_on;           /* --proj-tables=on: GPU families of stored projections in a model of any size */
} Options;

struct Compiler {
    Arena arena;
    Diag diag;
    Options opt;
    SrcFile *files;               /* files[0] unused */
    uint32_t nfiles, capfiles;
    struct InternTab *strtab;
    struct Sema *sema;            /* set by sema_check */
    struct IrModel *ir;           /* set by ir_build */
};

/* The driver (driver/driver.h) sets the Compiler up and runs the passes: compiler_init,
 * compile_file, compile_front, compiler_free. */

#endif
