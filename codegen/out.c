/* out.c -- the one writer every back end emits through (style rule 17).
 *
 * Tracks indentation and brace balance; output depends only on what is written, so the
 * same model always gives byte-identical sources (golden tests rely on it).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "codegen.h"

static void vline(Out *o, const char *fmt, va_list ap)
{
    for (int i = 0; i < o->indent; i++)
        sb_puts(&o->buf, "    ");
    char tmp[1024];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    if (n >= (int)sizeof tmp) {
        char *big = xmalloc((size_t)n + 1);
        vsnprintf(big, (size_t)n + 1, fmt, ap2);
        sb_puts(&o->buf, big);
        free(big);
    } else {
        sb_puts(&o->buf, tmp);
    }
    va_end(ap2);
}

void out_line(Out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(o, fmt, ap);
    va_end(ap);
    sb_putc(&o->buf, '\n');
}

void out_open(Out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(o, fmt, ap);
    va_end(ap);
    sb_puts(&o->buf, " {\n");
    o->indent++;
}

void out_begin(Out *o)
{
    out_line(o, "{");
    o->indent++;
}

void out_close(Out *o)
{
    out_close_with(o, "");
}

void out_close_with(Out *o, const char *tail)
{
    if (o->indent <= 0)
        nc_ice("out_close without out_open");
    o->indent--;
    out_line(o, "}%s", tail);
}

void out_blank(Out *o)
{
    sb_putc(&o->buf, '\n');
}

int out_write_file(Out *o, const char *path)
{
    if (o->indent != 0)
        nc_ice("unbalanced braces writing %s", path);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    size_t n = o->buf.len;
    int ok = (n == 0 || fwrite(o->buf.s, 1, n, f) == n);
    if (fclose(f) != 0)
        ok = 0;
    if (!ok && errno == 0)
        errno = EIO;
    return ok ? 0 : -1;
}

void out_free(Out *o)
{
    sb_free(&o->buf);
    o->indent = 0;
}
