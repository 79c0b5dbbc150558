/* rt_par.c -- nrt_parallel: independent host work on the CPU's threads.
 *
 * A batch side by side (--instances on the CUDA block schedule) drains B instances' chunks
 * after each launch: their recordings are independent files, and formatting them one after
 * another would leave the GPU waiting for one CPU core. Threads are made per call (a chunk
 * is hundreds of steps, so their start is small beside the work) and take indices from a
 * shared counter, the calling thread among them. Its own file, so that only programs which
 * call it link the threads library.
 */
#define _POSIX_C_SOURCE 200809L

#include "rt_internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct par_job {
    int64_t n;
    int (*fn)(int64_t i, void *arg);
    void *arg;
    atomic_llong next;            /* the next index to take */
    atomic_llong bad;             /* the smallest index that failed; n: none */
} par_job;

static void *par_worker(void *p)
{
    par_job *j = (par_job *)p;
    for (;;) {
        long long i = atomic_fetch_add(&j->next, 1), b;
        if (i >= j->n)
            break;
        if (j->fn((int64_t)i, j->arg) == 0)
            continue;
        b = atomic_load(&j->bad);
        while (i < b && !atomic_compare_exchange_weak(&j->bad, &b, i))
            ;
    }
    return NULL;
}

/* Contract: see neurort.h. */
int64_t nrt_parallel(int64_t n, int threads, int (*fn)(int64_t i, void *arg), void *arg)
{
    enum { MAX_THREADS = 64 };
    pthread_t tid[MAX_THREADS];
    int started = 0, k;
    par_job j;
    if (n <= 0)
        return -1;
    if (threads <= 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        threads = c > 0 ? (int)c : 1;
    }
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    if ((int64_t)threads > n)
        threads = (int)n;
    j.n = n;
    j.fn = fn;
    j.arg = arg;
    atomic_init(&j.next, 0);
    atomic_init(&j.bad, (long long)n);
    for (k = 1; k < threads; k++)   /* a thread that cannot start leaves its share to the rest */
        if (pthread_create(&tid[started], NULL, par_worker, &j) == 0)
            started++;
    par_worker(&j);
    for (k = 0; k < started; k++)
        pthread_join(tid[k], NULL);
    return atomic_load(&j.bad) < n ? (int64_t)atomic_load(&j.bad) : -1;
}
