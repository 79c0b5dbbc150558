/* tcheck.h -- the tiny assertion harness of the runtime tests.
 *
 * CHECK(cond) and CHECKF(cond, fmt, ...) count and report failures without stopping;
 * CHECK_REL(a, b, tol) compares doubles relatively; tcheck_done() prints the tally and
 * gives the exit status (0 when every check passed).
 */
#ifndef TCHECK_H
#define TCHECK_H

#include <math.h>
#include <stdio.h>

static int tcheck_failed, tcheck_total;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        tcheck_total++;                                                                \
        if (!(cond)) {                                                                 \
            tcheck_failed++;                                                           \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
        }                                                                              \
    } while (0)

#define CHECKF(cond, ...)                                                              \
    do {                                                                               \
        tcheck_total++;                                                                \
        if (!(cond)) {                                                                 \
            tcheck_failed++;                                                           \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);   \
            fprintf(stderr, __VA_ARGS__);                                              \
            fputc('\n', stderr);                                                       \
        }                                                                              \
    } while (0)

/* |a - b| <= tol * max(|b|, tiny) */
#define CHECK_REL(a, b, tol)                                                           \
    do {                                                                               \
        double ta_ = (a), tb_ = (b);                                                   \
        double td_ = fabs(ta_ - tb_), tm_ = fabs(tb_) > 1e-300 ? fabs(tb_) : 1e-300;   \
        CHECKF(td_ <= (tol) * tm_, "%s = %.17g, expected %.17g (rel err %.3g > %g)",    \
               #a, ta_, tb_, td_ / tm_, (double)(tol));                                \
    } while (0)

static int tcheck_done(const char *name)
{
    fprintf(stderr, "%s: %d of %d checks failed\n", name, tcheck_failed, tcheck_total);
    return tcheck_failed ? 1 : 0;
}

#endif
