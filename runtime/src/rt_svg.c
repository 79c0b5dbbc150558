/* rt_svg.c -- the drawing layer of the plots (rt_plot.c): SVG documents, panels with axes.
 *
 * A panel maps a data rectangle [xlo, xhi] x [ylo, yhi] onto a pixel rectangle. Its axes get
 * ticks at multiples of a "nice" step (1, 2 or 5 times a power of ten nearest to the range
 * over the number of ticks wanted, as in Heckbert's "nice numbers for graph labels"),
 * labelled with as many decimals as the step needs, a grid, and axis titles with units.
 * Every tick is a <g class="xtick"> / <g class="ytick"> holding its line and its label, so a
 * reader (tests/plots) can recover the data-to-pixel map from the ticks alone.
 */
#define _POSIX_C_SOURCE 200809L

#include "rt_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The ten colours of Tableau 10 (Stone, 2016), in the order (blue, orange, purple, green,
 * brown, yellow, grey, red, teal, pink) that keeps neighbours apart: colours k and k + 1
 * (cycling) differ by at least 55 in CIE76 Delta E (by 34 in Tableau's own order), so that
 * neighbouring curves and views stay distinct. */
static const char *const palette[] = {"#4e79a7", "#f28e2b", "#b07aa1", "#59a14f", "#9c755f",
                                      "#edc948", "#bab0ac", "#e15759", "#76b7b2", "#ff9da7"};

/* Contract: the k-th colour of the figures' palette, cycling after ten. */
const char *nrt_svg_color(int k)
{
    return palette[(k < 0 ? 0 : k) % (int)(sizeof palette / sizeof palette[0])];
}

/* Contract: a "nice" number near x > 0: 1, 2 or 5 (or 10) times a power of ten. With
 * round != 0 the nearest such number, else the smallest one >= x (Heckbert 1990). */
double nrt_nice(double x, int round)
{
    double e, f, nf;
    if (!(x > 0) || !isfinite(x))
        return 1.0;
    e = floor(log10(x));
    f = x / pow(10.0, e);
    if (round)
        nf = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
    else
        nf = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
    return nf * pow(10.0, e);
}

/* Decimals that print every multiple of `step` exactly (step a nice number). */
static int step_decimals(double step)
{
    int d = (int)-floor(log10(step) + 1e-9);
    return d < 0 ? 0 : d > 9 ? 9 : d;
}

/* The length of the UTF-8 sequence at s (1 to 4 bytes), or 0 if it is not one (an overlong
 * form, a surrogate, past U+10FFFF, a stray or missing continuation byte). */
static int utf8_len(const unsigned char *s)
{
    int n, k;
    uint32_t c;
    if (s[0] < 0x80)
        return 1;
    n = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 && s[0] < 0xE0 ? 2 : 0;
    if (n == 0)
        return 0;
    c = s[0] & (0x7F >> n);
    for (k = 1; k < n; k++) {
        if ((s[k] & 0xC0) != 0x80)
            return 0;
        c = c << 6 | (s[k] & 0x3F);
    }
    if ((n == 3 && (c < 0x800 || (c >= 0xD800 && c <= 0xDFFF))) || (n == 4 && (c < 0x10000 || c > 0x10FFFF)))
        return 0;
    return n;
}

/* Contract: writes s as XML 1.0 text or attribute value: &, <, >, " escaped; tab, newline
 * and carriage return as character references; the other control characters (which XML
 * 1.0 cannot hold, not even as references) and bytes that are not UTF-8 as U+FFFD, so that
 * any name (a recording's file name, a model's) gives a well-formed document. */
void nrt_svg_text(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (p && *p) {
        int n = utf8_len(p);
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\t': case '\n': case '\r': fprintf(f, "&#%d;", *p); break;
        default:
            if (*p < 0x20 || n == 0)
                fputs("\xEF\xBF\xBD", f);
            else
                fwrite(p, 1, (size_t)n, f);
        }
        p += n ? n : 1;
    }
}

/* Contract: starts an SVG document of w x h pixels on f: the XML prolog, the root element
 * with a white background, a style block, and the title centred at the top. */
void nrt_svg_begin(FILE *f, int w, int h, const char *title)
{
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Arial, sans-serif\" "
               "font-size=\"12\">\n", w, h, w, h);
    fputs("<style>.grid{stroke:#e4e4e4;stroke-width:1}.frame{fill:none;stroke:#333}"
          ".tick{stroke:#333}.note{fill:#555;font-size:11px}</style>\n", f);
    fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", w, h);
    fprintf(f, "<text class=\"title\" x=\"%d\" y=\"20\" text-anchor=\"middle\" "
               "font-size=\"15\" font-weight=\"bold\">", w / 2);
    nrt_svg_text(f, title);
    fputs("</text>\n", f);
}

void nrt_svg_end(FILE *f)
{
    fputs("</svg>\n", f);
}

/* Contract: the pixel x of data x in panel p (linear; xlo at the left edge). */
double nrt_svg_px(const nrt_panel *p, double x)
{
    return p->x + (x - p->xlo) / (p->xhi - p->xlo) * p->w;
}

/* Contract: the pixel y of data y in panel p (ylo at the bottom edge). */
double nrt_svg_py(const nrt_panel *p, double y)
{
    return p->y + p->h - (y - p->ylo) / (p->yhi - p->ylo) * p->h;
}

/* The ticks of [lo, hi]: about `want` multiples of a nice step, inside the range, at least
 * three (a smaller nice step where the first choice leaves fewer: small panels). */
static void ticks(double lo, double hi, int want, double *first, double *step, int *n)
{
    *step = nrt_nice((hi - lo) / (want - 1), 1);
    for (int k = 0; k < 4; k++) {
        *first = ceil(lo / *step - 1e-9) * *step;
        *n = (int)floor((hi - *first) / *step + 1e-9) + 1;
        if (*n >= 3)
            break;
        *step = nrt_nice(*step / 2, 1);
    }
    if (*n < 0)
        *n = 0;
}

/* Contract: draws panel p's grid, frame, ticks with labels, and the axis titles xlabel
 * (below) and ylabel (rotated, left); with integer_y the y ticks are whole numbers. The
 * data ranges must be non-empty (xhi > xlo, yhi > ylo). */
void nrt_svg_axes(FILE *f, const nrt_panel *p, const char *xlabel, const char *ylabel,
                  int integer_y)
{
    nrt_svg_axes_n(f, p, xlabel, ylabel, integer_y, 7, 6);
}

/* Contract: nrt_svg_axes with about xwant and ywant ticks (small panels take fewer). */
void nrt_svg_axes_n(FILE *f, const nrt_panel *p, const char *xlabel, const char *ylabel,
                    int integer_y, int xwant, int ywant)
{
    double first, step, v, px, py;
    int n, k, dec;

    ticks(p->xlo, p->xhi, xwant, &first, &step, &n);
    dec = step_decimals(step);
    for (k = 0; k < n; k++) {
        v = first + k * step;
        px = nrt_svg_px(p, v);
        fprintf(f, "<g class=\"xtick\"><line class=\"grid\" x1=\"%.2f\" y1=\"%.2f\" "
                   "x2=\"%.2f\" y2=\"%.2f\"/><line class=\"tick\" x1=\"%.2f\" y1=\"%.2f\" "
                   "x2=\"%.2f\" y2=\"%.2f\"/><text x=\"%.2f\" y=\"%.2f\" "
                   "text-anchor=\"middle\">%.*f</text></g>\n",
                px, p->y, px, p->y + p->h, px, p->y + p->h, px, p->y + p->h + 5, px,
                p->y + p->h + 18, dec, v);
    }
    ticks(p->ylo, p->yhi, ywant, &first, &step, &n);
    if (integer_y && step < 1) {
        step = 1;
        first = ceil(p->ylo - 1e-9);
        n = (int)floor(p->yhi - first + 1e-9) + 1;
    }
    dec = step_decimals(step);
    for (k = 0; k < n; k++) {
        v = first + k * step;
        py = nrt_svg_py(p, v);
        fprintf(f, "<g class=\"ytick\"><line class=\"grid\" x1=\"%.2f\" y1=\"%.2f\" "
                   "x2=\"%.2f\" y2=\"%.2f\"/><line class=\"tick\" x1=\"%.2f\" y1=\"%.2f\" "
                   "x2=\"%.2f\" y2=\"%.2f\"/><text x=\"%.2f\" y=\"%.2f\" "
                   "text-anchor=\"end\">%.*f</text></g>\n",
                p->x, py, p->x + p->w, py, p->x - 5, py, p->x, py, p->x - 8, py + 4, dec,
                fabs(v) < 0.5 * step * 1e-9 ? 0.0 : v);
    }
    fprintf(f, "<rect class=\"frame\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"/>\n",
            p->x, p->y, p->w, p->h);
    fprintf(f, "<text class=\"xlabel\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">",
            p->x + p->w / 2, p->y + p->h + 36);
    nrt_svg_text(f, xlabel);
    fprintf(f, "</text>\n<text class=\"ylabel\" transform=\"translate(%.2f %.2f) rotate(-90)\" "
               "text-anchor=\"middle\">", p->x - 52, p->y + p->h / 2);
    nrt_svg_text(f, ylabel);
    fputs("</text>\n", f);
}

/* Contract: a legend beside panel p, right of its frame (off the data): a coloured line and
 * the label for each of the n entries, colour k = nrt_svg_color(k) (colors NULL) or
 * colors[k]. The figure leaves NRT_LEGEND_W pixels for it; labels longer than fit are cut. */
void nrt_svg_legend(FILE *f, const nrt_panel *p, int n, const char *const *labels)
{
    nrt_svg_legend_c(f, p, n, labels, NULL);
}

void nrt_svg_legend_c(FILE *f, const nrt_panel *p, int n, const char *const *labels,
                      const char *const *colors)
{
    const double bx = p->x + p->w + 12, by = p->y + 4;
    fputs("<g class=\"legend\">\n", f);
    for (int k = 0; k < n; k++) {
        char cut[40];
        double ly = by + 12 + 17 * k;
        snprintf(cut, sizeof cut, "%s", labels[k]);
        if (strlen(labels[k]) >= sizeof cut)
            memcpy(cut + sizeof cut - 4, "...", 4);
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" "
                   "stroke-width=\"3\"/><text x=\"%.2f\" y=\"%.2f\">",
                bx, ly - 4, bx + 18, ly - 4, colors ? colors[k] : nrt_svg_color(k), bx + 24, ly);
        nrt_svg_text(f, cut);
        fputs("</text>\n", f);
    }
    fputs("</g>\n", f);
}

/* Contract: a small grey line of text (a bin width, a decimation) at pixel (x, y). */
void nrt_svg_note(FILE *f, double x, double y, const char *text)
{
    fprintf(f, "<text class=\"note\" x=\"%.2f\" y=\"%.2f\">", x, y);
    nrt_svg_text(f, text);
    fputs("</text>\n", f);
}
