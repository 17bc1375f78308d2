#!/usr/bin/env python3
"""Drop the `name` custom section (function names for stack traces) from built wasm files.

Run by the Trunk post_build hook on the staged site, after wasm-bindgen: the section is 18-22 %
of each gzipped binary (docs/BENCHMARKS.md, "A lean first visit") and nothing reads it at run
time. Stripping earlier (`-C strip=symbols`) would also drop `target_features`, which wasm-bindgen
reads to decide on reference types and threads. A file whose Subresource Integrity hash
index.html carries (Trunk's preload of the page's wasm) gets its new hash written there.
Fails on a binary whose exports `wasm-ld` wrapped to run the static constructors on every call
(names ending in `.command_export`): see `inference::run_static_constructors`.

    scripts/wasm-strip-names.py DIR     # every *_bg.wasm in DIR, DIR/mt and DIR/mt/relaxed
"""
import base64
import hashlib
import pathlib
import re
import sys


def leb128(data: bytes, i: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def without_names(data: bytes) -> bytes:
    if data[:4] != b"\0asm":
        raise ValueError("not a wasm module")
    out = bytearray(data[:8])
    i = 8
    while i < len(data):
        start = i
        section = data[i]
        size, body = leb128(data, i + 1)
        i = body + size
        if i > len(data):
            raise ValueError("truncated section")
        if section == 0:
            name_len, name_at = leb128(data, body)
            if data[name_at:name_at + name_len] == b"name":
                wrapped = re.findall(rb"([\w$.]+)\.command_export", data[body:i])
                if wrapped:
                    raise ValueError(
                        f"wasm-ld wrapped {len(wrapped)} exports ({wrapped[0].decode()}, ...) to run every static "
                        "constructor on each call into wasm: the binary must call "
                        "inference::run_static_constructors() first (ARCHITECTURE.md, Entry points)")
                continue
        out += data[start:i]
    return bytes(out)


def main() -> None:
    site = pathlib.Path(sys.argv[1])
    index = site / "index.html"
    html = index.read_text() if index.exists() else None
    saved = 0
    for wasm in sorted(list(site.glob("*_bg.wasm")) + list(site.glob("mt/*_bg.wasm")) + list(site.glob("mt/relaxed/*_bg.wasm"))):
        data = wasm.read_bytes()
        try:
            stripped = without_names(data)
        except ValueError as e:
            sys.exit(f"wasm-strip-names: {wasm}: {e}")
        if len(stripped) == len(data):
            continue
        wasm.write_bytes(stripped)
        saved += len(data) - len(stripped)
        if html is not None:
            digest = base64.b64encode(hashlib.sha384(stripped).digest()).decode()
            pattern = re.compile(r'(href="\./' + re.escape(wasm.name) + r'"[^>]*integrity=")sha384-[^"]*(")')
            html = pattern.sub(lambda m: m.group(1) + "sha384-" + digest + m.group(2), html)
    if html is not None:
        index.write_text(html)
    print(f"wasm-strip-names: {saved:,} bytes of function names dropped")


if __name__ == "__main__":
    main()
