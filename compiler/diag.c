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

/* Echo the source line (control characters other than tab shown as blanks) and put a
 * caret line under columns [col, col+len), clamped to the line (at least one '^'). */
static void render_source(Compiler *cc, StrBuf *b, SrcLoc loc)
{
    size_t n;
    const char *line = src_line(cc, loc.file, loc.line, &n);
    if (!line || loc.col == 0)
        return;
    size_t ncp = 0;               /* code points on the line */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)line[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            sb_putc(b, ' ');
        else
            sb_putc(b, (char)c);
        ncp += (c & 0xC0) != 0x80;
    }
    sb_putc(b, '\n');
    /* leading whitespace of the caret line: tabs where the source has tabs */
    uint32_t cp = 1;
    for (size_t i = 0; i < n && cp < loc.col; i++) {
        unsigned char c = (unsigned char)line[i];
        if ((c & 0xC0) == 0x80)
            continue;
        sb_putc(b, c == '\t' ? '\t' : ' ');
        cp++;
    }
    for (; cp < loc.col; cp++)
        sb_putc(b, ' ');
    sb_putc(b, '^');
    uint64_t last = (uint64_t)loc.col + (loc.len ? loc.len : 1) - 1; /* last column underlined */
    if (last > ncp)
        last = ncp;
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
    if (loc.file == 0 || loc.file >= cc->nfiles)
        sb_puts(&b, "neuroc");
    else
        sb_printf(&b, "%s:%u:%u", cc->files[loc.file].path, (unsigned)loc.line, (unsigned)loc.col);
    sb_printf(&b, ": %s: ", level_name(lvl));
    sb_vprintf(&b, fmt, ap);
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
    sb_puts(&b, "  ");
    va_start(ap, fmt);
    sb_vprintf(&b, fmt, ap);
    va_end(ap);
    sb_putc(&b, '\n');
    emit(cc, &b);
    sb_free(&b);
}
