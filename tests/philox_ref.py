"""Philox-4x32-10 as runtime/include/nrt_philox.h computes it, in Python: the checkers that
replay a simulator's draws (tests/assembly/check_topk_ties.py, tests/e2e/check_redraw.py)
import it from the tests folder."""

M32 = 0xFFFFFFFF


def philox(c, k0, k1):
    """The four 32-bit words of Philox-4x32-10 for counter c (four words) and key (k0, k1)."""
    c = list(c)
    for _ in range(10):
        p0 = 0xD2511F53 * c[0]
        p1 = 0xCD9E8D57 * c[2]
        c = [((p1 >> 32) ^ c[1] ^ k0) & M32, p1 & M32, ((p0 >> 32) ^ c[3] ^ k1) & M32, p0 & M32]
        k0 = (k0 + 0x9E3779B9) & M32
        k1 = (k1 + 0xBB67AE85) & M32
    return c


# the known answer of the reference implementation (Random123) for a zero counter and key
assert philox([0, 0, 0, 0], 0, 0) == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]
