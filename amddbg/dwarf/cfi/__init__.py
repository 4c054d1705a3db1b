"""Call frame information for AMDGPU: CIE/FDE parsing (`.debug_frame` v1/v3/v4, `.eh_frame`), AMDGPU CIE
augmentations, `DW_CFA_LLVM_def_aspace_cfa(_sf)`, and row computation. Unwinding lives in
`amddbg.dwarf.unwind`; this package only turns bytes into rules.
"""

from __future__ import annotations

import mmap
from pathlib import Path

from amddbg.dwarf.cfi.parser import (
    CFA_OPS,
    CIE,
    FDE,
    CFAInstruction,
    FrameSection,
    cie_instructions,
    decode_instructions,
    fde_instructions,
    parse_frame_section,
)
from amddbg.dwarf.cfi.rows import CFARule, RegisterRule, Row, compute_rows, initial_state, row_for
from amddbg.errors import FormatError

__all__ = [
    "CFA_OPS", "CFAInstruction", "CFARule", "CIE", "FDE", "FrameSection", "RegisterRule", "Row",
    "cie_instructions", "compute_rows", "decode_instructions", "fde_instructions", "frame_sections",
    "initial_state", "parse_frame_section", "row_for",
]


def frame_sections(source, *, name: str | None = None) -> list[FrameSection]:
    """Parse `.debug_frame` and `.eh_frame` of an ELF file (a path, bytes, or an object with `.data`).

    Uses only the ELF section headers (read here directly so no DWARF library is involved).
    """
    if isinstance(source, (str, Path)):
        name = name or str(source)
        with open(source, "rb") as f:
            data = f.read()
    elif isinstance(source, (bytes, bytearray, memoryview, mmap.mmap)):
        data = source
    else:
        data = source.data
        name = name or str(getattr(source, "path", None) or getattr(source, "name", ""))
    try:
        out = []
        for sec_name, offset, size, address in _elf_sections(data):
            if sec_name in (".debug_frame", ".eh_frame") and size:
                out.append(parse_frame_section(data, file_offset=offset, size=size, address=address,
                                               is_eh=sec_name == ".eh_frame", name=sec_name))
        return out
    except FormatError as exc:
        if name:
            exc.with_file(name)
        raise


def _elf_sections(data) -> list[tuple[str, int, int, int]]:
    import struct

    if bytes(data[:4]) != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise FormatError("not a little-endian ELF64 file", offset=0)
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    if shoff == 0 or shoff + shnum * shentsize > len(data):
        raise FormatError("ELF section header table is out of bounds", offset=0x28)
    headers = []
    for i in range(shnum):
        base = shoff + i * shentsize
        sh_name, _type, _flags, addr, off, size = struct.unpack_from("<IIQQQQ", data, base)
        headers.append((sh_name, addr, off, size))
    _, _, stroff, strsize = headers[shstrndx]
    out = []
    for sh_name, addr, off, size in headers:
        end = bytes(data[stroff + sh_name:stroff + strsize]).find(b"\0")
        sname = bytes(data[stroff + sh_name:stroff + sh_name + max(end, 0)]).decode("ascii", "replace")
        if off + size > len(data) and sname in (".debug_frame", ".eh_frame"):
            raise FormatError(f"{sname} runs past the end of the file", offset=base)
        out.append((sname, off, size, addr))
    return out
