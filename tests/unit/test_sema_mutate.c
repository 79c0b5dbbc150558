/* test_sema_mutate.c -- robustness of sema: deterministic token-level mutants (identifiers
 * swapped for other identifiers of the file, units swapped, tokens deleted, lines
 * duplicated, numbers set to 0 or huge; fixed-seed xorshift) of the given models go through
 * parse + sema_lower (+ the IR dump) in one process, each with a fresh Compiler and the
 * stdlib files parsed first (as the driver's import resolution would order them).  Every
 * mutant must end in an IrModel or at least one error; crashes and hangs (a 20 s alarm per
 * mutant) fail the test and print the mutant.
 *   test_sema_mutate N STDLIB_DIR FILE...
 */
#define _DEFAULT_SOURCE
#include "driver.h"
#include "sema.h"
#include "../front/unit.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

static uint64_t rng = 0x2545F4914F6CDD1Dull;

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

static int slurp(const char *path, StrBuf *b)
{
    FILE *fp = fopen(path, "rb");
    char tmp[4096];
    size_t n;
    if (!fp)
        return 0;
    while ((n = fread(tmp, 1, sizeof tmp, fp)) > 0)
        sb_putn(b, tmp, n);
    fclose(fp);
    return 1;
}

/* {===== the mutant being run, printed if it crashes or hangs ===== */

static const char *cur_text;
static size_t cur_len;
static const char *cur_path;

static void on_signal(int sig)
{
    static const char head[] = "\ntest_sema_mutate: fatal signal on a mutant of ";
    ssize_t r = write(2, head, sizeof head - 1);
    if (cur_path)
        r = write(2, cur_path, strlen(cur_path));
    r = write(2, ":\n", 2);
    if (cur_text)
        r = write(2, cur_text, cur_len);
    (void)r;
    signal(sig, SIG_DFL);
    raise(sig);
}

/* ===== the mutant being run =====} */

/* {===== tokens of a file (rough: enough to pick mutation sites) ===== */

typedef struct Tok {
    size_t at, len;
    char kind;                    /* 'i' identifier, 'n' number, 'u' unit after a number, 'p' */
} Tok;

typedef struct Toks {
    Tok *v;
    int n, cap;
} Toks;

static int is_id0(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_id(char c)
{
    return is_id0(c) || (c >= '0' && c <= '9');
}

static void add_tok(Toks *t, size_t at, size_t len, char kind)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 256;
        t->v = realloc(t->v, sizeof *t->v * (size_t)t->cap);
        if (!t->v)
            abort();
    }
    t->v[t->n++] = (Tok){at, len, kind};
}

static void tokenize(const char *s, size_t n, Toks *t)
{
    t->n = 0;
    size_t i = 0;
    char prev = 0;
    while (i < n) {
        char c = s[i];
        if (c == '#') {
            while (i < n && s[i] != '\n')
                i++;
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            i++;
        } else if (c == '"') {
            size_t b = i++;
            while (i < n && s[i] != '"' && s[i] != '\n')
                i++;
            if (i < n && s[i] == '"')
                i++;
            add_tok(t, b, i - b, prev = 'p');
        } else if ((c >= '0' && c <= '9') || (c == '.' && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')) {
            size_t b = i;
            while (i < n && (is_id(s[i]) || s[i] == '.' ||
                             ((s[i] == '-' || s[i] == '+') && (s[i - 1] == 'e' || s[i - 1] == 'E'))))
                i++;
            add_tok(t, b, i - b, prev = 'n');
        } else if (is_id0(c)) {
            size_t b = i;
            while (i < n && is_id(s[i]))
                i++;
            add_tok(t, b, i - b, prev == 'n' ? 'u' : 'i');
            prev = 'i';
        } else if (c == '[' && prev == 'n') {
            size_t b = i;
            while (i < n && s[i] != ']' && s[i] != '\n')
                i++;
            if (i < n && s[i] == ']')
                i++;
            add_tok(t, b, i - b, 'u');
            prev = 'u';
        } else {
            add_tok(t, i, 1, prev = 'p');
            i++;
        }
    }
}

/* ===== tokens =====} */

static void replace(StrBuf *m, size_t at, size_t len, const char *with, size_t wlen)
{
    StrBuf r = {0};
    sb_putn(&r, m->s, at);
    sb_putn(&r, with, wlen);
    sb_putn(&r, m->s + at + len, m->len - at - len);
    sb_free(m);
    *m = r;
}

static const char *const units[] = {
    "mV", "ms", "pA", "nS", "pF", "Hz", "um", "s", "V", "mM", "MOhm", "step", "steps", "K",
    "[1/ms]", "[uA/cm^2]", "[mS/cm^2]", "[1/mV]", "[m/s]", "[mV^2]", "[1]", "[mV^-99]",
    "[m^x]", "[foo]", "[(]",
};

static const char *const numbers[] = {
    "0", "0", "1", "1e308", "1e30", "-1e300", "4294967296", "9223372036854775807", "2.5",
    "1e-320", "0.0000001", "100000000000", "3",
};

static const char *const words[] = {
    "t", "dt", "i", "j", "inf", "pi", "e", "uniform", "normal", "exp", "log", "sqrt", "pow",
    "clip", "crossed", "pulse", "topk", "deliver", "w", "V", "refractory", "weight", "int",
    "bool", "string", "true", "false", "exprel", "min", "max", "abs", "floor", "from_file", "file",
};

/* One mutation of m, using the tokens of the text as it is now. */
static void mutate(StrBuf *m, Toks *t)
{
    tokenize(m->s ? m->s : "", m->len, t);
    if (!t->n)
        return;
    Tok k = t->v[pick((size_t)t->n)];
    switch (pick(8)) {
    case 0:
    case 1: {                                     /* identifier -> another identifier */
        int tries = 0;
        while (k.kind != 'i' && tries++ < 50)
            k = t->v[pick((size_t)t->n)];
        if (k.kind != 'i')
            return;
        Tok o = t->v[pick((size_t)t->n)];
        tries = 0;
        while (o.kind != 'i' && tries++ < 50)
            o = t->v[pick((size_t)t->n)];
        if (o.kind == 'i' && pick(4)) {
            char buf[128];
            size_t n = o.len < sizeof buf ? o.len : sizeof buf - 1;
            memcpy(buf, m->s + o.at, n);
            replace(m, k.at, k.len, buf, n);
        } else {
            const char *w = words[pick(sizeof words / sizeof words[0])];
            replace(m, k.at, k.len, w, strlen(w));
        }
        return;
    }
    case 2: {                                     /* unit -> another unit */
        int tries = 0;
        while (k.kind != 'u' && tries++ < 50)
            k = t->v[pick((size_t)t->n)];
        if (k.kind != 'u')
            return;
        const char *u = units[pick(sizeof units / sizeof units[0])];
        replace(m, k.at, k.len, u, strlen(u));
        return;
    }
    case 3:                                       /* delete a token */
        replace(m, k.at, k.len, "", 0);
        return;
    case 4: {                                     /* duplicate the line holding a token */
        size_t b = k.at, e = k.at;
        while (b > 0 && m->s[b - 1] != '\n')
            b--;
        while (e < m->len && m->s[e] != '\n')
            e++;
        StrBuf line = {0};
        sb_putn(&line, m->s + b, e - b);
        sb_putc(&line, '\n');
        replace(m, b, 0, line.s, line.len);
        sb_free(&line);
        return;
    }
    case 5:
    case 6: {                                     /* a number -> 0, huge, odd */
        int tries = 0;
        while (k.kind != 'n' && tries++ < 50)
            k = t->v[pick((size_t)t->n)];
        if (k.kind != 'n')
            return;
        const char *s = numbers[pick(sizeof numbers / sizeof numbers[0])];
        replace(m, k.at, k.len, s, strlen(s));
        return;
    }
    default: {                                    /* swap two tokens */
        Tok o = t->v[pick((size_t)t->n)];
        if (o.at == k.at)
            return;
        Tok a = k.at < o.at ? k : o, b = k.at < o.at ? o : k;
        if (a.at + a.len > b.at)
            return;
        StrBuf ta = {0}, tb = {0};
        sb_putn(&ta, m->s + a.at, a.len);
        sb_putn(&tb, m->s + b.at, b.len);
        replace(m, b.at, b.len, ta.s, ta.len);     /* the later one first: offsets hold */
        replace(m, a.at, a.len, tb.s, tb.len);
        sb_free(&ta);
        sb_free(&tb);
        return;
    }
    }
}

typedef struct Input {
    const char *path;
    StrBuf text;
    int is_stdlib;                /* index into the stdlib set + 1, or 0 */
} Input;

/* 1 if some error line ("path:line:col: error: ...") occurs twice in the captured output:
 * each problem is reported once (models are checked generically, then instantiated with
 * diagnostics muted). */
static int repeated_error(const StrBuf *cap)
{
    const char *s = cap->s ? cap->s : "";
    const char *end = s + cap->len;
    for (const char *a = s; a < end;) {
        const char *ae = memchr(a, '\n', (size_t)(end - a));
        if (!ae)
            ae = end;
        size_t al = (size_t)(ae - a);
        int is_err = 0;
        for (size_t i = 0; i + 9 <= al && !is_err; i++)
            is_err = memcmp(a + i, ": error: ", 9) == 0;
        if (is_err) {
            for (const char *b = ae + 1; b < end;) {
                const char *be = memchr(b, '\n', (size_t)(end - b));
                if (!be)
                    be = end;
                if ((size_t)(be - b) == al && memcmp(a, b, al) == 0)
                    return 1;
                b = be + 1;
            }
        }
        a = ae + 1;
    }
    return 0;
}

/* Parse the stdlib (except `skip`) and the mutant, then sema. 1 if the run is sound. */
static int run_one(Input *lib, int nlib, int skip, const char *path, const char *text,
                   size_t len, int *with_ir)
{
    Compiler cc;
    StrBuf cap = {0};
    compiler_init(&cc);
    cc.diag.out = NULL;
    cc.diag.capture = &cap;
    cc.diag.error_limit = 0;
    AstNode **files = calloc((size_t)nlib + 1, sizeof *files);
    int nf = 0, ok = 1;
    for (int i = 0; i < nlib; i++) {
        if (i == skip)
            continue;
        uint32_t f = src_add(&cc, lib[i].path, lib[i].text.s, lib[i].text.len);
        files[nf] = parse_file(&cc, f);
        if (!files[nf]) {
            fprintf(stderr, "stdlib file %s does not parse\n", lib[i].path);
            ok = 0;
            goto done;
        }
        nf++;
    }
    uint32_t f = src_add(&cc, path, text, len);
    AstNode *ast = parse_file(&cc, f);
    if (!ast) {
        if (cc.diag.nerrors == 0) {
            fprintf(stderr, "%s: no AST and no error for:\n%.*s\n", path, (int)len, text);
            ok = 0;
        }
        goto done;
    }
    files[nf++] = ast;
    IrModel *m = sema_lower(&cc, files, nf, "mutant");
    if (m) {
        if (cc.diag.nerrors) {
            fprintf(stderr, "%s: an IrModel and %d errors for:\n%.*s\n", path, cc.diag.nerrors,
                    (int)len, text);
            ok = 0;
        }
        StrBuf b = {0};
        cg_dump_ir(m, &b);
        sb_free(&b);
        (*with_ir)++;
    } else if (cc.diag.nerrors == 0) {
        fprintf(stderr, "%s: no IrModel and no error for:\n%.*s\n", path, (int)len, text);
        ok = 0;
    }
    if (repeated_error(&cap)) {
        fprintf(stderr, "%s: an error reported twice:\n%s--- for\n%.*s\n", path, cap.s,
                (int)len, text);
        ok = 0;
    }
done:
    free(files);
    compiler_free(&cc);
    sb_free(&cap);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: test_sema_mutate N STDLIB_DIR FILE...\n");
        return 2;
    }
    long total = atol(argv[1]);
    static const char *const libnames[] = {"neurons.neuro", "receptors.neuro", "synapses.neuro"};
    int nlib = (int)(sizeof libnames / sizeof libnames[0]);
    Input lib[3];
    memset(lib, 0, sizeof lib);
    for (int i = 0; i < nlib; i++) {
        char *p = malloc(strlen(argv[2]) + strlen(libnames[i]) + 2);
        sprintf(p, "%s/%s", argv[2], libnames[i]);
        lib[i].path = p;
        if (!slurp(p, &lib[i].text)) {
            fprintf(stderr, "cannot read %s\n", p);
            return 2;
        }
    }
    int nin = argc - 3;
    Input *in = calloc((size_t)nin, sizeof *in);
    for (int i = 0; i < nin; i++) {
        in[i].path = argv[i + 3];
        if (!slurp(in[i].path, &in[i].text)) {
            fprintf(stderr, "cannot read %s\n", in[i].path);
            return 2;
        }
        for (int k = 0; k < nlib; k++)
            if (in[i].text.len == lib[k].text.len &&
                memcmp(in[i].text.s, lib[k].text.s, in[i].text.len) == 0)
                in[i].is_stdlib = k + 1;
    }
    signal(SIGSEGV, on_signal);
    signal(SIGABRT, on_signal);
    signal(SIGFPE, on_signal);
    signal(SIGALRM, on_signal);

    /* the unmutated inputs must compile cleanly */
    int with_ir = 0, failures = 0;
    for (int i = 0; i < nin; i++) {
        int before = with_ir;
        cur_path = in[i].path, cur_text = in[i].text.s, cur_len = in[i].text.len;
        if (!run_one(lib, nlib, in[i].is_stdlib - 1, in[i].path, in[i].text.s, in[i].text.len,
                     &with_ir) || with_ir == before) {
            fprintf(stderr, "%s: the unmutated input does not compile\n", in[i].path);
            failures++;
        }
    }
    StrBuf m = {0};
    Toks toks = {0};
    for (long k = 0; k < total; k++) {
        Input *src = &in[k % nin];
        m.len = 0;
        sb_putn(&m, src->text.s ? src->text.s : "", src->text.len);
        int nmut = 1 + (int)pick(3);
        for (int j = 0; j < nmut; j++)
            mutate(&m, &toks);
        cur_path = src->path, cur_text = m.s ? m.s : "", cur_len = m.len;
        alarm(20);
        if (!run_one(lib, nlib, src->is_stdlib - 1, src->path, m.s ? m.s : "", m.len, &with_ir))
            failures++;
        alarm(0);
    }
    cur_text = NULL;
    sb_free(&m);
    free(toks.v);
    for (int i = 0; i < nin; i++)
        sb_free(&in[i].text);
    for (int i = 0; i < nlib; i++) {
        sb_free(&lib[i].text);
        free((char *)lib[i].path);
    }
    free(in);
    unit_checks += (int)total;
    unit_fails += failures;
    fprintf(stderr, "test_sema_mutate: %ld mutants, %d compiled to IR\n", total, with_ir);
    return unit_report("test_sema_mutate");
}
