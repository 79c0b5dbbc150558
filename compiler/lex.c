/* lex.c -- the token stream the parser sees (language.md §5.2).  grammar/lexer.re scans
 * raw tokens; here newlines become ';' (Go-style insertion: depth 0, previous token can
 * end a statement, next line does not start with 'else'), and token names are kept for
 * messages.
 */
#include "neuroc.h"
#include "neuro.h"

#include <string.h>

/* Start lexing file `file` (already loaded; NUL-terminated). */
void lex_init(Lexer *lx, Compiler *cc, uint32_t file)
{
    memset(lx, 0, sizeof *lx);
    lx->cc = cc;
    lx->file = file;
    if (file == 0 || file >= cc->nfiles)
        nc_ice("lex_init: bad file %u", (unsigned)file);
    lx->start = cc->files[file].text;
    lx->cur = lx->start;
    lx->end = lx->start + cc->files[file].size;
    lx->line_begin = lx->start;
    lx->line = 1;
    lx->col_at = lx->start;
    lx->col = 1;
    lx->last.file = file;
    lx->last.line = 1;
    lx->last.col = 1;
    lx->last.len = 0;             /* so an empty file's end is at 1:1 */
}

static uint32_t codepoints(const char *b, const char *e)
{
    uint32_t n = 0;
    for (; b < e; b++)
        n += ((unsigned char)*b & 0xC0) != 0x80;
    return n;
}

/* The location of bytes [b, e) on the current line: columns counted in code points.
 * Tokens come in order, so the column is counted on from the previous token's start
 * (col_at, col) rather than from the start of the line: a line of n tokens costs O(n),
 * not O(n^2). */
SrcLoc lex_loc(Lexer *lx, const char *b, const char *e)
{
    SrcLoc l;
    if (lx->col_at < lx->line_begin || lx->col_at > b) {
        lx->col_at = lx->line_begin;
        lx->col = 1;
    }
    lx->col += codepoints(lx->col_at, b);
    lx->col_at = b;
    l.file = lx->file;
    l.line = lx->line;
    l.col = lx->col;
    l.len = codepoints(b, e);
    if (l.len == 0)
        l.len = 1;
    return l;
}

static int ends_statement(int code)
{
    switch (code) {
    case TK_IDENT: case TK_NUMBER: case TK_UNIT: case TK_STRING:
    case TK_RPAREN: case TK_RBRACK: case TK_RBRACE:
    case TK_TRUE: case TK_FALSE: case TK_SPIKES: case TK_STEP: case TK_REFRACTORY:
    case TK_PRE: case TK_POST: case TK_PERIODIC:
    case TK_INT: case TK_BOOL: case TK_WEIGHT: case TK_STRTYPE:
        return 1;
    default:
        return 0;
    }
}

static Token deliver(Lexer *lx, Token t)
{
    switch (t.code) {
    case TK_LPAREN: case TK_LBRACK: lx->depth++; break;
    case TK_RPAREN: case TK_RBRACK: if (lx->depth > 0) lx->depth--; break;
    default: break;
    }
    if (t.code == 0) {
        /* end of input: point just after the last real token */
        t.loc = lx->last;
        t.loc.col += lx->last.len;
        t.loc.len = 1;
    } else if (!(t.code == TK_SEMI && t.text)) {
        lx->last = t.loc;
    }
    lx->prev = t.code;
    return t;
}

/* The next token for the parser: code 0 at end of input (repeatedly), TK_ILLEGAL after a
 * lexical error (already diagnosed). */
Token lex_next(Lexer *lx)
{
    Token t;
    for (;;) {
        if (lx->has_pending) {
            t = lx->pending;
            lx->has_pending = 0;
        } else {
            lex_scan(lx, &t);
        }
        if (t.code != LEX_NEWLINE)
            return deliver(lx, t);
        if (lx->depth > 0 || !ends_statement(lx->prev))
            continue;
        /* a statement may end here: look past blank/comment lines for 'else' */
        Token semi = t;
        Token n;
        do
            lex_scan(lx, &n);
        while (n.code == LEX_NEWLINE);
        if (n.code == TK_ELSE)
            return deliver(lx, n);
        lx->pending = n;
        lx->has_pending = 1;
        semi.code = TK_SEMI;
        semi.text = "\n";
        return deliver(lx, semi);
    }
}

/* A printable name for a token code, for messages: "identifier", "'{'", "'neuron'". */
const char *tok_name(int code)
{
    switch (code) {
    case 0: return "end of input";
    case TK_IDENT: return "identifier";
    case TK_NUMBER: return "number";
    case TK_UNIT: return "unit";
    case TK_STRING: return "string";
    case TK_ILLEGAL: return "invalid token";
    case TK_UMINUS: return "'-'";
    case TK_LBRACE: return "'{'";
    case TK_RBRACE: return "'}'";
    case TK_LPAREN: return "'('";
    case TK_RPAREN: return "')'";
    case TK_LBRACK: return "'['";
    case TK_RBRACK: return "']'";
    case TK_COMMA: return "','";
    case TK_DOT: return "'.'";
    case TK_COLON: return "':'";
    case TK_SEMI: return "';'";
    case TK_PRIME: return "'''";
    case TK_ASSIGN: return "'='";
    case TK_PLUSEQ: return "'+='";
    case TK_MINUSEQ: return "'-='";
    case TK_STAREQ: return "'*='";
    case TK_SLASHEQ: return "'/='";
    case TK_ARROW: return "'->'";
    case TK_AMP: return "'&'";
    case TK_QUESTION: return "'?'";
    case TK_OROR: return "'||'";
    case TK_ANDAND: return "'&&'";
    case TK_EQ: return "'=='";
    case TK_NE: return "'!='";
    case TK_LT: return "'<'";
    case TK_LE: return "'<='";
    case TK_GT: return "'>'";
    case TK_GE: return "'>='";
    case TK_PLUS: return "'+'";
    case TK_MINUS: return "'-'";
    case TK_STAR: return "'*'";
    case TK_SLASH: return "'/'";
    case TK_PERCENT: return "'%'";
    case TK_CARET: return "'^'";
    case TK_NOT: return "'!'";
    case TK_IMPORT: return "'import'";
    case TK_CONST: return "'const'";
    case TK_SERIES: return "'series'";
    case TK_NEURON: return "'neuron'";
    case TK_SYNAPSE: return "'synapse'";
    case TK_RECEPTOR: return "'receptor'";
    case TK_FUNC: return "'func'";
    case TK_PARAM: return "'param'";
    case TK_STATE: return "'state'";
    case TK_DERIVED: return "'derived'";
    case TK_INPUT: return "'input'";
    case TK_REQUIRE: return "'require'";
    case TK_PRE: return "'pre'";
    case TK_POST: return "'post'";
    case TK_DYNAMICS: return "'dynamics'";
    case TK_USING: return "'using'";
    case TK_SPIKE: return "'spike'";
    case TK_WHEN: return "'when'";
    case TK_REFRACTORY: return "'refractory'";
    case TK_ON: return "'on'";
    case TK_UPDATE: return "'update'";
    case TK_EMIT: return "'emit'";
    case TK_UNLESS: return "'unless'";
    case TK_LET: return "'let'";
    case TK_IF: return "'if'";
    case TK_ELSE: return "'else'";
    case TK_RETURN: return "'return'";
    case TK_INT: return "'int'";
    case TK_BOOL: return "'bool'";
    case TK_WEIGHT: return "'weight'";
    case TK_STRTYPE: return "'string'";
    case TK_CLAMP: return "'clamp'";
    case TK_RANGE: return "'range'";
    case TK_STEP: return "'step'";
    case TK_SIM: return "'sim'";
    case TK_POPULATION: return "'population'";
    case TK_PROJECTION: return "'projection'";
    case TK_STIMULUS: return "'stimulus'";
    case TK_VIA: return "'via'";
    case TK_RECORD: return "'record'";
    case TK_RUN: return "'run'";
    case TK_SET: return "'set'";
    case TK_RUNTIME: return "'runtime'";
    case TK_CONNECT: return "'connect'";
    case TK_WITHIN: return "'within'";
    case TK_WHERE: return "'where'";
    case TK_GRID: return "'grid'";
    case TK_SPACING: return "'spacing'";
    case TK_PERIODIC: return "'periodic'";
    case TK_EVERY: return "'every'";
    case TK_FROM: return "'from'";
    case TK_TO: return "'to'";
    case TK_OF: return "'of'";
    case TK_SPIKES: return "'spikes'";
    case TK_IN: return "'in'";
    case TK_TRUE: return "'true'";
    case TK_FALSE: return "'false'";
    default: return NULL;
    }
}

/* --dump=tokens: one token per line, "line:col NAME text"; 1 if the file has a lexical error. */
int lex_dump(Compiler *cc, uint32_t file, FILE *out)
{
    Lexer lx;
    lex_init(&lx, cc, file);
    for (;;) {
        Token t = lex_next(&lx);
        fprintf(out, "%u:%u %s", (unsigned)t.loc.line, (unsigned)t.loc.col, tok_name(t.code));
        if (t.code == TK_SEMI && t.text)
            fprintf(out, " (newline)");
        else if (t.code == TK_STRING)
            fprintf(out, " \"%s\"", t.text);
        else if (t.code == TK_UNIT && t.num != 0)
            fprintf(out, " [%s]", t.text);
        else if (t.code == TK_IDENT || t.code == TK_NUMBER || t.code == TK_UNIT)
            fprintf(out, " %s", t.text);
        fputc('\n', out);
        if (t.code == 0 || t.code == TK_ILLEGAL)
            break;
    }
    return cc->diag.nerrors ? 1 : 0;
}

