"""A tiny PNG reader (8-bit greyscale/RGB/RGBA, not interlaced): enough to look at a
screenshot's pixels without an imaging library."""

from __future__ import annotations

import struct
import zlib

import numpy as np
from numba import njit

CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}


def read_png(data: bytes) -> np.ndarray:
    """The pixels of a PNG as an array of shape (height, width, channels), uint8."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, chunks, header = 8, [], b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        if kind == b"IHDR":
            header = data[pos + 8 : pos + 8 + length]
        elif kind == b"IDAT":
            chunks.append(data[pos + 8 : pos + 8 + length])
        pos += 12 + length
    width, height, depth, colour_type, _, _, interlace = struct.unpack(">IIBBBBB", header)
    if depth != 8 or interlace or colour_type not in CHANNELS:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour_type}")
    bpp = CHANNELS[colour_type]
    raw = np.frombuffer(zlib.decompress(b"".join(chunks)), dtype=np.uint8)
    rows = raw.reshape(height, width * bpp + 1)
    return _unfilter(rows, bpp).reshape(height, width, bpp)


# Not cached: a test helper should leave no files behind; compiling takes about a second.
@njit(cache=False)
def _unfilter(rows: np.ndarray, bpp: int) -> np.ndarray:  # pragma: no cover - compiled
    # Each PNG filter predicts a byte from its left, upper and upper-left neighbours, already
    # decoded: a sequential scan.
    height, stride = rows.shape[0], rows.shape[1] - 1
    out = np.zeros((height, stride), dtype=np.uint8)
    for r in range(height):
        f = rows[r, 0]
        for i in range(stride):
            x = np.int32(rows[r, i + 1])
            a = np.int32(out[r, i - bpp]) if i >= bpp else 0
            b = np.int32(out[r - 1, i]) if r > 0 else 0
            c = np.int32(out[r - 1, i - bpp]) if (r > 0 and i >= bpp) else 0
            if f == 1:
                x += a
            elif f == 2:
                x += b
            elif f == 3:
                x += (a + b) // 2
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                x += a if (pa <= pb and pa <= pc) else (b if pb <= pc else c)
            out[r, i] = x & 0xFF
    return out
