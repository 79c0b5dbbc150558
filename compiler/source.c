/* source.c -- the source-file table.  Files are read whole into the arena with a NUL
 * sentinel (the lexer relies on it) and get a line-start table, so diagnostics can echo
 * any line.  SrcLoc spans are combined here.
 */
#define _DEFAULT_SOURCE
#include "neuroc.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Register in-memory text under `path`; the text is copied into the arena with a NUL
 * sentinel.  Returns the file index (>= 1). */
uint32_t src_add(Compiler *cc, const char *path, const char *text, size_t size)
{
    if (cc->nfiles >= cc->capfiles) {
        uint32_t ncap = cc->capfiles ? cc->capfiles * 2 : 8;
        SrcFile *nf = arena_alloc(&cc->arena, sizeof(SrcFile) * ncap);
        if (cc->nfiles)
            memcpy(nf, cc->files, sizeof(SrcFile) * cc->nfiles);
        cc->files = nf;
        cc->capfiles = ncap;
        if (cc->nfiles == 0)
            cc->nfiles = 1;
    }
    if (size > 0xFFFFFFF0u)
        nc_fatal("%s: file too large", path);
    SrcFile *f = &cc->files[cc->nfiles];
    char *buf = arena_alloc(&cc->arena, size + 1);
    if (size)
        memcpy(buf, text, size);
    buf[size] = 0;
    f->path = arena_strdup(&cc->arena, path);
    f->text = buf;
    f->size = size;
    uint32_t n = 1;
    for (size_t i = 0; i < size; i++)
        n += buf[i] == '\n';
    f->line_start = arena_alloc(&cc->arena, sizeof(uint32_t) * n);
    f->nlines = n;
    n = 1;
    f->line_start[0] = 0;
    for (size_t i = 0; i < size; i++)
        if (buf[i] == '\n')
            f->line_start[n++] = (uint32_t)(i + 1);
    return cc->nfiles++;
}

/* Why path cannot be a source file, or NULL if it is a regular file that may be read.
 * Checked before it is opened: a FIFO would block the open, /dev/zero would never end. */
const char *src_unreadable(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return strerror(errno);
    if (S_ISDIR(st.st_mode))
        return "is a directory";
    if (!S_ISREG(st.st_mode))
        return "is not a regular file";
    if ((uint64_t)st.st_size > NC_MAX_SOURCE)
        return "is larger than 1 GiB, the most a source file may have";
    return NULL;
}

/* Load a file into the arena; returns its index (>= 1), or 0 if it cannot be read, with the
 * reason in *why when why is not NULL. */
uint32_t src_load(Compiler *cc, const char *path, const char **why)
{
    const char *bad = src_unreadable(path);
    StrBuf b = {0};
    char tmp[65536];
    struct stat st;
    int fd = -1;
    if (!bad) {
        /* O_NONBLOCK: should the file have become a FIFO since the stat, the open must not wait */
        fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            bad = strerror(errno);
        else if (fstat(fd, &st) != 0)
            bad = strerror(errno);
        else if (!S_ISREG(st.st_mode))
            bad = S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file";
    }
    while (!bad) {
        ssize_t n = read(fd, tmp, sizeof tmp);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            bad = strerror(errno);
        else if (n == 0)
            break;
        else if (b.len + (size_t)n > NC_MAX_SOURCE)
            bad = "is larger than 1 GiB, the most a source file may have";
        else
            sb_putn(&b, tmp, (size_t)n);
    }
    if (fd >= 0)
        close(fd);
    if (bad) {
        sb_free(&b);
        if (why)
            *why = bad;
        return 0;
    }
    uint32_t id = src_add(cc, path, b.s ? b.s : "", b.len);
    sb_free(&b);
    return id;
}

/* The text of line `line` (1-based) of file `file`, without its newline (and without a
 * trailing CR); NULL if there is no such line. */
const char *src_line(Compiler *cc, uint32_t file, uint32_t line, size_t *len)
{
    if (file == 0 || file >= cc->nfiles)
        return NULL;
    SrcFile *f = &cc->files[file];
    if (line < 1 || line > f->nlines)
        return NULL;
    size_t b = f->line_start[line - 1];
    size_t e = line < f->nlines ? f->line_start[line] - 1 : f->size;
    if (e > b && f->text[e - 1] == '\r')
        e--;
    if (len)
        *len = e - b;
    return f->text + b;
}

/* The span from the start of a to the end of b.  A span over several lines keeps a's
 * start and gets a length reaching past the end of that line (renderers clamp it). */
SrcLoc loc_span(SrcLoc a, SrcLoc b)
{
    if (a.file == 0)
        return b;
    if (b.file == 0 || b.file != a.file)
        return a;
    if (b.line < a.line || (b.line == a.line && b.col < a.col))
        return a;
    SrcLoc r = a;
    if (b.line == a.line) {
        uint32_t end = b.col + b.len;
        r.len = end > a.col ? end - a.col : 1;
    } else {
        r.len = 0x7FFFFFFF;
    }
    return r;
}
