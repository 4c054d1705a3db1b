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


# A real .debug_frame/.eh_frame is kilobytes to a few megabytes (641 FDEs in the largest rocsparse
# object); a section header claiming more describes a hostile or sparse file, not code.
MAX_FRAME_SECTION = 64 << 20


def frame_sections(source, *, name: str | None = None) -> list[FrameSection]:
    """Parse `.debug_frame` and `.eh_frame` of an ELF file (a path, bytes, or an object with `.data`).

    The ELF layer is `amddbg.codeobj.elf.ElfFile`, the hardened reader: a path is refused unless it is
    a regular file, mapped (never read whole), and every header and section range is checked against
    the file's size with a one-line `FormatError`.
    """
    from amddbg.codeobj.elf import SHT_NOBITS, ElfFile

    if isinstance(source, (str, Path)):
        name = name or str(source)
        elf = ElfFile.from_path(source)
    else:
        data = source if isinstance(source, (bytes, bytearray, memoryview, mmap.mmap)) else source.data
        if not isinstance(source, (bytes, bytearray, memoryview, mmap.mmap)):
            name = name or str(getattr(source, "path", None) or getattr(source, "name", ""))
        elf = ElfFile(data, name or "<memory>")
    try:
        out = []
        for sec in elf.sections:
            if sec.name not in (".debug_frame", ".eh_frame") or not sec.size or sec.type == SHT_NOBITS:
                continue
            if sec.size > MAX_FRAME_SECTION:
                raise FormatError(f"{sec.name} claims {sec.size} bytes (more than the "
                                  f"{MAX_FRAME_SECTION >> 20} MiB any real frame section holds)",
                                  offset=sec.offset)
            view = elf.section_view(sec)  # range-checked against the file size
            del view
            out.append(parse_frame_section(elf.data, file_offset=sec.offset, size=sec.size, address=sec.address,
                                           is_eh=sec.name == ".eh_frame", name=sec.name))
        return out
    except FormatError as exc:
        if name:
            exc.with_file(name)
        raise
