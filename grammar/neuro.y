/* neuro.y -- the .neuro grammar (language.md §8.1, Appendix A) as Lemon rules.
 * Actions are one-liners building AstNodes as documented in compiler/ast_nodes.def;
 * no checking happens here (that is sema.c).  Lists use the empty-element idiom, so blank
 * lines and a trailing ';' need no special cases.  The push-parser loop is
 * compiler/parse.c; the helpers at the end (%code) let it test tokens before feeding them
 * and list the expected tokens for a syntax error.
 */
%name NcParse
%token_prefix TK_
%token_type {Token}
%default_type {AstNode *}
%extra_context {Compiler *cc}
%stack_size 1000

%include {
#define YYNOERRORRECOVERY 1
#include <assert.h>
#include <string.h>
#include "neuroc.h"

static void set_result(void *parser, AstNode *file);
static void set_failed(void *parser);
static void set_overflow(void *parser);
static AstNode *tall(void *parser, AstNode *n, int below);

static AstNode *nd(Compiler *cc, AstKind k, SrcLoc loc) { return ast_new(cc, k, loc); }
static SrcLoc sp(SrcLoc a, SrcLoc b) { return loc_span(a, b); }
static SrcLoc spn(SrcLoc a, AstNode *n) { return n ? loc_span(a, n->loc) : a; }
static AstList list1(Compiler *cc, AstNode *n) { AstList l = {0}; if (n) ast_append(cc, &l, n); return l; }
static AstList listof(AstNode *holder) { AstList l = {0}; if (holder) l = holder->list; return l; }
static Token notok(void) { Token t; memset(&t, 0, sizeof t); return t; }

static int maxh(AstNode *a, AstNode *b) { return a->height > b->height ? a->height : b->height; }

static AstNode *binop(void *parser, Compiler *cc, AstNode *a, int op, AstNode *b)
{
    AstNode *n = ast_new(cc, AST_BINOP, loc_span(a->loc, b->loc));
    n->a = a; n->op = op; n->b = b;
    return tall(parser, n, maxh(a, b));
}

static AstNode *unop(void *parser, Compiler *cc, Token o, AstNode *a)
{
    AstNode *n = ast_new(cc, AST_UNOP, loc_span(o.loc, a->loc));
    n->op = o.code; n->a = a;
    return tall(parser, n, a->height);
}

/* A call's height: one above its tallest argument. */
static AstNode *callh(void *parser, AstNode *n)
{
    int h = 0;
    for (int i = 0; i < n->list.n; i++)
        if (n->list.v[i]->height > h)
            h = n->list.v[i]->height;
    return tall(parser, n, h);
}

/* A node with name (and its location in loc2 when useful). */
static AstNode *named(Compiler *cc, AstKind k, SrcLoc loc, Token name)
{
    AstNode *n = ast_new(cc, k, loc);
    n->name = name.text;
    n->loc2 = name.loc;
    return n;
}

/* A node with a name and an optional "(args)" holder: flag = has parentheses. */
static AstNode *withargs(Compiler *cc, AstKind k, Token name, AstNode *args)
{
    AstNode *n = named(cc, k, spn(name.loc, args), name);
    n->flag = args != NULL;
    n->list = listof(args);
    return n;
}
}

%syntax_error {
    parse_syntax_error(cc, &TOKEN, NULL, 0);
    set_failed(yypParser);
}
%stack_overflow {
    set_overflow(yypParser);      /* parse.c reports it at the token being fed */
}

/* precedence, lowest first (§8.2) */
%right QUESTION COLON.
%left OROR.
%left ANDAND.
%nonassoc EQ NE LT LE GT GE.
%nonassoc IN.
%left PLUS MINUS.
%left STAR SLASH PERCENT.
%right UMINUS NOT.
%right CARET.

%token ILLEGAL.

/* {===================== Items ===================== */

%type items {AstList}
%type modelkind {Token}
%type optunless {Token}
%type optperiodic {Token}
%type assignop {int}
%type event {int}
%type members {AstList}
%type decls {AstList}
%type eqns {AstList}
%type stmts {AstList}
%type optparams {AstList}
%type params {AstList}
%type settings {AstList}
%type exprlist {AstList}
%type inits {AstList}
%type pclauses {AstList}
%type idlist {AstList}
%type rtnames {AstList}
%type optargs {AstList}
%type args {AstList}

/* file ::= items */
file ::= items(L). { AstNode *f = ast_new(cc, AST_FILE, L.n ? L.v[0]->loc : (SrcLoc){0, 0, 0, 0}); f->list = L; set_result(yypParser, f); }

items(A) ::= item(B). { A = list1(cc, B); }
items(A) ::= items(L) SEMI item(B). { A = L; if (B) ast_append(cc, &A, B); }

item(A) ::= . { A = NULL; }
item(A) ::= IMPORT(K) STRING(S). { A = nd(cc, AST_IMPORT, sp(K.loc, S.loc)); A->str = S.text; A->loc2 = S.loc; }
item(A) ::= CONST(K) IDENT(N) opttype(T) ASSIGN expr(E). { A = named(cc, AST_CONST, sp(K.loc, E->loc), N); A->a = T; A->b = E; }
/* series NAME [: type] = "file" every expr [held | linear]: the rule between samples in name2 (loc2: the file) */
item(A) ::= SERIES(K) IDENT(N) opttype(T) ASSIGN STRING(S) EVERY expr(E). { A = named(cc, AST_SERIES, sp(K.loc, E->loc), N); A->a = T; A->str = S.text; A->loc2 = S.loc; A->b = E; }
item(A) ::= SERIES(K) IDENT(N) opttype(T) ASSIGN STRING(S) EVERY expr(E) IDENT(M). { A = named(cc, AST_SERIES, sp(K.loc, M.loc), N); A->a = T; A->str = S.text; A->loc2 = S.loc; A->b = E; A->name2 = M.text; A->c = named(cc, AST_NAME, M.loc, M); }
item(A) ::= model(M). { A = M; }
item(A) ::= func(F). { A = F; }
item(A) ::= SIM(K) LBRACE settings(L) RBRACE(R). { A = nd(cc, AST_SIM, sp(K.loc, R.loc)); A->list = L; }
item(A) ::= POPULATION(K) IDENT(N) ASSIGN popexpr(P) optinitblock(I). { A = named(cc, AST_POPULATION, spn(sp(K.loc, P->loc), I), N); A->a = P; A->list = listof(I); }
item(A) ::= PROJECTION(K) IDENT(N) ASSIGN target(S) ARROW target(T) LBRACE pclauses(L) RBRACE(R). { A = named(cc, AST_PROJECTION, sp(K.loc, R.loc), N); A->a = S; A->b = T; A->list = L; }
item(A) ::= CONNECT(K) IDENT(N) LPAREN optparams(P) RPAREN ASSIGN rule(R). { A = named(cc, AST_CONNECTDEF, sp(K.loc, R->loc), N); A->list = P; A->a = R; }
item(A) ::= STIMULUS(K) IDENT(N) ARROW IDENT(P) DOT IDENT(Q) ASSIGN expr(E). { A = named(cc, AST_STIMULUS, sp(K.loc, E->loc), N); A->name2 = P.text; A->str = Q.text; A->loc2 = sp(P.loc, Q.loc); A->a = E; }
item(A) ::= STIMULUS(K) IDENT(N) ARROW IDENT(P) DOT IDENT(Q) VIA modelref(M) ASSIGN expr(E). { A = named(cc, AST_STIMULUS, sp(K.loc, E->loc), N); A->name2 = P.text; A->str = Q.text; A->loc2 = sp(P.loc, Q.loc); A->a = E; A->b = M; }
item(A) ::= RECORD(K) recwhat(W) OF target(T) optevery(E) optwindow(F) TO STRING(S). { A = nd(cc, AST_RECORD, sp(K.loc, S.loc)); A->flag = W->flag; A->list = W->list; A->a = T; A->b = E; A->c = F; A->str = S.text; A->loc2 = S.loc; }
item(A) ::= RECORD(K) recwhat(W) OF IDENT(N) LBRACK synsel(Q) RBRACK(R) optevery(E) optwindow(F) TO STRING(S). { A = nd(cc, AST_RECORD, sp(K.loc, S.loc)); A->flag = W->flag; A->list = W->list; A->a = named(cc, AST_TARGET, sp(N.loc, R.loc), N); A->b = E; A->c = F; A->d = Q; A->str = S.text; A->loc2 = S.loc; }
/* record IDENT "of" target "bin" expr "to" STRING: a population rate (sema checks the words;
 * d is the NAME "bin", d->a the bin) */
item(A) ::= RECORD(K) recwhat(W) OF target(T) IDENT(B) expr(E) TO STRING(S). { A = nd(cc, AST_RECORD, sp(K.loc, S.loc)); A->flag = W->flag; A->list = W->list; A->a = T; A->d = named(cc, AST_NAME, B.loc, B); A->d->a = E; A->str = S.text; A->loc2 = S.loc; }
item(A) ::= RUN(K) expr(E). { A = nd(cc, AST_RUN, sp(K.loc, E->loc)); A->a = E; }
item(A) ::= SET(K) IDENT(N) DOT IDENT(M) ASSIGN expr(E). { A = nd(cc, AST_SET, sp(K.loc, E->loc)); A->name = N.text; A->name2 = M.text; A->loc2 = sp(N.loc, M.loc); A->a = E; }
item(A) ::= SET(K) IDENT(N) LBRACE settings(L) RBRACE(R). { A = nd(cc, AST_SET, sp(K.loc, R.loc)); A->name = N.text; A->loc2 = N.loc; A->list = L; }
item(A) ::= RUNTIME(K) rtnames(L). { A = nd(cc, AST_RUNTIME, sp(K.loc, L.v[L.n - 1]->loc)); A->list = L; }

/* rtnames ::= IDENT "." IDENT { "," IDENT "." IDENT }  (FIELD nodes) */
rtnames(A) ::= rtname(B). { A = list1(cc, B); }
rtnames(A) ::= rtnames(L) COMMA rtname(B). { A = L; ast_append(cc, &A, B); }
rtname(A) ::= IDENT(N) DOT IDENT(M). { A = named(cc, AST_FIELD, sp(N.loc, M.loc), N); A->name2 = M.text; A->loc2 = M.loc; }

/* {===================== Models ===================== */

/* model ::= ( "neuron" | "synapse" | "receptor" ) IDENT "{" member { SEP member } "}" */
model(A) ::= modelkind(K) IDENT(N) LBRACE members(L) RBRACE(R). { A = named(cc, AST_MODEL, sp(K.loc, R.loc), N); A->op = K.code; A->list = L; }
modelkind(A) ::= NEURON(K). { A = K; }
modelkind(A) ::= SYNAPSE(K). { A = K; }
modelkind(A) ::= RECEPTOR(K). { A = K; }

members(A) ::= member(B). { A = list1(cc, B); }
members(A) ::= members(L) SEMI member(B). { A = L; if (B) ast_append(cc, &A, B); }

member(A) ::= . { A = NULL; }
member(A) ::= PARAM(K) LBRACE decls(L) RBRACE(R). { A = nd(cc, AST_BLOCK_DECL, sp(K.loc, R.loc)); A->op = K.code; A->list = L; }
member(A) ::= STATE(K) LBRACE decls(L) RBRACE(R). { A = nd(cc, AST_BLOCK_DECL, sp(K.loc, R.loc)); A->op = K.code; A->list = L; }
member(A) ::= DERIVED(K) LBRACE decls(L) RBRACE(R). { A = nd(cc, AST_BLOCK_DECL, sp(K.loc, R.loc)); A->op = K.code; A->list = L; }
member(A) ::= INPUT(K) LBRACE decls(L) RBRACE(R). { A = nd(cc, AST_BLOCK_DECL, sp(K.loc, R.loc)); A->op = K.code; A->list = L; }
member(A) ::= REQUIRE(K) LBRACE decls(L) RBRACE(R). { A = nd(cc, AST_BLOCK_DECL, sp(K.loc, R.loc)); A->op = K.code; A->list = L; }
member(A) ::= PRE(K) LBRACE members(L) RBRACE(R). { A = nd(cc, AST_SCOPE, sp(K.loc, R.loc)); A->op = K.code; A->list = L; }
member(A) ::= POST(K) LBRACE members(L) RBRACE(R). { A = nd(cc, AST_SCOPE, sp(K.loc, R.loc)); A->op = K.code; A->list = L; }
member(A) ::= DYNAMICS(K) optusing(U) LBRACE eqns(L) RBRACE(R). { A = nd(cc, AST_DYNAMICS, sp(K.loc, R.loc)); A->list = L; if (U) { A->name = U->name; A->loc2 = U->loc2; A->flag = U->flag; A->list2 = U->list; } }
member(A) ::= SPIKE(K) WHEN expr(E). { A = nd(cc, AST_SPIKE_WHEN, sp(K.loc, E->loc)); A->a = E; }
member(A) ::= REFRACTORY(K) expr(E). { A = nd(cc, AST_REFRACTORY, sp(K.loc, E->loc)); A->a = E; }
member(A) ::= ON(K) event(V) block(B). { A = nd(cc, AST_ON, sp(K.loc, B->loc)); A->op = V; A->a = B; }
member(A) ::= UPDATE(K) block(B). { A = nd(cc, AST_UPDATE, sp(K.loc, B->loc)); A->a = B; }
member(A) ::= EMIT(K) expr(E). { A = nd(cc, AST_EMIT, sp(K.loc, E->loc)); A->a = E; }
member(A) ::= func(F). { A = F; }
/* a synapse's setting: "order" "=" ( "pre_first" | "post_first" ) (docs/language.md §7) */
member(A) ::= IDENT(N) ASSIGN expr(E). { A = named(cc, AST_SETTING, sp(N.loc, E->loc), N); A->a = E; }

decls(A) ::= decl(B). { A = list1(cc, B); }
decls(A) ::= decls(L) SEMI decl(B). { A = L; if (B) ast_append(cc, &A, B); }

/* decl ::= IDENT ":" type [ "=" expr ] [ "clamp" "(" expr "," expr ")" ]
 *          [ "range" "(" ( expr "," expr | ">=" expr | "<=" expr ) ")" ] */
decl(A) ::= . { A = NULL; }
decl(A) ::= IDENT(N) COLON type(T) optinit(I) optclamp(C) optrange(G). { A = named(cc, AST_DECL, spn(spn(spn(spn(N.loc, T), I), C), G), N); A->a = T; A->b = I; if (C) { A->c = C->a; A->d = C->b; } if (G) ast_append(cc, &A->list2, G); }
optinit(A) ::= . { A = NULL; }
optinit(A) ::= ASSIGN expr(E). { A = E; }
/* the clamp bounds travel in a holder node: a = lo, b = hi */
optclamp(A) ::= . { A = NULL; }
optclamp(A) ::= CLAMP(K) LPAREN expr(X) COMMA expr(Y) RPAREN(R). { A = nd(cc, AST_CALL, sp(K.loc, R.loc)); A->a = X; A->b = Y; }
/* the range bounds travel in a holder node: a = lo, b = hi, either NULL (open) */
optrange(A) ::= . { A = NULL; }
optrange(A) ::= RANGE(K) LPAREN expr(X) COMMA expr(Y) RPAREN(R). { A = nd(cc, AST_CALL, sp(K.loc, R.loc)); A->a = X; A->b = Y; }
optrange(A) ::= RANGE(K) LPAREN GE expr(X) RPAREN(R). { A = nd(cc, AST_CALL, sp(K.loc, R.loc)); A->a = X; }
optrange(A) ::= RANGE(K) LPAREN LE expr(Y) RPAREN(R). { A = nd(cc, AST_CALL, sp(K.loc, R.loc)); A->b = Y; }
opttype(A) ::= . { A = NULL; }
opttype(A) ::= COLON type(T). { A = T; }

/* type ::= unit_expr | "int" | "bool" | "weight" | "string" | "series" unit_expr */
type(A) ::= unitexpr(U). { A = nd(cc, AST_TYPE, U->loc); A->op = TY_UNIT; A->a = U; }
type(A) ::= INT(K). { A = nd(cc, AST_TYPE, K.loc); A->op = TY_INT; }
type(A) ::= BOOL(K). { A = nd(cc, AST_TYPE, K.loc); A->op = TY_BOOL; }
type(A) ::= WEIGHT(K). { A = nd(cc, AST_TYPE, K.loc); A->op = TY_WEIGHT; }
type(A) ::= STRTYPE(K). { A = nd(cc, AST_TYPE, K.loc); A->op = TY_STRING; }
type(A) ::= SERIES(K) unitexpr(U). { A = nd(cc, AST_TYPE, sp(K.loc, U->loc)); A->op = TY_SERIES; A->a = U; }

/* unit_expr ::= unit_term { ( "*" | "/" ) unit_term } */
unitexpr(A) ::= unitterm(T). { A = T; }
unitexpr(A) ::= unitexpr(X) STAR unitterm(Y). { A = nd(cc, AST_UMUL, sp(X->loc, Y->loc)); A->a = X; A->b = Y; tall(yypParser, A, maxh(X, Y)); }
unitexpr(A) ::= unitexpr(X) SLASH unitterm(Y). { A = nd(cc, AST_UDIV, sp(X->loc, Y->loc)); A->a = X; A->b = Y; tall(yypParser, A, maxh(X, Y)); }
/* unit_term ::= IDENT [ "^" [ "-" ] NUMBER ] | NUMBER | "(" unit_expr ")" */
unitterm(A) ::= IDENT(N). { A = named(cc, AST_UNAME, N.loc, N); A->num = 1; }
unitterm(A) ::= IDENT(N) CARET NUMBER(X). { A = named(cc, AST_UNAME, sp(N.loc, X.loc), N); A->num = X.num; }
unitterm(A) ::= IDENT(N) CARET MINUS NUMBER(X). { A = named(cc, AST_UNAME, sp(N.loc, X.loc), N); A->num = -X.num; }
unitterm(A) ::= NUMBER(X). { A = nd(cc, AST_UNUM, X.loc); A->num = X.num; }
unitterm(A) ::= LPAREN unitexpr(U) RPAREN. { A = U; }

/* "dynamics" [ "using" IDENT [ "(" [ args ] ")" ] ]: a MODELREF holder */
optusing(A) ::= . { A = NULL; }
optusing(A) ::= USING IDENT(N) optkwargs(K). { A = withargs(cc, AST_MODELREF, N, K); }

eqns(A) ::= eqn(B). { A = list1(cc, B); }
eqns(A) ::= eqns(L) SEMI eqn(B). { A = L; if (B) ast_append(cc, &A, B); }

/* eqn ::= IDENT "'" "=" expr [ "unless" "refractory" ] | "let" IDENT [ ":" type ] "=" expr */
eqn(A) ::= . { A = NULL; }
eqn(A) ::= IDENT(N) PRIME ASSIGN expr(E) optunless(U). { A = named(cc, AST_DERIV, U.code ? sp(N.loc, U.loc) : sp(N.loc, E->loc), N); A->a = E; A->flag = U.code != 0; }
eqn(A) ::= LET(K) IDENT(N) opttype(T) ASSIGN expr(E). { A = named(cc, AST_LET, sp(K.loc, E->loc), N); A->a = T; A->b = E; }
optunless(A) ::= . { A = notok(); }
optunless(A) ::= UNLESS REFRACTORY(R). { A = R; }

/* event ::= "spike" | "pre" | "post" | "pre" "&" "post" | "step" */
event(A) ::= SPIKE. { A = EV_SPIKE; }
event(A) ::= PRE. { A = EV_PRE; }
event(A) ::= POST. { A = EV_POST; }
event(A) ::= PRE AMP POST. { A = EV_PREPOST; }
event(A) ::= STEP. { A = EV_STEP; }

/* {===================== Statements ===================== */

/* block ::= "{" stmt { SEP stmt } "}" */
block(A) ::= LBRACE(L) stmts(S) RBRACE(R). { A = nd(cc, AST_SBLOCK, sp(L.loc, R.loc)); A->list = S; }
stmts(A) ::= stmt(B). { A = list1(cc, B); }
stmts(A) ::= stmts(L) SEMI stmt(B). { A = L; if (B) ast_append(cc, &A, B); }

stmt(A) ::= . { A = NULL; }
stmt(A) ::= lvalue(V) assignop(O) expr(E). { A = nd(cc, AST_ASSIGN, sp(V->loc, E->loc)); A->a = V; A->op = O; A->b = E; }
stmt(A) ::= LET(K) IDENT(N) opttype(T) ASSIGN expr(E). { A = named(cc, AST_LET, sp(K.loc, E->loc), N); A->a = T; A->b = E; }
stmt(A) ::= ifstmt(S). { A = S; }
stmt(A) ::= IDENT(N) LPAREN optargs(X) RPAREN(R). { A = nd(cc, AST_CALLSTMT, sp(N.loc, R.loc)); A->a = named(cc, AST_CALL, sp(N.loc, R.loc), N); A->a->list = X; callh(yypParser, A->a); }
stmt(A) ::= RETURN(K) expr(E). { A = nd(cc, AST_RETURN, sp(K.loc, E->loc)); A->a = E; }

/* if_stmt ::= "if" expr block [ "else" ( block | if_stmt ) ] */
ifstmt(A) ::= IF(K) expr(E) block(B). { A = nd(cc, AST_IF, sp(K.loc, B->loc)); A->a = E; A->b = B; }
ifstmt(A) ::= IF(K) expr(E) block(B) ELSE block(C). { A = nd(cc, AST_IF, sp(K.loc, C->loc)); A->a = E; A->b = B; A->c = C; }
ifstmt(A) ::= IF(K) expr(E) block(B) ELSE ifstmt(C). { A = nd(cc, AST_IF, sp(K.loc, C->loc)); A->a = E; A->b = B; A->c = C; }

lvalue(A) ::= IDENT(N). { A = named(cc, AST_NAME, N.loc, N); }
lvalue(A) ::= IDENT(N) DOT IDENT(M). { A = named(cc, AST_FIELD, sp(N.loc, M.loc), N); A->name2 = M.text; A->loc2 = M.loc; }

assignop(A) ::= ASSIGN. { A = TK_ASSIGN; }
assignop(A) ::= PLUSEQ. { A = TK_PLUSEQ; }
assignop(A) ::= MINUSEQ. { A = TK_MINUSEQ; }
assignop(A) ::= STAREQ. { A = TK_STAREQ; }
assignop(A) ::= SLASHEQ. { A = TK_SLASHEQ; }

/* func ::= "func" IDENT "(" [ params ] ")" ":" type ( "=" expr | block ) */
func(A) ::= FUNC(K) IDENT(N) LPAREN optparams(P) RPAREN COLON type(T) ASSIGN expr(E). { A = named(cc, AST_FUNC, sp(K.loc, E->loc), N); A->list = P; A->a = T; A->b = E; }
func(A) ::= FUNC(K) IDENT(N) LPAREN optparams(P) RPAREN COLON type(T) block(B). { A = named(cc, AST_FUNC, sp(K.loc, B->loc), N); A->list = P; A->a = T; A->b = B; }
optparams(A) ::= . { A = (AstList){0}; }
optparams(A) ::= params(P). { A = P; }
/* params ::= IDENT ":" type { "," IDENT ":" type }  (DECL nodes) */
params(A) ::= IDENT(N) COLON type(T). { AstNode *d = named(cc, AST_DECL, sp(N.loc, T->loc), N); d->a = T; A = list1(cc, d); }
params(A) ::= params(L) COMMA IDENT(N) COLON type(T). { AstNode *d = named(cc, AST_DECL, sp(N.loc, T->loc), N); d->a = T; A = L; ast_append(cc, &A, d); }

/* {===================== Network and experiment ===================== */

settings(A) ::= setting(B). { A = list1(cc, B); }
settings(A) ::= settings(L) SEMI setting(B). { A = L; if (B) ast_append(cc, &A, B); }
setting(A) ::= . { A = NULL; }
setting(A) ::= IDENT(N) ASSIGN expr(E). { A = named(cc, AST_SETTING, sp(N.loc, E->loc), N); A->a = E; }

/* popexpr ::= popatom { "+" popatom }  (one atom: the POPATOM itself; a sum: POPSUM) */
popexpr(A) ::= popatom(B). { A = B; }
popexpr(A) ::= popexpr(P) PLUS popatom(B). { A = P->kind == AST_POPSUM ? P : nd(cc, AST_POPSUM, P->loc); if (A != P) ast_append(cc, &A->list, P); ast_append(cc, &A->list, B); A->loc = sp(A->loc, B->loc); }
/* popatom ::= IDENT | IDENT [ "(" [ args ] ")" ] "[" popindex "]" */
popatom(A) ::= IDENT(N). { A = named(cc, AST_POPATOM, N.loc, N); }
popatom(A) ::= IDENT(N) optkwargs(K) LBRACK popindex(I) RBRACK(R). { A = withargs(cc, AST_POPATOM, N, K); A->loc = sp(N.loc, R.loc); A->a = I; }

/* popindex ::= expr { "," expr } | expr ":" expr | "grid" "(" [ args ] ")" [ "spacing" expr ] [ "periodic" ] */
popindex(A) ::= exprlist(L). { A = nd(cc, AST_IDXLIST, sp(L.v[0]->loc, L.v[L.n - 1]->loc)); A->list = L; }
popindex(A) ::= expr(X) COLON expr(Y). { A = nd(cc, AST_IDXSLICE, sp(X->loc, Y->loc)); A->a = X; A->b = Y; }
popindex(A) ::= GRID(K) LPAREN optargs(L) RPAREN(R) optspacing(S) optperiodic(P). { A = nd(cc, AST_IDXGRID, P.code ? sp(K.loc, P.loc) : spn(sp(K.loc, R.loc), S)); A->list = L; A->a = S; A->flag = P.code != 0; }
optspacing(A) ::= . { A = NULL; }
optspacing(A) ::= SPACING expr(E). { A = E; }
optperiodic(A) ::= . { A = notok(); }
optperiodic(A) ::= PERIODIC(P). { A = P; }
exprlist(A) ::= expr(E). { A = list1(cc, E); }
exprlist(A) ::= exprlist(L) COMMA expr(E). { A = L; ast_append(cc, &A, E); }

/* [ "{" init { SEP init } "}" ]: an SBLOCK holder */
optinitblock(A) ::= . { A = NULL; }
optinitblock(A) ::= LBRACE(L) inits(I) RBRACE(R). { A = nd(cc, AST_SBLOCK, sp(L.loc, R.loc)); A->list = I; }
inits(A) ::= init(B). { A = list1(cc, B); }
inits(A) ::= inits(L) SEMI init(B). { A = L; if (B) ast_append(cc, &A, B); }
/* init ::= IDENT "=" expr | "let" IDENT "=" expr */
init(A) ::= . { A = NULL; }
init(A) ::= IDENT(N) ASSIGN expr(E). { A = named(cc, AST_INIT, sp(N.loc, E->loc), N); A->a = E; }
init(A) ::= LET(K) IDENT(N) ASSIGN expr(E). { A = named(cc, AST_LET, sp(K.loc, E->loc), N); A->b = E; }

/* target ::= IDENT [ "[" popindex "]" ] */
target(A) ::= IDENT(N). { A = named(cc, AST_TARGET, N.loc, N); }
target(A) ::= IDENT(N) LBRACK popindex(I) RBRACK(R). { A = named(cc, AST_TARGET, sp(N.loc, R.loc), N); A->a = I; }

pclauses(A) ::= pclause(B). { A = list1(cc, B); }
pclauses(A) ::= pclauses(L) SEMI pclause(B). { A = L; if (B) ast_append(cc, &A, B); }
/* pclause ::= "synapse" "=" modelref | "receptor" "=" modelref [ "{" init { SEP init } "}" ] "->" IDENT
 *           | "connect" "=" rule | IDENT "=" expr */
pclause(A) ::= . { A = NULL; }
pclause(A) ::= SYNAPSE(K) ASSIGN modelref(M). { A = nd(cc, AST_PC_SYNAPSE, sp(K.loc, M->loc)); A->a = M; }
pclause(A) ::= RECEPTOR(K) ASSIGN modelref(M) ARROW IDENT(P). { A = nd(cc, AST_PC_RECEPTOR, sp(K.loc, P.loc)); A->a = M; A->name2 = P.text; A->loc2 = P.loc; }
pclause(A) ::= RECEPTOR(K) ASSIGN modelref(M) LBRACE inits(I) RBRACE ARROW IDENT(P). { A = nd(cc, AST_PC_RECEPTOR, sp(K.loc, P.loc)); A->a = M; A->list = I; A->name2 = P.text; A->loc2 = P.loc; }
pclause(A) ::= CONNECT(K) ASSIGN rule(R). { A = nd(cc, AST_PC_CONNECT, sp(K.loc, R->loc)); A->a = R; }
pclause(A) ::= IDENT(N) ASSIGN expr(E). { A = named(cc, AST_PC_ASSIGN, sp(N.loc, E->loc), N); A->a = E; }

/* modelref ::= IDENT [ "(" [ args ] ")" ] */
modelref(A) ::= IDENT(N) optkwargs(K). { A = withargs(cc, AST_MODELREF, N, K); }
optkwargs(A) ::= . { A = NULL; }
optkwargs(A) ::= LPAREN(L) optargs(X) RPAREN(R). { A = nd(cc, AST_SBLOCK, sp(L.loc, R.loc)); A->list = X; }

/* rule ::= IDENT [ "(" [ args ] ")" ] [ "within" expr ] [ "where" expr ] */
rule(A) ::= IDENT(N) optkwargs(K) optwithin(W) optwhere(H). { A = withargs(cc, AST_RULE, N, K); A->loc = spn(spn(A->loc, W), H); A->a = W; A->b = H; }
optwithin(A) ::= . { A = NULL; }
optwithin(A) ::= WITHIN expr(E). { A = E; }
optwhere(A) ::= . { A = NULL; }
optwhere(A) ::= WHERE expr(E). { A = E; }

/* record ( "spikes" | IDENT { "," IDENT } ): an SBLOCK holder, flag = spikes, list = NAMEs */
recwhat(A) ::= SPIKES(K). { A = nd(cc, AST_SBLOCK, K.loc); A->flag = 1; }
recwhat(A) ::= idlist(L). { A = nd(cc, AST_SBLOCK, sp(L.v[0]->loc, L.v[L.n - 1]->loc)); A->list = L; }
idlist(A) ::= IDENT(N). { A = list1(cc, named(cc, AST_NAME, N.loc, N)); }
idlist(A) ::= idlist(L) COMMA IDENT(N). { A = L; ast_append(cc, &A, named(cc, AST_NAME, N.loc, N)); }
optevery(A) ::= . { A = NULL; }
optevery(A) ::= EVERY expr(E). { A = E; }
/* synsel ::= "pre" expr ":" expr [ "," "post" expr ":" expr ] | "post" expr ":" expr
 *          | "sample" NUMBER: an SBLOCK holder, a = the pre range, b = the post range (SBLOCKs
 *          of a = from, b = to), c = the sample count (a NUM; `sample` is not reserved) */
synsel(A) ::= synrange(P). { A = nd(cc, AST_SBLOCK, P->loc); if (P->flag) A->b = P; else A->a = P; }
synsel(A) ::= synrange(P) COMMA synrange(Q). { A = nd(cc, AST_SBLOCK, sp(P->loc, Q->loc)); A->a = P; A->b = Q; A->flag = P->flag || !Q->flag; }
synsel(A) ::= IDENT(K) NUMBER(X). { A = nd(cc, AST_SBLOCK, sp(K.loc, X.loc)); A->c = nd(cc, AST_NUM, X.loc); A->c->num = X.num; A->c->name2 = X.text; A->name = K.text; A->loc2 = K.loc; }
synrange(A) ::= PRE(K) expr(X) COLON expr(Y). { A = nd(cc, AST_SBLOCK, sp(K.loc, Y->loc)); A->a = X; A->b = Y; }
synrange(A) ::= POST(K) expr(X) COLON expr(Y). { A = nd(cc, AST_SBLOCK, sp(K.loc, Y->loc)); A->a = X; A->b = Y; A->flag = 1; }
/* optwindow ::= [ "from" expr "to" expr ]: an SBLOCK holder, a = from, b = to */
optwindow(A) ::= . { A = NULL; }
optwindow(A) ::= FROM(K) expr(X) TO expr(Y). { A = nd(cc, AST_SBLOCK, sp(K.loc, Y->loc)); A->a = X; A->b = Y; }

/* {===================== Expressions ===================== */

expr(A) ::= expr(X) QUESTION expr(Y) COLON expr(Z). { A = nd(cc, AST_COND, sp(X->loc, Z->loc)); A->a = X; A->b = Y; A->c = Z; tall(yypParser, A, maxh(X, maxh(Y, Z) > Y->height ? Z : Y)); }
expr(A) ::= expr(X) OROR expr(Y). { A = binop(yypParser, cc, X, TK_OROR, Y); }
expr(A) ::= expr(X) ANDAND expr(Y). { A = binop(yypParser, cc, X, TK_ANDAND, Y); }
expr(A) ::= expr(X) EQ expr(Y). { A = binop(yypParser, cc, X, TK_EQ, Y); }
expr(A) ::= expr(X) NE expr(Y). { A = binop(yypParser, cc, X, TK_NE, Y); }
expr(A) ::= expr(X) LT expr(Y). { A = binop(yypParser, cc, X, TK_LT, Y); }
expr(A) ::= expr(X) LE expr(Y). { A = binop(yypParser, cc, X, TK_LE, Y); }
expr(A) ::= expr(X) GT expr(Y). { A = binop(yypParser, cc, X, TK_GT, Y); }
expr(A) ::= expr(X) GE expr(Y). { A = binop(yypParser, cc, X, TK_GE, Y); }
expr(A) ::= expr(X) PLUS expr(Y). { A = binop(yypParser, cc, X, TK_PLUS, Y); }
expr(A) ::= expr(X) MINUS expr(Y). { A = binop(yypParser, cc, X, TK_MINUS, Y); }
expr(A) ::= expr(X) STAR expr(Y). { A = binop(yypParser, cc, X, TK_STAR, Y); }
expr(A) ::= expr(X) SLASH expr(Y). { A = binop(yypParser, cc, X, TK_SLASH, Y); }
expr(A) ::= expr(X) PERCENT expr(Y). { A = binop(yypParser, cc, X, TK_PERCENT, Y); }
expr(A) ::= expr(X) CARET expr(Y). { A = binop(yypParser, cc, X, TK_CARET, Y); }
expr(A) ::= MINUS(O) expr(X). [UMINUS] { A = unop(yypParser, cc, O, X); }
expr(A) ::= NOT(O) expr(X). { A = unop(yypParser, cc, O, X); }
expr(A) ::= expr(X) IN unitref(U). { A = nd(cc, AST_IN, sp(X->loc, U->loc)); A->a = X; A->b = U; tall(yypParser, A, maxh(X, U)); }
expr(A) ::= primary(P). { A = P; }

unitref(A) ::= IDENT(N). { A = named(cc, AST_UNAME, N.loc, N); A->num = 1; }
unitref(A) ::= LPAREN unitexpr(U) RPAREN. { A = U; }

/* primary ::= NUMBER [ UNIT ] | IDENT | IDENT "." IDENT | ( "pre" | "post" ) "." IDENT
 *           | IDENT "(" [ args ] ")" | "(" expr ")" | "true" | "false" */
primary(A) ::= NUMBER(X). { A = nd(cc, AST_NUM, X.loc); A->num = X.num; A->name2 = X.text; }
primary(A) ::= NUMBER(X) UNIT(U). { A = nd(cc, AST_NUM, sp(X.loc, U.loc)); A->num = X.num; A->name2 = X.text; A->str = U.text; A->flag = U.num != 0; A->loc2 = U.loc; }
primary(A) ::= IDENT(N). { A = named(cc, AST_NAME, N.loc, N); }
primary(A) ::= REFRACTORY(N). { A = named(cc, AST_NAME, N.loc, N); } /* the neuron's flag, §9 */
primary(A) ::= IDENT(N) DOT IDENT(M). { A = named(cc, AST_FIELD, sp(N.loc, M.loc), N); A->name2 = M.text; A->loc2 = M.loc; }
primary(A) ::= PRE(N) DOT IDENT(M). { A = named(cc, AST_FIELD, sp(N.loc, M.loc), N); A->name2 = M.text; A->loc2 = M.loc; }
primary(A) ::= POST(N) DOT IDENT(M). { A = named(cc, AST_FIELD, sp(N.loc, M.loc), N); A->name2 = M.text; A->loc2 = M.loc; }
primary(A) ::= IDENT(N) LPAREN optargs(X) RPAREN(R). { A = named(cc, AST_CALL, sp(N.loc, R.loc), N); A->list = X; callh(yypParser, A); }
primary(A) ::= LPAREN expr(E) RPAREN. { A = E; }
primary(A) ::= STRING(S). { A = nd(cc, AST_STRING, S.loc); A->str = S.text; }
primary(A) ::= TRUE(K). { A = nd(cc, AST_BOOL, K.loc); A->flag = 1; }
primary(A) ::= FALSE(K). { A = nd(cc, AST_BOOL, K.loc); A->flag = 0; }

optargs(A) ::= . { A = (AstList){0}; }
optargs(A) ::= args(L). { A = L; }
args(A) ::= arg(B). { A = list1(cc, B); }
args(A) ::= args(L) COMMA arg(B). { A = L; ast_append(cc, &A, B); }
/* arg ::= expr | IDENT "=" expr */
arg(A) ::= expr(E). { A = E; }
arg(A) ::= IDENT(N) ASSIGN expr(E). { A = named(cc, AST_ARG, sp(N.loc, E->loc), N); A->a = E; A->height = E->height; }

%code {
/* {===================== Glue for compiler/parse.c ===================== */

struct NcParser {
    yyParser p;                   /* first: actions get it as yypParser */
    AstNode *result;              /* the AST_FILE once accepted */
    int failed;                   /* 1: syntax error reported; 2: stack overflow (not reported) */
    AstNode *too_deep;            /* the tallest expression over NC_MAX_EXPR_DEPTH, or NULL */
};

/* Set n's height from its tallest child's, and keep the tallest expression over the limit
 * (parse.c reports it once the file is read, with its full height; left-associative chains
 * grow without deepening the parser's stack, so its overflow check cannot see them). */
static AstNode *tall(void *parser, AstNode *n, int below)
{
    NcParser *p = parser;
    n->height = below + 1;
    if (n->height > NC_MAX_EXPR_DEPTH && (!p->too_deep || n->height > p->too_deep->height))
        p->too_deep = n;
    return n;
}

AstNode *ncparse_too_deep(NcParser *p)
{
    return p->too_deep;
}

static void set_result(void *parser, AstNode *file) { ((NcParser *)parser)->result = file; }
static void set_failed(void *parser) { ((NcParser *)parser)->failed = 1; }
static void set_overflow(void *parser) { ((NcParser *)parser)->failed = 2; }

/* 0 while parsing is fine; 1 after a reported syntax error; 2 after a stack overflow. */
int ncparse_failed(NcParser *p)
{
    return p->failed;
}

/* A fresh push parser in the arena (no destructors needed: the arena owns the tree). */
NcParser *ncparse_new(Compiler *cc)
{
    NcParser *p = arena_alloc(&cc->arena, sizeof(NcParser));
    NcParseInit(&p->p, cc);
    return p;
}

/* Feed one token (code 0 = end of input). */
void ncparse_feed(NcParser *p, Token t)
{
    NcParse(&p->p, t.code, t);
}

/* The AST_FILE once end of input was accepted, else NULL.  Finalizes the parser. */
AstNode *ncparse_finish(NcParser *p)
{
    AstNode *r = p->failed ? NULL : p->result;
    NcParseFinalize(&p->p);
    return r;
}

/* Feed `code` to the simulated automaton: states st[0..*top], changed in place (the
 * shift included).  1 if it was shifted (or accepted), 0 on a syntax error. */
static int sim_token(YYACTIONTYPE *st, int *ptop, int code)
{
    int top = *ptop;
    YYACTIONTYPE act = st[top];
    for (;;) {
        act = yy_find_shift_action((YYCODETYPE)code, act);
        if (act >= YY_MIN_REDUCE) {
            unsigned rule = act - YY_MIN_REDUCE;
            int size = yyRuleInfoNRhs[rule];
            if (top + size < 0)
                return 0;
            act = yy_find_reduce_action(st[top + size], (YYCODETYPE)yyRuleInfoLhs[rule]);
            top += size + 1;
            if (top >= YYSTACKDEPTH + 14)
                return 1;         /* deeper than the real parser goes: let it report */
            st[top] = act;
        } else if (act <= YY_MAX_SHIFTREDUCE) {
            if (act > YY_MAX_SHIFT)
                act += YY_MIN_REDUCE - YY_MIN_SHIFTREDUCE;   /* as yy_shift() stores it */
            st[++top] = act;
            *ptop = top;
            return 1;
        } else {
            return act == YY_ACCEPT_ACTION;
        }
    }
}

/* Would the parser take the n tokens `codes` next, one after another?  Simulates the
 * LALR automaton on a copy of the state stack, so nothing changes. */
int ncparse_accepts_seq(NcParser *p, const int *codes, int n)
{
    YYACTIONTYPE st[YYSTACKDEPTH + 16];
    yyParser *y = &p->p;
    int top = (int)(y->yytos - y->yystack);
    for (int i = 0; i <= top; i++)
        st[i] = y->yystack[i].stateno;
    for (int k = 0; k < n; k++) {
        if (codes[k] < 0 || codes[k] >= YYNTOKEN)
            return 0;
        if (top >= YYSTACKDEPTH + 14)
            return 1;
        if (!sim_token(st, &top, codes[k]))
            return 0;
    }
    return 1;
}

/* Would the parser shift `code` next (after any reductions it triggers)? */
int ncparse_accepts(NcParser *p, int code)
{
    return ncparse_accepts_seq(p, &code, 1);
}

/* The terminals the parser would accept now, ascending; returns how many (all of them,
 * though at most `max` are stored). */
int ncparse_expected(NcParser *p, int *codes, int max)
{
    int n = 0;
    for (int c = 0; c < YYNTOKEN; c++) {
        if (c == TK_ILLEGAL || c == TK_UMINUS || !ncparse_accepts(p, c))
            continue;
        if (n < max)
            codes[n] = c;
        n++;
    }
    return n;
}

/* One past the largest terminal code. */
int tok_count(void)
{
    return YYNTOKEN;
}
}
