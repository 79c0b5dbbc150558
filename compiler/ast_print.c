/* ast_print.c -- print an AST back as canonical .neuro text (the --dump=ast form).
 * Two-space indentation, one statement per line, parentheses only where precedence needs
 * them, numbers in shortest round-trip form with their unit as written.  Printing is a
 * fixed point: parse(print(parse(x))) prints the same text.
 */
#include "neuroc.h"
#include "neuro.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* {===================== Expressions ===================== */

enum {                            /* precedence, low -> high (language.md §8.1) */
    P_COND = 1, P_OROR, P_ANDAND, P_CMP, P_IN, P_ADD, P_MUL, P_UNARY, P_CARET, P_PRIMARY
};

static int binop_prec(int op)
{
    switch (op) {
    case TK_OROR: return P_OROR;
    case TK_ANDAND: return P_ANDAND;
    case TK_EQ: case TK_NE: case TK_LT: case TK_LE: case TK_GT: case TK_GE: return P_CMP;
    case TK_PLUS: case TK_MINUS: return P_ADD;
    case TK_STAR: case TK_SLASH: case TK_PERCENT: return P_MUL;
    case TK_CARET: return P_CARET;
    default: return P_PRIMARY;
    }
}

static const char *op_text(int op)
{
    switch (op) {
    case TK_OROR: return "||";
    case TK_ANDAND: return "&&";
    case TK_EQ: return "==";
    case TK_NE: return "!=";
    case TK_LT: return "<";
    case TK_LE: return "<=";
    case TK_GT: return ">";
    case TK_GE: return ">=";
    case TK_PLUS: return "+";
    case TK_MINUS: return "-";
    case TK_STAR: return "*";
    case TK_SLASH: return "/";
    case TK_PERCENT: return "%";
    case TK_CARET: return "^";
    case TK_NOT: return "!";
    case TK_ASSIGN: return "=";
    case TK_PLUSEQ: return "+=";
    case TK_MINUSEQ: return "-=";
    case TK_STAREQ: return "*=";
    case TK_SLASHEQ: return "/=";
    default: return "?";
    }
}

static int expr_prec(const AstNode *e)
{
    switch (e->kind) {
    case AST_COND: return P_COND;
    case AST_BINOP: return binop_prec(e->op);
    case AST_IN: return P_IN;
    case AST_UNOP: return P_UNARY;
    default: return P_PRIMARY;
    }
}

/* Shortest text that reads back as the same double ("%.17g" at most). */
static void put_number(StrBuf *out, double v)
{
    char buf[64];
    if (isinf(v)) {
        sb_puts(out, "1e999");
        return;
    }
    if (v != v) {
        sb_puts(out, "0");
        return;
    }
    int prec = 1;
    for (; prec < 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    /* prefer 200 to 2e+02: widen to the integer digits while below 1e17 */
    char *e = strchr(buf, 'e');
    if (e && e[1] == '+') {
        int exp10 = atoi(e + 2);
        if (exp10 < 17 && exp10 + 1 > prec)
            snprintf(buf, sizeof buf, "%.*g", exp10 + 1, v);
    }
    sb_puts(out, buf);
}

static void put_string(StrBuf *out, const char *s)
{
    sb_putc(out, '"');
    for (; s && *s; s++) {
        switch (*s) {
        case '"': sb_puts(out, "\\\""); break;
        case '\\': sb_puts(out, "\\\\"); break;
        case '\n': sb_puts(out, "\\n"); break;
        case '\t': sb_puts(out, "\\t"); break;
        default: sb_putc(out, *s); break;
        }
    }
    sb_putc(out, '"');
}

static void print_unit(const AstNode *u, StrBuf *out);

static void print_unit_operand(const AstNode *u, StrBuf *out)
{
    if (u->kind == AST_UMUL || u->kind == AST_UDIV) {
        sb_putc(out, '(');
        print_unit(u, out);
        sb_putc(out, ')');
    } else {
        print_unit(u, out);
    }
}

/* unit_expr: "uA/cm^2", "1/ms", "mV*(1/ms)" */
static void print_unit(const AstNode *u, StrBuf *out)
{
    switch (u->kind) {
    case AST_UNAME:
        sb_puts(out, u->name);
        if (u->num != 1) {
            sb_putc(out, '^');
            if (u->num < 0) {
                sb_putc(out, '-');
                put_number(out, -u->num);
            } else {
                put_number(out, u->num);
            }
        }
        break;
    case AST_UNUM:
        put_number(out, u->num);
        break;
    case AST_UMUL:
    case AST_UDIV:
        print_unit(u->a, out);
        sb_putc(out, u->kind == AST_UMUL ? '*' : '/');
        print_unit_operand(u->b, out);
        break;
    case AST_TYPE:
        if (u->op == TY_INT) sb_puts(out, "int");
        else if (u->op == TY_BOOL) sb_puts(out, "bool");
        else if (u->op == TY_WEIGHT) sb_puts(out, "weight");
        else if (u->op == TY_STRING) sb_puts(out, "string");
        else if (u->op == TY_SERIES) { sb_puts(out, "series "); print_unit(u->a, out); }
        else if (u->a) print_unit(u->a, out);
        break;
    default:
        sb_printf(out, "<%s>", ast_kind_name(u->kind));
        break;
    }
}

static void print_expr(const AstNode *e, int min, StrBuf *out);

static void print_args(const AstList *l, StrBuf *out)
{
    for (int i = 0; i < l->n; i++) {
        if (i)
            sb_puts(out, ", ");
        print_expr(l->v[i], P_COND, out);
    }
}

/* Print e; parenthesised when its precedence is below `min`. */
static void print_expr(const AstNode *e, int min, StrBuf *out)
{
    int p;
    if (!e) {
        sb_puts(out, "<null>");
        return;
    }
    p = expr_prec(e);
    if (p < min)
        sb_putc(out, '(');
    switch (e->kind) {
    case AST_NUM:
        put_number(out, e->num);
        if (e->str) {
            sb_putc(out, ' ');
            if (e->flag)
                sb_printf(out, "[%s]", e->str);
            else
                sb_puts(out, e->str);
        }
        break;
    case AST_BOOL:
        sb_puts(out, e->flag ? "true" : "false");
        break;
    case AST_STRING:
        put_string(out, e->str);
        break;
    case AST_NAME:
        sb_puts(out, e->name);
        break;
    case AST_FIELD:
        sb_printf(out, "%s.%s", e->name, e->name2);
        break;
    case AST_CALL:
        sb_printf(out, "%s(", e->name);
        print_args(&e->list, out);
        sb_putc(out, ')');
        break;
    case AST_ARG:
        sb_printf(out, "%s = ", e->name);
        print_expr(e->a, P_COND, out);
        break;
    case AST_UNOP:
        sb_puts(out, op_text(e->op));
        print_expr(e->a, P_UNARY, out);
        break;
    case AST_BINOP:
        if (e->op == TK_CARET) {            /* right-associative */
            print_expr(e->a, p + 1, out);
            sb_puts(out, "^");
            print_expr(e->b, p, out);
        } else {                            /* left-associative or non-associative */
            print_expr(e->a, p == P_CMP ? p + 1 : p, out);
            sb_printf(out, " %s ", op_text(e->op));
            print_expr(e->b, p + 1, out);
        }
        break;
    case AST_COND:
        print_expr(e->a, P_COND + 1, out);
        sb_puts(out, " ? ");
        print_expr(e->b, P_COND, out);
        sb_puts(out, " : ");
        print_expr(e->c, P_COND, out);
        break;
    case AST_IN:
        print_expr(e->a, P_IN + 1, out);
        sb_puts(out, " in ");
        if (e->b && e->b->kind == AST_UNAME && e->b->num == 1) {
            print_unit(e->b, out);
        } else {
            sb_putc(out, '(');
            if (e->b)
                print_unit(e->b, out);
            sb_putc(out, ')');
        }
        break;
    default:
        print_unit(e, out);
        break;
    }
    if (p < min)
        sb_putc(out, ')');
}

/* Print an expression with the parentheses its precedence needs (none outermost). */
void ast_print_expr(AstNode *e, StrBuf *out)
{
    print_expr(e, P_COND, out);
}

/* {===================== Statements and items ===================== */

static void indent(StrBuf *out, int lvl)
{
    for (int i = 0; i < lvl; i++)
        sb_puts(out, "  ");
}

static void print_node(const AstNode *n, int lvl, StrBuf *out);

/* "{" newline, each child on its own line one level deeper, "}" (no newline). */
static void print_body(const AstList *l, int lvl, StrBuf *out)
{
    sb_puts(out, "{\n");
    for (int i = 0; i < l->n; i++) {
        indent(out, lvl + 1);
        print_node(l->v[i], lvl + 1, out);
        sb_putc(out, '\n');
    }
    indent(out, lvl);
    sb_putc(out, '}');
}

static void print_params(const AstList *l, StrBuf *out)
{
    sb_putc(out, '(');
    for (int i = 0; i < l->n; i++) {
        if (i)
            sb_puts(out, ", ");
        sb_printf(out, "%s: ", l->v[i]->name);
        if (l->v[i]->a)
            print_unit(l->v[i]->a, out);
    }
    sb_putc(out, ')');
}

static void print_popindex(const AstNode *ix, StrBuf *out)
{
    switch (ix->kind) {
    case AST_IDXLIST:
        print_args(&ix->list, out);
        break;
    case AST_IDXSLICE:
        print_expr(ix->a, P_COND + 1, out);
        sb_putc(out, ':');
        print_expr(ix->b, P_COND + 1, out);
        break;
    case AST_IDXGRID:
        sb_puts(out, "grid(");
        print_args(&ix->list, out);
        sb_putc(out, ')');
        if (ix->a) {
            sb_puts(out, " spacing ");
            print_expr(ix->a, P_COND, out);
        }
        if (ix->flag)
            sb_puts(out, " periodic");
        break;
    default:
        print_expr(ix, P_COND, out);
        break;
    }
}

/* IDENT [ "(" args ")" ] for MODELREF, RULE, POPATOM, DYNAMICS' method */
static void print_ref(const char *name, int hasargs, const AstList *args, StrBuf *out)
{
    sb_puts(out, name);
    if (hasargs) {
        sb_putc(out, '(');
        print_args(args, out);
        sb_putc(out, ')');
    }
}

static void print_target(const AstNode *t, StrBuf *out)
{
    sb_puts(out, t->name);
    if (t->a) {
        sb_putc(out, '[');
        print_popindex(t->a, out);
        sb_putc(out, ']');
    }
}

/* `[pre a:b, post c:d]` or `[sample k]` of a synapse recording */
static void print_synsel(const AstNode *q, StrBuf *out)
{
    sb_putc(out, '[');
    if (q->c) {
        sb_printf(out, "%s %s", q->name, q->c->name2);
    } else {
        for (int k = 0; k < 2; k++) {
            const AstNode *r = k ? q->b : q->a;
            if (!r)
                continue;
            if (k && q->a)
                sb_puts(out, ", ");
            sb_puts(out, r->flag ? "post " : "pre ");
            print_expr(r->a, P_COND, out);
            sb_putc(out, ':');
            print_expr(r->b, P_COND, out);
        }
    }
    sb_putc(out, ']');
}

static void print_popexpr(const AstNode *p, StrBuf *out)
{
    if (p->kind == AST_POPSUM) {
        for (int i = 0; i < p->list.n; i++) {
            if (i)
                sb_puts(out, " + ");
            print_popexpr(p->list.v[i], out);
        }
        return;
    }
    print_ref(p->name, p->flag, &p->list, out);
    if (p->a) {
        sb_putc(out, '[');
        print_popindex(p->a, out);
        sb_putc(out, ']');
    }
}

static void print_rule(const AstNode *r, StrBuf *out)
{
    print_ref(r->name, r->flag, &r->list, out);
    if (r->a) {
        sb_puts(out, " within ");
        print_expr(r->a, P_COND, out);
    }
    if (r->b) {
        sb_puts(out, " where ");
        print_expr(r->b, P_COND, out);
    }
}

static const char *kw_text(int code)
{
    switch (code) {
    case TK_NEURON: return "neuron";
    case TK_SYNAPSE: return "synapse";
    case TK_RECEPTOR: return "receptor";
    case TK_PARAM: return "param";
    case TK_STATE: return "state";
    case TK_DERIVED: return "derived";
    case TK_INPUT: return "input";
    case TK_REQUIRE: return "require";
    case TK_PRE: return "pre";
    case TK_POST: return "post";
    default: return "?";
    }
}

static const char *event_text(int ev)
{
    switch (ev) {
    case EV_SPIKE: return "spike";
    case EV_PRE: return "pre";
    case EV_POST: return "post";
    case EV_PREPOST: return "pre & post";
    case EV_STEP: return "step";
    default: return "?";
    }
}

static void print_if(const AstNode *n, int lvl, StrBuf *out)
{
    sb_puts(out, "if ");
    print_expr(n->a, P_COND, out);
    sb_putc(out, ' ');
    print_body(&n->b->list, lvl, out);
    if (n->c) {
        sb_puts(out, " else ");
        if (n->c->kind == AST_IF)
            print_if(n->c, lvl, out);
        else
            print_body(&n->c->list, lvl, out);
    }
}

/* One item, member, declaration or statement at indentation lvl (the caller has indented
 * the first line; no trailing newline). */
static void print_node(const AstNode *n, int lvl, StrBuf *out)
{
    if (!n) {
        sb_puts(out, "<null>");
        return;
    }
    if (ast_is_expr(n)) {
        print_expr(n, P_COND, out);
        return;
    }
    switch (n->kind) {
    case AST_UNAME: case AST_UNUM: case AST_UMUL: case AST_UDIV: case AST_TYPE:
        print_unit(n, out);
        break;
    case AST_DECL:
        sb_printf(out, "%s: ", n->name);
        if (n->a)
            print_unit(n->a, out);
        if (n->b) {
            sb_puts(out, " = ");
            print_expr(n->b, P_COND, out);
        }
        if (n->c || n->d) {
            sb_puts(out, " clamp(");
            print_expr(n->c, P_COND, out);
            sb_puts(out, ", ");
            print_expr(n->d, P_COND, out);
            sb_putc(out, ')');
        }
        if (n->list2.n) {
            const AstNode *g = n->list2.v[0];
            sb_puts(out, g->a && g->b ? " range(" : g->a ? " range(>= " : " range(<= ");
            if (g->a)
                print_expr(g->a, P_COND, out);
            if (g->a && g->b)
                sb_puts(out, ", ");
            if (g->b)
                print_expr(g->b, P_COND, out);
            sb_putc(out, ')');
        }
        break;
    case AST_BLOCK_DECL:
    case AST_SCOPE:
        sb_printf(out, "%s ", kw_text(n->op));
        print_body(&n->list, lvl, out);
        break;
    case AST_DYNAMICS:
        sb_puts(out, "dynamics ");
        if (n->name) {
            sb_puts(out, "using ");
            print_ref(n->name, n->flag, &n->list2, out);
            sb_putc(out, ' ');
        }
        print_body(&n->list, lvl, out);
        break;
    case AST_DERIV:
        sb_printf(out, "%s' = ", n->name);
        print_expr(n->a, P_COND, out);
        if (n->flag)
            sb_puts(out, " unless refractory");
        break;
    case AST_LET:
        sb_printf(out, "let %s", n->name);
        if (n->a) {
            sb_puts(out, ": ");
            print_unit(n->a, out);
        }
        sb_puts(out, " = ");
        print_expr(n->b, P_COND, out);
        break;
    case AST_SPIKE_WHEN:
        sb_puts(out, "spike when ");
        print_expr(n->a, P_COND, out);
        break;
    case AST_REFRACTORY:
        sb_puts(out, "refractory ");
        print_expr(n->a, P_COND, out);
        break;
    case AST_ON:
        sb_printf(out, "on %s ", event_text(n->op));
        print_body(&n->a->list, lvl, out);
        break;
    case AST_UPDATE:
        sb_puts(out, "update ");
        print_body(&n->a->list, lvl, out);
        break;
    case AST_EMIT:
        sb_puts(out, "emit ");
        print_expr(n->a, P_COND, out);
        break;
    case AST_FUNC:
        sb_printf(out, "func %s", n->name);
        print_params(&n->list, out);
        sb_puts(out, ": ");
        print_unit(n->a, out);
        if (n->b && n->b->kind == AST_SBLOCK) {
            sb_putc(out, ' ');
            print_body(&n->b->list, lvl, out);
        } else {
            sb_puts(out, " = ");
            print_expr(n->b, P_COND, out);
        }
        break;
    case AST_SBLOCK:
        print_body(&n->list, lvl, out);
        break;
    case AST_ASSIGN:
        print_expr(n->a, P_COND, out);
        sb_printf(out, " %s ", op_text(n->op));
        print_expr(n->b, P_COND, out);
        break;
    case AST_IF:
        print_if(n, lvl, out);
        break;
    case AST_CALLSTMT:
        print_expr(n->a, P_COND, out);
        break;
    case AST_RETURN:
        sb_puts(out, "return ");
        print_expr(n->a, P_COND, out);
        break;
    case AST_FILE:
        for (int i = 0; i < n->list.n; i++) {
            const AstNode *it = n->list.v[i];
            if (i > 0 && (it->kind == AST_MODEL || n->list.v[i - 1]->kind == AST_MODEL))
                sb_putc(out, '\n');
            indent(out, lvl);
            print_node(it, lvl, out);
            sb_putc(out, '\n');
        }
        break;
    case AST_IMPORT:
        sb_puts(out, "import ");
        put_string(out, n->str);
        break;
    case AST_CONST:
        sb_printf(out, "const %s", n->name);
        if (n->a) {
            sb_puts(out, ": ");
            print_unit(n->a, out);
        }
        sb_puts(out, " = ");
        print_expr(n->b, P_COND, out);
        break;
    case AST_SERIES:
        sb_printf(out, "series %s", n->name);
        if (n->a) {
            sb_puts(out, ": ");
            print_unit(n->a, out);
        }
        sb_puts(out, " = ");
        put_string(out, n->str);
        sb_puts(out, " every ");
        print_expr(n->b, P_COND, out);
        if (n->name2)
            sb_printf(out, " %s", n->name2);
        break;
    case AST_MODEL:
        sb_printf(out, "%s %s ", kw_text(n->op), n->name);
        print_body(&n->list, lvl, out);
        break;
    case AST_SIM:
        sb_puts(out, "sim ");
        print_body(&n->list, lvl, out);
        break;
    case AST_SETTING:
    case AST_INIT:
    case AST_PC_ASSIGN:
        sb_printf(out, "%s = ", n->name);
        print_expr(n->a, P_COND, out);
        break;
    case AST_POPULATION:
        sb_printf(out, "population %s = ", n->name);
        print_popexpr(n->a, out);
        if (n->list.n) {
            sb_putc(out, ' ');
            print_body(&n->list, lvl, out);
        }
        break;
    case AST_POPSUM:
    case AST_POPATOM:
        print_popexpr(n, out);
        break;
    case AST_IDXLIST:
    case AST_IDXSLICE:
    case AST_IDXGRID:
        print_popindex(n, out);
        break;
    case AST_PROJECTION:
        sb_printf(out, "projection %s = ", n->name);
        print_target(n->a, out);
        sb_puts(out, " -> ");
        print_target(n->b, out);
        sb_putc(out, ' ');
        print_body(&n->list, lvl, out);
        break;
    case AST_TARGET:
        print_target(n, out);
        break;
    case AST_PC_SYNAPSE:
        sb_puts(out, "synapse = ");
        print_ref(n->a->name, n->a->flag, &n->a->list, out);
        break;
    case AST_PC_RECEPTOR:
        sb_puts(out, "receptor = ");
        print_ref(n->a->name, n->a->flag, &n->a->list, out);
        if (n->list.n) {
            sb_puts(out, " { ");
            for (int i = 0; i < n->list.n; i++) {
                if (i)
                    sb_puts(out, "; ");
                print_node(n->list.v[i], lvl, out);
            }
            sb_puts(out, " }");
        }
        sb_printf(out, " -> %s", n->name2);
        break;
    case AST_PC_CONNECT:
        sb_puts(out, "connect = ");
        print_rule(n->a, out);
        break;
    case AST_MODELREF:
        print_ref(n->name, n->flag, &n->list, out);
        break;
    case AST_RULE:
        print_rule(n, out);
        break;
    case AST_CONNECTDEF:
        sb_printf(out, "connect %s", n->name);
        print_params(&n->list, out);
        sb_puts(out, " = ");
        print_rule(n->a, out);
        break;
    case AST_STIMULUS:
        sb_printf(out, "stimulus %s -> %s.%s", n->name, n->name2, n->str);
        if (n->b) {
            sb_puts(out, " via ");
            print_ref(n->b->name, n->b->flag, &n->b->list, out);
        }
        sb_puts(out, " = ");
        print_expr(n->a, P_COND, out);
        break;
    case AST_RECORD:
        sb_puts(out, "record ");
        if (n->flag) {
            sb_puts(out, "spikes");
        } else {
            for (int i = 0; i < n->list.n; i++) {
                if (i)
                    sb_puts(out, ", ");
                sb_puts(out, n->list.v[i]->name);
            }
        }
        sb_puts(out, " of ");
        print_target(n->a, out);
        if (n->d && n->d->kind == AST_NAME) {   /* a rate: "bin" expr */
            sb_printf(out, " %s ", n->d->name);
            print_expr(n->d->a, P_COND, out);
        } else if (n->d) {
            print_synsel(n->d, out);
        }
        if (n->b) {
            sb_puts(out, " every ");
            print_expr(n->b, P_COND, out);
        }
        if (n->c) {
            sb_puts(out, " from ");
            print_expr(n->c->a, P_COND, out);
            sb_puts(out, " to ");
            print_expr(n->c->b, P_COND, out);
        }
        sb_puts(out, " to ");
        put_string(out, n->str);
        break;
    case AST_RUN:
        sb_puts(out, "run ");
        print_expr(n->a, P_COND, out);
        break;
    case AST_SET:
        if (!n->name2) {   /* set P { x = e; y = e } */
            sb_printf(out, "set %s {", n->name);
            for (int i = 0; i < n->list.n; i++) {
                sb_printf(out, "%s %s = ", i ? ";" : "", n->list.v[i]->name);
                print_expr(n->list.v[i]->a, P_COND, out);
            }
            sb_puts(out, " }");
            break;
        }
        sb_printf(out, "set %s.%s = ", n->name, n->name2);
        print_expr(n->a, P_COND, out);
        break;
    case AST_RUNTIME:
        sb_puts(out, "runtime ");
        for (int i = 0; i < n->list.n; i++)
            sb_printf(out, "%s%s.%s", i ? ", " : "", n->list.v[i]->name, n->list.v[i]->name2);
        break;
    default:
        sb_printf(out, "<%s>", ast_kind_name(n->kind));
        break;
    }
}

/* Pretty-print n (an AST_FILE or any node) as .neuro text appended to out.  A file ends
 * with a newline; other nodes are printed without a trailing newline. */
void ast_print(Compiler *cc, AstNode *n, StrBuf *out)
{
    (void)cc;
    print_node(n, 0, out);
}
