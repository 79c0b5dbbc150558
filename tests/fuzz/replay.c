/* replay.c -- a main() for the fuzz targets without libFuzzer: feeds every file named on
 * the command line (folders: every file in them) to LLVMFuzzerTestOneInput, so CTest
 * replays the corpus in tests/fuzz/corpus with the ordinary compiler. Fails when it finds
 * no input at all (a replay of nothing would prove nothing).
 *   fuzz_replay_<target> FILE|DIR...
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0, n;
    if (!f) {
        perror(path);
        return -1;
    }
    do {
        if (len == cap) {
            cap = cap ? 2 * cap : 4096;
            buf = realloc(buf, cap);
            if (!buf)
                abort();
        }
        n = fread(buf + len, 1, cap - len, f);
        len += n;
    } while (n > 0);
    fclose(f);
    LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
    free(buf);
    return 1;
}

static int run_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        return run_file(path);
    struct dirent **ents;
    int n = scandir(path, &ents, NULL, alphasort), count = 0;
    if (n < 0) {
        perror(path);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (ents[i]->d_name[0] != '.' && count >= 0) {
            char *p = malloc(strlen(path) + strlen(ents[i]->d_name) + 2);
            sprintf(p, "%s/%s", path, ents[i]->d_name);
            int r = run_file(p);
            count = r < 0 ? -1 : count + r;
            free(p);
        }
        free(ents[i]);
    }
    free(ents);
    return count;
}

int main(int argc, char **argv)
{
    int total = 0;
    for (int i = 1; i < argc; i++) {
        int r = run_path(argv[i]);
        if (r < 0)
            return 1;
        total += r;
    }
    printf("%d inputs replayed\n", total);
    return total > 0 ? 0 : 1;
}
