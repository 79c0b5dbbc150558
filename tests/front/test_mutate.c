/* test_mutate.c -- robustness: deterministic random mutants (byte flips, deletions,
 * insertions of tokens and bytes, duplications, truncations; fixed-seed xorshift) of the
 * given files go through lex + parse + ast_print in one process, each with a fresh
 * Compiler.  Every run must end in an AST or an error; a printed AST must reparse and
 * print identically.  Crashes and hangs fail the test by themselves.
 *   test_mutate N FILE...
 */
#include "neuroc.h"
#include "unit.h"

#include <stdlib.h>

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static size_t pick(size_t n)
{
    return n ? (size_t)(next() % n) : 0;
}

static const char *const snippets[] = {
    "neuron", "synapse", "receptor", "func", "param", "state", "derived", "input", "require",
    "pre", "post", "dynamics", "using", "spike", "when", "refractory", "on", "update", "emit",
    "unless", "let", "if", "else", "return", "int", "bool", "weight", "string", "clamp", "step", "sim",
    "population", "projection", "stimulus", "via", "record", "run", "set", "runtime", "connect", "within",
    "where", "grid", "spacing", "periodic", "every", "from", "to", "of", "spikes", "in", "true",
    "false", "import", "const", "{", "}", "(", ")", "[", "]", ",", ".", ":", ";", "'", "=",
    "+=", "-=", "*=", "/=", "->", "&", "?", "||", "&&", "==", "!=", "<", "<=", ">", ">=", "+",
    "-", "*", "/", "%", "^", "!", "\n", "\n", "\n", " ", "\t", "#", "\"", "\"s\"", "\\",
    "20 ms", "0.04 [1/mV]", "[", "1e-3", ".5", "x", "V", "\xC2\xB5", "\xC3", "\xff",
    "((((((((", "))))", "-----", "else {", "} else", "{ }", "2 steps",
};

static int run_one(const char *path, const char *text, size_t len, int *with_ast)
{
    Compiler cc;
    StrBuf out = {0}, out2 = {0};
    int ok = 1;
    memset(&cc, 0, sizeof cc);
    compiler_init_front(&cc);
    cc.diag.out = NULL;
    uint32_t f = src_add(&cc, path, text, len);
    AstNode *n = parse_file(&cc, f);
    if (!n) {
        if (cc.diag.nerrors == 0) {
            fprintf(stderr, "%s: no AST and no error for:\n%.*s\n", path, (int)len, text);
            ok = 0;
        }
    } else {
        (*with_ast)++;
        ast_print(&cc, n, &out);
        uint32_t f2 = src_add(&cc, path, out.s ? out.s : "", out.len);
        AstNode *m = parse_file(&cc, f2);
        if (!m) {
            fprintf(stderr, "%s: printed form does not parse:\n%s\n--- from\n%.*s\n", path,
                    out.s ? out.s : "", (int)len, text);
            ok = 0;
        } else {
            ast_print(&cc, m, &out2);
            if (out.len != out2.len || (out.len && memcmp(out.s, out2.s, out.len))) {
                fprintf(stderr, "%s: print is not a fixed point:\n%s\n--- then\n%s\n", path,
                        out.s, out2.s ? out2.s : "");
                ok = 0;
            }
        }
    }
    sb_free(&out);
    sb_free(&out2);
    compiler_free_front(&cc);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_mutate N FILE...\n");
        return 2;
    }
    long total = atol(argv[1]);
    int nfiles = argc - 2;
    StrBuf *orig = calloc((size_t)nfiles, sizeof(StrBuf));
    for (int i = 0; i < nfiles; i++) {
        FILE *fp = fopen(argv[i + 2], "rb");
        char tmp[4096];
        size_t n;
        if (!fp) {
            fprintf(stderr, "cannot read %s\n", argv[i + 2]);
            return 2;
        }
        while ((n = fread(tmp, 1, sizeof tmp, fp)) > 0)
            sb_putn(&orig[i], tmp, n);
        fclose(fp);
    }
    int with_ast = 0, failures = 0;
    StrBuf m = {0};
    for (long k = 0; k < total; k++) {
        StrBuf *src = &orig[k % nfiles];
        m.len = 0;
        sb_putn(&m, src->s ? src->s : "", src->len);
        int nmut = 1 + (int)pick(4);
        for (int j = 0; j < nmut; j++) {
            size_t at = pick(m.len + 1);
            switch (pick(7)) {
            case 0:                                   /* byte flip */
                if (m.len)
                    m.s[pick(m.len)] = (char)next();
                break;
            case 1: {                                 /* deletion */
                size_t n = 1 + pick(16);
                if (at + n > m.len)
                    n = m.len - at;
                memmove(m.s + at, m.s + at + n, m.len - at - n);
                m.len -= n;
                break;
            }
            case 2:
            case 3: {                                 /* token insertion */
                const char *t = snippets[pick(sizeof snippets / sizeof snippets[0])];
                StrBuf r = {0};
                sb_putn(&r, m.s, at);
                sb_puts(&r, t);
                sb_putn(&r, m.s + at, m.len - at);
                sb_free(&m);
                m = r;
                break;
            }
            case 4: {                                 /* random bytes */
                char bytes[4];
                size_t n = 1 + pick(4);
                for (size_t i = 0; i < n; i++)
                    bytes[i] = (char)next();
                StrBuf r = {0};
                sb_putn(&r, m.s, at);
                sb_putn(&r, bytes, n);
                sb_putn(&r, m.s + at, m.len - at);
                sb_free(&m);
                m = r;
                break;
            }
            case 5: {                                 /* duplicate a range */
                size_t from = pick(m.len + 1), n = pick(64);
                if (from + n > m.len)
                    n = m.len - from;
                StrBuf r = {0};
                sb_putn(&r, m.s, at);
                sb_putn(&r, m.s + from, n);
                sb_putn(&r, m.s + at, m.len - at);
                sb_free(&m);
                m = r;
                break;
            }
            default:                                  /* truncation */
                if (pick(4) == 0)
                    m.len = at;
                break;
            }
        }
        if (!run_one(argv[2 + k % nfiles], m.s ? m.s : "", m.len, &with_ast))
            failures++;
        if (failures > 10)
            break;
    }
    CHECK_INT(failures, 0);
    fprintf(stderr, "test_mutate: %ld mutants, %d parsed\n", total, with_ast);
    sb_free(&m);
    for (int i = 0; i < nfiles; i++)
        sb_free(&orig[i]);
    free(orig);
    return unit_report("test_mutate");
}
