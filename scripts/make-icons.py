#!/usr/bin/env python3
"""Draw Pathshala's app icons (an open book on the theme colour) as PNGs, with no libraries.

    python3 scripts/make-icons.py        # writes static/icons/{icon-192,icon-512,maskable-512}.png

"any" icons have rounded corners on transparency; the maskable one fills the square and keeps
the book inside the central 60% (the safe zone is the central 80% circle).
"""
import os, struct, zlib

THEME = (20, 83, 45)       # #14532d
PAGE = (253, 252, 247)     # #fdfcf7
INK = (134, 174, 148)

def book(x, y):
    """Colour of the book at (x, y) in [0, 1]², or None outside it."""
    cx = 0.5
    dx = abs(x - cx)
    if dx > 0.42 or dx < 0.015:
        return None
    top = 0.26 + 0.07 * (1 - dx / 0.42)   # pages dip toward the spine
    bottom = 0.74 + 0.04 * (1 - dx / 0.42)
    if not (top <= y <= bottom):
        return None
    # Lines of text on each page.
    if 0.07 < dx < 0.36:
        rel = (y - top) / (bottom - top)
        for i in range(5):
            c = 0.2 + i * 0.15
            if abs(rel - c) < 0.025:
                return INK
    return PAGE

def pixel(x, y, maskable):
    if maskable:
        inner = 0.6
        bx, by = (x - 0.5) / inner + 0.5, (y - 0.5) / inner + 0.5
        if 0 <= bx <= 1 and 0 <= by <= 1:
            c = book(bx, by)
            if c:
                return c + (255,)
        return THEME + (255,)
    r = 0.18  # corner radius
    qx, qy = min(x, 1 - x), min(y, 1 - y)
    if qx < r and qy < r and (r - qx) ** 2 + (r - qy) ** 2 > r * r:
        return (0, 0, 0, 0)
    inner = 0.82
    bx, by = (x - 0.5) / inner + 0.5, (y - 0.5) / inner + 0.5
    c = book(bx, by) if 0 <= bx <= 1 and 0 <= by <= 1 else None
    return (c or THEME) + (255,)

def render(size, maskable, ss=3):
    rows = []
    for j in range(size):
        row = bytearray([0])  # filter: none
        for i in range(size):
            acc = [0, 0, 0, 0]
            for sj in range(ss):
                for si in range(ss):
                    p = pixel((i + (si + 0.5) / ss) / size, (j + (sj + 0.5) / ss) / size, maskable)
                    a = p[3]
                    for k in range(3):
                        acc[k] += p[k] * a
                    acc[3] += a
            n = ss * ss
            a = acc[3] / n
            rgb = [round(acc[k] / acc[3]) if acc[3] else 0 for k in range(3)]
            row += bytes(rgb + [round(a)])
        rows.append(bytes(row))
    return b"".join(rows)

def png(size, raw):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    ihdr = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")

if __name__ == "__main__":
    out = os.path.join(os.path.dirname(__file__), "..", "static", "icons")
    os.makedirs(out, exist_ok=True)
    for name, size, maskable in [("icon-192.png", 192, False), ("icon-512.png", 512, False), ("maskable-512.png", 512, True)]:
        with open(os.path.join(out, name), "wb") as f:
            f.write(png(size, render(size, maskable)))
        print(f"static/icons/{name}")
