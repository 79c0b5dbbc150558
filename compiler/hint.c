/* hint.c -- messages for the mistakes newcomers make (language.md §13.3).
 * parse.c feeds every token to hint_track() and lets hint_syntax_error() report a syntax
 * error when it has a better one than "unexpected X": an unclosed bracket where it was
 * opened, a reserved word used as a name, an unknown unit after a number; hint_idiom()
 * adds a hint under "unexpected X" for Brian2's idioms.  sema
 * calls the hint_unknown_* helpers after "unknown name/unit/model" for a nearest unit, a
 * unit used as a value, or the stdlib file that defines a model.  Only diagnostics here.
 */
#include "neuroc.h"
#include "neuro.h"
#include "units.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

/* {===== tracking brackets and statements ===== */

/* "neuron" for TK_NEURON: a keyword's spelling, without tok_name's quotes. */
static const char *kw(Compiler *cc, int code)
{
    const char *n = tok_name(code);
    if (!n || n[0] != '\'')
        return n ? n : "?";
    return arena_printf(&cc->arena, "%.*s", (int)strlen(n) - 2, n + 1);
}

static int is_model_kind(int code)
{
    return code == TK_NEURON || code == TK_SYNAPSE || code == TK_RECEPTOR;
}

/* " of neuron N", or "" outside a model. */
static const char *of(Compiler *cc, const OpenBracket *b)
{
    if (!b->owner_kind)
        return "";
    return arena_printf(&cc->arena, " of %s %s", kw(cc, b->owner_kind), b->owner_name);
}

/* The construct a '{' opens, from the statement it ends: "the state block of neuron N". */
static const char *brace_what(Compiler *cc, const OpenBracket *b)
{
    const char *name = b->head_name ? b->head_name : "?";
    switch (b->head) {
    case TK_NEURON: case TK_SYNAPSE: case TK_RECEPTOR:
        if (b->owner_kind == b->head && b->owner_name == b->prev[0].text)
            return arena_printf(&cc->arena, "the body%s", of(cc, b));
        return arena_printf(&cc->arena, "the initialisers of receptor %s", name);
    case TK_PARAM: case TK_STATE: case TK_DERIVED: case TK_INPUT: case TK_REQUIRE:
        return arena_printf(&cc->arena, "the %s block%s", kw(cc, b->head), of(cc, b));
    case TK_PRE: case TK_POST:
        return arena_printf(&cc->arena, "the %s scope%s", kw(cc, b->head), of(cc, b));
    case TK_DYNAMICS:
        return arena_printf(&cc->arena, "the dynamics%s", of(cc, b));
    case TK_ON:
        return arena_printf(&cc->arena, "the 'on %s' block%s", kw(cc, b->prev[0].code), of(cc, b));
    case TK_UPDATE:
        return arena_printf(&cc->arena, "the update block%s", of(cc, b));
    case TK_FUNC:
        return arena_printf(&cc->arena, "the body of func %s", name);
    case TK_IF:
        if (!b->owner_kind)
            return "a block of an if statement";
        return arena_printf(&cc->arena, "a block of an if statement in %s %s", kw(cc, b->owner_kind),
                            b->owner_name);
    case TK_SIM:
        return "the sim block";
    case TK_POPULATION:
        return arena_printf(&cc->arena, "the initialisers of population %s", name);
    case TK_PROJECTION:
        return arena_printf(&cc->arena, "the block of projection %s", name);
    default:
        return arena_printf(&cc->arena, "this block%s", of(cc, b));
    }
}

/* The construct a bracket opens: "the arguments of LIF(...)", "P[...]", "the body of ...". */
static const char *bracket_what(Compiler *cc, const OpenBracket *b)
{
    const Token *p0 = &b->prev[0], *p1 = &b->prev[1];
    if (b->code == TK_LBRACE)
        return brace_what(cc, b);
    if (b->code == TK_LBRACK) {
        if (p0->code == TK_IDENT)
            return arena_printf(&cc->arena, "%s[...]", p0->text);
        if (p0->code == TK_RPAREN && b->closed)
            return arena_printf(&cc->arena, "%s(...)[...]", b->closed);
        return "these brackets";
    }
    if (p0->code == TK_IDENT) {
        if ((b->head == TK_FUNC || b->head == TK_CONNECT) && p1->code == b->head)
            return arena_printf(&cc->arena, "the parameters of %s %s", kw(cc, b->head), p0->text);
        return arena_printf(&cc->arena, "the arguments of %s(...)", p0->text);
    }
    if (p0->code == TK_CLAMP || p0->code == TK_GRID)
        return arena_printf(&cc->arena, "%s(...)", kw(cc, p0->code));
    return "a parenthesised expression";
}

/* Column of the first non-blank character of `line` (1 for an unknown line). */
static uint32_t indent_of(Compiler *cc, uint32_t file, uint32_t line)
{
    size_t n;
    const char *s = src_line(cc, file, line, &n);
    uint32_t col = 1;
    for (size_t i = 0; s && i < n && (s[i] == ' ' || s[i] == '\t'); i++)
        col++;
    return col;
}

static int starts_line(const ParseHint *h, const Token *t)
{
    return t->loc.line > h->last_line;
}

/* Remember token t, which the parser has just taken. */
void hint_track(Compiler *cc, ParseHint *h, const Token *t)
{
    OpenBracket *top = h->nopen > 0 && h->nopen <= HINT_MAXOPEN ? &h->open[h->nopen - 1] : NULL;
    switch (t->code) {
    case TK_SEMI:
        h->head = 0;
        h->head_name = NULL;
        break;
    case TK_LBRACE:
    case TK_LPAREN:
    case TK_LBRACK:
        if (h->nopen < HINT_MAXOPEN) {
            OpenBracket *b = &h->open[h->nopen];
            b->code = t->code;
            b->loc = t->loc;
            b->head = h->head;
            b->head_name = h->head_name;
            b->prev[0] = h->prev[0];
            b->prev[1] = h->prev[1];
            b->closed = h->closed;
            b->owner_kind = top ? top->owner_kind : 0;
            b->owner_name = top ? top->owner_name : NULL;
            if (t->code == TK_LBRACE && is_model_kind(h->head) && h->prev[1].code == h->head &&
                h->prev[0].code == TK_IDENT) {
                b->owner_kind = h->head;          /* neuron N { */
                b->owner_name = h->prev[0].text;
            }
        }
        h->nopen++;
        if (t->code == TK_LBRACE) {
            h->head = 0;
            h->head_name = NULL;
        }
        break;
    case TK_RBRACE:
    case TK_RPAREN:
    case TK_RBRACK:
        if (top) {
            /* a '}' left of its block's indent probably closes an outer block */
            if (t->code == TK_RBRACE && !h->suspect.code && starts_line(h, t) &&
                t->loc.col < indent_of(cc, top->loc.file, top->loc.line))
                h->suspect = *top;
            h->head = top->head;
            h->head_name = top->head_name;
            h->closed = top->prev[0].code == TK_IDENT ? top->prev[0].text : NULL;
        }
        if (h->nopen > 0)
            h->nopen--;
        break;
    default:
        if (h->head == 0)
            h->head = t->code;
        else if (!h->head_name && t->code == TK_IDENT)
            h->head_name = t->text;
        break;
    }
    h->prev[1] = h->prev[0];
    h->prev[0] = *t;
    if (!(t->code == TK_SEMI && t->text))
        h->last_line = t->loc.line;
}

/* {===== syntax errors ===== */

static const char *closer_of(int code)
{
    return code == TK_LPAREN ? "')'" : code == TK_LBRACK ? "']'" : "'}'";
}

static int closer_code(int code)
{
    return code == TK_LPAREN ? TK_RPAREN : code == TK_LBRACK ? TK_RBRACK : TK_RBRACE;
}

/* "identifier 'w'", "'population'", "end of input". */
static const char *tok_text(Compiler *cc, const Token *t)
{
    if (t->code == TK_IDENT)
        return arena_printf(&cc->arena, "identifier '%s'", t->text);
    if (t->code == TK_SEMI && t->text)
        return "the end of the line";
    return tok_name(t->code) ? tok_name(t->code) : "this token";
}

/* An unclosed bracket explains the error at t when its closer would be taken here and t
 * is the end of input, another closer, or starts a line no further right than the
 * bracket's line. */
static int unclosed_bracket(Compiler *cc, ParseHint *h, NcParser *p, const Token *t)
{
    if (h->nopen <= 0 || h->nopen > HINT_MAXOPEN)
        return 0;
    OpenBracket *b = &h->open[h->nopen - 1];
    if (!ncparse_accepts(p, closer_code(b->code)))
        return 0;
    int other_closer = (t->code == TK_RPAREN || t->code == TK_RBRACK || t->code == TK_RBRACE) &&
                       t->code != closer_code(b->code);
    if (t->code != 0 && !other_closer &&
        !(starts_line(h, t) && t->loc.col <= indent_of(cc, b->loc.file, b->loc.line)))
        return 0;
    if (h->suspect.code == TK_LBRACE && b->code == TK_LBRACE)
        b = &h->suspect;          /* the '}' that closed b was meant for the block around it */
    error_at(cc, b->loc, "unclosed '%c' opened here, in %s",
             b->code == TK_LPAREN ? '(' : b->code == TK_LBRACK ? '[' : '{', bracket_what(cc, b));
    note_at(cc, t->loc, "expected %s before %s", closer_of(b->code), tok_text(cc, t));
    return 1;
}

/* A keyword where a name would fit, followed by what may follow that name. */
static int reserved_name(Compiler *cc, NcParser *p, const Token *t, const Token *next)
{
    const char *n = tok_name(t->code);
    if (!n || n[0] != '\'' || !((n[1] >= 'a' && n[1] <= 'z') || (n[1] >= 'A' && n[1] <= 'Z')))
        return 0;
    if (!next)
        return 0;                 /* a lexical error follows: no telling */
    int seq[2] = {TK_IDENT, next->code};
    if (!ncparse_accepts_seq(p, seq, 2))
        return 0;
    error_at(cc, t->loc, "%s is a reserved word and cannot be used as a name", n);
    diag_extra(cc, "  hint: choose another name, e.g. '%s_'", kw(cc, t->code));
    return 1;
}

/* `250 PF`: an identifier after a number, one slip away from a unit. */
static int unit_after_number(Compiler *cc, ParseHint *h, NcParser *p, const Token *t)
{
    char buf[32];
    const char *near;
    if (t->code != TK_IDENT || h->prev[0].code != TK_NUMBER || h->prev[0].loc.line != t->loc.line ||
        !ncparse_accepts(p, TK_UNIT) || !(near = hint_unit_near(t->text, buf, sizeof buf)))
        return 0;
    error_at(cc, t->loc, "unknown unit '%s'", t->text);
    diag_extra(cc, "  note: did you mean '%s'?", near);
    return 1;
}

/* Brian2's `dV/dt = ...` and `V = V_th` in a condition: say how neuroc writes them. */
void hint_idiom(Compiler *cc, ParseHint *h, NcParser *p, const Token *t, const Token *next)
{
    const Token *p0 = &h->prev[0];
    if (t->code == TK_SLASH && p0->code == TK_IDENT && p0->text[0] == 'd' && p0->text[1] &&
        next && next->code == TK_IDENT && strcmp(next->text, "dt") == 0) {
        diag_extra(cc, "  hint: neuroc writes the derivative of %s as %s' = ..., not %s/dt = ...",
                   p0->text + 1, p0->text + 1, p0->text);
    } else if (t->code == TK_ASSIGN && ncparse_accepts(p, TK_GE)) {
        const char *a = p0->code == TK_IDENT ? p0->text : "x";
        const char *b = next && next->code == TK_IDENT ? next->text : "y";
        diag_extra(cc, "  hint: '=' assigns; a condition compares: '%s >= %s' (reaching a threshold) "
                       "or '%s == %s'", a, b, a, b);
    }
}

int hint_syntax_error(Compiler *cc, ParseHint *h, NcParser *p, const Token *t, const Token *next)
{
    if (t->code != 0 && reserved_name(cc, p, t, next))
        return 1;
    return unclosed_bracket(cc, h, p, t) || unit_after_number(cc, h, p, t);
}

/* {===== unknown names, units and models ===== */

/* Contract: the edit distance of two short strings (99 when either is over 30 bytes). */
int hint_distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b);
    if (la > 30 || lb > 30)
        return 99;
    int d[32][32];
    for (int i = 0; i <= la; i++)
        d[i][0] = i;
    for (int j = 0; j <= lb; j++)
        d[0][j] = j;
    for (int i = 1; i <= la; i++)
        for (int j = 1; j <= lb; j++) {
            int c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < c) c = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < c) c = d[i][j - 1] + 1;
            d[i][j] = c;
        }
    return d[la][lb];
}

static int same_ignoring_case(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b - 'A' + 'a') : *b;
        if (x != y)
            return 0;
    }
    return *a == *b;
}

const char *hint_unit_near(const char *name, char *buf, int len)
{
    /* candidates: unit_lookup() has the last word on which exist */
    static const char *const prefixes[] = {"", "f", "p", "n", "u", "m", "c", "k", "M", "G"};
    static const char *const bases[] = {"s", "Hz", "m", "g", "V", "A", "C", "S", "F", "Ohm",
                                        "mol", "M", "L", "K"};
    int best = 99;
    buf[0] = 0;
    if (strlen(name) < 2)         /* 'x' is no misspelt 'K' */
        return NULL;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        for (size_t k = 0; k < sizeof bases / sizeof bases[0]; k++) {
            char cand[16];
            Dim dm;
            double sc;
            snprintf(cand, sizeof cand, "%s%s", prefixes[i], bases[k]);
            if (strlen(cand) < 2 || !unit_lookup(cand, &dm, &sc))
                continue;
            /* a case slip counts as half an edit: 'PF' is 'pF' before it is 'nF' */
            int d = same_ignoring_case(name, cand) ? 1 : 2 * hint_distance(name, cand);
            if (d < best && d <= 2) {
                best = d;
                snprintf(buf, (size_t)len, "%s", cand);
            }
        }
    return buf[0] ? buf : NULL;
}

void hint_unknown_unit(Compiler *cc, const char *name)
{
    char buf[32];
    if (hint_unit_near(name, buf, sizeof buf))
        diag_extra(cc, "  note: did you mean '%s'?", buf);
}

/* `-55*mV` and `V/mV`: a unit name where a value is expected.  The operator before it,
 * read from the source line, says which Brian2 idiom it is. */
void hint_unknown_name(Compiler *cc, SrcLoc loc, const char *name)
{
    Dim d;
    double sc;
    size_t n;
    if (strlen(name) < 2 || !unit_lookup(name, &d, &sc))
        return;                   /* 'C' or 'g' is more likely a forgotten variable */
    const char *s = src_line(cc, loc.file, loc.line, &n);
    size_t i = 0;
    for (uint32_t col = 1; s && i < n && col < loc.col; i++)     /* byte offset of loc.col */
        col += ((unsigned char)s[i] & 0xC0) != 0x80;
    size_t j = i;
    while (s && j > 0 && (s[j - 1] == ' ' || s[j - 1] == '\t'))
        j--;
    char op = s && j > 0 ? s[j - 1] : 0;
    size_t e = j > 0 ? j - 1 : 0, b;
    while (e > 0 && (s[e - 1] == ' ' || s[e - 1] == '\t'))
        e--;
    b = e;                        /* [b, e): the operand before the operator */
    while (b > 0 && (strchr("._", s[b - 1]) || (s[b - 1] >= '0' && s[b - 1] <= '9') ||
                     (s[b - 1] >= 'a' && s[b - 1] <= 'z') || (s[b - 1] >= 'A' && s[b - 1] <= 'Z')))
        b--;
    int num = b < e && ((s[b] >= '0' && s[b] <= '9') || s[b] == '.');
    if (num && b > 0 && s[b - 1] == '-')
        b--;                      /* -55*mV */
    if (op == '*' && num)
        diag_extra(cc, "  hint: '%s' is a unit, not a value: write '%.*s %s', not '%.*s*%s'", name,
                   (int)(e - b), s + b, name, (int)(e - b), s + b, name);
    else if (op == '/' && b < e && !num)
        diag_extra(cc, "  hint: '%s' is a unit, not a value: '%.*s in %s' is %.*s as a number of %s",
                   name, (int)(e - b), s + b, name, (int)(e - b), s + b, name);
    else
        diag_extra(cc, "  hint: '%s' is a unit, not a value: it follows a number ('1 %s'), or "
                       "strips a unit ('x in %s')", name, name, name);
}

/* 1 if the text at s starts a declaration of model `name`: "neuron AdEx {". */
static int declares(const char *s, const char *name)
{
    static const char *const kinds[] = {"neuron", "synapse", "receptor"};
    while (*s == ' ' || *s == '\t')
        s++;
    for (int k = 0; k < 3; k++) {
        size_t kl = strlen(kinds[k]), nl = strlen(name);
        const char *q = s + kl;
        if (strncmp(s, kinds[k], kl) != 0 || (*q != ' ' && *q != '\t'))
            continue;
        while (*q == ' ' || *q == '\t')
            q++;
        if (strncmp(q, name, nl) == 0 && (q[nl] == ' ' || q[nl] == '\t' || q[nl] == '{'))
            return 1;
    }
    return 0;
}

static int file_declares(const char *path, const char *name)
{
    FILE *f = fopen(path, "r");
    char line[512];
    int found = 0;
    if (!f)
        return 0;
    while (!found && fgets(line, sizeof line, f))
        found = declares(line, name);
    fclose(f);
    return found;
}

static int loaded(Compiler *cc, const char *path)
{
    for (uint32_t f = 1; f < cc->nfiles; f++)
        if (cc->files[f].path && strcmp(cc->files[f].path, path) == 0)
            return 1;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "unknown neuron model 'AdEx'": say which stdlib file defines it, if one does. */
void hint_unknown_model(Compiler *cc, const char *name)
{
    const char *dir = cc->opt.stdlib_dir;
    DIR *d = dir ? opendir(dir) : NULL;
    const char *names[64];
    int n = 0;
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL && n < 64;) {
        size_t l = strlen(e->d_name);
        if (l > 6 && strcmp(e->d_name + l - 6, ".neuro") == 0)
            names[n++] = arena_printf(&cc->arena, "%s", e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_str);
    for (int i = 0; i < n; i++) {
        const char *path = arena_printf(&cc->arena, "%s/%s", dir, names[i]);
        if (loaded(cc, path) || !file_declares(path, name))
            continue;             /* an imported file's models are known: not this */
        diag_extra(cc, "  note: '%s' is defined in \"stdlib/%s\": add import \"stdlib/%s\"", name,
                   names[i], names[i]);
        return;
    }
}
