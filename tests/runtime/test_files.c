/* test_files.c -- the input readers refuse what they cannot read right (docs/robustness.md,
 * "Input files"): a NUL byte in a .csv (once the silent end of the file), C's hexadecimal
 * floats, a folder given as a file (once a 2^63-byte allocation), and .npy headers that
 * NumPy itself refuses or that these readers would misread: a 3-D array, a sub-array field,
 * fortran_order True however it is spaced, an unbalanced or truncated dict. And the other way:
 * --save-connectivity's .npy that does not fit on the disk is removed, not left truncated, and
 * made on 3 threads is the one made on one.
 */
#define _POSIX_C_SOURCE 200809L

#include "neurort.h"
#include "rt_internal.h"   /* nrt_pool_regions */
#include "tcheck.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char path[1024];
static nrt_ctx ctx;

static const char *at(const char *dir, const char *name)
{
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

static void put(const char *p, const void *b, size_t n)
{
    FILE *f = fopen(p, "wb");
    CHECK(f && fwrite(b, 1, n, f) == n);
    if (f)
        fclose(f);
}

/* An .npy file of format 1.0 with header dict `dict` (padded as NumPy pads it) and n data
 * bytes. */
static void put_npy(const char *p, const char *dict, const void *data, size_t n)
{
    unsigned char b[4096];
    size_t dl = strlen(dict), hl = (10 + dl + 1 + 63) / 64 * 64 - 10;
    memcpy(b, "\x93NUMPY\x01\x00", 8);
    b[8] = (unsigned char)(hl & 0xFF);
    b[9] = (unsigned char)(hl >> 8);
    memcpy(b + 10, dict, dl);
    memset(b + 10 + dl, ' ', hl - dl - 1);
    b[10 + hl - 1] = '\n';
    memcpy(b + 10 + hl, data, n);
    put(p, b, 10 + hl + n);
}

/* Reading p as a spike file (5 neurons, dt 0.1 ms, 100 steps) fails with a message that
 * contains `want`. */
static void spikes_refused(const char *p, const char *want)
{
    int64_t *sp = NULL, nnz = 0;
    int32_t *idx = NULL;
    nrt_status st = nrt_spike_file(&ctx, p, 5, 0.1, 100, &sp, &idx, &nnz);
    CHECKF(st != NRT_OK && strstr(ctx.errmsg, want), "%s: status %d, '%s', wanted '%s'", p, (int)st,
           ctx.errmsg, want);
    if (st == NRT_OK) {
        nrt_free(sp);
        nrt_free(idx);
    }
}

/* Reading p as an edge list (5 x 5 neurons) fails with a message that contains `want`. */
static void edges_refused(const char *p, const char *want)
{
    nrt_csr c;
    double *w = NULL, *d = NULL;
    nrt_status st = nrt_conn_file(&ctx, p, 5, 5, 0, &c, &w, &d);
    CHECKF(st != NRT_OK && strstr(ctx.errmsg, want), "%s: status %d, '%s', wanted '%s'", p, (int)st,
           ctx.errmsg, want);
    if (st == NRT_OK) {
        nrt_csr_free(&c);
        nrt_free(w);
        nrt_free(d);
    }
}

static void csv_files(const char *dir)
{
    static const char nul_spk[] = "time,index\n0.5,1\n0.7\0,2\n0.9,3\n";
    static const char nul_edg[] = "pre,post\n0,1\n\0 junk\n2,3\n";
    char want[1100];
    put(at(dir, "nul.csv"), nul_spk, sizeof nul_spk - 1);
    snprintf(want, sizeof want, "%s:3: a NUL byte (byte 21): a .csv file is text", path);
    spikes_refused(path, want);
    put(at(dir, "nule.csv"), nul_edg, sizeof nul_edg - 1);
    snprintf(want, sizeof want, "%s:3: a NUL byte", path);
    edges_refused(path, want);
    put(at(dir, "hex.csv"), "time,index\n0x1p-1,1\n", 20);
    spikes_refused(path, ":2: column 1 ('time') is not a number: '0x1p-1'");
    put(at(dir, "hexi.csv"), "time,index\n0.5,0x2\n", 19);
    spikes_refused(path, ":2: column 2 ('index') is not a number: '0x2'");
    put(at(dir, "hexe.csv"), "pre,post,w\n0,1,0x1p3\n", 21);
    edges_refused(path, ":2: column 3 ('w') is not a number: '0x1p3'");
    mkdir(at(dir, "folder.csv"), 0755);
    spikes_refused(path, "folder.csv: cannot read spike file: it is a folder");
    edges_refused(path, "folder.csv: cannot read edge file: it is a folder");
    mkdir(at(dir, "folder.npy"), 0755);
    spikes_refused(path, "folder.npy: cannot read spike file: it is a folder");
}

static void npy_files(const char *dir)
{
    double d[12] = {0.5, 1, 0.7, 2, 0.9, 3, 1.1, 4, 0, 0, 0, 0};
    unsigned char rec[64];
    memset(rec, 0, sizeof rec);
    put_npy(at(dir, "d3.npy"), "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3, 2), }", d, 96);
    spikes_refused(path, "d3.npy:1: expected a 2-D array or a 1-D record array, got a 3-D array");
    edges_refused(path, "d3.npy:1: expected a 2-D array or a 1-D record array, got a 3-D array");
    put_npy(at(dir, "sub.npy"), "{'descr': [('t', '<f8', (2,)), ('i', '<i4')], 'fortran_order': False, "
            "'shape': (2,), }", rec, 40);
    spikes_refused(path, "sub.npy:1: .npy field 't' is a sub-array field");
    put_npy(at(dir, "sube.npy"), "{'descr': [('pre', '<i4'), ('post', '<i4', (1,))], 'fortran_order': "
            "False, 'shape': (2,), }", rec, 16);
    edges_refused(path, "sube.npy:1: .npy field 'post' is a sub-array field");
    /* Fortran order written without the blank that a search for "'fortran_order': True" needed */
    put_npy(at(dir, "fo.npy"), "{'descr': '<f8', 'fortran_order':True, 'shape': (4, 2), }", d, 64);
    spikes_refused(path, "fo.npy:1: Fortran-ordered arrays are not supported");
    put_npy(at(dir, "foe.npy"), "{\"descr\": '<f8', \"fortran_order\": True, \"shape\": (4, 2)}", d, 64);
    edges_refused(path, "foe.npy:1: Fortran-ordered arrays are not supported");
    put_npy(at(dir, "open.npy"), "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 2), ", d, 64);
    spikes_refused(path, "open.npy:1: malformed .npy header");
    put_npy(at(dir, "paren.npy"), "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 2}", d, 64);
    edges_refused(path, "paren.npy:1: malformed .npy header");
    put_npy(at(dir, "list.npy"), "{'descr': [('t', '<f8'), ('i', '<i4'), 'fortran_order': False, "
            "'shape': (2,)}", rec, 24);
    spikes_refused(path, "list.npy:1: malformed .npy header");
    put_npy(at(dir, "type.npy"), "{'descr': '<f8x', 'fortran_order': False, 'shape': (4, 2)}", d, 64);
    spikes_refused(path, "type.npy:1: expected an N x 2 array");
    put_npy(at(dir, "extra.npy"), "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 2), 'x': 1}", d, 64);
    spikes_refused(path, "extra.npy:1: malformed .npy header (a key other than descr, fortran_order, shape)");
    put_npy(at(dir, "nokey.npy"), "{'descr': '<f8', 'shape': (4, 2)}", d, 64);
    edges_refused(path, "nokey.npy:1: malformed .npy header (without the keys");
    /* what must still be read: NumPy's own spacing, a 1-D record array, no trailing comma */
    {
        int64_t *sp = NULL, nnz = 0;
        int32_t *idx = NULL;
        put_npy(at(dir, "ok.npy"), "{'descr':'<f8','fortran_order':False,'shape':(4,2)}", d, 64);
        CHECKF(nrt_spike_file(&ctx, path, 5, 0.1, 100, &sp, &idx, &nnz) == NRT_OK && nnz == 4,
               "ok.npy: '%s'", ctx.errmsg);
        nrt_free(sp);
        nrt_free(idx);
    }
}

/* In a child with a 300-byte file-size limit: nrt_conn_save of 50 synapses (a 128-byte
 * header, 1000 bytes of rows) fails, naming the file, and leaves no file behind. */
static void conn_save_full(const char *dir)
{
    pid_t pid = fork();
    int status = 0;
    if (pid == 0) {
        static int64_t rp[6] = {0, 10, 20, 30, 40, 50};
        static int32_t col[50];
        static double w[50];
        nrt_csr c = {5, 5, 50, rp, col};
        struct rlimit rl = {300, 300};
        struct stat sb;
        nrt_status st;
        signal(SIGXFSZ, SIG_IGN);
        setrlimit(RLIMIT_FSIZE, &rl);
        ctx.out_dir = dir;
        st = nrt_conn_save(&ctx, "big", &c, w, 8, NULL);
        CHECKF(st == NRT_EIO && strstr(ctx.errmsg, "connectivity_big.npy"), "'%s'", ctx.errmsg);
        CHECKF(stat(at(dir, "connectivity_big.npy"), &sb) != 0, "a %lld-byte file is left",
               (long long)sb.st_size);
        _exit(tcheck_failed ? 1 : 0);
    }
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
          WEXITSTATUS(status) == 0);
}

/* The whole of file p (NULL with *n = 0 when it cannot be read). */
static unsigned char *slurp(const char *p, size_t *n)
{
    FILE *f = fopen(p, "rb");
    unsigned char *b = NULL;
    long len;
    *n = 0;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (b = malloc((size_t)len)) && fread(b, 1, (size_t)len, f) == (size_t)len)
        *n = (size_t)len;
    fclose(f);
    return b;
}

/* nrt_conn_save on the pool (--threads: rounds of 2^18 synapses, each split among the threads):
 * 700,001 synapses in 3,001 rows, every third empty (a part may start in one or after it), float
 * weights and delays, saved with one thread and with 3: the same bytes, each record the
 * synapse's (pre, post, w, delay), and the rounds handed to the workers. */
static void conn_save_threads(const char *dir)
{
    enum { ROWS = 3001 };
    static int64_t rp[ROWS + 1];
    int64_t nnz = 0;
    for (int i = 0; i < ROWS; i++) {
        rp[i] = nnz;
        nnz += i % 3 == 1 ? 0 : 233 + (i * 7919) % 118;
    }
    rp[ROWS] = nnz;
    int32_t *col = malloc((size_t)nnz * sizeof *col), *d = malloc((size_t)nnz * sizeof *d);
    float *w = malloc((size_t)nnz * sizeof *w);
    CHECK(col && d && w);
    if (!col || !d || !w)
        return;
    for (int64_t s = 0; s < nnz; s++) {
        col[s] = (int32_t)((s * 31) % 5000);
        w[s] = (float)s * 0.25f - 7.0f;
        d[s] = (int32_t)(1 + s % 17);
    }
    nrt_csr c = {ROWS, 5000, nnz, rp, col};
    static char d1[512], d3[512];
    snprintf(d1, sizeof d1, "%s/save1", dir);
    snprintf(d3, sizeof d3, "%s/save3", dir);
    mkdir(d1, 0755);
    mkdir(d3, 0755);
    ctx.out_dir = d1;
    CHECKF(nrt_conn_save(&ctx, "p", &c, w, 4, d) == NRT_OK, "'%s'", ctx.errmsg);
    ctx.threads = 3;
    CHECKF(nrt_pool_start(&ctx) == NRT_OK && ctx.threads == 3, "'%s'", ctx.errmsg);
    ctx.out_dir = d3;
    CHECKF(nrt_conn_save(&ctx, "p", &c, w, 4, d) == NRT_OK, "'%s'", ctx.errmsg);
    CHECKF(nrt_pool_regions() == 3, "%lld rounds on the threads, not 3", (long long)nrt_pool_regions());
    nrt_pool_stop();
    ctx.threads = 0;
    size_t n1, n3;
    unsigned char *b1 = slurp(at(d1, "connectivity_p.npy"), &n1);
    unsigned char *b3 = slurp(at(d3, "connectivity_p.npy"), &n3);
    CHECKF(b1 && b3 && n1 == n3 && memcmp(b1, b3, n1) == 0, "1 and 3 threads: %zu and %zu bytes", n1, n3);
    const size_t hdr = n1 - 20 * (size_t)nnz;
    CHECKF(b1 && n1 > 20 * (size_t)nnz && hdr % 64 == 0, "%zu bytes for %lld synapses", n1, (long long)nnz);
    int bad = 0;
    for (int i = 0; b3 && n3 == n1 && i < ROWS; i++)
        for (int64_t s = rp[i]; s < rp[i + 1] && bad < 3; s++) {
            const unsigned char *r = b3 + hdr + 20 * (size_t)s;
            int32_t pre, post, dl;
            double wv;
            memcpy(&pre, r, 4);   /* little-endian host, as the file */
            memcpy(&post, r + 4, 4);
            memcpy(&wv, r + 8, 8);
            memcpy(&dl, r + 16, 4);
            if (pre != i || post != col[s] || wv != (double)w[s] || dl != d[s]) {
                CHECKF(0, "synapse %lld: (%d, %d, %g, %d), not (%d, %d, %g, %d)", (long long)s, pre, post, wv,
                       dl, i, col[s], (double)w[s], d[s]);
                bad++;
            }
        }
    free(b1);
    free(b3);
    free(col);
    free(d);
    free(w);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "files_work";
    mkdir(dir, 0755);
    ctx.model = "files";
    csv_files(dir);
    npy_files(dir);
    conn_save_full(dir);
    conn_save_threads(dir);
    return tcheck_done("rt_files");
}
