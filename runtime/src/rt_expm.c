/* rt_expm.c -- load-time numerics: the matrix exponential and exact linear propagators.
 *
 * nrt_expm: scaling and squaring with the [13/13] Pade approximant (Higham, SIAM J. Matrix
 * Anal. Appl. 26(4), 2005), solved by LU with partial pivoting. nrt_propagator: Phi and Psi
 * of x' = A x + b from the exponential of the block matrix [[A dt, I dt], [0, 0]].
 */
#include "rt_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Coefficients b_0..b_13 of the [13/13] Pade approximant to exp. */
static const double pade13[14] = {
    64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
    129060195264000.0,   10559470521600.0,    670442572800.0,     33522128640.0,
    1323241920.0,        40840800.0,          960960.0,           16380.0,
    182.0,               1.0};
static const double theta13 = 5.371920351148152;

/* C = A B, all n x n row-major; C must not alias A or B. */
static void matmul(int n, const double *A, const double *B, double *C)
{
    int i, j, k;
    for (i = 0; i < n; i++) {
        double *c = C + (size_t)i * n;
        for (j = 0; j < n; j++)
            c[j] = 0.0;
        for (k = 0; k < n; k++) {
            double a = A[(size_t)i * n + k];
            const double *b = B + (size_t)k * n;
            if (a == 0.0)
                continue;
            for (j = 0; j < n; j++)
                c[j] += a * b[j];
        }
    }
}

static double norm1(int n, const double *A)
{
    double best = 0.0;
    int i, j;
    for (j = 0; j < n; j++) {
        double s = 0.0;
        for (i = 0; i < n; i++)
            s += fabs(A[(size_t)i * n + j]);
        if (s > best || s != s)
            best = s;
    }
    return best;
}

/* In-place LU of the n x n matrix M with partial pivoting (row swaps in piv).
 * 0, or -1 if M is singular to working precision. */
static int lu_factor(int n, double *M, int *piv)
{
    int i, j, k;
    for (k = 0; k < n; k++) {
        int p = k;
        double best = fabs(M[(size_t)k * n + k]);
        for (i = k + 1; i < n; i++)
            if (fabs(M[(size_t)i * n + k]) > best) {
                best = fabs(M[(size_t)i * n + k]);
                p = i;
            }
        piv[k] = p;
        if (best == 0.0)
            return -1;
        if (p != k)
            for (j = 0; j < n; j++) {
                double t = M[(size_t)k * n + j];
                M[(size_t)k * n + j] = M[(size_t)p * n + j];
                M[(size_t)p * n + j] = t;
            }
        for (i = k + 1; i < n; i++) {
            double l = M[(size_t)i * n + k] / M[(size_t)k * n + k];
            M[(size_t)i * n + k] = l;
            if (l != 0.0)
                for (j = k + 1; j < n; j++)
                    M[(size_t)i * n + j] -= l * M[(size_t)k * n + j];
        }
    }
    return 0;
}

/* Solve (LU) X = B for the n right-hand-side columns of B (n x n), overwriting B. */
static void lu_solve(int n, const double *LU, const int *piv, double *B)
{
    int i, j, k;
    for (k = 0; k < n; k++)
        if (piv[k] != k)
            for (j = 0; j < n; j++) {
                double t = B[(size_t)k * n + j];
                B[(size_t)k * n + j] = B[(size_t)piv[k] * n + j];
                B[(size_t)piv[k] * n + j] = t;
            }
    for (i = 1; i < n; i++) /* forward: unit lower L */
        for (k = 0; k < i; k++) {
            double l = LU[(size_t)i * n + k];
            if (l != 0.0)
                for (j = 0; j < n; j++)
                    B[(size_t)i * n + j] -= l * B[(size_t)k * n + j];
        }
    for (i = n - 1; i >= 0; i--) { /* backward: U */
        double d = LU[(size_t)i * n + i];
        for (k = i + 1; k < n; k++) {
            double u = LU[(size_t)i * n + k];
            if (u != 0.0)
                for (j = 0; j < n; j++)
                    B[(size_t)i * n + j] -= u * B[(size_t)k * n + j];
        }
        for (j = 0; j < n; j++)
            B[(size_t)i * n + j] /= d;
    }
}

/* Contract: out = exp(A) for the n x n row-major A (n >= 1; out may alias A). Scaling
 * 2^-s with s = max(0, ceil(log2(||A||_1 / theta_13))), Pade [13/13], s squarings.
 * NRT_EINVAL for n < 1, NULL pointers or non-finite entries; NRT_ENOMEM if the
 * workspace (about 9 n^2 doubles) cannot be allocated. */
nrt_status nrt_expm(int n, const double *A, double *out)
{
    const double *b = pade13;
    size_t nn, i;
    double *w, *As, *A2, *A4, *A6, *U, *V, *T, *P;
    int *piv, s = 0, k, e;
    double nrm, scale, m;

    if (n < 1 || n > 4096 || !A || !out)
        return NRT_EINVAL;
    nn = (size_t)n * (size_t)n;
    for (i = 0; i < nn; i++)
        if (!isfinite(A[i]))
            return NRT_EINVAL;
    w = malloc(9 * nn * sizeof *w);
    piv = malloc((size_t)n * sizeof *piv);
    if (!w || !piv) {
        free(w);
        free(piv);
        return NRT_ENOMEM;
    }
    As = w; A2 = w + nn; A4 = w + 2 * nn; A6 = w + 3 * nn; U = w + 4 * nn;
    V = w + 5 * nn; T = w + 6 * nn; P = w + 7 * nn;

    nrm = norm1(n, A);
    if (nrm > theta13) {
        m = frexp(nrm / theta13, &e); /* nrm/theta = m 2^e, m in [0.5, 1) */
        s = (m == 0.5) ? e - 1 : e;
        if (s < 0)
            s = 0;
    }
    scale = ldexp(1.0, -s);
    for (i = 0; i < nn; i++)
        As[i] = A[i] * scale;
    matmul(n, As, As, A2);
    matmul(n, A2, A2, A4);
    matmul(n, A4, A2, A6);

    /* U = As [A6 (b13 A6 + b11 A4 + b9 A2) + b7 A6 + b5 A4 + b3 A2 + b1 I] */
    for (i = 0; i < nn; i++)
        T[i] = b[13] * A6[i] + b[11] * A4[i] + b[9] * A2[i];
    matmul(n, A6, T, P);
    for (i = 0; i < nn; i++)
        P[i] += b[7] * A6[i] + b[5] * A4[i] + b[3] * A2[i];
    for (k = 0; k < n; k++)
        P[(size_t)k * n + k] += b[1];
    matmul(n, As, P, U);
    /* V = A6 (b12 A6 + b10 A4 + b8 A2) + b6 A6 + b4 A4 + b2 A2 + b0 I */
    for (i = 0; i < nn; i++)
        T[i] = b[12] * A6[i] + b[10] * A4[i] + b[8] * A2[i];
    matmul(n, A6, T, V);
    for (i = 0; i < nn; i++)
        V[i] += b[6] * A6[i] + b[4] * A4[i] + b[2] * A2[i];
    for (k = 0; k < n; k++)
        V[(size_t)k * n + k] += b[0];
    /* (V - U) X = (V + U) */
    for (i = 0; i < nn; i++) {
        T[i] = V[i] - U[i];
        P[i] = V[i] + U[i];
    }
    if (lu_factor(n, T, piv) != 0) {
        free(w);
        free(piv);
        return NRT_EINVAL;
    }
    lu_solve(n, T, piv, P);
    for (k = 0; k < s; k++) {
        matmul(n, P, P, T);
        memcpy(P, T, nn * sizeof *P);
    }
    memcpy(out, P, nn * sizeof *out);
    free(w);
    free(piv);
    return NRT_OK;
}

/* Contract: Phi = exp(A dt) and Psi = integral_0^dt exp(A s) ds (n x n row-major) from
 * the exponential of the 2n x 2n block matrix [[A dt, I dt], [0, 0]], whose top-left block
 * is Phi and top-right block is Psi; valid for singular A (A = 0: Phi = I, Psi = dt I).
 * NRT_EINVAL for n < 1, NULL pointers or non-finite input; NRT_ENOMEM as nrt_expm. */
nrt_status nrt_propagator(int n, const double *A, double dt, double *Phi, double *Psi)
{
    int m = 2 * n, i, j;
    double *M, *E;
    nrt_status st;
    if (n < 1 || n > 2048 || !A || !Phi || !Psi || !isfinite(dt))
        return NRT_EINVAL;
    M = calloc(2 * (size_t)m * (size_t)m, sizeof *M);
    if (!M)
        return NRT_ENOMEM;
    E = M + (size_t)m * m;
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++)
            M[(size_t)i * m + j] = A[(size_t)i * n + j] * dt;
        M[(size_t)i * m + n + i] = dt;
    }
    st = nrt_expm(m, M, E);
    if (st == NRT_OK)
        for (i = 0; i < n; i++)
            for (j = 0; j < n; j++) {
                Phi[(size_t)i * n + j] = E[(size_t)i * m + j];
                Psi[(size_t)i * n + j] = E[(size_t)i * m + n + j];
            }
    free(M);
    return st;
}
