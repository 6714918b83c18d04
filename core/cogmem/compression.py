"""The derived index's files compressed with Zstandard: design §7.

The records and BM25 files of a namespace are written whole at every save and read whole at
every open; at a million memories they held ~330 MB, most of it texts, ids and columns that
hold one value in most rows. Zstandard at level 1 shrinks them about fourfold in less time
than writing the difference takes, and reads back faster than the disk gives the bytes.

Each file is checked by its reader (a CRC of the compressed bytes) before it is
decompressed; what does not decompress is damaged, and the reader rebuilds.
"""

from __future__ import annotations

import zstandard

__all__ = ["CompressionError", "compress", "decompress"]

_LEVEL = 1


class CompressionError(ValueError):
    """The bytes are not one complete Zstandard frame of at most the size allowed."""


def compress(data: bytes | memoryview) -> bytes:
    """``data`` as one Zstandard frame (level 1; its size and a checksum of ``data`` written
    in the frame, so that damage is found even without the reader's own check)."""
    return zstandard.ZstdCompressor(level=_LEVEL, write_checksum=True).compress(data)


def decompress(frame: bytes | memoryview) -> bytes:
    """What :func:`compress` wrote.

    Raises:
        CompressionError: ``frame`` is not one complete frame that states its size.
    """
    try:
        size = zstandard.frame_content_size(frame)
        if size < 0:  # unknown or damaged header
            raise CompressionError("the frame does not state its size")
        return zstandard.ZstdDecompressor().decompress(frame, max_output_size=size)
    except zstandard.ZstdError as exc:
        raise CompressionError(str(exc)) from exc
