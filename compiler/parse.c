/* parse.c -- the Lemon push-parser loop (style rule 13): tokens from lex_next() go to
 * NcParse() one by one, then code 0 at end of input.  Each token is first checked against
 * the automaton (ncparse_accepts), so a syntax error is reported in the state before the
 * bad token, with the expected tokens when there are few, or by hint.c with a better
 * explanation (an unclosed bracket, a reserved word).  One syntax error stops the file:
 * parse_file returns NULL.
 */
#include "neuroc.h"
#include "neuro.h"

#include <string.h>

#define MAX_LISTED 4              /* list the expected tokens only when there are this few */

/* Report "unexpected X" at t, followed by ", expected A, B or C" when 1..MAX_LISTED
 * expected tokens are given. */
void parse_syntax_error(Compiler *cc, const Token *t, const int *expected, int nexpected)
{
    StrBuf b = {0};
    switch (t->code) {
    case 0: sb_puts(&b, "unexpected end of input"); break;
    case TK_IDENT: sb_printf(&b, "unexpected identifier '%s'", t->text); break;
    case TK_NUMBER: sb_printf(&b, "unexpected number '%s'", t->text ? t->text : "?"); break;
    case TK_UNIT: sb_printf(&b, "unexpected unit '%s'", t->text); break;
    case TK_STRING: sb_puts(&b, "unexpected string"); break;
    case TK_SEMI: sb_puts(&b, t->text ? "unexpected newline" : "unexpected ';'"); break;
    default: {
        const char *n = tok_name(t->code);
        sb_printf(&b, "unexpected %s", n ? n : "token");
        break;
    }
    }
    if (expected && nexpected > 0 && nexpected <= MAX_LISTED) {
        sb_puts(&b, ", expected ");
        for (int i = 0; i < nexpected; i++) {
            if (i > 0)
                sb_puts(&b, i == nexpected - 1 ? " or " : ", ");
            sb_puts(&b, tok_name(expected[i]));
        }
    }
    error_at(cc, t->loc, "%s", b.s);
    sb_free(&b);
}

/* The token after t, for the message about t; a lexical error in it is not reported. */
static Token lookahead(Compiler *cc, Lexer *lx, const Token *t)
{
    Token n = *t;
    if (t->code == 0)
        return n;
    FILE *out = cc->diag.out;
    StrBuf *cap = cc->diag.capture;
    int nerrors = cc->diag.nerrors;
    cc->diag.out = NULL;
    cc->diag.capture = NULL;
    n = lex_next(lx);
    cc->diag.out = out;
    cc->diag.capture = cap;
    cc->diag.nerrors = nerrors;
    return n;
}

/* Parse file `file` (loaded with src_load/src_add) into an AST_FILE; NULL after a
 * lexical or syntax error, which has been diagnosed.  The tree lives in cc->arena. */
AstNode *parse_file(Compiler *cc, uint32_t file)
{
    Lexer lx;
    NcParser *p;
    AstNode *root;
    int failed = 0;
    ParseHint hint;
    memset(&hint, 0, sizeof hint);
    lex_init(&lx, cc, file);
    p = ncparse_new(cc);
    for (;;) {
        Token t = lex_next(&lx);
        if (t.code == TK_ILLEGAL) {       /* diagnosed by the lexer */
            failed = 1;
            break;
        }
        if (!ncparse_accepts(p, t.code)) {
            Token n1 = lookahead(cc, &lx, &t);
            const Token *next = n1.code == TK_ILLEGAL ? NULL : &n1;
            if (!hint_syntax_error(cc, &hint, p, &t, next)) {
                int exp[MAX_LISTED];
                int n = ncparse_expected(p, exp, MAX_LISTED);
                parse_syntax_error(cc, &t, exp, n);
                hint_idiom(cc, &hint, p, &t, next);
            }
            failed = 1;
            break;
        }
        hint_track(cc, &hint, &t);
        ncparse_feed(p, t);
        if (ncparse_failed(p) == 2)
            error_at(cc, t.loc, "input nested too deeply");
        if (ncparse_failed(p)) {
            failed = 1;
            break;
        }
        if (t.code == 0)
            break;
    }
    AstNode *deep = ncparse_too_deep(p);
    if (deep)
        error_at(cc, deep->loc, "expression too deeply nested (%d levels; the limit is %d)",
                 deep->height, NC_MAX_EXPR_DEPTH);
    root = ncparse_finish(p);
    if (failed || deep)
        return NULL;
    if (!root)
        nc_ice("parser accepted no file");
    root->loc.file = file;
    root->loc.line = 1;
    root->loc.col = 1;
    root->loc.len = 1;
    return root;
}
