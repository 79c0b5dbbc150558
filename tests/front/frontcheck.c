/* frontcheck.c -- test driver for the front end:
 *   frontcheck --tokens FILE   one token per line: "line:col NAME text"
 *   frontcheck --ast FILE      the ast_print form, or the diagnostics (exit 1)
 *   frontcheck --roundtrip FILE  parse, print, reparse, print: the two prints must agree
 */
#include "neuroc.h"
#include "neuro.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int load(Compiler *cc, const char *path)
{
    const char *why = NULL;
    uint32_t f = src_load(cc, path, &why);
    SrcLoc none = {0, 0, 0, 0};
    if (!f)
        error_at(cc, none, "cannot read '%s': %s", path, why);
    return (int)f;
}

static int roundtrip(Compiler *cc, uint32_t file)
{
    StrBuf a = {0}, b = {0};
    AstNode *n = parse_file(cc, file);
    int rc = 1;
    if (n) {
        ast_print(cc, n, &a);
        uint32_t f2 = src_add(cc, cc->files[file].path, a.s ? a.s : "", a.len);
        AstNode *m = parse_file(cc, f2);
        if (m) {
            ast_print(cc, m, &b);
            if (a.len == b.len && (a.len == 0 || memcmp(a.s, b.s, a.len) == 0)) {
                rc = 0;
            } else {
                fprintf(stderr, "%s: print is not a fixed point\n--- first\n%s--- second\n%s",
                        cc->files[file].path, a.s ? a.s : "", b.s ? b.s : "");
            }
        } else {
            fprintf(stderr, "%s: printed form does not parse:\n%s", cc->files[file].path, a.s);
        }
    }
    sb_free(&a);
    sb_free(&b);
    return rc;
}

int main(int argc, char **argv)
{
    Compiler cc;
    int rc = 2;
    if (argc != 3) {
        fprintf(stderr, "usage: frontcheck --tokens|--ast|--roundtrip FILE\n");
        return 2;
    }
    memset(&cc, 0, sizeof cc);
    compiler_init_front(&cc);
    uint32_t f = (uint32_t)load(&cc, argv[2]);
    if (!f) {
        rc = 1;
    } else if (!strcmp(argv[1], "--tokens")) {
        rc = lex_dump(&cc, f, stdout);
    } else if (!strcmp(argv[1], "--ast")) {
        AstNode *n = parse_file(&cc, f);
        if (n && cc.diag.nerrors == 0) {
            StrBuf out = {0};
            ast_print(&cc, n, &out);
            fwrite(out.s ? out.s : "", 1, out.len, stdout);
            sb_free(&out);
            rc = 0;
        } else {
            rc = 1;
        }
    } else if (!strcmp(argv[1], "--roundtrip")) {
        rc = roundtrip(&cc, f);
    } else {
        fprintf(stderr, "frontcheck: unknown mode '%s'\n", argv[1]);
    }
    compiler_free_front(&cc);
    return rc;
}
