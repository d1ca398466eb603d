"""Small real media files for tests and benchmarks: a PNG and a PDF with text.

Built here byte by byte (PNG: signature, IHDR, IDAT, IEND; PDF: five objects, an
xref table), so no binary fixture is kept and any size can be made.
"""

from __future__ import annotations

import os
import struct
import zlib


def _chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def png_bytes(side: int = 2, *, noisy: bool = False) -> bytes:
    """A valid RGB PNG ``side`` x ``side``; ``noisy`` fills it with random pixels, so it
    does not compress (a ``side`` of 580 is about 1 MB)."""
    row = (lambda: os.urandom(side * 3)) if noisy else (lambda: b"\xff\x00\x00" * side)
    raw = b"".join(b"\x00" + row() for _ in range(side))
    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(raw, 0 if noisy else 6))
        + _chunk(b"IEND", b"")
    )


def pdf_bytes(text: str = "Invoice 42: total 17 EUR") -> bytes:
    """A one-page PDF whose text layer is ``text`` (ASCII, no parentheses)."""
    stream = f"BT /F1 18 Tf 20 100 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 144] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)
