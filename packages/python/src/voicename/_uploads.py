"""File bodies (recordings, CSV files, logos): read into memory before sending, since the API caps
them at a few megabytes and bytes in memory can be sent again when a retry is due.
"""

from __future__ import annotations

import os
from typing import BinaryIO, Union

#: A path (`str` or `pathlib.Path`), bytes, or a binary file object opened by the caller.
FileSource = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, BinaryIO]

_EXTENSIONS = {
    ".wav": "audio/wav",
    ".mp3": "audio/mpeg",
    ".ogg": "audio/ogg",
    ".oga": "audio/ogg",
    ".opus": "audio/ogg",
    ".webm": "audio/webm",
    ".m4a": "audio/mp4",
    ".mp4": "audio/mp4",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".webp": "image/webp",
    ".csv": "text/csv",
}


def read_source(source: FileSource) -> tuple[bytes, str | None]:
    """The bytes of the source, and its file name when it has one (for the content type)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source), None
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        with open(path, "rb") as file:
            return file.read(), path
    data = source.read()
    name = getattr(source, "name", None)
    return bytes(data), name if isinstance(name, str) else None


def sniff_content_type(data: bytes, name: str | None = None) -> str | None:
    """The media type the bytes start with (the formats the API takes), else the name's extension."""
    head = data[:16]
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return "audio/wav"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head[:4] == b"OggS":
        return "audio/ogg"
    if head[:4] == b"\x1a\x45\xdf\xa3":
        return "audio/webm"
    if head[4:8] == b"ftyp":
        return "audio/mp4"
    if head[:3] == b"ID3" or (len(head) > 1 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0):
        return "audio/mpeg"
    if head[:8] == b"\x89PNG\r\n\x1a\n":
        return "image/png"
    if head[:3] == b"\xff\xd8\xff":
        return "image/jpeg"
    if name:
        return _EXTENSIONS.get(os.path.splitext(name)[1].lower())
    return None


def file_body(source: FileSource, given: str | None) -> tuple[bytes, str]:
    """The bytes to send and their content type: the caller's, else sniffed, else octet-stream."""
    data, name = read_source(source)
    return data, given or sniff_content_type(data, name) or "application/octet-stream"
