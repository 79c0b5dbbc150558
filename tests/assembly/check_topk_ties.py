"""check_topk_ties.py OUT_DIR -- models/topk_ties.neuro replayed independently: Philox4x32-10
(checked against the Random123 known-answer vector) gives the tie draws, and the winners of
each step are the k first candidates in the order (key desc, draw desc, index asc), where a
candidate has i % 3 != 0 and is not refractory (2 steps after a spike). Every step of the
recording must equal the replay."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from philox_ref import M32, philox  # noqa: E402


def main():
    assert philox([0, 0, 0, 0], 0, 0) == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]
    out = sys.argv[1]
    seed, n, pop_id, refr = 4242, 500, 0, 2
    seedkey = (seed ^ (seed >> 32)) & M32
    stream = (7 << 24) | pop_id
    ks = [7] * 20 + [40] * 10 + [400] * 5
    a = np.load(os.path.join(out, "P.npy"))
    steps = np.rint(a["t"]).astype(int) - 1
    counter = np.zeros(n, dtype=int)
    for s, k in enumerate(ks):
        cand = [i for i in range(n) if i % 3 != 0 and counter[i] == 0]
        key = {i: ((i * 37 + s * 11) % 200) // 25 for i in cand}
        draw = {i: philox([i, 0, s, 0], seedkey, stream)[0] for i in cand}
        order = sorted(cand, key=lambda i: (-key[i], -draw[i], i))
        win = sorted(order[:k])
        got = sorted(a["i"][steps == s].tolist())
        if got != win:
            print("check_topk_ties: FAIL: step %d: %d winners %s..., replay %d %s..." % (s, len(got), got[:8], len(win), win[:8]))
            return 1
        counter = np.where(counter > 0, counter - 1, counter)
        for i in win:
            counter[i] = refr
    print("check_topk_ties: %d steps equal to the replay (k = 7, 40, 400; %d spikes)" % (len(ks), len(a)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
