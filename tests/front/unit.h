/* unit.h -- a tiny assert harness for the unit tests (tests/front, tests/unit): CHECK*
 * count failures and keep going; main() returns unit_report(). */
#ifndef UNIT_H
#define UNIT_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int unit_fails, unit_checks;

#define CHECK(c) do { unit_checks++; if (!(c)) { unit_fails++; \
    fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); } } while (0)
#define CHECK_INT(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); unit_checks++; \
    if (a_ != b_) { unit_fails++; fprintf(stderr, "%s:%d: %s == %lld, expected %lld\n", \
    __FILE__, __LINE__, #a, a_, b_); } } while (0)
/* relative tolerance 1e-12 (scales are products of powers of ten) */
#define CHECK_NEAR(a, b) do { double a_ = (a), b_ = (b); unit_checks++; \
    if (!(fabs(a_ - b_) <= 1e-12 * fabs(b_))) { unit_fails++; fprintf(stderr, \
    "%s:%d: %s == %.17g, expected %.17g\n", __FILE__, __LINE__, #a, a_, b_); } } while (0)
#define CHECK_STR(a, b) do { const char *a_ = (a), *b_ = (b); unit_checks++; \
    if (!a_ || !b_ || strcmp(a_, b_) != 0) { unit_fails++; fprintf(stderr, \
    "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a, a_ ? a_ : "(null)", \
    b_ ? b_ : "(null)"); } } while (0)

static int unit_report(const char *name)
{
    fprintf(stderr, "%s: %d checks, %d failed\n", name, unit_checks, unit_fails);
    return unit_fails ? 1 : 0;
}

#endif
