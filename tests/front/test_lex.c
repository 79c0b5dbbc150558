/* test_lex.c -- lexer unit tests: units after numbers, bracket units, µ, newline -> ';'
 * (parens, 'else', blank lines, comments), strings, names of all tokens, locations. */
#include "neuroc.h"
#include "neuro.h"
#include "unit.h"

#include <stdlib.h>

typedef struct Lexed {
    Compiler cc;
    StrBuf diag;
    Token t[256];
    int n;
} Lexed;

/* Lex text (size bytes) into L->t, up to and including end of input or an error token. */
static void lex_text(Lexed *L, const char *text, size_t size)
{
    Lexer lx;
    memset(L, 0, sizeof *L);
    compiler_init_front(&L->cc);
    L->cc.diag.out = NULL;
    L->cc.diag.capture = &L->diag;
    uint32_t f = src_add(&L->cc, "t.neuro", text, size);
    lex_init(&lx, &L->cc, f);
    while (L->n < 256) {
        Token t = lex_next(&lx);
        L->t[L->n++] = t;
        if (t.code == 0 || t.code == TK_ILLEGAL)
            break;
    }
}

static void lex_done(Lexed *L)
{
    sb_free(&L->diag);
    compiler_free_front(&L->cc);
}

/* The codes of text's tokens, excluding the final end of input, as a 0-terminated array. */
static int codes_are(const char *text, const int *want)
{
    Lexed *L = malloc(sizeof *L);
    int ok = 1, i;
    lex_text(L, text, strlen(text));
    for (i = 0; want[i]; i++)
        if (i >= L->n || L->t[i].code != want[i])
            ok = 0;
    if (i >= L->n || L->t[i].code != 0)
        ok = 0;
    if (!ok) {
        fprintf(stderr, "tokens of \"%s\":", text);
        for (int j = 0; j < L->n; j++)
            fprintf(stderr, " %s", tok_name(L->t[j].code));
        fputc('\n', stderr);
    }
    lex_done(L);
    free(L);
    return ok;
}

#define CODES(text, ...) CHECK(codes_are(text, (const int[]){__VA_ARGS__, 0}))

static void test_units(void)
{
    Lexed *L = malloc(sizeof *L);
    CODES("20 ms", TK_NUMBER, TK_UNIT);
    CODES("-65 mV", TK_MINUS, TK_NUMBER, TK_UNIT);
    CODES("4 nS", TK_NUMBER, TK_UNIT);
    CODES("1 step", TK_NUMBER, TK_UNIT);
    CODES("20 steps", TK_NUMBER, TK_UNIT);
    CODES("1 s", TK_NUMBER, TK_UNIT);
    CODES("20ms", TK_NUMBER, TK_UNIT);
    CODES("2 * V", TK_NUMBER, TK_STAR, TK_IDENT);
    CODES("1 - m", TK_NUMBER, TK_MINUS, TK_IDENT);
    CODES("3 min", TK_NUMBER, TK_IDENT);
    CODES("3 mV2", TK_NUMBER, TK_IDENT);
    CODES("m^3", TK_IDENT, TK_CARET, TK_NUMBER);
    CODES("x = 5\nms", TK_IDENT, TK_ASSIGN, TK_NUMBER, TK_SEMI, TK_IDENT);
    CODES("0.04 [1/mV]", TK_NUMBER, TK_UNIT);
    CODES("x [1]", TK_IDENT, TK_LBRACK, TK_NUMBER, TK_RBRACK);
    CODES("P[0:3200]", TK_IDENT, TK_LBRACK, TK_NUMBER, TK_COLON, TK_NUMBER, TK_RBRACK);
    CODES("5 MOhm + 3 mol + 2 kHz + 1 mM + 7 GOhm", TK_NUMBER, TK_UNIT, TK_PLUS, TK_NUMBER,
          TK_UNIT, TK_PLUS, TK_NUMBER, TK_UNIT, TK_PLUS, TK_NUMBER, TK_UNIT, TK_PLUS, TK_NUMBER, TK_UNIT);
    CODES("1 on", TK_NUMBER, TK_ON);
    CODES("1 unless refractory", TK_NUMBER, TK_UNLESS, TK_REFRACTORY);

    lex_text(L, "2 \xC2\xB5m + 120 [ mS/cm^2 ]\t+ 1\tms", strlen("2 \xC2\xB5m + 120 [ mS/cm^2 ]\t+ 1\tms"));
    CHECK_INT(L->t[1].code, TK_UNIT);
    CHECK_STR(L->t[1].text, "\xC2\xB5m");
    CHECK(L->t[1].num == 0);
    CHECK_INT(L->t[1].loc.col, 3);
    CHECK_INT(L->t[1].loc.len, 2);
    CHECK_INT(L->t[2].loc.col, 6);          /* code points, not bytes */
    CHECK_INT(L->t[4].code, TK_UNIT);
    CHECK_STR(L->t[4].text, "mS/cm^2");
    CHECK(L->t[4].num == 1);
    CHECK_INT(L->t[4].loc.col, 12);
    CHECK_INT(L->t[4].loc.len, 11);
    CHECK_INT(L->t[7].code, TK_UNIT);
    CHECK_STR(L->t[7].text, "ms");
    CHECK(L->t[1].text == intern_cstr(&L->cc, "\xC2\xB5m"));   /* interned */
    lex_done(L);

    lex_text(L, "a = 0.04 [1/mV\nb", 16);
    CHECK_INT(L->t[L->n - 1].code, TK_ILLEGAL);
    CHECK(L->diag.s && strstr(L->diag.s, "t.neuro:1:10: error: unterminated unit, expected ']'"));
    CHECK_INT(L->cc.diag.nerrors, 1);
    lex_done(L);
    free(L);
}

static void test_numbers(void)
{
    Lexed *L = malloc(sizeof *L);
    lex_text(L, "1 0.5 .5 1e-3 2.5E+4 100000 3.", 30);
    CHECK_INT(L->n, 8);
    CHECK(L->t[0].num == 1);
    CHECK(L->t[1].num == 0.5);
    CHECK(L->t[2].num == 0.5);
    CHECK(L->t[3].num == 1e-3);
    CHECK(L->t[4].num == 2.5e4);
    CHECK(L->t[5].num == 100000);
    CHECK(L->t[6].num == 3);
    CHECK_STR(L->t[3].text, "1e-3");
    for (int i = 0; i < 7; i++)
        CHECK_INT(L->t[i].code, TK_NUMBER);
    lex_done(L);
    free(L);
}

static void test_newlines(void)
{
    CODES("a\nb", TK_IDENT, TK_SEMI, TK_IDENT);
    CODES("a\n\n\n  \n# c\nb", TK_IDENT, TK_SEMI, TK_IDENT);
    CODES("a;\nb", TK_IDENT, TK_SEMI, TK_IDENT);
    CODES("f(a,\n b\n)", TK_IDENT, TK_LPAREN, TK_IDENT, TK_COMMA, TK_IDENT, TK_RPAREN);
    CODES("x[1,\n2]\ny", TK_IDENT, TK_LBRACK, TK_NUMBER, TK_COMMA, TK_NUMBER, TK_RBRACK, TK_SEMI, TK_IDENT);
    CODES("a =\n b", TK_IDENT, TK_ASSIGN, TK_IDENT);
    CODES("a +\n b", TK_IDENT, TK_PLUS, TK_IDENT);
    CODES("{\n a\n}", TK_LBRACE, TK_IDENT, TK_SEMI, TK_RBRACE);
    CODES("}\nelse {", TK_RBRACE, TK_ELSE, TK_LBRACE);
    CODES("}\n\n  # comment\n  else {", TK_RBRACE, TK_ELSE, TK_LBRACE);
    CODES("}\nelsewhere", TK_RBRACE, TK_SEMI, TK_IDENT);
    CODES("a # comment\nb", TK_IDENT, TK_SEMI, TK_IDENT);
    CODES("x: int\ny: weight\nz: bool\nf: string\n", TK_IDENT, TK_COLON, TK_INT, TK_SEMI, TK_IDENT,
          TK_COLON, TK_WEIGHT, TK_SEMI, TK_IDENT, TK_COLON, TK_BOOL, TK_SEMI, TK_IDENT, TK_COLON,
          TK_STRTYPE, TK_SEMI);
    CODES("20 ms\n3 [mV]\n\"s\"\ntrue\nfalse\nspikes\nstep\nrefractory\npre\npost\nperiodic\n)\n]\n",
          TK_NUMBER, TK_UNIT, TK_SEMI, TK_NUMBER, TK_UNIT, TK_SEMI, TK_STRING, TK_SEMI, TK_TRUE, TK_SEMI,
          TK_FALSE, TK_SEMI, TK_SPIKES, TK_SEMI, TK_STEP, TK_SEMI, TK_REFRACTORY, TK_SEMI, TK_PRE, TK_SEMI,
          TK_POST, TK_SEMI, TK_PERIODIC, TK_SEMI, TK_RPAREN, TK_SEMI, TK_RBRACK, TK_SEMI);
    CODES("V'\n= 1", TK_IDENT, TK_PRIME, TK_ASSIGN, TK_NUMBER);
    CODES("else\nx", TK_ELSE, TK_IDENT);
    CODES("spike when\nV", TK_SPIKE, TK_WHEN, TK_IDENT);
    CODES("a\r\nb", TK_IDENT, TK_SEMI, TK_IDENT);

    Lexed *L = malloc(sizeof *L);
    lex_text(L, "ab\n  c", 6);
    CHECK_INT(L->t[1].code, TK_SEMI);
    CHECK(L->t[1].text != NULL);             /* inserted, not written */
    CHECK_INT(L->t[1].loc.line, 1);
    CHECK_INT(L->t[1].loc.col, 3);
    CHECK_INT(L->t[2].loc.line, 2);
    CHECK_INT(L->t[2].loc.col, 3);
    CHECK_INT(L->t[3].code, 0);
    CHECK_INT(L->t[3].loc.line, 2);          /* end of input: just after the last token */
    CHECK_INT(L->t[3].loc.col, 4);
    lex_done(L);
    lex_text(L, "a;b", 3);
    CHECK(L->t[1].text == NULL);
    lex_done(L);
    free(L);
}

static void test_words_and_ops(void)
{
    static const struct { const char *s; int code; } kw[] = {
        {"import", TK_IMPORT}, {"const", TK_CONST}, {"neuron", TK_NEURON}, {"synapse", TK_SYNAPSE},
        {"receptor", TK_RECEPTOR}, {"func", TK_FUNC}, {"param", TK_PARAM}, {"state", TK_STATE},
        {"derived", TK_DERIVED}, {"input", TK_INPUT}, {"require", TK_REQUIRE}, {"pre", TK_PRE},
        {"post", TK_POST}, {"dynamics", TK_DYNAMICS}, {"using", TK_USING}, {"spike", TK_SPIKE},
        {"when", TK_WHEN}, {"refractory", TK_REFRACTORY}, {"on", TK_ON}, {"update", TK_UPDATE},
        {"emit", TK_EMIT}, {"unless", TK_UNLESS}, {"let", TK_LET}, {"if", TK_IF}, {"else", TK_ELSE},
        {"return", TK_RETURN}, {"int", TK_INT}, {"bool", TK_BOOL}, {"weight", TK_WEIGHT},
        {"string", TK_STRTYPE},
        {"clamp", TK_CLAMP}, {"range", TK_RANGE}, {"step", TK_STEP}, {"sim", TK_SIM}, {"population", TK_POPULATION},
        {"projection", TK_PROJECTION}, {"stimulus", TK_STIMULUS}, {"via", TK_VIA}, {"record", TK_RECORD},
        {"run", TK_RUN}, {"set", TK_SET}, {"runtime", TK_RUNTIME}, {"connect", TK_CONNECT}, {"within", TK_WITHIN},
        {"where", TK_WHERE}, {"grid", TK_GRID}, {"spacing", TK_SPACING}, {"periodic", TK_PERIODIC},
        {"every", TK_EVERY}, {"from", TK_FROM}, {"to", TK_TO}, {"of", TK_OF}, {"spikes", TK_SPIKES}, {"in", TK_IN},
        {"true", TK_TRUE}, {"false", TK_FALSE},
    };
    CHECK_INT(sizeof kw / sizeof kw[0], 56); /* docs/language.md §2.2 */
    for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++) {
        CHECK(codes_are(kw[i].s, (const int[]){kw[i].code, 0}));
        char buf[32];
        snprintf(buf, sizeof buf, "%s_x", kw[i].s);
        CHECK(codes_are(buf, (const int[]){TK_IDENT, 0}));
    }
    CODES("steps", TK_IDENT);
    CODES("{ } ( ) [ ] , . : ; ' = += -= *= /= -> & ? || && == != < <= > >= + - * / % ^ !",
          TK_LBRACE, TK_RBRACE, TK_LPAREN, TK_RPAREN, TK_LBRACK, TK_RBRACK, TK_COMMA, TK_DOT,
          TK_COLON, TK_SEMI, TK_PRIME, TK_ASSIGN, TK_PLUSEQ, TK_MINUSEQ, TK_STAREQ, TK_SLASHEQ,
          TK_ARROW, TK_AMP, TK_QUESTION, TK_OROR, TK_ANDAND, TK_EQ, TK_NE, TK_LT, TK_LE, TK_GT,
          TK_GE, TK_PLUS, TK_MINUS, TK_STAR, TK_SLASH, TK_PERCENT, TK_CARET, TK_NOT);
    CODES("a->b", TK_IDENT, TK_ARROW, TK_IDENT);
    CODES("pre&post", TK_PRE, TK_AMP, TK_POST);

    for (int c = 1; c < tok_count(); c++) {
        CHECK(tok_name(c) != NULL);
        if (!tok_name(c))
            fprintf(stderr, "  token code %d has no name\n", c);
    }
    CHECK_STR(tok_name(0), "end of input");
    CHECK_STR(tok_name(TK_IDENT), "identifier");
    CHECK_STR(tok_name(TK_LBRACE), "'{'");
    CHECK_STR(tok_name(TK_NEURON), "'neuron'");
}

static void test_strings_and_errors(void)
{
    Lexed *L = malloc(sizeof *L);
    const char *s = "import \"a\\\"b\\\\c\\n\\t\xC3\xA9\" x";
    lex_text(L, s, strlen(s));
    CHECK_INT(L->t[1].code, TK_STRING);
    CHECK_STR(L->t[1].text, "a\"b\\c\n\t\xC3\xA9");
    CHECK_INT(L->t[1].loc.col, 8);
    CHECK_INT(L->t[2].loc.col, 23);
    lex_done(L);

    lex_text(L, "import \"abc\nrun", 15);
    CHECK_INT(L->t[1].code, TK_ILLEGAL);
    CHECK(L->diag.s && strstr(L->diag.s, "1:8: error: unterminated string"));
    lex_done(L);

    lex_text(L, "x = 3 $ 4", 9);
    CHECK_INT(L->t[3].code, TK_ILLEGAL);
    CHECK_INT(L->t[3].loc.col, 7);
    CHECK(L->diag.s && strstr(L->diag.s, "t.neuro:1:7: error: unexpected character '$'\n"));
    lex_done(L);

    lex_text(L, "x = 1\0 + 2", 10);
    CHECK_INT(L->t[3].code, TK_ILLEGAL);
    CHECK(L->diag.s && strstr(L->diag.s, "1:6: error: embedded NUL"));
    lex_done(L);

    lex_text(L, "x \xC3(", 4);
    CHECK_INT(L->t[1].code, TK_ILLEGAL);
    CHECK(L->diag.s && strstr(L->diag.s, "1:3: error: invalid UTF-8"));
    lex_done(L);

    lex_text(L, "# only a comment", 16);
    CHECK_INT(L->n, 1);
    CHECK_INT(L->t[0].code, 0);
    CHECK_INT(L->t[0].loc.line, 1);
    CHECK_INT(L->t[0].loc.col, 1);
    lex_done(L);

    lex_text(L, "", 0);
    CHECK_INT(L->t[0].code, 0);
    lex_done(L);
    free(L);
}

static void test_locations(void)
{
    Lexed *L = malloc(sizeof *L);
    const char *s = "neuron  LIF {\n\tV' = -V / tau_m\n}";
    lex_text(L, s, strlen(s));
    CHECK_INT(L->t[1].loc.line, 1);
    CHECK_INT(L->t[1].loc.col, 9);
    CHECK_INT(L->t[1].loc.len, 3);
    CHECK_INT(L->t[3].code, TK_IDENT);       /* V (no ';' after '{') */
    CHECK_INT(L->t[3].loc.line, 2);
    CHECK_INT(L->t[3].loc.col, 2);           /* a tab is one column */
    CHECK_INT(L->t[4].code, TK_PRIME);
    CHECK_INT(L->t[4].loc.col, 3);
    CHECK_INT(L->t[9].loc.col, 12);          /* tau_m */
    CHECK_INT(L->t[9].loc.len, 5);
    CHECK_INT(L->t[9].loc.file, 1);
    lex_done(L);
    free(L);
}

int main(void)
{
    test_units();
    test_numbers();
    test_newlines();
    test_words_and_ops();
    test_strings_and_errors();
    test_locations();
    return unit_report("test_lex");
}
