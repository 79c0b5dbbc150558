/* cobahh_ref.c -- independent re-implementation of examples/cobahh.neuro (Brette et al. 2007,
 * benchmark 3; Brian2 examples/COBAHH.py parameters) under neuroc's step contract, with its
 * own random numbers (splitmix64, Box-Muller), sharing no code with neuroc. Used to calibrate
 * tests/validation/check_cobahh.py.
 *
 * Step s: each conductance adds the weights of the spikes of step s-1 (delay one step); the
 * membrane and gates advance by exponential Euler with the conductances held (each variable
 * x' = c - k x: x += (c - k x)(1 - e^{-k dt})/k, all from the values at the start of the step);
 * a spike is an upward crossing of -20 mV; then the conductances decay by e^{-dt/tau}.
 *
 * usage: cobahh_ref SEED [N]   prints "E_rate I_rate mean_cv active_fraction" over [0, 1000) ms
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t rs;
static double urand(void)
{
    uint64_t z = (rs += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return ((z >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}
static double nrand(void) { return sqrt(-2 * log(urand())) * cos(2 * M_PI * urand()); }
static double xem1(double x) { return fabs(x) < 1e-7 ? 1 - x / 2 : x / expm1(x); }

static void ee(double *x, double c, double k, double dt)
{
    if (fabs(k) < 1e-12)
        *x += c * dt;
    else
        *x += (c - k * *x) * (-expm1(-k * dt)) / k;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    rs = strtoull(argv[1], NULL, 10) * 7919 + 17;
    int n = argc > 2 ? atoi(argv[2]) : 4000, ne = n * 4 / 5;
    double p = 0.02 * 4000.0 / n, dt = 0.1;
    int steps = 10000;
    /* connectivity: per presynaptic neuron, its targets */
    int **tg = malloc(n * sizeof *tg), *nt = calloc(n, sizeof *nt);
    for (int i = 0; i < n; i++) {
        int cap = 16;
        tg[i] = malloc(cap * sizeof **tg);
        for (int j = 0; j < n; j++)
            if (urand() < p) {
                if (nt[i] == cap)
                    tg[i] = realloc(tg[i], (cap *= 2) * sizeof **tg);
                tg[i][nt[i]++] = j;
            }
    }
    double *v = malloc(n * sizeof *v), *m = malloc(n * sizeof *m), *h = malloc(n * sizeof *h),
           *nn = malloc(n * sizeof *nn), *ge = malloc(n * sizeof *ge), *gi = malloc(n * sizeof *gi),
           *xe = calloc(n, sizeof *xe), *xi = calloc(n, sizeof *xi), *last = malloc(n * sizeof *last),
           *s1 = calloc(n, sizeof *s1), *s2 = calloc(n, sizeof *s2);
    int *cnt = calloc(n, sizeof *cnt), *spk = malloc(n * sizeof *spk), nspk = 0;
    for (int i = 0; i < n; i++) {
        v[i] = -60 + 5 * nrand() - 5;
        double u = v[i] + 63, am = 1.28 * xem1((13 - u) / 4), bm = 1.4 * xem1((u - 40) / 5),
               ah = 0.128 * exp((17 - u) / 18), bh = 4 / (1 + exp((40 - u) / 5)),
               an = 0.16 * xem1((15 - u) / 5), bn = 0.5 * exp((10 - u) / 40);
        m[i] = am / (am + bm); h[i] = ah / (ah + bh); nn[i] = an / (an + bn);
        ge[i] = 40 + 15 * nrand();
        gi[i] = 200 + 120 * nrand();
        last[i] = -1;
    }
    double de = exp(-dt / 5), di = exp(-dt / 10);
    for (int s = 0; s < steps; s++) {
        for (int k = 0; k < nspk; k++) {
            int i = spk[k];
            for (int q = 0; q < nt[i]; q++) {
                if (i < ne) xe[tg[i][q]] += 6; else xi[tg[i][q]] += 67;
            }
        }
        nspk = 0;
        for (int i = 0; i < n; i++) {
            ge[i] += xe[i]; gi[i] += xi[i]; xe[i] = xi[i] = 0;
            double V = v[i], u = V + 63;
            double am = 1.28 * xem1((13 - u) / 4), bm = 1.4 * xem1((u - 40) / 5),
                   ah = 0.128 * exp((17 - u) / 18), bh = 4 / (1 + exp((40 - u) / 5)),
                   an = 0.16 * xem1((15 - u) / 5), bn = 0.5 * exp((10 - u) / 40);
            double m3h = m[i] * m[i] * m[i] * h[i], n4 = pow(nn[i], 4);
            double k = (10 + ge[i] + gi[i] + 20000 * m3h + 6000 * n4) / 200;
            double c = (10 * -60 + ge[i] * 0 + gi[i] * -80 + 20000 * m3h * 50 + 6000 * n4 * -90) / 200;
            ee(&m[i], am, am + bm, dt);
            ee(&h[i], ah, ah + bh, dt);
            ee(&nn[i], an, an + bn, dt);
            ee(&v[i], c, k, dt);
            if (V < -20 && v[i] >= -20) {
                double t = (s + 1) * dt;
                spk[nspk++] = i;
                if (last[i] >= 0) {
                    double isi = t - last[i];
                    s1[i] += isi; s2[i] += isi * isi;
                }
                last[i] = t;
                cnt[i]++;
            }
            ge[i] *= de; gi[i] *= di;
        }
    }
    long ce = 0, ci = 0;
    double cvs = 0;
    int ncv = 0, act = 0;
    for (int i = 0; i < n; i++) {
        if (i < ne) ce += cnt[i]; else ci += cnt[i];
        act += cnt[i] > 0;
        if (cnt[i] >= 5) {
            double mm = s1[i] / (cnt[i] - 1), var = s2[i] / (cnt[i] - 1) - mm * mm;
            cvs += sqrt(var > 0 ? var : 0) / mm;
            ncv++;
        }
    }
    printf("%.3f %.3f %.3f %.3f\n", ce / (double)ne, ci / (double)(n - ne), ncv ? cvs / ncv : 0.0,
           act / (double)n);
    return 0;
}
