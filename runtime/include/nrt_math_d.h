/* nrt_math_d.h -- the double functions of nrt_math.h (exp, expm1, log, log1p, log10, pow, sin,
 * cos, tan, sinh, cosh, tanh, atan). Not a header of its own: nrt_math.h includes it after its
 * dialect macros and the Payne-Hanek reduction, and says what the functions do and how.
 */
#ifndef NRT_MATH_D_H
#define NRT_MATH_D_H

#if NRT_MATH_HAS_DOUBLE

typedef struct nrt__dd {
    double h, l;
} nrt__dd;
typedef struct nrt__dexp {
    double h, hh, l; /* e^x = 2^k (1 + h + hh + l) */
    NRT_MI32 k;
} nrt__dexp;
typedef struct nrt__drem {
    double h, l; /* x = q pi/2 + h + l (mod 2 pi) */
    NRT_MI32 q;
} nrt__drem;

#define NRT__SHIFT_D 6755399441055744.0 /* 1.5 * 2^52 */
#define NRT__INF_D NRT_U2D((NRT_MU64)0x7ff0000000000000u)
#define NRT__NAN_D NRT_U2D((NRT_MU64)0x7ff8000000000000u)
#define NRT__LN2H_D 0.6931471803691238     /* 32 bits: e ln2h exact */
#define NRT__LN2L_D 1.9082149292705877e-10
#define NRT__IVLN2_D 1.4426950408889634
#define NRT__PIO2_1_D 1.5707963267341256   /* pi/2 in four parts of 33, 33, 33, 53 bits */
#define NRT__PIO2_2_D 6.077100506303966e-11
#define NRT__PIO2_3_D 2.0222662487111665e-21
#define NRT__PIO2_4_D 8.4784276603689e-32
#define NRT__PIO2H_D 1.5707963267948966
#define NRT__PIO2L_D 6.123233995736766e-17
#define NRT__2OPI_D 0.6366197723675814
#define NRT__IVLN10H_D 0.4342944771051407  /* 26 bits */
#define NRT__IVLN10L_D 4.798111141615973e-09
#define NRT__IVLN10_D 0.4342944819032518
#define NRT__LG2H_D 0.30102999566361177    /* log10(2), 40 bits */
#define NRT__LG2L_D 3.694239077158931e-13
#define NRT__C23H_D 0.6666666567325592     /* 2/3, 26 bits */
#define NRT__C23L_D 9.934107462565104e-09
#define NRT__C23_D 0.6666666666666666

NRT_MFN double nrt__absd(double x) { return NRT_U2D(NRT_D2U(x) & (NRT_MU64)0x7fffffffffffffffu); }
/* x with its low 27 mantissa bits cleared: 26 significant bits, so hi*hi is exact */
NRT_MFN double nrt__hi26(double x) { return NRT_U2D(NRT_D2U(x) & (NRT_MU64)0xfffffffff8000000u); }
NRT_MFN double nrt__pow2d(NRT_MI32 k) { return NRT_U2D((NRT_MU64)(NRT_MI64)(k + 1023) << 52); }
/* p 2^k for k in [-1076, 1026], one rounding (p 2^(k/2) is exact) */
NRT_MFN double nrt__scaled(double p, NRT_MI32 k)
{
    NRT_MI32 k1 = k / 2;
    return p * nrt__pow2d(k1) * nrt__pow2d(k - k1);
}
/* the rounding error of a*b (p = a*b rounded), exact (no underflow) */
NRT_MFN double nrt__mulerr_d(double a, double b, double p) { return NRT_FMA(a, b, -p); }
/* n/d for two-word n and d (both normalised), two-word result */
NRT_MFN nrt__dd nrt__divdd_d(double nh, double nl, double dh, double dl)
{
    nrt__dd q;
    double qh = nh / dh;
    double p = qh * dh;
    double rem = (((nh - p) - nrt__mulerr_d(qh, dh, p)) + nl) - qh * dl;
    q.h = qh;
    q.l = rem / dh;
    return q;
}

/* e^(xh + xl) = 2^k (1 + h + hh + l), |xh| <= 746, |xl| <= 2^-40 |xh|: h = r, hh + l =
 * e^r - 1 - r with hh = r^2/2 rounded (exact: r^2 = 2 hh + ze) and l the small rest */
NRT_MFN nrt__dexp nrt__expk_d(double xh, double xl)
{
    nrt__dexp E;
    double t = NRT_FMA(xh, NRT__IVLN2_D, NRT__SHIFT_D);
    double kd = t - NRT__SHIFT_D;
    double a = NRT_FMA(-kd, NRT__LN2H_D, xh); /* exact */
    double b = NRT_FMA(kd, NRT__LN2L_D, -xl);
    double rh = a - b;
    double rl = (a - rh) - b;
    double z = rh * rh;
    double ze = NRT_FMA(rh, rh, -z);
    /* e^r - 1 - r - r^2/2 = r^3 (qo(z) + r qe(z)): a minimax fit on [-0.3466, 0.3466] with
     * relative error 2^-57, split into odd and even halves (two short chains) */
    double qe = NRT_FMA(z, NRT_FMA(z, NRT_FMA(z, NRT_FMA(z, 2.088937645126005e-09,
                2.7557349626785204e-07), 2.480158724571911e-05), 0.0013888888888917974),
                0.041666666666666616);
    double qo = NRT_FMA(z, NRT_FMA(z, NRT_FMA(z, NRT_FMA(z, 2.5105181723244168e-08,
                2.755725549478757e-06), 0.0001984126987473612), 0.008333333333326164),
                0.1666666666666667);
    E.k = (NRT_MI32)(NRT_MI64)(NRT_D2U(t) - (NRT_MU64)0x4338000000000000u);
    E.h = rh;
    E.hh = 0.5 * z;
    E.l = NRT_FMA(z * rh, NRT_FMA(rh, qe, qo), NRT_FMA(0.5, ze, NRT_FMA(rl, rh, rl)));
    return E;
}

NRT_MFN double nrt_exp(double x)
{
    nrt__dexp E;
    double h, t;
    x = x > 710.0 ? 710.0 : x;
    x = x < -746.0 ? -746.0 : x;
    E = nrt__expk_d(x, 0.0);
    h = 1.0 + E.h;
    t = (1.0 - h) + E.h;
    return nrt__scaled(h + (t + (E.hh + E.l)), E.k);
}

/* expm1(x) = 2^k S, S = Sh + Sl (|Sl| small), for -40 <= x <= 710 */
NRT_MFN nrt__dexp nrt__expm1k_d(double x)
{
    nrt__dexp E = nrt__expk_d(x, 0.0), S;
    NRT_MI32 kk = E.k > 100 ? 100 : E.k;
    double u = nrt__pow2d(-kk);
    /* c = 1 - 2^-k exactly as ch + cl */
    double ch = 1.0 - u, bb = ch - 1.0;
    double cl = (1.0 - (ch - bb)) + (-u - bb);
    /* S = c + (h + hh + l): |c| >= 1/2 > |h| or c = 0, and |ch + h| > |hh| (fast two-sums) */
    double sh = ch + E.h;
    double se = (ch - sh) + E.h;
    double s2 = sh + E.hh;
    double sl = (((sh - s2) + E.hh) + se) + (cl + E.l);
    S.h = s2 + sl;
    S.l = (s2 - S.h) + sl;
    S.k = E.k;
    return S;
}

NRT_MFN double nrt_expm1(double x)
{
    nrt__dexp S;
    double xc = x > 710.0 ? 710.0 : x;
    xc = xc < -40.0 ? -40.0 : xc;
    S = nrt__expm1k_d(xc);
    xc = nrt__scaled(S.h + S.l, S.k);
    return x == 0.0 ? x : xc;
}

typedef struct nrt__dlog {
    double h, l; /* log x = e ln2 + h + l, |h| <= 0.35 */
    NRT_MI32 e;
} nrt__dlog;

/* x = 2^e m, m in [sqrt(1/2), sqrt(2)); x > 0 finite (subnormals scaled) */
NRT_MFN double nrt__logm_d(double x, NRT_MI32 *e)
{
    NRT_MI32 sub = x < 2.2250738585072014e-308;
    NRT_MU64 ix;
    x = sub ? x * 18014398509481984.0 : x; /* 2^54 */
    ix = NRT_D2U(x) + ((NRT_MU64)0x3ff0000000000000u - (NRT_MU64)0x3fe6a09e667f3bcdu);
    *e = (NRT_MI32)(ix >> 52) - 1023 - (sub ? 54 : 0);
    ix = (ix & (NRT_MU64)0x000fffffffffffffu) + (NRT_MU64)0x3fe6a09e667f3bcdu;
    return NRT_U2D(ix);
}

NRT_MFN nrt__dlog nrt__logk_d(double x)
{
    nrt__dlog L;
    double m = nrt__logm_d(x, &L.e);
    double f = m - 1.0;
    double s = f / (2.0 + f);
    double z = s * s;
    /* R(z) = (2 atanh(s) - 2s)/s on [0, 0.02944], rel. error 2^-51 */
    double R = z * NRT_FMA(z, NRT_FMA(z, NRT_FMA(z, NRT_FMA(z, NRT_FMA(z, NRT_FMA(z,
               0.14617002548531124, 0.15331673738719334), 0.18182890678218225),
               0.22222211111585055), 0.28571428626132167), 0.39999999999899116), 0.666666666666667);
    double f2 = f * f;
    double hh = 0.5 * f2, hl = 0.5 * NRT_FMA(f, f, -f2); /* f^2/2 = hh + hl exactly */
    double Ah = f - hh;
    double Al = (f - Ah) - hh;
    double T = s * ((hh + hl) + R);
    L.h = Ah;
    L.l = Al + (T - hl);
    return L;
}

NRT_MFN double nrt__logfinish_d(nrt__dlog L, double extra)
{
    double ed = (double)L.e;
    double a = ed * NRT__LN2H_D;
    double bh = a + L.h;
    double bl = (a - bh) + L.h;
    return bh + (bl + ((L.l + ed * NRT__LN2L_D) + extra));
}

NRT_MFN double nrt_log(double x)
{
    double r = nrt__logfinish_d(nrt__logk_d(x), 0.0);
    r = x == NRT__INF_D ? x : r;
    r = x == 0.0 ? -NRT__INF_D : r;
    r = x < 0.0 ? NRT__NAN_D : r;
    return x != x ? x + x : r;
}

NRT_MFN double nrt_log1p(double x)
{
    double u = 1.0 + x;
    double bb = u - 1.0;
    double c = (1.0 - (u - bb)) + (x - bb); /* 1 + x = u + c exactly */
    double r = nrt__logfinish_d(nrt__logk_d(u), c / u);
    r = x == NRT__INF_D ? x : r;
    r = x == -1.0 ? -NRT__INF_D : r;
    r = x < -1.0 ? NRT__NAN_D : r;
    r = x == 0.0 ? x : r;
    return x != x ? x + x : r;
}

NRT_MFN double nrt_log10(double x)
{
    nrt__dlog L = nrt__logk_d(x);
    double h = L.h + L.l;
    double l = (L.h - h) + L.l;
    double hh = nrt__hi26(h);
    double hl = (h - hh) + l;
    double yh = hh * NRT__IVLN10H_D; /* exact */
    double yl = hh * NRT__IVLN10L_D + hl * NRT__IVLN10_D;
    double ed = (double)L.e;
    double a = ed * NRT__LG2H_D; /* exact */
    double bh = a + yh;
    double bl = (a - bh) + yh;
    double r = bh + (bl + (yl + ed * NRT__LG2L_D));
    r = x == NRT__INF_D ? x : r;
    r = x == 0.0 ? -NRT__INF_D : r;
    r = x < 0.0 ? NRT__NAN_D : r;
    return x != x ? x + x : r;
}

/* log x for pow, x > 0 finite: two words with relative error about 2^-66.
 * log m = 2 atanh(s) = 2/3 s t, t = 3 + s^2 + R3(s^2), s = (m-1)/(m+1); s, t and s t are
 * carried as a 26-bit head and a tail, so every head product is exact. */
NRT_MFN nrt__dd nrt__logk2_d(double x)
{
    nrt__dd L;
    NRT_MI32 e;
    double m = nrt__logm_d(x, &e);
    double f = m - 1.0, d = m + 1.0;
    double dh = nrt__hi26(d), dl = m - (dh - 1.0); /* d = dh + dl exactly */
    double id = 1.0 / d;
    double s = f * id;
    double sh = nrt__hi26(s);
    double sl = ((f - sh * dh) - sh * dl) * id;
    double z = s * s;
    /* R3(z)/z^2 = (3 atanh(s)/s - 3 - z)/z^2 on [0, 0.02944], rel. error 2^-57.5 (the
     * constant 3/5 carried in two words) */
    double z2 = z * z;
    double R = z2 * (0.6 + z * (0.42857142857144054 + z * (0.3333333333248237 +
               z * (0.2727272750338679 + z * (0.23076892414934008 + z * (0.20002208475518898 +
               z * (0.175593191269533 + z * 0.17585110677983198))))))) +
               z2 * 2.2204460492503132e-17;
    double r = R + sl * (s + sh);
    double sh2 = sh * sh;
    double th = nrt__hi26((3.0 + sh2) + r);
    double tl = r - ((th - 3.0) - sh2);
    double u = sh * th;
    double v = sl * th + tl * s;
    double ph = nrt__hi26(u + v);
    double pl = v - (ph - u);
    double lmh = ph * NRT__C23H_D;
    double lml = ph * NRT__C23L_D + pl * NRT__C23_D;
    double ed = (double)e;
    double a = ed * NRT__LN2H_D;
    double Ah = a + lmh;
    double Al = (a - Ah) + lmh;
    double low = Al + (lml + ed * NRT__LN2L_D);
    L.h = Ah + low;
    L.l = (Ah - L.h) + low;
    return L;
}

/* x^3 or x^4 (four): m^n in two words for x = 2^e m, m in [1, 2), then 2^(n e) with one
 * rounding (twice for a subnormal result); NaN for NaN. Every pow(x, 3) and pow(x, 4) goes
 * here, so the result does not depend on which path a back end could take. */
NRT_MFN double nrt__pow34_d(double x, NRT_MI32 four)
{
    double ax = nrt__absd(x);
    NRT_MI32 sub = ax < 2.2250738585072014e-308;
    NRT_MU64 ix;
    double m, m2h, m2l, h, l, r;
    NRT_MI32 e, k;
    ax = sub ? ax * 18014398509481984.0 : ax; /* 2^54 */
    ix = NRT_D2U(ax);
    e = (NRT_MI32)(ix >> 52) - 1023 - (sub ? 54 : 0);
    m = NRT_U2D((ix & (NRT_MU64)0x000fffffffffffffu) | (NRT_MU64)0x3ff0000000000000u);
    m2h = m * m;
    m2l = NRT_FMA(m, m, -m2h); /* m^2 = m2h + m2l exactly */
    h = four ? m2h * m2h : m2h * m;
    l = four ? NRT_FMA(m2h, m2h, -h) + 2.0 * m2h * m2l : NRT_FMA(m2h, m, -h) + m2l * m;
    k = (four ? 4 : 3) * e;
    k = k > 2000 ? 2000 : (k < -2000 ? -2000 : k);
    r = nrt__scaled(h + l, k);
    r = !four && (NRT_D2U(x) >> 63) ? -r : r;
    return x != x ? x + x : r;
}

NRT_MFN double nrt_pow(double x, double y)
{
    double ax = nrt__absd(x), ay = nrt__absd(y);
    NRT_MU64 iy = NRT_D2U(y);
    NRT_MI32 ey = (NRT_MI32)((iy >> 52) & 0x7ff) - 1023;
    NRT_MU64 my = (iy & (NRT_MU64)0x000fffffffffffffu) | (NRT_MU64)0x0010000000000000u;
    NRT_MI32 sh = ey < 0 ? 53 : (ey > 52 ? 0 : 52 - ey);
    NRT_MI32 isint = ey > 52 || (ey >= 0 && (my & (((NRT_MU64)1 << sh) - 1u)) == 0);
    NRT_MI32 isodd = isint && ey >= 0 && ey <= 52 && ((my >> sh) & 1u);
    NRT_MI32 negx = (NRT_MI32)(NRT_D2U(x) >> 63);
    nrt__dd L = nrt__logk2_d(ax);
    double zh = y * L.h;
    double zl = nrt__mulerr_d(y, L.h, zh) + y * L.l;
    nrt__dexp E;
    double h, t, r, big;
    zl = nrt__absd(zh) <= 746.0 ? zl : 0.0;
    zh = zh > 710.0 ? 710.0 : zh;
    zh = zh < -746.0 ? -746.0 : zh;
    E = nrt__expk_d(zh, zl);
    h = 1.0 + E.h;
    t = (1.0 - h) + E.h;
    r = nrt__scaled(h + (t + (E.hh + E.l)), E.k);
    r = negx && isodd ? -r : r;
    /* C99 F.9.4.4 */
    r = negx && !isint ? NRT__NAN_D : r;
    big = (ax == 0.0) == (y < 0.0) ? NRT__INF_D : 0.0;
    big = negx && isodd ? -big : big;
    r = ax == 0.0 || ax == NRT__INF_D ? big : r;
    r = ay == NRT__INF_D ? (ax == 1.0 ? 1.0 : ((ax < 1.0) == (y < 0.0) ? NRT__INF_D : 0.0)) : r;
    r = x != x || y != y ? x + y : r;
    r = y == 0.0 || x == 1.0 ? 1.0 : r;
    /* small integer powers, independent of r (y is mostly a constant: then only this path is
     * left); x*x is correctly rounded and has C99 F.9.4.4's values */
    return y == 2.0 ? x * x : (y == 3.0 || y == 4.0 ? nrt__pow34_d(x, y == 4.0) : r);
}

/* ---- trigonometric ---- */

NRT_MFN nrt__drem nrt__rem_pio2_d(double x)
{
    nrt__drem R;
    double ax = nrt__absd(x);
    if (ax < 1048576.0) { /* Cody-Waite, |k| < 2^20 so k * part is exact */
        double t = x * NRT__2OPI_D + NRT__SHIFT_D;
        double kd = t - NRT__SHIFT_D;
        double a = x - kd * NRT__PIO2_1_D;
        double b = kd * NRT__PIO2_2_D;
        double r1 = a - b, b1 = r1 - a;
        double e1 = (a - (r1 - b1)) + (-b - b1);
        double c = kd * NRT__PIO2_3_D;
        double r2 = r1 - c, b2 = r2 - r1;
        double e2 = (r1 - (r2 - b2)) + (-c - b2);
        double low = (e1 + e2) - kd * NRT__PIO2_4_D;
        R.h = r2 + low;
        R.l = (r2 - R.h) + low;
        R.q = (NRT_MI32)(NRT_MI64)(NRT_D2U(t) - (NRT_MU64)0x4338000000000000u) & 3;
    } else if (ax == NRT__INF_D || x != x) {
        R.h = x - x;
        R.l = 0.0;
        R.q = 0;
    } else { /* Payne-Hanek */
        NRT_MU64 ix = NRT_D2U(ax);
        NRT_MI32 e = (NRT_MI32)(ix >> 52) - 1075;
        nrt__phres P = nrt__payne_hanek((ix & (NRT_MU64)0x000fffffffffffffu) |
                                        (NRT_MU64)0x0010000000000000u, e);
        double gh = (double)(P.top >> 11) * nrt__pow2d(-53 - P.shift);
        double gl = (double)(((P.top & 0x7ffu) << 53) | (P.mid >> 11)) * nrt__pow2d(-117 - P.shift);
        double rh = gh * NRT__PIO2H_D;
        double rl = nrt__mulerr_d(gh, NRT__PIO2H_D, rh) + (gh * NRT__PIO2L_D + gl * NRT__PIO2H_D);
        double h = rh + rl;
        double l = (rh - h) + rl;
        NRT_MI32 neg = P.neg ^ (x < 0.0);
        R.h = neg ? -h : h;
        R.l = neg ? -l : l;
        R.q = (x < 0.0 ? -P.q : P.q) & 3;
    }
    return R;
}

/* sin(h + l) = result.h + result.l, |h| <= pi/4 */
NRT_MFN nrt__dd nrt__ksin_d(double h, double l)
{
    nrt__dd s;
    double z = h * h;
    double S = -0.16666666666666666 + z * (0.008333333333330922 + z * (-0.00019841269836723397 +
               z * (2.755731608632301e-06 + z * (-2.505112878880317e-08 + z * 1.5917927879964185e-10))));
    double tail = (z * h) * S + l * (1.0 - 0.5 * z);
    s.h = h + tail;
    s.l = (h - s.h) + tail;
    return s;
}

NRT_MFN nrt__dd nrt__kcos_d(double h, double l)
{
    nrt__dd c;
    double z = h * h;
    double C = 0.041666666666666664 + z * (-0.0013888888888887387 + z * (2.4801587298750476e-05 +
               z * (-2.7557317264654405e-07 + z * (2.087614492568758e-09 + z * -1.1382543281867233e-11))));
    double hh = nrt__hi26(h), hl = h - hh;
    double zh = 0.5 * hh * hh, zl = 0.5 * hl * (h + hh); /* z/2 = zh + zl, zh exact */
    double w = 1.0 - zh;
    double tail = (((1.0 - w) - zh) - zl) + ((z * z) * C - h * l);
    c.h = w + tail;
    c.l = (w - c.h) + tail;
    return c;
}

NRT_MFN double nrt_sin(double x)
{
    nrt__drem R = nrt__rem_pio2_d(x);
    nrt__dd s = nrt__ksin_d(R.h, R.l), c = nrt__kcos_d(R.h, R.l);
    double r = (R.q & 1) ? c.h : s.h;
    r = (R.q & 2) ? -r : r;
    return nrt__absd(x) < 7.450580596923828e-09 ? x : r; /* 2^-27 */
}

NRT_MFN double nrt_cos(double x)
{
    nrt__drem R = nrt__rem_pio2_d(x);
    nrt__dd s = nrt__ksin_d(R.h, R.l), c = nrt__kcos_d(R.h, R.l);
    double r = (R.q & 1) ? s.h : c.h;
    return ((R.q + 1) & 2) ? -r : r;
}

NRT_MFN double nrt_tan(double x)
{
    nrt__drem R = nrt__rem_pio2_d(x);
    nrt__dd s = nrt__ksin_d(R.h, R.l), c = nrt__kcos_d(R.h, R.l);
    NRT_MI32 odd = R.q & 1;
    nrt__dd q = nrt__divdd_d(odd ? -c.h : s.h, odd ? -c.l : s.l, odd ? s.h : c.h, odd ? s.l : c.l);
    double r = q.h + q.l;
    return nrt__absd(x) < 7.450580596923828e-09 ? x : r;
}

/* ---- hyperbolic ---- */

/* (e^a +- e^-a)/2 for a = |x| */
NRT_MFN double nrt__sinhcosh_d(double x, double sgn)
{
    double a = nrt__absd(x);
    nrt__dexp E;
    double uh, ul, h, l, vh, p, vl, w, wh, wl, dh, b, de, dl;
    NRT_MI32 k2;
    a = a > 711.0 ? 711.0 : a;
    E = nrt__expk_d(a, 0.0);
    uh = 1.0 + E.h;
    ul = ((1.0 - uh) + E.h) + (E.hh + E.l);
    h = uh + ul; /* u = e^a 2^-k = h + l */
    l = (uh - h) + ul;
    vh = 1.0 / h; /* 1/u = vh + vl */
    p = vh * h;
    vl = (((1.0 - p) - nrt__mulerr_d(vh, h, p)) - vh * l) * vh;
    k2 = E.k > 60 ? 60 : E.k;
    w = nrt__pow2d(-2 * k2);
    wh = sgn * vh * w;
    wl = sgn * vl * w;
    dh = h + wh; /* two-sum */
    b = dh - h;
    de = (h - (dh - b)) + (wh - b);
    dl = de + (l + wl);
    return nrt__scaled(dh + dl, E.k - 1);
}

NRT_MFN double nrt_sinh(double x)
{
    double r = nrt__sinhcosh_d(x, -1.0);
    r = x < 0.0 ? -r : r;
    return nrt__absd(x) < 1.4901161193847656e-08 ? x : r; /* 2^-26 */
}

NRT_MFN double nrt_cosh(double x) { return nrt__sinhcosh_d(x, 1.0); }

NRT_MFN double nrt_tanh(double x)
{
    double a = nrt__absd(x);
    nrt__dexp S;
    double p, mh, ml, dh, b, dl, r;
    nrt__dd q;
    a = a > 20.0 ? 20.0 : a;
    S = nrt__expm1k_d(2.0 * a);
    p = nrt__pow2d(S.k);
    mh = S.h * p; /* E = e^(2a) - 1 = mh + ml */
    ml = S.l * p;
    dh = mh + 2.0; /* E + 2 */
    b = dh - mh;
    dl = ((mh - (dh - b)) + (2.0 - b)) + ml;
    r = dh + dl;
    dl = (dh - r) + dl;
    q = nrt__divdd_d(mh, ml, r, dl);
    r = q.h + q.l;
    r = x < 0.0 ? -r : r;
    return nrt__absd(x) < 7.450580596923828e-09 ? x : r;
}

/* ---- atan ---- */

NRT_MFN double nrt_atan(double x)
{
    double a = nrt__absd(x);
    NRT_MI32 id = a < 0.4375 ? 0 : (a < 0.6875 ? 1 : (a < 1.1875 ? 2 : (a < 2.4375 ? 3 : 4)));
    double c = id == 1 ? 0.5 : (id == 2 ? 1.0 : 1.5);
    double ch = id == 1 ? 0.4636476090008061 : (id == 2 ? 0.7853981633974483 :
                (id == 3 ? 0.982793723247329 : 1.5707963267948966));
    double cl = id == 1 ? 2.2698777452961687e-17 : (id == 2 ? 3.061616997868383e-17 :
                (id == 3 ? 1.3903311031230998e-17 : 6.123233995736766e-17));
    double num = id == 4 ? -1.0 : (id == 0 ? a : a - c);
    double den = id == 4 ? a : (id == 0 ? 1.0 : 1.0 + c * a);
    double t = num / den;
    double z = t * t;
    double A = -0.33333333333333326 + z * (0.19999999999988036 + z * (-0.14285714283194398 +
               z * (0.11111110903597274 + z * (-0.09090900298015657 + z * (0.07692089335803581 +
               z * (-0.06663262774796981 + z * (0.05847896466903097 + z * (-0.050347024011573496 +
               z * (0.03784382635806487 + z * -0.017566613159523764)))))))));
    double r;
    ch = id == 0 ? 0.0 : ch;
    cl = id == 0 ? 0.0 : cl;
    r = ch + (t + ((t * z) * A + cl));
    r = NRT_U2D(NRT_D2U(r) | (NRT_D2U(x) & (NRT_MU64)0x8000000000000000u));
    return a < 7.450580596923828e-09 || x != x ? x + 0.0 * x : r;
}

#endif /* NRT_MATH_HAS_DOUBLE */

#endif
