#!/usr/bin/env python3
"""Compares two tensor dumps (llama_dump's format): llama.cpp's and ours (`trace_dump`).

    python3 compare.py llama.bin ours.bin [NAME_PREFIX,...]

For every tensor of ours that llama.cpp also recorded (same eval, same name; llama.cpp's last
record of a name wins, e.g. Qcur after RoPE), prints the largest difference and how many values
differ in their bits. When llama.cpp kept fewer rows (the last layer keeps only output rows),
our last rows are compared. Needs numpy.
"""
import struct
import sys

import numpy as np


def read(path):
    f = open(path, "rb").read()
    o, recs = 0, []
    while o < len(f):
        ev, n = struct.unpack_from("<IH", f, o)
        o += 6
        name = f[o:o + n].decode()
        o += n
        ne = struct.unpack_from("<4q", f, o)
        o += 32
        cnt = ne[0] * ne[1] * ne[2] * ne[3]
        recs.append((ev, name, ne, np.frombuffer(f, dtype="<f4", count=cnt, offset=o)))
        o += 4 * cnt
    return recs


def main():
    ref, ours = read(sys.argv[1]), read(sys.argv[2])
    only = sys.argv[3].split(",") if len(sys.argv) > 3 else None
    last = {(ev, n): a for ev, n, _, a in ref}
    worst = 0
    for ev, n, ne, a in ours:
        if (ev, n) not in last or (only and not any(n.startswith(p) for p in only)):
            continue
        b = last[(ev, n)]
        w = ne[0]
        a = a.reshape(-1, w)[-(b.size // w):]
        b = b.reshape(-1, w)
        d = np.abs(a - b).max()
        neq = int((a.view(np.uint32) != b.view(np.uint32)).sum())
        worst = max(worst, neq)
        print(f"{ev} {n:16s} rows={b.shape[0]:4d} max|diff|={d:.3e} bits differ: {neq}/{b.size}")
    print("identical" if worst == 0 else "DIFFERENT")


if __name__ == "__main__":
    main()
