"""The process image of one or more core files: PT_LOAD segments with holes, read without copying.

A read is satisfied only by bytes a file actually holds. Bytes in a gap between segments, in the
`p_memsz - p_filesz` tail of a segment, or past the end of a truncated file raise `Unavailable`:
a core that did not dump GPU VRAM must show `<unavailable>`, never zeros. When the same range appears
in several files (a kernel host core has `p_filesz == 0` stand-ins for GPU mappings the GPU core
holds), the segment with data wins, as in ROCgdb's coremerge.
"""

from __future__ import annotations

import bisect
import struct
from dataclasses import dataclass

from amddbg.core.elffile import PT_LOAD, ElfCore
from amddbg.errors import Unavailable

GLOBAL = "global"


@dataclass(frozen=True)
class Segment:
    vaddr: int
    memsz: int
    filesz: int  # bytes present in the file (already clipped to the file size)
    offset: int
    core: ElfCore
    flags: int
    truncated: bool = False

    @property
    def end(self) -> int:
        return self.vaddr + self.memsz


class SegmentMap:
    """Sorted, non-overlapping view of the PT_LOAD segments of several core files."""

    def __init__(self, cores: list[ElfCore], primary: ElfCore | None = None) -> None:
        segs: list[Segment] = []
        for core in cores:
            for ph in core.phdrs:
                if ph.p_type != PT_LOAD or ph.p_memsz == 0:
                    continue
                avail = max(0, min(ph.p_filesz, core.file_size - ph.p_offset))
                truncated = avail < ph.p_filesz
                if truncated:
                    core.warnings.append(
                        f"segment {ph.index} at {ph.p_vaddr:#x} truncated: {avail} of {ph.p_filesz} bytes in the file"
                    )
                segs.append(
                    Segment(
                        ph.p_vaddr,
                        ph.p_memsz,
                        min(avail, ph.p_memsz),
                        ph.p_offset,
                        core,
                        ph.p_flags,
                        truncated,
                    )
                )
        # Segments holding data first so they win over empty stand-ins covering the same range; at one
        # address the primary file's (the GPU core, which holds the KFD note) first.
        def first(s: Segment) -> bool:
            return s.core is primary and s.filesz > 0

        segs.sort(key=lambda s: (s.vaddr, not first(s), -s.filesz))
        kept: list[Segment] = []
        for s in segs:
            if kept and s.vaddr < kept[-1].end:
                prev = kept[-1]
                if first(s) and not first(prev):
                    # The GPU core's bytes win over another file's (a host core of another process must not
                    # replace the GPU core's link map): `prev` keeps only what lies before `s`.
                    cut = s.vaddr - prev.vaddr
                    if cut:
                        kept[-1] = Segment(prev.vaddr, cut, min(prev.filesz, cut), prev.offset, prev.core,
                                           prev.flags, prev.truncated)
                    else:
                        kept.pop()
                    kept.append(s)
                    continue
                if s.vaddr == prev.vaddr and s.filesz > prev.filesz and not first(prev):
                    kept[-1] = s
                # otherwise the earlier (data-holding) segment keeps the overlapped range
                continue
            kept.append(s)
        self.segments = kept
        self._starts = [s.vaddr for s in kept]

    def find(self, address: int) -> Segment | None:
        i = bisect.bisect_right(self._starts, address) - 1
        if i >= 0 and address < self.segments[i].end:
            return self.segments[i]
        return None

    def read(self, address: int, size: int, space: str = GLOBAL) -> bytes:
        """Exactly `size` bytes at `address`, possibly spanning adjacent segments, or Unavailable."""
        if size < 0 or address < 0:
            raise Unavailable(space, address, size, "negative address or size")
        if size == 0:
            return b""
        out = []
        addr = address
        remaining = size
        while remaining:
            seg = self.find(addr)
            if seg is None:
                raise Unavailable(space, address, size, f"{addr:#x} is not in any segment of the core")
            rel = addr - seg.vaddr
            n = min(remaining, seg.end - addr)
            if rel + n > seg.filesz:
                why = (
                    "the core file is truncated"
                    if seg.truncated
                    else "the segment holds no data for it (p_filesz < p_memsz)"
                )
                raise Unavailable(space, address, size, why)
            start = seg.offset + rel
            out.append(seg.core.data[start : start + n])
            addr += n
            remaining -= n
        return out[0] if len(out) == 1 else b"".join(out)

    def u32(self, address: int) -> int:
        return struct.unpack("<I", self.read(address, 4))[0]

    def u64(self, address: int) -> int:
        return struct.unpack("<Q", self.read(address, 8))[0]

    def cstring(self, address: int, limit: int = 4096) -> str:
        """NUL-terminated string at `address` (read in chunks so a string near a hole still works)."""
        chunks = []
        addr = address
        while limit > 0:
            seg = self.find(addr)
            if seg is None or addr - seg.vaddr >= seg.filesz:
                raise Unavailable(GLOBAL, address, 1, "string not in the core")
            n = min(256, limit, seg.vaddr + seg.filesz - addr)
            chunk = self.read(addr, n)
            i = chunk.find(b"\0")
            if i >= 0:
                chunks.append(chunk[:i])
                return b"".join(chunks).decode("utf-8", "replace")
            chunks.append(chunk)
            addr += n
            limit -= n
        raise Unavailable(GLOBAL, address, 4096, "string has no terminating NUL")
