/* test_expm.c -- nrt_expm and nrt_propagator against closed forms: diagonal, rotation
 * generator, nilpotent, a 3x3 of norm > 100 built as S D S^-1, the scalar propagator,
 * A = 0, and the alpha-kernel (critically damped) 2x2 system.
 */
#include "neurort.h"
#include "tcheck.h"

#include <string.h>

static double maxabs(int n, const double *A)
{
    double m = 0;
    int i;
    for (i = 0; i < n * n; i++)
        if (fabs(A[i]) > m)
            m = fabs(A[i]);
    return m;
}

/* max |X - Y| / max |Y| */
static double relerr(int n, const double *X, const double *Y)
{
    double d = 0;
    int i;
    for (i = 0; i < n * n; i++)
        if (fabs(X[i] - Y[i]) > d)
            d = fabs(X[i] - Y[i]);
    return d / maxabs(n, Y);
}

static void mul3(const double *A, const double *B, double *C)
{
    int i, j, k;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) {
            C[i * 3 + j] = 0;
            for (k = 0; k < 3; k++)
                C[i * 3 + j] += A[i * 3 + k] * B[k * 3 + j];
        }
}

int main(void)
{
    double E[16], P[16], Q[16];

    { /* diagonal */
        double A[9] = {1.5, 0, 0, 0, -3.0, 0, 0, 0, 0.25};
        CHECK(nrt_expm(3, A, E) == NRT_OK);
        CHECK_REL(E[0], exp(1.5), 1e-14);
        CHECK_REL(E[4], exp(-3.0), 1e-14);
        CHECK_REL(E[8], exp(0.25), 1e-14);
        CHECK(E[1] == 0 && E[3] == 0 && E[5] == 0);
    }
    { /* rotation generator: exp([[0, w], [-w, 0]]) = [[cos w, sin w], [-sin w, cos w]] */
        double w = 2.7, A[4] = {0, 0, 0, 0};
        A[1] = w;
        A[2] = -w;
        CHECK(nrt_expm(2, A, E) == NRT_OK);
        CHECK(fabs(E[0] - cos(w)) < 1e-14 && fabs(E[3] - cos(w)) < 1e-14);
        CHECK(fabs(E[1] - sin(w)) < 1e-14 && fabs(E[2] + sin(w)) < 1e-14);
        w = 40.0; /* needs squaring */
        A[1] = w;
        A[2] = -w;
        CHECK(nrt_expm(2, A, E) == NRT_OK);
        CHECKF(fabs(E[0] - cos(w)) < 1e-12 && fabs(E[1] - sin(w)) < 1e-12, "%g %g", E[0], E[1]);
    }
    { /* nilpotent */
        double A[4] = {0, 1, 0, 0};
        CHECK(nrt_expm(2, A, E) == NRT_OK);
        CHECK(E[0] == 1 && E[1] == 1 && E[2] == 0 && E[3] == 1);
    }
    { /* 3x3, ||A|| > 100: A = S D S^-1 */
        const double S[9] = {1, 1, 0, 0, 1, 1, 1, 0, 1};
        const double Si[9] = {0.5, -0.5, 0.5, 0.5, 0.5, -0.5, -0.5, 0.5, 0.5};
        const double d[3] = {-100.0, -20.0, 1.0};
        double D[9] = {0}, eD[9] = {0}, T[9], A[9], want[9];
        int i;
        mul3(S, Si, T);
        CHECK(relerr(3, T, (const double[9]){1, 0, 0, 0, 1, 0, 0, 0, 1}) == 0);
        for (i = 0; i < 3; i++) {
            D[i * 4] = d[i];
            eD[i * 4] = exp(d[i]);
        }
        mul3(S, D, T);
        mul3(T, Si, A);
        mul3(S, eD, T);
        mul3(T, Si, want);
        CHECK(nrt_expm(3, A, E) == NRT_OK);
        CHECKF(relerr(3, E, want) < 1e-10, "rel err %.3g", relerr(3, E, want));
    }
    { /* scalar propagator */
        double a = -0.1, dt = 0.1;
        CHECK(nrt_propagator(1, &a, dt, P, Q) == NRT_OK);
        CHECK_REL(P[0], exp(a * dt), 1e-14);
        CHECK_REL(Q[0], expm1(a * dt) / a, 1e-14);
    }
    { /* A = 0: Phi = I, Psi = dt I */
        double A[9] = {0};
        int i;
        CHECK(nrt_propagator(3, A, 0.25, P, Q) == NRT_OK);
        for (i = 0; i < 9; i++) {
            CHECK(P[i] == (i % 4 == 0 ? 1.0 : 0.0));
            CHECK(Q[i] == (i % 4 == 0 ? 0.25 : 0.0));
        }
    }
    { /* alpha kernel: g' = -g/tau + h, h' = -h/tau */
        double tau = 5.0, dt = 0.1, e = exp(-dt / tau);
        double A[4] = {0, 1, 0, 0};
        double x = dt / tau, i0 = -tau * expm1(-x), i1 = 0, term = 1;
        int m;
        /* 1 - e^-x (1 + x) = sum_{m>=2} (-1)^m (m - 1) x^m / m!, summed without cancellation */
        for (m = 1; m <= 25; m++) {
            term *= x / m;
            if (m >= 2)
                i1 += (m % 2 ? -1.0 : 1.0) * (m - 1) * term;
        }
        i1 *= tau * tau;
        A[0] = A[3] = -1.0 / tau;
        CHECK(nrt_propagator(2, A, dt, P, Q) == NRT_OK);
        CHECK_REL(P[0], e, 1e-14);
        CHECK_REL(P[1], dt * e, 1e-14);
        CHECK(fabs(P[2]) < 1e-300);
        CHECK_REL(P[3], e, 1e-14);
        CHECK_REL(Q[0], i0, 1e-13);
        CHECK_REL(Q[1], i1, 1e-12);
        CHECK(fabs(Q[2]) < 1e-300);
        CHECK_REL(Q[3], i0, 1e-13);
    }
    { /* bad input */
        double A[1] = {NAN};
        CHECK(nrt_expm(1, A, E) == NRT_EINVAL);
        CHECK(nrt_expm(0, A, E) == NRT_EINVAL);
        memset(E, 0, sizeof E);
    }
    return tcheck_done("test_expm");
}
