/* test_parse.c -- parser unit tests: each AST kind is built with the fields documented in
 * ast_nodes.def, for representative inputs; syntax errors give NULL and a message. */
#include "neuroc.h"
#include "neuro.h"
#include "unit.h"

static Compiler cc;
static StrBuf diagbuf;

static AstNode *parse(const char *text)
{
    compiler_free_front(&cc);
    sb_free(&diagbuf);
    memset(&cc, 0, sizeof cc);
    compiler_init_front(&cc);
    cc.diag.out = NULL;
    cc.diag.capture = &diagbuf;
    uint32_t f = src_add(&cc, "p.neuro", text, strlen(text));
    return parse_file(&cc, f);
}

/* The first item of a parsed file. */
static AstNode *item0(const char *text)
{
    AstNode *f = parse(text);
    CHECK(f != NULL);
    if (!f) {
        fprintf(stderr, "  %s", diagbuf.s ? diagbuf.s : "");
        return NULL;
    }
    CHECK_INT(f->kind, AST_FILE);
    CHECK(f->list.n >= 1);
    return f->list.n ? f->list.v[0] : NULL;
}

/* The expression of "const x = <text>". */
static AstNode *expr(const char *text)
{
    char buf[512];
    snprintf(buf, sizeof buf, "const x = %s", text);
    AstNode *c = item0(buf);
    return c ? c->b : NULL;
}

static const char *printed(AstNode *n)
{
    static StrBuf b;
    sb_free(&b);
    ast_print_expr(n, &b);
    return b.s ? b.s : "";
}

static void test_exprs(void)
{
    AstNode *e = expr("a + b * c ^ d ^ e");
    CHECK_INT(e->kind, AST_BINOP);
    CHECK_INT(e->op, TK_PLUS);
    CHECK_INT(e->a->kind, AST_NAME);
    CHECK(e->a->name == intern_cstr(&cc, "a"));
    CHECK_INT(e->b->op, TK_STAR);
    CHECK_INT(e->b->b->op, TK_CARET);
    CHECK_INT(e->b->b->b->op, TK_CARET);      /* right-associative */
    CHECK_INT(e->loc.col, 11);
    CHECK_INT(e->loc.len, 17);

    e = expr("-x^2");
    CHECK_INT(e->kind, AST_UNOP);
    CHECK_INT(e->op, TK_MINUS);
    CHECK_INT(e->a->op, TK_CARET);

    e = expr("!a && b || c");
    CHECK_INT(e->op, TK_OROR);
    CHECK_INT(e->a->op, TK_ANDAND);
    CHECK_INT(e->a->a->kind, AST_UNOP);
    CHECK_INT(e->a->a->op, TK_NOT);

    e = expr("a - b - c");
    CHECK_INT(e->a->op, TK_MINUS);           /* left-associative */
    CHECK_STR(printed(e), "a - b - c");
    e = expr("a - (b - c)");
    CHECK_STR(printed(e), "a - (b - c)");
    e = expr("(a ? b : c) ? d : e ? f : g");
    CHECK_INT(e->kind, AST_COND);
    CHECK_INT(e->a->kind, AST_COND);
    CHECK_INT(e->c->kind, AST_COND);
    CHECK_STR(printed(e), "(a ? b : c) ? d : e ? f : g");
    e = expr("(-x)^2 + -(a*b) + (a < b) == c");
    CHECK_STR(printed(e), "(-x)^2 + -(a * b) + (a < b) == c");

    e = expr("20 ms");
    CHECK_INT(e->kind, AST_NUM);
    CHECK(e->num == 20);
    CHECK_STR(e->str, "ms");
    CHECK_INT(e->flag, 0);
    CHECK_INT(e->loc.len, 5);
    e = expr("0.04 [1/mV]");
    CHECK_STR(e->str, "1/mV");
    CHECK_INT(e->flag, 1);
    CHECK_STR(printed(e), "0.04 [1/mV]");
    e = expr("3");
    CHECK(e->str == NULL);

    e = expr("V in mV");
    CHECK_INT(e->kind, AST_IN);
    CHECK_INT(e->b->kind, AST_UNAME);
    CHECK_STR(e->b->name, "mV");
    e = expr("x in (mV/ms)");
    CHECK_INT(e->b->kind, AST_UDIV);
    CHECK_STR(printed(e), "x in (mV/ms)");

    e = expr("pre.x * post.y + P.active + pos.x");
    CHECK_INT(e->a->a->a->kind, AST_FIELD);
    CHECK_STR(e->a->a->a->name, "pre");
    CHECK_STR(e->a->a->a->name2, "x");
    CHECK_STR(e->a->a->b->name, "post");
    CHECK_STR(e->a->b->name2, "active");
    CHECK_STR(e->b->kind == AST_FIELD ? e->b->name : "", "pos");

    e = expr("f(1, k = 2, g())");
    CHECK_INT(e->kind, AST_CALL);
    CHECK_STR(e->name, "f");
    CHECK_INT(e->list.n, 3);
    CHECK_INT(e->list.v[1]->kind, AST_ARG);
    CHECK_STR(e->list.v[1]->name, "k");
    CHECK_INT(e->list.v[2]->kind, AST_CALL);
    CHECK_INT(e->list.v[2]->list.n, 0);

    e = expr("true || false");
    CHECK_INT(e->a->kind, AST_BOOL);
    CHECK_INT(e->a->flag, 1);
    CHECK_INT(e->b->flag, 0);
}

static void test_models(void)
{
    AstNode *m = item0(
        "neuron N {\n"
        "  param { C: pF = 250 pF; k: int = 3; b: bool = true; w: weight\n"
        "          g: uA/cm^2 = 1 [uA/cm^2] clamp(0, inf); r: cm^-2 * ms / (1/ms) }\n"
        "  state { V: mV = E_L }\n"
        "  derived { d: 1 = 2 }\n"
        "  input { I: pA }\n"
        "  require { U: mV }\n"
        "  dynamics using euler(substeps = 2) {\n"
        "    let v = V in mV\n"
        "    let I2: pA = 2 pA\n"
        "    V' = -V / tau unless refractory\n"
        "    U' = 0\n"
        "  }\n"
        "  spike when V >= V_th\n"
        "  refractory 2 ms\n"
        "  on spike { V = V_reset; U += d }\n"
        "  update { if V > 0 mV { V -= 1 mV } else if V < 0 { V *= 2 } else { V /= 2 } }\n"
        "  emit V\n"
        "  func f(v: 1, w: mV): 1 = v + 1\n"
        "  func g(): mV { let q = 1 mV; return q }\n"
        "}\n");
    CHECK_INT(m->kind, AST_MODEL);
    CHECK_INT(m->op, TK_NEURON);
    CHECK_STR(m->name, "N");
    CHECK_INT(m->list.n, 13);
    AstNode *p = m->list.v[0];
    CHECK_INT(p->kind, AST_BLOCK_DECL);
    CHECK_INT(p->op, TK_PARAM);
    CHECK_INT(p->list.n, 6);
    AstNode *d = p->list.v[0];
    CHECK_INT(d->kind, AST_DECL);
    CHECK_STR(d->name, "C");
    CHECK_INT(d->a->kind, AST_TYPE);
    CHECK_INT(d->a->op, TY_UNIT);
    CHECK_STR(d->a->a->name, "pF");
    CHECK(d->b->num == 250);
    CHECK_INT(p->list.v[1]->a->op, TY_INT);
    CHECK_INT(p->list.v[2]->a->op, TY_BOOL);
    CHECK_INT(p->list.v[3]->a->op, TY_WEIGHT);
    CHECK(p->list.v[3]->b == NULL);
    d = p->list.v[4];
    CHECK_INT(d->a->a->kind, AST_UDIV);
    CHECK_STR(d->a->a->b->name, "cm");
    CHECK(d->a->a->b->num == 2);
    CHECK_INT(d->c->kind, AST_NUM);
    CHECK_INT(d->d->kind, AST_NAME);
    d = p->list.v[5];
    CHECK_INT(d->a->a->kind, AST_UDIV);
    CHECK_INT(d->a->a->a->kind, AST_UMUL);
    CHECK(d->a->a->a->a->num == -2);
    CHECK_INT(d->a->a->b->kind, AST_UDIV);
    CHECK_INT(d->a->a->b->a->kind, AST_UNUM);
    CHECK_INT(m->list.v[1]->op, TK_STATE);
    CHECK_INT(m->list.v[2]->op, TK_DERIVED);
    CHECK_INT(m->list.v[3]->op, TK_INPUT);
    CHECK_INT(m->list.v[4]->op, TK_REQUIRE);
    AstNode *dy = m->list.v[5];
    CHECK_INT(dy->kind, AST_DYNAMICS);
    CHECK_STR(dy->name, "euler");
    CHECK_INT(dy->flag, 1);
    CHECK_INT(dy->list2.n, 1);
    CHECK_INT(dy->list2.v[0]->kind, AST_ARG);
    CHECK_INT(dy->list.n, 4);
    CHECK_INT(dy->list.v[0]->kind, AST_LET);
    CHECK(dy->list.v[0]->a == NULL);
    CHECK_INT(dy->list.v[0]->b->kind, AST_IN);
    CHECK_INT(dy->list.v[1]->a->kind, AST_TYPE);
    CHECK_INT(dy->list.v[2]->kind, AST_DERIV);
    CHECK_STR(dy->list.v[2]->name, "V");
    CHECK_INT(dy->list.v[2]->flag, 1);
    CHECK_INT(dy->list.v[3]->flag, 0);
    CHECK_INT(m->list.v[6]->kind, AST_SPIKE_WHEN);
    CHECK_INT(m->list.v[6]->a->op, TK_GE);
    CHECK_INT(m->list.v[7]->kind, AST_REFRACTORY);
    AstNode *on = m->list.v[8];
    CHECK_INT(on->kind, AST_ON);
    CHECK_INT(on->op, EV_SPIKE);
    CHECK_INT(on->a->kind, AST_SBLOCK);
    CHECK_INT(on->a->list.n, 2);
    CHECK_INT(on->a->list.v[0]->kind, AST_ASSIGN);
    CHECK_INT(on->a->list.v[0]->op, TK_ASSIGN);
    CHECK_INT(on->a->list.v[0]->a->kind, AST_NAME);
    CHECK_INT(on->a->list.v[1]->op, TK_PLUSEQ);
    AstNode *up = m->list.v[9];
    CHECK_INT(up->kind, AST_UPDATE);
    AstNode *iff = up->a->list.v[0];
    CHECK_INT(iff->kind, AST_IF);
    CHECK_INT(iff->b->kind, AST_SBLOCK);
    CHECK_INT(iff->b->list.v[0]->op, TK_MINUSEQ);
    CHECK_INT(iff->c->kind, AST_IF);
    CHECK_INT(iff->c->b->list.v[0]->op, TK_STAREQ);
    CHECK_INT(iff->c->c->kind, AST_SBLOCK);
    CHECK_INT(iff->c->c->list.v[0]->op, TK_SLASHEQ);
    CHECK_INT(m->list.v[10]->kind, AST_EMIT);
    AstNode *f = m->list.v[11];
    CHECK_INT(f->kind, AST_FUNC);
    CHECK_STR(f->name, "f");
    CHECK_INT(f->list.n, 2);
    CHECK_INT(f->list.v[1]->kind, AST_DECL);
    CHECK_STR(f->list.v[1]->name, "w");
    CHECK_INT(f->a->kind, AST_TYPE);
    CHECK_INT(f->b->kind, AST_BINOP);
    f = m->list.v[12];
    CHECK_INT(f->list.n, 0);
    CHECK_INT(f->b->kind, AST_SBLOCK);
    CHECK_INT(f->b->list.v[1]->kind, AST_RETURN);
}

static void test_synapse(void)
{
    AstNode *m = item0(
        "synapse S {\n"
        "  state { w: weight = 0 clamp(0, w_max) }\n"
        "  pre { state { x: 1 = 0 }; on spike { x += 1 } }\n"
        "  post { state { y: 1 = 0 } }\n"
        "  on pre { deliver(w); w -= post.y }\n"
        "  on post { w += pre.x }\n"
        "  on pre & post { w *= 2 }\n"
        "  on step { deliver(w * pre.r) }\n"
        "}");
    CHECK_INT(m->op, TK_SYNAPSE);
    CHECK_INT(m->list.n, 7);
    CHECK_INT(m->list.v[1]->kind, AST_SCOPE);
    CHECK_INT(m->list.v[1]->op, TK_PRE);
    CHECK_INT(m->list.v[1]->list.n, 2);
    CHECK_INT(m->list.v[2]->op, TK_POST);
    AstNode *on = m->list.v[3];
    CHECK_INT(on->op, EV_PRE);
    CHECK_INT(on->a->list.v[0]->kind, AST_CALLSTMT);
    CHECK_INT(on->a->list.v[0]->a->kind, AST_CALL);
    CHECK_STR(on->a->list.v[0]->a->name, "deliver");
    CHECK_INT(m->list.v[4]->op, EV_POST);
    CHECK_INT(m->list.v[5]->op, EV_PREPOST);
    CHECK_INT(m->list.v[6]->op, EV_STEP);
    m = item0("receptor R { input { x: nS }\n emit x }");
    CHECK_INT(m->op, TK_RECEPTOR);
    CHECK_INT(m->list.n, 2);
}

static void test_network(void)
{
    AstNode *f = parse(
        "import \"stdlib/neurons.neuro\"\n"
        "const g: nS = 0.1 nS\n"
        "sim { dt = 0.1 ms; seed = 42 }\n"
        "connect gauss(p0: 1, sigma: um) = prob(p0) within 3 * sigma where i != j\n"
        "population P = LIF(C = 200 pF)[4000] { let r = uniform(); V = r * 1 mV }\n"
        "population E = Izh[grid(100, 100) spacing 20 um periodic]\n"
        "population G = Izh[grid(5)]\n"
        "population exc = P[0:3200]\n"
        "population all = exc + inh + P[1, 2, 3]\n"
        "population al = exc\n"
        "projection pr = exc -> P[0:10] {\n"
        "  synapse = Static\n"
        "  receptor = ExpCond(tau = 5 ms) { g = 40 nS + 15 nS * normal() } -> I_syn\n"
        "  receptor = Delta -> I\n"
        "  connect = fixed_prob(0.02)\n"
        "  connect = all_to_all\n"
        "  w = 6 nS\n"
        "}\n"
        "stimulus fI -> cells.I_ext = 2 * i\n"
        "record spikes of P to \"s.npy\"\n"
        "record V, m of cells[0, 5] every 0.1 ms to \"v.csv\"\n"
        "set B.active = false\n"
        "run 20 steps\n");
    CHECK(f != NULL);
    if (!f) {
        fprintf(stderr, "%s", diagbuf.s);
        return;
    }
    CHECK_INT(f->list.n, 16);
    AstNode **v = f->list.v;
    CHECK_INT(v[0]->kind, AST_IMPORT);
    CHECK_STR(v[0]->str, "stdlib/neurons.neuro");
    CHECK_INT(v[1]->kind, AST_CONST);
    CHECK_STR(v[1]->name, "g");
    CHECK_INT(v[1]->a->kind, AST_TYPE);
    CHECK_INT(v[1]->b->kind, AST_NUM);
    CHECK_INT(v[2]->kind, AST_SIM);
    CHECK_INT(v[2]->list.n, 2);
    CHECK_INT(v[2]->list.v[1]->kind, AST_SETTING);
    CHECK_STR(v[2]->list.v[1]->name, "seed");
    AstNode *cd = v[3];
    CHECK_INT(cd->kind, AST_CONNECTDEF);
    CHECK_INT(cd->list.n, 2);
    CHECK_INT(cd->list.v[0]->kind, AST_DECL);
    CHECK_INT(cd->a->kind, AST_RULE);
    CHECK_STR(cd->a->name, "prob");
    CHECK_INT(cd->a->list.n, 1);
    CHECK_INT(cd->a->a->op, TK_STAR);
    CHECK_INT(cd->a->b->op, TK_NE);
    AstNode *pop = v[4];
    CHECK_INT(pop->kind, AST_POPULATION);
    CHECK_INT(pop->a->kind, AST_POPATOM);
    CHECK_STR(pop->a->name, "LIF");
    CHECK_INT(pop->a->flag, 1);
    CHECK_INT(pop->a->list.n, 1);
    CHECK_INT(pop->a->a->kind, AST_IDXLIST);
    CHECK_INT(pop->list.n, 2);
    CHECK_INT(pop->list.v[0]->kind, AST_LET);
    CHECK_INT(pop->list.v[1]->kind, AST_INIT);
    AstNode *g = v[5]->a->a;
    CHECK_INT(g->kind, AST_IDXGRID);
    CHECK_INT(g->list.n, 2);
    CHECK_INT(g->a->kind, AST_NUM);
    CHECK_INT(g->flag, 1);
    g = v[6]->a->a;
    CHECK(g->a == NULL);
    CHECK_INT(g->flag, 0);
    CHECK_INT(v[6]->a->flag, 0);
    CHECK_INT(v[7]->a->a->kind, AST_IDXSLICE);
    CHECK_INT(v[8]->a->kind, AST_POPSUM);
    CHECK_INT(v[8]->a->list.n, 3);
    CHECK_INT(v[8]->a->list.v[2]->a->list.n, 3);
    CHECK_INT(v[9]->a->kind, AST_POPATOM);
    CHECK(v[9]->a->a == NULL);
    AstNode *pr = v[10];
    CHECK_INT(pr->kind, AST_PROJECTION);
    CHECK_INT(pr->a->kind, AST_TARGET);
    CHECK(pr->a->a == NULL);
    CHECK_INT(pr->b->a->kind, AST_IDXSLICE);
    CHECK_INT(pr->list.n, 6);
    CHECK_INT(pr->list.v[0]->kind, AST_PC_SYNAPSE);
    CHECK_INT(pr->list.v[0]->a->kind, AST_MODELREF);
    CHECK_INT(pr->list.v[0]->a->flag, 0);
    AstNode *rc = pr->list.v[1];
    CHECK_INT(rc->kind, AST_PC_RECEPTOR);
    CHECK_STR(rc->a->name, "ExpCond");
    CHECK_INT(rc->a->flag, 1);
    CHECK_STR(rc->name2, "I_syn");
    CHECK_INT(rc->list.n, 1);
    CHECK_INT(rc->list.v[0]->kind, AST_INIT);
    CHECK_STR(rc->list.v[0]->name, "g");
    CHECK_INT(pr->list.v[2]->list.n, 0);
    CHECK_INT(pr->list.v[3]->kind, AST_PC_CONNECT);
    CHECK_INT(pr->list.v[3]->a->flag, 1);
    CHECK_INT(pr->list.v[4]->a->flag, 0);
    CHECK_INT(pr->list.v[5]->kind, AST_PC_ASSIGN);
    AstNode *st = v[11];
    CHECK_INT(st->kind, AST_STIMULUS);
    CHECK_STR(st->name, "fI");
    CHECK_STR(st->name2, "cells");
    CHECK_STR(st->str, "I_ext");
    AstNode *r = v[12];
    CHECK_INT(r->kind, AST_RECORD);
    CHECK_INT(r->flag, 1);
    CHECK_STR(r->str, "s.npy");
    r = v[13];
    CHECK_INT(r->flag, 0);
    CHECK_INT(r->list.n, 2);
    CHECK_INT(r->list.v[1]->kind, AST_NAME);
    CHECK_INT(r->a->a->kind, AST_IDXLIST);
    CHECK_INT(r->b->kind, AST_NUM);
    CHECK_INT(v[14]->kind, AST_SET);
    CHECK_STR(v[14]->name, "B");
    CHECK_STR(v[14]->name2, "active");
    CHECK_INT(v[15]->kind, AST_RUN);
    CHECK_STR(v[15]->a->str, "steps");
}

static void test_errors(void)
{
    CHECK(parse("const x 3") == NULL);
    CHECK(diagbuf.s && strstr(diagbuf.s, "p.neuro:1:9: error: unexpected number '3', expected ':' or '='"));
    CHECK(parse("neuron N { on spike { V = = 3 } }") == NULL);
    CHECK(diagbuf.s && strstr(diagbuf.s, "1:27: error: unexpected '='"));
    CHECK(parse("neuron N {\n spike when V >= }") == NULL);
    CHECK(diagbuf.s && strstr(diagbuf.s, "2:18: error: unexpected '}'"));
    CHECK(parse("run") == NULL);
    CHECK(diagbuf.s && strstr(diagbuf.s, "1:4: error: unexpected end of input"));
    CHECK_INT(cc.diag.nerrors, 1);
    CHECK(parse("neuron N {") == NULL);
    CHECK(parse("x = 1") == NULL);
    CHECK(diagbuf.s && strstr(diagbuf.s, "unexpected identifier 'x'"));
    CHECK(parse("const a = (((((((((((1))))))))))) + 2") != NULL);
    {
        static char deep[8000];
        strcpy(deep, "const a = ");
        for (int i = 0; i < 3000; i++)
            strcat(deep, "(");
        CHECK(parse(deep) == NULL);
        CHECK(diagbuf.s && strstr(diagbuf.s, "nested too deeply"));
    }
    AstNode *f = parse("");
    CHECK(f != NULL && f->list.n == 0);
    f = parse("\n\n;;\n");
    CHECK(f != NULL && f->list.n == 0);
}

/* ncparse_accepts_seq: token sequences tried on a copy of the state stack (hint.c). */
static void test_accepts_seq(void)
{
    parse("");
    NcParser *p = ncparse_new(&cc);
    int good[] = {TK_CONST, TK_IDENT, TK_ASSIGN, TK_NUMBER, TK_PLUS, TK_NUMBER, TK_SEMI, TK_RUN,
                  TK_NUMBER, TK_UNIT, 0};
    int bad[] = {TK_CONST, TK_IDENT, TK_ASSIGN, TK_ASSIGN};
    int name[] = {TK_IDENT, TK_ASSIGN};
    CHECK(ncparse_accepts_seq(p, good, 11));
    CHECK(!ncparse_accepts_seq(p, bad, 4));
    CHECK(ncparse_accepts_seq(p, bad, 3));
    CHECK(!ncparse_accepts_seq(p, name, 2));   /* "x = 1" is no item */
    Token t;
    memset(&t, 0, sizeof t);
    t.code = TK_CONST;
    ncparse_feed(p, t);                         /* nothing above changed the parser */
    CHECK(ncparse_accepts_seq(p, name, 2));
    CHECK(!ncparse_accepts(p, TK_STEP));        /* 'const step = ...': a reserved word */
    ncparse_finish(p);
}

int main(void)
{
    test_exprs();
    test_models();
    test_synapse();
    test_network();
    test_errors();
    test_accepts_seq();
    compiler_free_front(&cc);
    sb_free(&diagbuf);
    return unit_report("test_parse");
}
