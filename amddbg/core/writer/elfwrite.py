"""Write ELF64 core files: header, program headers, notes, PT_LOAD data; sparse where asked.

Two styles: `rocr` (the split GPU core as ROCr writes it: EM_AMDGPU, EI_OSABI 0x40, e_flags 0, log2
`p_align` (LOAD 4, NOTE 2), `p_flags` built from SHF_* bits, offsets aligned to 16) and `linux` (a
kernel-style x86-64 host or unified core: page-aligned LOAD offsets, PF_* flags).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from amddbg.core.elffile import EM_AMDGPU, EM_X86_64, ET_CORE, PT_LOAD, PT_NOTE

BLOCK = 4096
SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR = 1, 2, 4
PF_X, PF_W, PF_R = 1, 2, 4


@dataclass
class OutSegment:
    vaddr: int
    data: bytes | None  # None: a hole (sparse range of zeros when filesz > 0)
    memsz: int
    filesz: int
    flags: int
    src: tuple[str, int] | None = None  # copy `filesz` bytes from (path, offset), sparsely


def copy_sparse(src_path: str, src_off: int, dst, dst_off: int, size: int) -> None:
    """Copy a file range skipping holes (SEEK_DATA/SEEK_HOLE) and all-zero 4 KiB blocks."""
    import os

    zero = bytes(BLOCK)
    fd = os.open(src_path, os.O_RDONLY)
    try:
        pos, end = src_off, src_off + size
        while pos < end:
            try:
                data_start = os.lseek(fd, pos, os.SEEK_DATA)
            except OSError:  # no more data after pos
                break
            if data_start >= end:
                break
            hole = min(os.lseek(fd, data_start, os.SEEK_HOLE), end)
            cur = data_start
            while cur < hole:
                chunk = os.pread(fd, min(1 << 20, hole - cur), cur)
                if not chunk:
                    break
                for i in range(0, len(chunk), BLOCK):
                    blk = chunk[i : i + BLOCK]
                    if blk != zero[: len(blk)]:
                        dst.seek(dst_off + cur + i - src_off)
                        dst.write(blk)
                cur += len(chunk)
            pos = hole
    finally:
        os.close(fd)


def note_bytes(name: str, ntype: int, desc: bytes) -> bytes:
    nb = name.encode() + b"\0"
    out = struct.pack("<III", len(nb), len(desc), ntype) + nb + bytes(-len(nb) % 4) + desc
    return out + bytes(-len(out) % 4)


def write_core(
    path: str,
    *,
    style: str,
    notes: list[tuple[str, int, bytes]],
    segments: list[OutSegment],
    abiversion: int = 0,
) -> int:
    """Write the file; return its size. Hole segments are left unwritten (sparse)."""
    rocr = style == "rocr"
    note_blob = b"".join(note_bytes(*n) for n in notes)
    phnum = 1 + len(segments)
    off = 64 + 56 * phnum
    note_off = (off + 3) & ~3
    pos = note_off + len(note_blob)
    align = 16 if rocr else 4096
    placed = []
    for s in segments:
        pos = (pos + align - 1) & ~(align - 1) if s.filesz else pos
        placed.append(pos)
        pos += s.filesz
    total = pos
    ident = b"\x7fELF" + bytes([2, 1, 1, 0x40 if rocr else 0, abiversion if rocr else 0]) + bytes(7)
    ehdr = struct.pack(
        "<16sHHIQQQIHHHHHH",
        ident,
        ET_CORE,
        EM_AMDGPU if rocr else EM_X86_64,
        1,
        0,
        64,
        0,
        0,
        64,
        56,
        phnum,
        0,
        0,
        0,
    )
    phdrs = [
        struct.pack("<IIQQQQQQ", PT_NOTE, 0 if rocr else PF_R, note_off, 0, 0, len(note_blob), 0, 2 if rocr else 4)
    ]
    for s, o in zip(segments, placed, strict=True):
        phdrs.append(
            struct.pack(
                "<IIQQQQQQ",
                PT_LOAD,
                s.flags,
                o if s.filesz else 0,
                s.vaddr,
                0,
                s.filesz,
                s.memsz,
                4 if rocr else 4096,
            )
        )
    with open(path, "wb") as f:
        f.write(ehdr)
        f.write(b"".join(phdrs))
        f.seek(note_off)
        f.write(note_blob)
        for s, o in zip(segments, placed, strict=True):
            if s.src is not None:
                copy_sparse(s.src[0], s.src[1], f, o, s.filesz)
            elif s.data:
                f.seek(o)
                f.write(s.data[: s.filesz])
        f.truncate(total)
    return total


def load_flags(style: str, write: bool = True, execute: bool = False) -> int:
    if style == "rocr":
        return SHF_ALLOC | (SHF_WRITE if write else 0) | (SHF_EXECINSTR if execute else 0)
    return PF_R | (PF_W if write else 0) | (PF_X if execute else 0)
