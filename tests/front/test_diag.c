/* test_diag.c -- diagnostics rendering (caret, tabs, levels, file 0, error limit,
 * continuation lines), arena marks and interning. */
#include "neuroc.h"
#include "unit.h"

static void test_render(void)
{
    Compiler cc;
    StrBuf b = {0};
    memset(&cc, 0, sizeof cc);
    compiler_init_front(&cc);
    cc.diag.out = NULL;
    cc.diag.capture = &b;
    const char *text = "neuron N {\n\tV' = x \xC2\xB5 y\n}\n";
    uint32_t f = src_add(&cc, "d.neuro", text, strlen(text));
    CHECK_INT(f, 1);
    CHECK_INT(cc.files[f].nlines, 4);
    size_t n;
    const char *l = src_line(&cc, f, 2, &n);
    CHECK(l && n == 12 && !strncmp(l, "\tV'", 3));
    CHECK(src_line(&cc, f, 5, &n) == NULL);

    SrcLoc loc = {f, 2, 8, 1};
    error_at(&cc, loc, "unexpected character '%s'", "\xC2\xB5");
    CHECK_STR(b.s, "d.neuro:2:8: error: unexpected character '\xC2\xB5'\n"
                   "\tV' = x \xC2\xB5 y\n"
                   "\t      ^\n");
    b.len = 0;
    SrcLoc a = {f, 2, 2, 1}, z = {f, 2, 10, 1};
    warning_at(&cc, loc_span(a, z), "whole %s", "equation");
    diag_extra(&cc, "hint: %d", 42);
    CHECK_STR(b.s, "d.neuro:2:2: warning: whole equation\n"
                   "\tV' = x \xC2\xB5 y\n"
                   "\t^~~~~~~~~\n"
                   "  hint: 42\n");
    b.len = 0;
    SrcLoc wide = {f, 1, 8, 100};            /* clamped to the line */
    note_at(&cc, wide, "here");
    CHECK_STR(b.s, "d.neuro:1:8: note: here\nneuron N {\n       ^~~\n");
    b.len = 0;
    SrcLoc multi = loc_span((SrcLoc){f, 1, 1, 6}, (SrcLoc){f, 3, 1, 1});
    CHECK_INT(multi.line, 1);
    CHECK(multi.len > 10);
    SrcLoc none = {0, 0, 0, 0};
    error_at(&cc, none, "cannot read '%s'", "x.neuro");
    CHECK_STR(b.s, "neuroc: error: cannot read 'x.neuro'\n");
    CHECK_INT(cc.diag.nerrors, 2);
    CHECK_INT(cc.diag.nwarnings, 1);

    /* error limit: 20 shown, one "too many errors", then silence (still counted) */
    b.len = 0;
    cc.diag.nerrors = 0;
    for (int i = 0; i < 30; i++) {
        error_at(&cc, none, "e%d", i);
        diag_extra(&cc, "extra");
    }
    CHECK_INT(cc.diag.nerrors, 30);
    int lines = 0, too_many = 0;
    for (size_t i = 0; i < b.len; i++)
        lines += b.s[i] == '\n';
    for (const char *p = b.s; (p = strstr(p, "too many errors")); p++)
        too_many++;
    CHECK_INT(lines, 41);                     /* 20 x (message + extra) + 1 */
    CHECK_INT(too_many, 1);
    CHECK(strstr(b.s, "neuroc: error: e19\n") != NULL);
    CHECK(strstr(b.s, "e20") == NULL);
    CHECK(strstr(b.s, "neuroc: error: too many errors, stopping\n") != NULL);
    sb_free(&b);
    compiler_free_front(&cc);
}

/* Paths and messages reach the terminal escaped: no forged diagnostic, no control bytes;
 * a long line is echoed as a window; invalid UTF-8 in the echo shows as '?'. */
static void test_escape(void)
{
    Compiler cc;
    StrBuf b = {0};
    memset(&cc, 0, sizeof cc);
    compiler_init_front(&cc);
    cc.diag.out = NULL;
    cc.diag.capture = &b;
    const char *text = "const x = 1\n";
    uint32_t f = src_add(&cc, "a\nb.neuro:1:1: error: forged\x1b[2J", text, strlen(text));
    SrcLoc loc = {f, 1, 7, 1};
    error_at(&cc, loc, "cannot find import '%s'", "x\ny\r\t\x7f\xc2\x9b\xff\xc2\xb5");
    CHECK_STR(b.s, "a\\nb.neuro:1:1: error: forged\\x1b[2J:1:7: error: cannot find import "
                   "'x\\ny\\r\\t\\x7f\\u009b\\xff\xc2\xb5'\n"
                   "const x = 1\n"
                   "      ^\n");
    b.len = 0;
    diag_extra(&cc, "  note: %s", "p\nq");
    CHECK_STR(b.s, "    note: p\\nq\n");
    CHECK_STR(diag_safe(&cc, "d\x1b]0;t\x07"), "d\\x1b]0;t\\x07");

    /* invalid bytes in the echoed line: '?' (a stray continuation byte: nothing) */
    b.len = 0;
    const char *bad = "# \xff\x9b\xc2\x9b z\nx\n";
    uint32_t g = src_add(&cc, "b.neuro", bad, strlen(bad));
    SrcLoc at = {g, 1, 6, 1};
    error_at(&cc, at, "here");
    CHECK_STR(b.s, "b.neuro:1:6: error: here\n# ?  z\n     ^\n");

    /* a line of 10,000 columns: 240 of them around the caret */
    b.len = 0;
    StrBuf big = {0};
    for (int i = 0; i < 1000; i++)
        sb_puts(&big, "abcdefghi ");
    uint32_t h = src_add(&cc, "c.neuro", big.s, big.len);
    SrcLoc mid = {h, 1, 5001, 3};
    error_at(&cc, mid, "there");
    const char *nl = strchr(b.s, '\n');
    CHECK(nl && strncmp(nl + 1, "...", 3) == 0);
    const char *echo = nl + 1, *nl2 = strchr(echo, '\n');
    CHECK(nl2 && nl2 - echo == 3 + 240 + 3);
    CHECK(strncmp(nl2 + 1, "   ", 3) == 0 && nl2[1 + 3 + 80] == '^' && nl2[1 + 3 + 81] == '~' &&
          nl2[1 + 3 + 83] == '\n');
    CHECK(echo[3 + 80] == 'a');               /* column 5001 is an 'a' */
    sb_free(&big);
    sb_free(&b);
    compiler_free_front(&cc);
}

static void test_arena(void)
{
    Compiler cc;
    memset(&cc, 0, sizeof cc);
    compiler_init_front(&cc);
    char *p = arena_alloc(&cc.arena, 3);
    CHECK(((uintptr_t)p & 15) == 0);
    CHECK(p[0] == 0 && p[2] == 0);
    ArenaMark m = arena_mark(&cc.arena);
    for (int i = 0; i < 10000; i++) {
        char *q = arena_alloc(&cc.arena, 100);
        CHECK(((uintptr_t)q & 15) == 0 && q[99] == 0);
        q[99] = 1;
    }
    const char *s1 = intern_cstr(&cc, "spike");   /* interned inside a scratch region */
    arena_release(&cc.arena, m);
    char *r = arena_alloc(&cc.arena, 100);
    CHECK(r[99] == 0);                            /* reused memory comes back zeroed */
    CHECK(intern(&cc, "spikes", 5) == s1);        /* the table survives the release */
    CHECK_STR(s1, "spike");
    CHECK(intern_cstr(&cc, "a") != intern_cstr(&cc, "b"));
    for (int i = 0; i < 5000; i++) {
        char buf[16];
        snprintf(buf, sizeof buf, "n%d", i);
        CHECK(intern_cstr(&cc, buf) == intern(&cc, buf, strlen(buf)));
    }
    CHECK_STR(arena_printf(&cc.arena, "%s-%d", "x", 7), "x-7");
    CHECK_STR(arena_strndup(&cc.arena, "abcdef", 3), "abc");
    StrBuf b = {0};
    sb_printf(&b, "%d", 12);
    sb_putc(&b, '+');
    sb_puts(&b, "x");
    CHECK_STR(b.s, "12+x");
    sb_free(&b);
    compiler_free_front(&cc);
}

int main(void)
{
    test_render();
    test_escape();
    test_arena();
    return unit_report("test_diag");
}
