/* lexer.re -- the re2c token rules of .neuro (language.md §5.2, style rule 12).
 * lex_scan() returns one raw token; newlines come back as LEX_NEWLINE and compiler/lex.c
 * turns them into ';' (or drops them), tracks bracket depth and joins 'else'.
 * The input is NUL-terminated (source.c); a NUL before the true end is an error token.
 */
#include "neuroc.h"
#include "neuro.h"

#include <stdlib.h>
#include <string.h>

/*!re2c
    re2c:define:YYCTYPE = "unsigned char";
    re2c:yyfill:enable = 0;
    re2c:indent:string = "    ";
*/

static Token finish(Lexer *lx, Token *t, int code, const char *b)
{
    t->code = code;
    t->loc = lex_loc(lx, b, lx->cur);
    return *t;
}

static int illegal(Lexer *lx, Token *t, const char *b, const char *msg)
{
    finish(lx, t, TK_ILLEGAL, b);
    error_at(lx->cc, t->loc, "%s", msg);
    return TK_ILLEGAL;
}

/* Length of a valid UTF-8 sequence at p (limit e), or 0. */
static int utf8_len(const unsigned char *p, const unsigned char *e)
{
    int n;
    unsigned cp;
    if (p[0] < 0x80) return 1;
    else if ((p[0] & 0xE0) == 0xC0) { n = 2; cp = p[0] & 0x1F; }
    else if ((p[0] & 0xF0) == 0xE0) { n = 3; cp = p[0] & 0x0F; }
    else if ((p[0] & 0xF8) == 0xF0) { n = 4; cp = p[0] & 0x07; }
    else return 0;
    if (e - p < n) return 0;
    for (int i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

/* After a NUMBER: optional blanks, then `[ text ]` or a simple unit not followed by an
 * identifier character.  Returns 1 and fills t on a unit (or error), 0 if none. */
static int scan_unit(Lexer *lx, Token *t, int *code)
{
    const unsigned char *save = (const unsigned char *)lx->cur;
    const unsigned char *YYCURSOR = save, *YYMARKER = save, *b;
    while (*YYCURSOR == ' ' || *YYCURSOR == '\t')
        YYCURSOR++;
    b = YYCURSOR;
    /*!re2c
        prefix = "p" | "n" | "u" | "\xC2\xB5" | "m" | "c" | "k" | "M" | "G";
        base = "s" | "Hz" | "m" | "g" | "V" | "A" | "C" | "S" | "F" | "Ohm" | "mol" | "M"
             | "L" | "K" | "step" | "steps";

        prefix? base {
            unsigned char c = *YYCURSOR;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')
                goto none;
            lx->cur = (const char *)YYCURSOR;
            t->text = intern(lx->cc, (const char *)b, (size_t)(YYCURSOR - b));
            t->num = 0;
            finish(lx, t, TK_UNIT, (const char *)b);
            *code = TK_UNIT;
            return 1;
        }
        "[" {
            const unsigned char *p = YYCURSOR, *s, *e;
            while (*p != ']' && *p != '\n' && *p != 0)
                p++;
            if (*p != ']') {
                lx->cur = (const char *)p;
                while (p > YYCURSOR && (p[-1] == '\r'))
                    p--;
                lx->cur = (const char *)p;
                *code = illegal(lx, t, (const char *)b, "unterminated unit, expected ']'");
                return 1;
            }
            s = YYCURSOR;
            e = p;
            while (s < e && (*s == ' ' || *s == '\t')) s++;
            while (e > s && (e[-1] == ' ' || e[-1] == '\t')) e--;
            lx->cur = (const char *)p + 1;
            t->text = intern(lx->cc, (const char *)s, (size_t)(e - s));
            t->num = 1;
            finish(lx, t, TK_UNIT, (const char *)b);
            *code = TK_UNIT;
            return 1;
        }
        * { goto none; }
    */
none:
    (void)YYMARKER;
    lx->cur = (const char *)save;
    return 0;
}

/* A string literal; lx->cur is just after the opening quote at q. */
static int scan_string(Lexer *lx, Token *t, const char *q)
{
    const unsigned char *p = (const unsigned char *)lx->cur;
    const unsigned char *end = (const unsigned char *)lx->end;
    StrBuf sb = {0};
    for (;;) {
        unsigned char c = *p;
        if (c == '"') {
            p++;
            break;
        }
        if (c == '\n' || (c == 0 && p >= end)) {
            while (p > (const unsigned char *)q + 1 && p[-1] == '\r')
                p--;
            lx->cur = (const char *)p;
            sb_free(&sb);
            return illegal(lx, t, q, "unterminated string");
        }
        if (c == 0) {
            lx->cur = (const char *)p + 1;
            sb_free(&sb);
            return illegal(lx, t, (const char *)p, "embedded NUL");
        }
        if (c == '\\') {
            unsigned char d = p[1];
            char r;
            if (d == '"' || d == '\\') r = (char)d;
            else if (d == 'n') r = '\n';
            else if (d == 't') r = '\t';
            else if (d == '\n' || d == 0) {
                p++;
                continue;         /* reported as unterminated / NUL next round */
            } else {
                int n = d < 0x80 ? 1 : utf8_len(p + 1, end);
                char msg[64];
                if (n == 0) n = 1;
                snprintf(msg, sizeof msg, "unknown escape sequence '\\%.*s'", n, (const char *)p + 1);
                lx->cur = (const char *)p + 1 + n;
                sb_free(&sb);
                finish(lx, t, TK_ILLEGAL, (const char *)p);
                error_at(lx->cc, t->loc, "%s", msg);
                return TK_ILLEGAL;
            }
            sb_putc(&sb, r);
            p += 2;
            continue;
        }
        sb_putc(&sb, (char)c);
        p++;
    }
    lx->cur = (const char *)p;
    t->text = intern(lx->cc, sb.s ? sb.s : "", sb.len);
    sb_free(&sb);
    finish(lx, t, TK_STRING, q);
    return TK_STRING;
}

/* One raw token into *t; returns its code: TK_*, 0 at end, LEX_NEWLINE, TK_ILLEGAL. */
int lex_scan(Lexer *lx, Token *t)
{
    const unsigned char *YYCURSOR, *YYMARKER, *b;
    int code;
    memset(t, 0, sizeof *t);
    if (lx->after_number) {
        lx->after_number = 0;
        if (scan_unit(lx, t, &code))
            return code;
    }
    for (;;) {
        b = (const unsigned char *)lx->cur;
        YYCURSOR = b;
        YYMARKER = b;
#define KW(k) do { lx->cur = (const char *)YYCURSOR; t->text = intern(lx->cc, (const char *)b, (size_t)(YYCURSOR - b)); finish(lx, t, k, (const char *)b); return k; } while (0)
#define OP(k) do { lx->cur = (const char *)YYCURSOR; finish(lx, t, k, (const char *)b); return k; } while (0)
        /*!re2c
            [ \t\r\v\f]+ { lx->cur = (const char *)YYCURSOR; continue; }
            "#" [^\n\x00]* { lx->cur = (const char *)YYCURSOR; continue; }
            "\n" {
                lx->cur = (const char *)YYCURSOR;
                t->code = LEX_NEWLINE;
                t->loc = lex_loc(lx, (const char *)b, (const char *)b + 1);
                lx->line++;
                lx->line_begin = lx->cur;
                return LEX_NEWLINE;
            }
            "\x00" {
                if ((const char *)b >= lx->end) {
                    lx->cur = lx->end;
                    t->code = 0;
                    t->loc = lex_loc(lx, lx->end, lx->end);
                    return 0;
                }
                lx->cur = (const char *)YYCURSOR;
                return illegal(lx, t, (const char *)b, "embedded NUL");
            }

            "import" { KW(TK_IMPORT); }
            "const" { KW(TK_CONST); }
            "neuron" { KW(TK_NEURON); }
            "synapse" { KW(TK_SYNAPSE); }
            "receptor" { KW(TK_RECEPTOR); }
            "func" { KW(TK_FUNC); }
            "param" { KW(TK_PARAM); }
            "state" { KW(TK_STATE); }
            "derived" { KW(TK_DERIVED); }
            "input" { KW(TK_INPUT); }
            "require" { KW(TK_REQUIRE); }
            "pre" { KW(TK_PRE); }
            "post" { KW(TK_POST); }
            "dynamics" { KW(TK_DYNAMICS); }
            "using" { KW(TK_USING); }
            "spike" { KW(TK_SPIKE); }
            "when" { KW(TK_WHEN); }
            "refractory" { KW(TK_REFRACTORY); }
            "on" { KW(TK_ON); }
            "update" { KW(TK_UPDATE); }
            "emit" { KW(TK_EMIT); }
            "unless" { KW(TK_UNLESS); }
            "let" { KW(TK_LET); }
            "if" { KW(TK_IF); }
            "else" { KW(TK_ELSE); }
            "return" { KW(TK_RETURN); }
            "int" { KW(TK_INT); }
            "bool" { KW(TK_BOOL); }
            "weight" { KW(TK_WEIGHT); }
            "string" { KW(TK_STRTYPE); }
            "clamp" { KW(TK_CLAMP); }
            "range" { KW(TK_RANGE); }
            "step" { KW(TK_STEP); }
            "sim" { KW(TK_SIM); }
            "population" { KW(TK_POPULATION); }
            "projection" { KW(TK_PROJECTION); }
            "stimulus" { KW(TK_STIMULUS); }
            "series" { KW(TK_SERIES); }
            "via" { KW(TK_VIA); }
            "record" { KW(TK_RECORD); }
            "run" { KW(TK_RUN); }
            "set" { KW(TK_SET); }
            "runtime" { KW(TK_RUNTIME); }
            "connect" { KW(TK_CONNECT); }
            "within" { KW(TK_WITHIN); }
            "where" { KW(TK_WHERE); }
            "grid" { KW(TK_GRID); }
            "spacing" { KW(TK_SPACING); }
            "periodic" { KW(TK_PERIODIC); }
            "every" { KW(TK_EVERY); }
            "from" { KW(TK_FROM); }
            "to" { KW(TK_TO); }
            "of" { KW(TK_OF); }
            "spikes" { KW(TK_SPIKES); }
            "in" { KW(TK_IN); }
            "true" { KW(TK_TRUE); }
            "false" { KW(TK_FALSE); }

            [A-Za-z_][A-Za-z0-9_]* { KW(TK_IDENT); }

            ([0-9]+ ("." [0-9]*)? | "." [0-9]+) ([eE] [+-]? [0-9]+)? {
                size_t n = (size_t)(YYCURSOR - b);
                char buf[64];
                lx->cur = (const char *)YYCURSOR;
                t->text = intern(lx->cc, (const char *)b, n);
                if (n < sizeof buf) {
                    memcpy(buf, b, n);
                    buf[n] = 0;
                    t->num = strtod(buf, NULL);
                } else {
                    t->num = strtod(t->text, NULL);
                }
                lx->after_number = 1;
                finish(lx, t, TK_NUMBER, (const char *)b);
                return TK_NUMBER;
            }

            "\"" { lx->cur = (const char *)YYCURSOR; return scan_string(lx, t, (const char *)b); }

            "{" { OP(TK_LBRACE); }
            "}" { OP(TK_RBRACE); }
            "(" { OP(TK_LPAREN); }
            ")" { OP(TK_RPAREN); }
            "[" { OP(TK_LBRACK); }
            "]" { OP(TK_RBRACK); }
            "," { OP(TK_COMMA); }
            "." { OP(TK_DOT); }
            ":" { OP(TK_COLON); }
            ";" { OP(TK_SEMI); }
            "'" { OP(TK_PRIME); }
            "=" { OP(TK_ASSIGN); }
            "+=" { OP(TK_PLUSEQ); }
            "-=" { OP(TK_MINUSEQ); }
            "*=" { OP(TK_STAREQ); }
            "/=" { OP(TK_SLASHEQ); }
            "->" { OP(TK_ARROW); }
            "&" { OP(TK_AMP); }
            "?" { OP(TK_QUESTION); }
            "||" { OP(TK_OROR); }
            "&&" { OP(TK_ANDAND); }
            "==" { OP(TK_EQ); }
            "!=" { OP(TK_NE); }
            "<" { OP(TK_LT); }
            "<=" { OP(TK_LE); }
            ">" { OP(TK_GT); }
            ">=" { OP(TK_GE); }
            "+" { OP(TK_PLUS); }
            "-" { OP(TK_MINUS); }
            "*" { OP(TK_STAR); }
            "/" { OP(TK_SLASH); }
            "%" { OP(TK_PERCENT); }
            "^" { OP(TK_CARET); }
            "!" { OP(TK_NOT); }

            [\x80-\xff] {
                int n = utf8_len(b, (const unsigned char *)lx->end);
                char msg[64];
                if (n == 0) {
                    lx->cur = (const char *)b + 1;
                    return illegal(lx, t, (const char *)b, "invalid UTF-8");
                }
                lx->cur = (const char *)b + n;
                snprintf(msg, sizeof msg, "unexpected character '%.*s'", n, (const char *)b);
                return illegal(lx, t, (const char *)b, msg);
            }
            * {
                char msg[64];
                unsigned char c = *b;
                lx->cur = (const char *)b + 1;
                if (c >= 0x20 && c < 0x7f)
                    snprintf(msg, sizeof msg, "unexpected character '%c'", c);
                else
                    snprintf(msg, sizeof msg, "unexpected character '\\x%02x'", c);
                return illegal(lx, t, (const char *)b, msg);
            }
        */
#undef KW
#undef OP
    }
}
