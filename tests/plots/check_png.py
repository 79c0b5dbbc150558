#!/usr/bin/env python3
"""Check that a screenshot of index.html shows the figures: not blank, and the figures'
first colour (#0072b2, spike marks and the first curve) covers a fair number of pixels, which
only happens when the browser loaded and drew the SVG files.

usage: check_png.py SHOT.png

A PNG reader from the standard library (zlib): 8-bit RGB or RGBA, not interlaced, as
Chromium writes its screenshots.
"""
import struct
import sys
import zlib


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError("unsupported PNG (depth %d, colour type %d)" % (depth, ctype))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        ft = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if ft == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif ft == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 255
        elif ft == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif ft == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def main():
    w, h, bpp, rows = read_png(sys.argv[1])
    total = w * h
    nonwhite = blue = 0
    for line in rows:
        for i in range(0, len(line), bpp):
            r, g, b = line[i], line[i + 1], line[i + 2]
            if r < 240 or g < 240 or b < 240:
                nonwhite += 1
            if abs(r - 0x00) < 40 and abs(g - 0x72) < 40 and abs(b - 0xb2) < 40:
                blue += 1
    print("%dx%d screenshot: %.1f%% not white, %d pixels of the figures' blue"
          % (w, h, 100.0 * nonwhite / total, blue))
    ok = nonwhite > 0.02 * total and blue > 2000
    print("ok" if ok else "FAIL: the page looks blank or its figures were not drawn")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
