/* diag.c -- the one diagnostics sink (style rule 11).  Renders GCC-compatible messages
 *   path:line:col: error: message
 *   <source line>
 *   <caret line ^~~~>
 * to cc->diag.out and/or cc->diag.capture, counts errors and warnings, and stops
 * printing after diag.error_limit errors.
 */
#include "neuroc.h"

#include <stdlib.h>
#include <string.h>

static const char *level_name(DiagLevel lvl)
{
    switch (lvl) {
    case DIAG_ERROR: return "error";
    case DIAG_WARNING: return "warning";
    case DIAG_NOTE: return "note";
    }
    return "error";
}

static int suppressed(Compiler *cc)
{
    return cc->diag.error_limit > 0 && cc->diag.nerrors > cc->diag.error_limit;
}

static void emit(Compiler *cc, const StrBuf *b)
{
    if (!b->len)
        return;
    if (cc->diag.out) {
        fwrite(b->s, 1, b->len, cc->diag.out);
        fflush(cc->diag.out);
    }
    if (cc->diag.capture)
        sb_putn(cc->diag.capture, b->s, b->len);
}

/* Length of the valid UTF-8 sequence at s[0..n) (1 for ASCII), or 0 if it is not one. */
static size_t utf8_seq(const unsigned char *s, size_t n, unsigned *cp)
{
    size_t k;
    unsigned c;
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    if ((s[0] & 0xE0) == 0xC0) { k = 2; c = s[0] & 0x1F; }
    else if ((s[0] & 0xF0) == 0xE0) { k = 3; c = s[0] & 0x0F; }
    else if ((s[0] & 0xF8) == 0xF0) { k = 4; c = s[0] & 0x07; }
    else return 0;
    if (n < k)
        return 0;
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        c = (c << 6) | (s[i] & 0x3F);
    }
    if ((k == 2 && c < 0x80) || (k == 3 && c < 0x800) || (k == 4 && c < 0x10000) || c > 0x10FFFF ||
        (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return k;
}

/* Contract: neuroc.h. Text from the model or the command line (paths, names, strings)
 * reaches the terminal only through here: a newline in a file name must not start a
 * forged diagnostic, an escape sequence must not drive the terminal. */
void sb_put_escaped(StrBuf *b, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        unsigned cp;
        size_t k = utf8_seq(u + i, n - i, &cp);
        if (k == 0 || cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) {
            unsigned char c = u[i];
            if (c == '\n') sb_puts(b, "\\n");
            else if (c == '\t') sb_puts(b, "\\t");
            else if (c == '\r') sb_puts(b, "\\r");
            else if (k == 0 || k == 1) sb_printf(b, "\\x%02x", c);
            else sb_printf(b, "\\u%04x", cp);
            i += k ? k : 1;
            continue;
        }
        sb_putn(b, s + i, k);
        i += k;
    }
}

/* Contract: neuroc.h. */
const char *diag_safe(Compiler *cc, const char *s)
{
    StrBuf b = {0};
    sb_put_escaped(&b, s, strlen(s));
    const char *r = arena_strndup(&cc->arena, b.s ? b.s : "", b.len);
    sb_free(&b);
    return r;
}

#define ECHO_WIDTH 240            /* a longer source line is echoed as a window around the caret */
#define ECHO_BEFORE 80            /* ... starting this many columns before it */

/* Echo the source line and put a caret line under columns [col, col+len), clamped to the
 * line (at least one '^'). Control characters other than tab show as blanks, a byte that is
 * not UTF-8 as '?' (a stray continuation byte, which the lexer counts as no column, as
 * nothing), so every column stays one character. A line over ECHO_WIDTH columns shows
 * only ECHO_WIDTH of them, from ECHO_BEFORE before the caret, with "..." at a cut. */
static void render_source(Compiler *cc, StrBuf *b, SrcLoc loc)
{
    size_t n;
    const char *line = src_line(cc, loc.file, loc.line, &n);
    if (!line || loc.col == 0)
        return;
    const unsigned char *u = (const unsigned char *)line;
    uint64_t ncp = 0;             /* columns on the line */
    for (size_t i = 0; i < n; i++)
        ncp += (u[i] & 0xC0) != 0x80;
    uint64_t first = 1, end = ncp + 1;    /* the columns shown: [first, end) */
    if (ncp > ECHO_WIDTH) {
        first = loc.col > ECHO_BEFORE ? loc.col - ECHO_BEFORE : 1;
        if (first + ECHO_WIDTH > ncp + 1)
            first = ncp + 1 > ECHO_WIDTH ? ncp + 1 - ECHO_WIDTH : 1;
        end = first + ECHO_WIDTH;
    }
    StrBuf lead = {0};            /* the caret line up to the caret: tabs where the source has tabs */
    const char *cut = "...";
    if (first > 1) {
        sb_puts(b, cut);
        sb_puts(&lead, "   ");
    }
    uint64_t col = 1;
    for (size_t i = 0; i < n && col < end;) {
        unsigned cp;
        size_t k = utf8_seq(u + i, n - i, &cp);
        if (k == 0 && (u[i] & 0xC0) == 0x80) {
            i++;                  /* no column */
            continue;
        }
        if (col >= first) {
            if (k == 0)
                sb_putc(b, '?');
            else if (cp == '\t')
                sb_putc(b, '\t');
            else if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))
                sb_putc(b, ' ');
            else
                sb_putn(b, line + i, k);
            if (col < loc.col)
                sb_putc(&lead, cp == '\t' && k ? '\t' : ' ');
        }
        i += k ? k : 1;
        col++;
    }
    if (end <= ncp)
        sb_puts(b, cut);
    sb_putc(b, '\n');
    if (lead.len)
        sb_putn(b, lead.s, lead.len);
    sb_free(&lead);
    for (uint64_t c = col > loc.col ? loc.col : col; c < loc.col && c < end; c++)
        sb_putc(b, ' ');
    sb_putc(b, '^');
    uint64_t last = (uint64_t)loc.col + (loc.len ? loc.len : 1) - 1; /* last column underlined */
    if (last > ncp)
        last = ncp;
    if (last >= end)
        last = end - 1;
    for (uint64_t c = (uint64_t)loc.col + 1; c <= last; c++)
        sb_putc(b, '~');
    sb_putc(b, '\n');
}

/* 1 if this error or warning (level, place and text) was printed before; else remember it.
 * Semantic checks may visit one construct twice (a function inlined at two call sites);
 * the user should see each problem once. Only printed messages count: a muted check
 * (diag.out and diag.capture NULL) must not hide a later real one. */
static int repeated(Compiler *cc, DiagLevel lvl, SrcLoc loc, const char *fmt, va_list ap)
{
    Diag *d = &cc->diag;
    if (lvl == DIAG_NOTE || (!d->out && !d->capture))
        return 0;
    char msg[512];
    va_list ap2;
    va_copy(ap2, ap);
    vsnprintf(msg, sizeof msg, fmt, ap2);
    va_end(ap2);
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    uint32_t key[5] = {(uint32_t)lvl, loc.file, loc.line, loc.col, loc.len};
    for (size_t i = 0; i < sizeof key; i++)
        h = (h ^ ((const unsigned char *)key)[i]) * 1099511628211ull;
    for (const char *p = msg; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    for (int i = 0; i < d->nshown; i++)
        if (d->shown[i] == h)
            return 1;
    if (d->nshown == d->capshown) {
        d->capshown = d->capshown ? 2 * d->capshown : 16;
        d->shown = xrealloc(d->shown, sizeof *d->shown * (size_t)d->capshown);
    }
    d->shown[d->nshown++] = h;
    return 0;
}

/* Report a diagnostic at loc (file 0: no location, printed as "neuroc: error: ..."). */
void diag_vat(Compiler *cc, DiagLevel lvl, SrcLoc loc, const char *fmt, va_list ap)
{
    StrBuf b = {0};
    if (lvl != DIAG_NOTE) {
        cc->diag.skip_notes = repeated(cc, lvl, loc, fmt, ap);
        if (cc->diag.skip_notes)
            return;
    } else if (cc->diag.skip_notes) {
        return;
    }
    if (lvl == DIAG_ERROR) {
        cc->diag.nerrors++;
        if (cc->diag.error_limit > 0 && cc->diag.nerrors == cc->diag.error_limit + 1) {
            sb_puts(&b, "neuroc: error: too many errors, stopping\n");
            emit(cc, &b);
            sb_free(&b);
            return;
        }
    } else if (lvl == DIAG_WARNING) {
        cc->diag.nwarnings++;
    }
    if (suppressed(cc))
        return;
    StrBuf msg = {0};
    if (loc.file == 0 || loc.file >= cc->nfiles) {
        sb_puts(&b, "neuroc");
    } else {
        const char *path = cc->files[loc.file].path;
        sb_put_escaped(&b, path, strlen(path));
        sb_printf(&b, ":%u:%u", (unsigned)loc.line, (unsigned)loc.col);
    }
    sb_printf(&b, ": %s: ", level_name(lvl));
    sb_vprintf(&msg, fmt, ap);
    sb_put_escaped(&b, msg.s ? msg.s : "", msg.len);
    sb_free(&msg);
    sb_putc(&b, '\n');
    if (loc.file != 0 && loc.file < cc->nfiles)
        render_source(cc, &b, loc);
    emit(cc, &b);
    sb_free(&b);
}

void diag_at(Compiler *cc, DiagLevel lvl, SrcLoc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vat(cc, lvl, loc, fmt, ap);
    va_end(ap);
}

/* A continuation line under the last message, indented by two spaces. */
void diag_extra(Compiler *cc, const char *fmt, ...)
{
    StrBuf b = {0};
    va_list ap;
    if (suppressed(cc) || cc->diag.skip_notes)
        return;
    StrBuf msg = {0};
    sb_puts(&b, "  ");
    va_start(ap, fmt);
    sb_vprintf(&msg, fmt, ap);
    va_end(ap);
    sb_put_escaped(&b, msg.s ? msg.s : "", msg.len);
    sb_free(&msg);
    sb_putc(&b, '\n');
    emit(cc, &b);
    sb_free(&b);
}
