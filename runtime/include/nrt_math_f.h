/* nrt_math_f.h -- the float functions of nrt_math.h (the double ones with suffix f, computed in
 * float only). Not a header of its own: nrt_math.h includes it after nrt_math_d.h.
 */
#ifndef NRT_MATH_F_H
#define NRT_MATH_F_H

typedef struct nrt__ff {
    float h, l;
} nrt__ff;
typedef struct nrt__fexp {
    float h, hh, l;
    NRT_MI32 k;
} nrt__fexp;
typedef struct nrt__frem {
    float h, l;
    NRT_MI32 q;
} nrt__frem;

#define NRT__SHIFT_F 12582912.0f /* 1.5 * 2^23 */
#define NRT__INF_F NRT_U2F(0x7f800000u)
#define NRT__NAN_F NRT_U2F(0x7fc00000u)
#define NRT__LN2H_F 0.693145752f /* 15 bits */
#define NRT__LN2L_F 1.42860677e-06f
#define NRT__IVLN2_F 1.44269502f
#define NRT__PIO2_1_F 1.5703125f /* pi/2 in parts of <= 11 bits, then 24 */
#define NRT__PIO2_2_F 0.000483751297f
#define NRT__PIO2_3_F 7.54953362e-08f
#define NRT__PIO2_4_F 2.56328292e-12f
#define NRT__PIO2_5_F 6.12323426e-17f
#define NRT__PIO2H_F 1.57079637f
#define NRT__PIO2L_F -4.37113883e-08f
#define NRT__2OPI_F 0.636619747f
#define NRT__IVLN10H_F 0.434204102f /* 12 bits */
#define NRT__IVLN10L_F 9.03803375e-05f
#define NRT__IVLN10_F 0.434294492f
#define NRT__LG2H_F 0.301025391f /* 15 bits */
#define NRT__LG2L_F 4.60503907e-06f
#define NRT__C23H_F 0.666503906f /* 12 bits */
#define NRT__C23L_F 0.000162760422f
#define NRT__C23_F 0.666666687f

NRT_MFN float nrt__absf(float x) { return NRT_U2F(NRT_F2U(x) & 0x7fffffffu); }
/* 12 significant bits: hi*hi, hi*lo and lo*lo are all exact */
NRT_MFN float nrt__hi12(float x) { return NRT_U2F(NRT_F2U(x) & 0xfffff000u); }
NRT_MFN float nrt__pow2f(NRT_MI32 k) { return NRT_U2F((NRT_MU32)(k + 127) << 23); }
NRT_MFN float nrt__scalef(float p, NRT_MI32 k)
{
    NRT_MI32 k1 = k / 2;
    return p * nrt__pow2f(k1) * nrt__pow2f(k - k1);
}
NRT_MFN float nrt__mulerr_f(float a, float b, float p) { return NRT_FMAF(a, b, -p); }
NRT_MFN nrt__ff nrt__divff_f(float nh, float nl, float dh, float dl)
{
    nrt__ff q;
    float qh = nh / dh;
    float p = qh * dh;
    float rem = (((nh - p) - nrt__mulerr_f(qh, dh, p)) + nl) - qh * dl;
    q.h = qh;
    q.l = rem / dh;
    return q;
}

/* e^(xh + xl) = 2^k (1 + h + hh + l), |xh| <= 104 (as nrt__expk_d) */
NRT_MFN nrt__fexp nrt__expk_f(float xh, float xl)
{
    nrt__fexp E;
    float t = NRT_FMAF(xh, NRT__IVLN2_F, NRT__SHIFT_F);
    float kd = t - NRT__SHIFT_F;
    float a = NRT_FMAF(-kd, NRT__LN2H_F, xh);
    float b = NRT_FMAF(kd, NRT__LN2L_F, -xl);
    float rh = a - b;
    float rl = (a - rh) - b;
    float z = rh * rh;
    float ze = NRT_FMAF(rh, rh, -z);
    /* (e^r - 1 - r - r^2/2)/r^3 on [-0.3466, 0.3466], rel. error 2^-26.5 (of e^r - 1 - r) */
    float Q = NRT_FMAF(rh, NRT_FMAF(rh, NRT_FMAF(rh, NRT_FMAF(rh, 0.000198578025f, 0.00139336044f),
              0.00833336078f), 0.0416664667f), 0.166666672f);
    E.k = (NRT_MI32)(NRT_F2U(t) - 0x4b400000u);
    E.h = rh;
    E.hh = 0.5f * z;
    E.l = NRT_FMAF(z * rh, Q, NRT_FMAF(0.5f, ze, NRT_FMAF(rl, rh, rl)));
    return E;
}

NRT_MFN float nrt_expf(float x)
{
    nrt__fexp E;
    float h, t;
    x = x > 89.0f ? 89.0f : x;
    x = x < -104.0f ? -104.0f : x;
    E = nrt__expk_f(x, 0.0f);
    h = 1.0f + E.h;
    t = (1.0f - h) + E.h;
    return nrt__scalef(h + (t + (E.hh + E.l)), E.k);
}

NRT_MFN nrt__fexp nrt__expm1k_f(float x)
{
    nrt__fexp E = nrt__expk_f(x, 0.0f), S;
    NRT_MI32 kk = E.k > 50 ? 50 : E.k;
    float u = nrt__pow2f(-kk);
    float ch = 1.0f - u, bb = ch - 1.0f;
    float cl = (1.0f - (ch - bb)) + (-u - bb);
    float sh = ch + E.h;
    float se = (ch - sh) + E.h;
    float s2 = sh + E.hh;
    float sl = (((sh - s2) + E.hh) + se) + (cl + E.l);
    S.h = s2 + sl;
    S.l = (s2 - S.h) + sl;
    S.k = E.k;
    return S;
}

NRT_MFN float nrt_expm1f(float x)
{
    nrt__fexp S;
    float xc = x > 89.0f ? 89.0f : x;
    xc = xc < -18.0f ? -18.0f : xc;
    S = nrt__expm1k_f(xc);
    xc = nrt__scalef(S.h + S.l, S.k);
    return x == 0.0f ? x : xc;
}

typedef struct nrt__flog {
    float h, l;
    NRT_MI32 e;
} nrt__flog;

NRT_MFN float nrt__logm_f(float x, NRT_MI32 *e)
{
    NRT_MI32 sub = x < 1.17549435e-38f;
    NRT_MU32 ix;
    x = sub ? x * 16777216.0f : x; /* 2^24 */
    ix = NRT_F2U(x) + (0x3f800000u - 0x3f3504f3u);
    *e = (NRT_MI32)(ix >> 23) - 127 - (sub ? 24 : 0);
    ix = (ix & 0x007fffffu) + 0x3f3504f3u;
    return NRT_U2F(ix);
}

NRT_MFN nrt__flog nrt__logk_f(float x)
{
    nrt__flog L;
    float m = nrt__logm_f(x, &L.e);
    float f = m - 1.0f;
    float s = f / (2.0f + f);
    float z = s * s;
    /* R(z) = (2 atanh(s) - 2s)/s on [0, 0.02944], rel. error 2^-21.7 */
    float R = z * NRT_FMAF(z, NRT_FMAF(z, 0.29580608f, 0.399887621f), 0.666666865f);
    float f2 = f * f;
    float hh = 0.5f * f2, hl = 0.5f * NRT_FMAF(f, f, -f2);
    float Ah = f - hh;
    float Al = (f - Ah) - hh;
    float T = s * ((hh + hl) + R);
    L.h = Ah;
    L.l = Al + (T - hl);
    return L;
}

NRT_MFN float nrt__logfinish_f(nrt__flog L, float extra)
{
    float ed = (float)L.e;
    float a = ed * NRT__LN2H_F;
    float bh = a + L.h;
    float bl = (a - bh) + L.h;
    return bh + (bl + ((L.l + ed * NRT__LN2L_F) + extra));
}

NRT_MFN float nrt_logf(float x)
{
    float r = nrt__logfinish_f(nrt__logk_f(x), 0.0f);
    r = x == NRT__INF_F ? x : r;
    r = x == 0.0f ? -NRT__INF_F : r;
    r = x < 0.0f ? NRT__NAN_F : r;
    return x != x ? x + x : r;
}

NRT_MFN float nrt_log1pf(float x)
{
    float u = 1.0f + x;
    float bb = u - 1.0f;
    float c = (1.0f - (u - bb)) + (x - bb);
    float r = nrt__logfinish_f(nrt__logk_f(u), c / u);
    r = x == NRT__INF_F ? x : r;
    r = x == -1.0f ? -NRT__INF_F : r;
    r = x < -1.0f ? NRT__NAN_F : r;
    r = x == 0.0f ? x : r;
    return x != x ? x + x : r;
}

NRT_MFN float nrt_log10f(float x)
{
    nrt__flog L = nrt__logk_f(x);
    float h = L.h + L.l;
    float l = (L.h - h) + L.l;
    float hh = nrt__hi12(h);
    float hl = (h - hh) + l;
    float yh = hh * NRT__IVLN10H_F;
    float yl = hh * NRT__IVLN10L_F + hl * NRT__IVLN10_F;
    float ed = (float)L.e;
    float a = ed * NRT__LG2H_F;
    float bh = a + yh;
    float bl = (a - bh) + yh;
    float r = bh + (bl + (yl + ed * NRT__LG2L_F));
    r = x == NRT__INF_F ? x : r;
    r = x == 0.0f ? -NRT__INF_F : r;
    r = x < 0.0f ? NRT__NAN_F : r;
    return x != x ? x + x : r;
}

NRT_MFN nrt__ff nrt__logk2_f(float x)
{
    nrt__ff L;
    NRT_MI32 e;
    float m = nrt__logm_f(x, &e);
    float f = m - 1.0f, d = m + 1.0f;
    float dh = nrt__hi12(d), dl = m - (dh - 1.0f);
    float id = 1.0f / d;
    float s = f * id;
    float sh = nrt__hi12(s);
    float sl = ((f - sh * dh) - sh * dl) * id;
    float z = s * s;
    /* R3(z)/z^2 on [0, 0.02944], rel. error 2^-24.4 */
    float R = z * z * (0.600000024f + z * (0.428572983f + z * (0.333071262f + z * 0.286810875f)));
    float r = R + sl * (s + sh);
    float sh2 = sh * sh;
    float th = nrt__hi12((3.0f + sh2) + r);
    float tl = r - ((th - 3.0f) - sh2);
    float u = sh * th;
    float v = sl * th + tl * s;
    float ph = nrt__hi12(u + v);
    float pl = v - (ph - u);
    float lmh = ph * NRT__C23H_F;
    float lml = ph * NRT__C23L_F + pl * NRT__C23_F;
    float ed = (float)e;
    float a = ed * NRT__LN2H_F;
    float Ah = a + lmh;
    float Al = (a - Ah) + lmh;
    float low = Al + (lml + ed * NRT__LN2L_F);
    L.h = Ah + low;
    L.l = (Ah - L.h) + low;
    return L;
}

NRT_MFN float nrt__pow34_f(float x, NRT_MI32 four)
{
    float ax = nrt__absf(x);
    NRT_MI32 sub = ax < 1.17549435e-38f;
    NRT_MU32 ix;
    float m, m2h, m2l, h, l, r;
    NRT_MI32 e, k;
    ax = sub ? ax * 16777216.0f : ax; /* 2^24 */
    ix = NRT_F2U(ax);
    e = (NRT_MI32)(ix >> 23) - 127 - (sub ? 24 : 0);
    m = NRT_U2F((ix & 0x007fffffu) | 0x3f800000u);
    m2h = m * m;
    m2l = NRT_FMAF(m, m, -m2h);
    h = four ? m2h * m2h : m2h * m;
    l = four ? NRT_FMAF(m2h, m2h, -h) + 2.0f * m2h * m2l : NRT_FMAF(m2h, m, -h) + m2l * m;
    k = (four ? 4 : 3) * e;
    k = k > 250 ? 250 : (k < -250 ? -250 : k);
    r = nrt__scalef(h + l, k);
    r = !four && (NRT_F2U(x) >> 31) ? -r : r;
    return x != x ? x + x : r;
}

NRT_MFN float nrt_powf(float x, float y)
{
    float ax = nrt__absf(x), ay = nrt__absf(y);
    NRT_MU32 iy = NRT_F2U(y);
    NRT_MI32 ey = (NRT_MI32)((iy >> 23) & 0xff) - 127;
    NRT_MU32 my = (iy & 0x007fffffu) | 0x00800000u;
    NRT_MI32 sh = ey < 0 ? 24 : (ey > 23 ? 0 : 23 - ey);
    NRT_MI32 isint = ey > 23 || (ey >= 0 && (my & ((1u << sh) - 1u)) == 0);
    NRT_MI32 isodd = isint && ey >= 0 && ey <= 23 && ((my >> sh) & 1u);
    NRT_MI32 negx = (NRT_MI32)(NRT_F2U(x) >> 31);
    nrt__ff L = nrt__logk2_f(ax);
    float zh = y * L.h;
    float zl = nrt__mulerr_f(y, L.h, zh) + y * L.l;
    nrt__fexp E;
    float h, t, r, big;
    zl = nrt__absf(zh) <= 104.0f ? zl : 0.0f;
    zh = zh > 89.0f ? 89.0f : zh;
    zh = zh < -104.0f ? -104.0f : zh;
    E = nrt__expk_f(zh, zl);
    h = 1.0f + E.h;
    t = (1.0f - h) + E.h;
    r = nrt__scalef(h + (t + (E.hh + E.l)), E.k);
    r = negx && isodd ? -r : r;
    r = negx && !isint ? NRT__NAN_F : r;
    big = (ax == 0.0f) == (y < 0.0f) ? NRT__INF_F : 0.0f;
    big = negx && isodd ? -big : big;
    r = ax == 0.0f || ax == NRT__INF_F ? big : r;
    r = ay == NRT__INF_F ? (ax == 1.0f ? 1.0f : ((ax < 1.0f) == (y < 0.0f) ? NRT__INF_F : 0.0f)) : r;
    r = x != x || y != y ? x + y : r;
    r = y == 0.0f || x == 1.0f ? 1.0f : r;
    return y == 2.0f ? x * x : (y == 3.0f || y == 4.0f ? nrt__pow34_f(x, y == 4.0f) : r);
}

NRT_MFN nrt__frem nrt__rem_pio2_f(float x)
{
    nrt__frem R;
    float ax = nrt__absf(x);
    if (ax < 8192.0f) { /* Cody-Waite, |k| < 2^13 */
        float t = x * NRT__2OPI_F + NRT__SHIFT_F;
        float kd = t - NRT__SHIFT_F;
        float a = x - kd * NRT__PIO2_1_F;
        float b = kd * NRT__PIO2_2_F;
        float r1 = a - b, b1 = r1 - a;
        float e1 = (a - (r1 - b1)) + (-b - b1);
        float c = kd * NRT__PIO2_3_F;
        float r2 = r1 - c, b2 = r2 - r1;
        float e2 = (r1 - (r2 - b2)) + (-c - b2);
        float d = kd * NRT__PIO2_4_F;
        float r3 = r2 - d, b3 = r3 - r2;
        float e3 = (r2 - (r3 - b3)) + (-d - b3);
        float low = ((e1 + e2) + e3) - kd * NRT__PIO2_5_F;
        R.h = r3 + low;
        R.l = (r3 - R.h) + low;
        R.q = ((NRT_MI32)(NRT_F2U(t) - 0x4b400000u)) & 3;
    } else if (ax == NRT__INF_F || x != x) {
        R.h = x - x;
        R.l = 0.0f;
        R.q = 0;
    } else {
        NRT_MU32 ix = NRT_F2U(ax);
        NRT_MI32 e = (NRT_MI32)(ix >> 23) - 150;
        nrt__phres P = nrt__payne_hanek((NRT_MU64)((ix & 0x007fffffu) | 0x00800000u), e);
        float gh = (float)(NRT_MU32)(P.top >> 40) * nrt__pow2f(-24 - P.shift);
        float gl = (float)(NRT_MU32)((P.top >> 16) & 0xffffffu) * nrt__pow2f(-48 - P.shift);
        float rh = gh * NRT__PIO2H_F;
        float rl = nrt__mulerr_f(gh, NRT__PIO2H_F, rh) + (gh * NRT__PIO2L_F + gl * NRT__PIO2H_F);
        float h = rh + rl;
        float l = (rh - h) + rl;
        NRT_MI32 neg = P.neg ^ (x < 0.0f);
        R.h = neg ? -h : h;
        R.l = neg ? -l : l;
        R.q = (x < 0.0f ? -P.q : P.q) & 3;
    }
    return R;
}

NRT_MFN nrt__ff nrt__ksin_f(float h, float l)
{
    nrt__ff s;
    float z = h * h;
    float S = -0.166666672f + z * (0.00833333191f + z * (-0.000198400812f + z * 2.72493367e-06f));
    float tail = (z * h) * S + l * (1.0f - 0.5f * z);
    s.h = h + tail;
    s.l = (h - s.h) + tail;
    return s;
}

NRT_MFN nrt__ff nrt__kcos_f(float h, float l)
{
    nrt__ff c;
    float z = h * h;
    float C = 0.0416666679f + z * (-0.00138888881f + z * (2.48005981e-05f + z * -2.73006236e-07f));
    float hh = nrt__hi12(h), hl = h - hh;
    float zh = 0.5f * hh * hh, zl = 0.5f * hl * (h + hh);
    float w = 1.0f - zh;
    float tail = (((1.0f - w) - zh) - zl) + ((z * z) * C - h * l);
    c.h = w + tail;
    c.l = (w - c.h) + tail;
    return c;
}

NRT_MFN float nrt_sinf(float x)
{
    nrt__frem R = nrt__rem_pio2_f(x);
    nrt__ff s = nrt__ksin_f(R.h, R.l), c = nrt__kcos_f(R.h, R.l);
    float r = (R.q & 1) ? c.h : s.h;
    r = (R.q & 2) ? -r : r;
    return nrt__absf(x) < 0.000244140625f ? x : r; /* 2^-12 */
}

NRT_MFN float nrt_cosf(float x)
{
    nrt__frem R = nrt__rem_pio2_f(x);
    nrt__ff s = nrt__ksin_f(R.h, R.l), c = nrt__kcos_f(R.h, R.l);
    float r = (R.q & 1) ? s.h : c.h;
    return ((R.q + 1) & 2) ? -r : r;
}

NRT_MFN float nrt_tanf(float x)
{
    nrt__frem R = nrt__rem_pio2_f(x);
    nrt__ff s = nrt__ksin_f(R.h, R.l), c = nrt__kcos_f(R.h, R.l);
    NRT_MI32 odd = R.q & 1;
    nrt__ff q = nrt__divff_f(odd ? -c.h : s.h, odd ? -c.l : s.l, odd ? s.h : c.h, odd ? s.l : c.l);
    float r = q.h + q.l;
    return nrt__absf(x) < 0.000244140625f ? x : r;
}

NRT_MFN float nrt__sinhcosh_f(float x, float sgn)
{
    float a = nrt__absf(x);
    nrt__fexp E;
    float uh, ul, h, l, vh, p, vl, w, wh, wl, dh, b, de, dl;
    NRT_MI32 k2;
    a = a > 90.0f ? 90.0f : a;
    E = nrt__expk_f(a, 0.0f);
    uh = 1.0f + E.h;
    ul = ((1.0f - uh) + E.h) + (E.hh + E.l);
    h = uh + ul;
    l = (uh - h) + ul;
    vh = 1.0f / h;
    p = vh * h;
    vl = (((1.0f - p) - nrt__mulerr_f(vh, h, p)) - vh * l) * vh;
    k2 = E.k > 30 ? 30 : E.k;
    w = nrt__pow2f(-2 * k2);
    wh = sgn * vh * w;
    wl = sgn * vl * w;
    dh = h + wh;
    b = dh - h;
    de = (h - (dh - b)) + (wh - b);
    dl = de + (l + wl);
    return nrt__scalef(dh + dl, E.k - 1);
}

NRT_MFN float nrt_sinhf(float x)
{
    float r = nrt__sinhcosh_f(x, -1.0f);
    r = x < 0.0f ? -r : r;
    return nrt__absf(x) < 0.000244140625f ? x : r;
}

NRT_MFN float nrt_coshf(float x) { return nrt__sinhcosh_f(x, 1.0f); }

NRT_MFN float nrt_tanhf(float x)
{
    float a = nrt__absf(x);
    nrt__fexp S;
    float p, mh, ml, dh, b, dl, r;
    nrt__ff q;
    a = a > 10.0f ? 10.0f : a;
    S = nrt__expm1k_f(2.0f * a);
    p = nrt__pow2f(S.k);
    mh = S.h * p;
    ml = S.l * p;
    dh = mh + 2.0f;
    b = dh - mh;
    dl = ((mh - (dh - b)) + (2.0f - b)) + ml;
    r = dh + dl;
    dl = (dh - r) + dl;
    q = nrt__divff_f(mh, ml, r, dl);
    r = q.h + q.l;
    r = x < 0.0f ? -r : r;
    return nrt__absf(x) < 0.000244140625f ? x : r;
}

NRT_MFN float nrt_atanf(float x)
{
    float a = nrt__absf(x);
    NRT_MI32 id = a < 0.4375f ? 0 : (a < 0.6875f ? 1 : (a < 1.1875f ? 2 : (a < 2.4375f ? 3 : 4)));
    float c = id == 1 ? 0.5f : (id == 2 ? 1.0f : 1.5f);
    float ch = id == 1 ? 0.463647604f : (id == 2 ? 0.785398185f : (id == 3 ? 0.982793748f : 1.57079637f));
    float cl = id == 1 ? 5.01215869e-09f : (id == 2 ? -2.18556941e-08f :
               (id == 3 ? -2.51314241e-08f : -4.37113883e-08f));
    float num = id == 4 ? -1.0f : (id == 0 ? a : a - c);
    float den = id == 4 ? a : (id == 0 ? 1.0f : 1.0f + c * a);
    float t = num / den;
    float z = t * t;
    float A = -0.333333343f + z * (0.19999963f + z * (-0.142834246f + z * (0.110585824f +
              z * (-0.0853423104f + z * 0.0482667349f))));
    float r;
    ch = id == 0 ? 0.0f : ch;
    cl = id == 0 ? 0.0f : cl;
    r = ch + (t + ((t * z) * A + cl));
    r = NRT_U2F(NRT_F2U(r) | (NRT_F2U(x) & 0x80000000u));
    return a < 0.000244140625f || x != x ? x + 0.0f * x : r;
}

#endif
