"""ckpt_format.py -- the checksums of a checkpoint (runtime/src/rt_ckpt.c), for the tests.

crc64(data): CRC-64/XZ, as the runtime computes it for each array file and for the header.
resign(dir): recompute the checksums of a checkpoint edited on purpose -- each "array" line's
CRC from its .bin file (when it exists) and the header's final "checksum" line -- so that a
test reaches the checks behind the checksums. Standard library only.
"""
import os

_POLY = 0xC96C5795D7870F42
_TAB = []
for _n in range(256):
    _c = _n
    for _ in range(8):
        _c = (_c >> 1) ^ _POLY if _c & 1 else _c >> 1
    _TAB.append(_c)


def crc64(data, crc=0):
    """CRC-64/XZ of data (bytes); crc64(b"123456789") == 0x995DC9BBDF1939FA."""
    c = crc ^ 0xFFFFFFFFFFFFFFFF
    tab = _TAB
    for b in data:
        c = tab[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFFFFFFFFFF


assert crc64(b"123456789") == 0x995DC9BBDF1939FA


def sign(text):
    """text (bytes: the header without its checksum line) with its checksum line."""
    return text + b"checksum %016x\n" % crc64(text)


def resign(d, arrays=True):
    """Re-sign checkpoint d: each array line's CRC from its file (arrays=True), then the
    header's checksum over the lines before its last "checksum" line (kept as they are)."""
    path = os.path.join(d, "checkpoint.txt")
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if lines and lines[-1].startswith(b"checksum "):
        lines.pop()
    out = []
    for l in lines:
        w = l.split(b" ")
        if arrays and len(w) == 4 and w[0] == b"array":
            bin_path = os.path.join(d, w[1].decode() + ".bin")
            if os.path.exists(bin_path):
                with open(bin_path, "rb") as g:
                    w[3] = b"%016x" % crc64(g.read())
            l = b" ".join(w)
        out.append(l)
    with open(path, "wb") as f:
        f.write(sign(b"".join(l + b"\n" for l in out)))
