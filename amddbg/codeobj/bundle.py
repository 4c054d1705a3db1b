"""Clang offload bundles: the containers HIP uses to embed device code objects in host binaries.

Format (clang-offload-bundler): magic ``__CLANG_OFFLOAD_BUNDLE__``, u64 entry count, then per entry u64
offset (from the bundle start), u64 size, u64 triple length and the triple (``hipv4-amdgcn-amd-amdhsa--gfx90a``).
A host binary's ``.hip_fatbin`` section may hold many bundles back to back (padded); compressed bundles
(``CCOB``) wrap a whole bundle in zlib (method 0) or zstd (method 1) with a version 1/2/3 header.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from amddbg.errors import FormatError, NotSupported

BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
COMPRESSED_MAGIC = b"CCOB"
FATBIN_SECTIONS = (".hip_fatbin",)  # .hipFatBinSegment holds only the wrapper struct pointing at it


@dataclass(frozen=True, slots=True)
class BundleEntry:
    bundle_index: int  # which bundle of a concatenation
    bundle_offset: int  # offset of that bundle in the container
    entry_id: str  # the triple, e.g. "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"
    offset: int  # offset of the entry's bytes in the container
    size: int
    data: bytes | memoryview
    compressed: bool = False  # then `offset` is within the decompressed bundle at `bundle_offset`

    @property
    def is_device(self) -> bool:
        return "amdgcn" in self.entry_id and self.size > 0

    @property
    def target_id(self) -> str:
        """The entry id without its offload kind (``amdgcn-amd-amdhsa--gfx90a:xnack-``)."""
        kind, _, rest = self.entry_id.partition("-")
        return rest if kind in ("hip", "hipv4", "openmp", "host", "hipv5") else self.entry_id


def _decompress(data: bytes | memoryview, start: int, name: str) -> bytes:
    mv = memoryview(data)
    if len(mv) - start < 8:
        raise FormatError("truncated compressed bundle header", file=name, offset=start)
    version, method = struct.unpack_from("<HH", mv, start + 4)
    if version == 1:
        header = struct.Struct("<IQ")
        total = None
    elif version == 2:
        header = struct.Struct("<IIQ")
    elif version == 3:
        header = struct.Struct("<QQQ")
    else:
        raise FormatError(f"compressed bundle version {version} is not known", file=name, offset=start + 4)
    if len(mv) - start - 8 < header.size:
        raise FormatError("truncated compressed bundle header", file=name, offset=start)
    fields = header.unpack_from(mv, start + 8)
    if version == 1:
        uncompressed, _hash = fields
        payload = mv[start + 8 + header.size :]
    else:
        total, uncompressed, _hash = fields
        if total > len(mv) - start:
            raise FormatError(f"compressed bundle claims {total} bytes, only {len(mv) - start} present",
                              file=name, offset=start)
        payload = mv[start + 8 + header.size : start + total]
    if method == 0:
        try:
            out = zlib.decompress(bytes(payload))
        except zlib.error as exc:
            raise FormatError(f"corrupt zlib data in compressed bundle ({exc})", file=name, offset=start) from None
    elif method == 1:
        try:
            import zstandard
        except ImportError:
            raise NotSupported("zstd-compressed offload bundles (install the 'zstandard' package)",
                               file=name, offset=start) from None
        try:
            out = zstandard.ZstdDecompressor().decompress(bytes(payload), max_output_size=uncompressed)
        except zstandard.ZstdError as exc:
            raise FormatError(f"corrupt zstd data in compressed bundle ({exc})", file=name, offset=start) from None
    else:
        raise FormatError(f"unknown compression method {method} in compressed bundle", file=name, offset=start + 6)
    if len(out) != uncompressed:
        raise FormatError(f"compressed bundle decompressed to {len(out)} bytes, header says {uncompressed}",
                          file=name, offset=start)
    return out


def _parse_one(mv: memoryview, start: int, index: int, name: str) -> tuple[list[BundleEntry], int]:
    pos = start + len(BUNDLE_MAGIC)
    if pos + 8 > len(mv):
        raise FormatError("truncated offload bundle header", file=name, offset=start)
    (count,) = struct.unpack_from("<Q", mv, pos)
    pos += 8
    if count > 10_000:
        raise FormatError(f"offload bundle claims {count} entries", file=name, offset=pos - 8)
    entries = []
    end = pos
    for _ in range(count):
        if pos + 24 > len(mv):
            raise FormatError("truncated offload bundle entry table", file=name, offset=pos)
        off, size, tlen = struct.unpack_from("<QQQ", mv, pos)
        if tlen > 4096 or pos + 24 + tlen > len(mv):
            raise FormatError(f"bad offload bundle triple length {tlen}", file=name, offset=pos + 16)
        triple = bytes(mv[pos + 24 : pos + 24 + tlen]).decode("utf-8", "replace")
        if start + off + size > len(mv):
            raise FormatError(f"bundle entry {triple} ({size} bytes at {off:#x}) extends past the end",
                              file=name, offset=pos)
        entries.append(BundleEntry(index, start, triple, start + off, size, mv[start + off : start + off + size]))
        end = max(end, start + off + size)
        pos += 24 + tlen
    return entries, max(end, pos)


def iter_bundle_entries(data: bytes | memoryview, name: str = "<memory>") -> Iterator[BundleEntry]:
    """Every entry of every bundle in `data` (one bundle, concatenated bundles, or compressed ones)."""
    mv = memoryview(data)
    pos = 0
    index = 0
    while pos < len(mv):
        head = bytes(mv[pos : pos + len(BUNDLE_MAGIC)])
        if head.startswith(COMPRESSED_MAGIC):
            inner = _decompress(mv, pos, name)
            version = struct.unpack_from("<H", mv, pos + 4)[0]
            for e in iter_bundle_entries(inner, f"{name}[compressed bundle at {pos:#x}]"):
                yield BundleEntry(index, pos, e.entry_id, e.offset, e.size, e.data, compressed=True)
            if version == 1:
                return  # v1 has no total size: the compressed bundle runs to the end
            total = struct.unpack_from("<I" if version == 2 else "<Q", mv, pos + 8)[0]
            end = pos + total
        elif head == BUNDLE_MAGIC:
            entries, end = _parse_one(mv, pos, index, name)
            yield from entries
        else:
            if index == 0:
                what = "truncated" if BUNDLE_MAGIC.startswith(head) and head else "bad"
                raise FormatError(f"not a clang offload bundle ({what} magic)", file=name, offset=pos)
            return
        index += 1
        # Bundles in a fat binary are padded to an alignment: find the next magic, if any.
        nxt = _find_next(mv, end)
        if nxt < 0:
            return
        pos = nxt


def _find_next(mv: memoryview, start: int) -> int:
    """Offset of the next bundle after the zero padding that follows `start`, or -1.

    Only zero bytes may separate bundles: a magic found further on, inside other data, is not a bundle.
    """
    pos = start
    chunk = 4096
    while pos < len(mv):
        block = bytes(mv[pos : pos + chunk])
        stripped = block.lstrip(b"\0")
        if stripped:
            pos += len(block) - len(stripped)
            head = bytes(mv[pos : pos + len(BUNDLE_MAGIC)])
            return pos if head == BUNDLE_MAGIC or head.startswith(COMPRESSED_MAGIC) else -1
        pos += len(block)
        chunk = min(chunk * 2, 1 << 20)
    return -1


def is_bundle(data: bytes | memoryview) -> bool:
    head = bytes(memoryview(data)[: len(BUNDLE_MAGIC)])
    return head == BUNDLE_MAGIC or head.startswith(COMPRESSED_MAGIC)
