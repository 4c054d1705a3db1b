"""CIE/FDE parsing for `.debug_frame` (versions 1, 3, 4) and `.eh_frame`, with AMDGPU's augmentations.

pyelftools cannot be used here: `DW_CFA_LLVM_def_aspace_cfa` (0x30) makes it reject the whole section and
the ``[llvm:v0.0]`` CIE augmentation trips an assertion. AMDGPU `.debug_frame` CIEs carry augmentation
strings "" (LLVM), "[llvm:v0.0]" (older AMD fork) or "[amd:v0.0]" (the manual); none of them has
augmentation data, so any ``[vendor:vX.Y...]`` sequence is accepted and skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from amddbg.dwarf.reader import sleb_within, uleb_within
from amddbg.errors import FormatError

# name, operand kinds.  Kinds: uleb sleb u1 u2 u4 addr block reg (=uleb register)
CFA_OPS: dict[int, tuple[str, tuple[str, ...]]] = {
    0x00: ("DW_CFA_nop", ()),
    0x01: ("DW_CFA_set_loc", ("addr",)),
    0x02: ("DW_CFA_advance_loc1", ("u1",)),
    0x03: ("DW_CFA_advance_loc2", ("u2",)),
    0x04: ("DW_CFA_advance_loc4", ("u4",)),
    0x05: ("DW_CFA_offset_extended", ("reg", "uleb")),
    0x06: ("DW_CFA_restore_extended", ("reg",)),
    0x07: ("DW_CFA_undefined", ("reg",)),
    0x08: ("DW_CFA_same_value", ("reg",)),
    0x09: ("DW_CFA_register", ("reg", "reg")),
    0x0A: ("DW_CFA_remember_state", ()),
    0x0B: ("DW_CFA_restore_state", ()),
    0x0C: ("DW_CFA_def_cfa", ("reg", "uleb")),
    0x0D: ("DW_CFA_def_cfa_register", ("reg",)),
    0x0E: ("DW_CFA_def_cfa_offset", ("uleb",)),
    0x0F: ("DW_CFA_def_cfa_expression", ("block",)),
    0x10: ("DW_CFA_expression", ("reg", "block")),
    0x11: ("DW_CFA_offset_extended_sf", ("reg", "sleb")),
    0x12: ("DW_CFA_def_cfa_sf", ("reg", "sleb")),
    0x13: ("DW_CFA_def_cfa_offset_sf", ("sleb",)),
    0x14: ("DW_CFA_val_offset", ("reg", "uleb")),
    0x15: ("DW_CFA_val_offset_sf", ("reg", "sleb")),
    0x16: ("DW_CFA_val_expression", ("reg", "block")),
    0x2D: ("DW_CFA_GNU_window_save", ()),
    0x2E: ("DW_CFA_GNU_args_size", ("uleb",)),
    0x2F: ("DW_CFA_GNU_negative_offset_extended", ("reg", "uleb")),
    # Heterogeneous extension (A.6.4.2.2 / LLVM Dwarf.def): register, offset, address space.
    0x30: ("DW_CFA_LLVM_def_aspace_cfa", ("reg", "uleb", "uleb")),
    0x31: ("DW_CFA_LLVM_def_aspace_cfa_sf", ("reg", "sleb", "uleb")),
}


def _uleb(data, pos: int, end: int) -> tuple[int, int]:
    return uleb_within(data, pos, end, "call frame information")


def _sleb(data, pos: int, end: int) -> tuple[int, int]:
    return sleb_within(data, pos, end, "call frame information")



@dataclass(frozen=True, slots=True)
class CFAInstruction:
    offset: int  # file offset of the opcode byte
    name: str
    operands: tuple = ()


@dataclass
class CIE:
    offset: int  # section offset
    length: int
    version: int
    augmentation: str
    address_size: int
    segment_size: int
    code_alignment: int
    data_alignment: int
    return_address_register: int
    instructions_start: int  # file offset
    instructions_end: int
    is_eh: bool = False
    dwarf64: bool = False
    fde_pointer_encoding: int = 0  # DW_EH_PE_* ('R' augmentation)
    augmentation_data: bytes = b""

    @property
    def is_amdgpu_augmentation(self) -> bool:
        return self.augmentation in ("", "[llvm:v0.0]", "[amd:v0.0]") or self.augmentation.startswith("[")


@dataclass
class FDE:
    offset: int
    length: int
    cie: CIE
    initial_location: int
    address_range: int
    instructions_start: int
    instructions_end: int
    dwarf64: bool = False

    @property
    def low_pc(self) -> int:
        return self.initial_location

    @property
    def high_pc(self) -> int:
        return self.initial_location + self.address_range

    def __contains__(self, pc: int) -> bool:
        return self.initial_location <= pc < self.high_pc


@dataclass
class FrameSection:
    data: bytes  # the whole file (or section) the offsets refer to
    file_offset: int  # where the section starts in `data`
    size: int
    address: int  # section's load address (for eh_frame pc-relative pointers)
    is_eh: bool
    cies: dict[int, CIE] = field(default_factory=dict)
    fdes: list[FDE] = field(default_factory=list)
    name: str = ".debug_frame"

    def fde_for(self, pc: int) -> FDE | None:
        for fde in self.fdes:
            if pc in fde:
                return fde
        return None




def _read(data, pos: int, n: int, end: int, what: str) -> int:
    if pos + n > end:
        raise FormatError(f"truncated {what} in call frame information", offset=pos)
    return int.from_bytes(data[pos:pos + n], "little")


def _eh_pointer(data, pos: int, end: int, encoding: int, address_size: int, section_base_addr: int,
                section_file_offset: int) -> tuple[int, int]:
    if encoding == 0xFF:  # DW_EH_PE_omit
        return 0, pos
    fmt = encoding & 0x0F
    app = encoding & 0x70
    start = pos
    if fmt == 0x00:
        v, pos = _read(data, pos, address_size, end, "pointer"), pos + address_size
    elif fmt == 0x01:
        v, pos = _uleb(data, pos, end)
    elif fmt in (0x02, 0x0A):
        v, pos = _read(data, pos, 2, end, "pointer"), pos + 2
        if fmt == 0x0A and v >= 1 << 15:
            v -= 1 << 16
    elif fmt in (0x03, 0x0B):
        v, pos = _read(data, pos, 4, end, "pointer"), pos + 4
        if fmt == 0x0B and v >= 1 << 31:
            v -= 1 << 32
    elif fmt in (0x04, 0x0C):
        v, pos = _read(data, pos, 8, end, "pointer"), pos + 8
        if fmt == 0x0C and v >= 1 << 63:
            v -= 1 << 64
    elif fmt == 0x09:
        v, pos = _sleb(data, pos, end)
    else:
        raise FormatError(f"unsupported pointer encoding {encoding:#x} in .eh_frame", offset=start)
    if app == 0x10:  # pcrel
        v += section_base_addr + (start - section_file_offset)
    elif app not in (0x00,):
        raise FormatError(f"unsupported pointer application {encoding:#x} in .eh_frame", offset=start)
    return v & ((1 << 64) - 1), pos


MAX_ZERO_ENTRIES = 4096


def parse_frame_section(data, *, file_offset: int, size: int, address: int = 0, is_eh: bool = False,
                        address_size: int = 8, name: str | None = None) -> FrameSection:
    """Parse every CIE and FDE of a `.debug_frame` or `.eh_frame` section held in `data`.

    Offsets in errors are file offsets. Entries are parsed eagerly (they are small: 641 FDEs in the largest
    rocsparse object) but instructions are decoded only when asked for.
    """
    name = name or (".eh_frame" if is_eh else ".debug_frame")
    sec = FrameSection(data, file_offset, size, address, is_eh, name=name)
    pos, end = file_offset, file_offset + size
    pending: list[tuple[int, int, int, int, int, bool]] = []
    zero_run = 0
    while pos < end:
        entry = pos
        length = _read(data, pos, 4, end, "entry length")
        pos += 4
        dwarf64 = False
        if length == 0xFFFFFFFF:
            length = _read(data, pos, 8, end, "entry length")
            pos += 8
            dwarf64 = True
        if length == 0:
            if is_eh:
                break  # .eh_frame terminator
            zero_run += 1
            if zero_run > MAX_ZERO_ENTRIES:  # padding is a few words; megabytes of zeros are not CFI
                raise FormatError(f"{sec.name} holds more than {MAX_ZERO_ENTRIES} zero-length entries in a row",
                                  offset=entry)
            continue  # a zero-length .debug_frame entry: skip
        zero_run = 0
        body = pos
        entry_end = body + length
        if entry_end > end:
            raise FormatError(f"CFI entry of length {length:#x} runs past the end of {sec.name}",
                              offset=entry)
        idsize = 8 if dwarf64 else 4
        cie_id = _read(data, pos, idsize, entry_end, "CIE id")
        pos += idsize
        is_cie = cie_id == 0 if is_eh else cie_id == ((1 << (8 * idsize)) - 1)
        sec_off = entry - file_offset
        if is_cie:
            sec.cies[sec_off] = _parse_cie(data, sec_off, entry, length, pos, entry_end, is_eh, dwarf64,
                                           address_size)
        else:
            cie_off = (body - cie_id - file_offset) if is_eh else cie_id
            pending.append((entry, length, cie_off, pos, entry_end, dwarf64))
        pos = entry_end
    for entry, length, cie_off, pos, entry_end, dwarf64 in pending:
        cie = sec.cies.get(cie_off)
        if cie is None:
            raise FormatError(f"FDE refers to CIE at {cie_off:#x}, which is not a CIE", offset=entry)
        if is_eh:
            loc, pos = _eh_pointer(data, pos, entry_end, cie.fde_pointer_encoding, cie.address_size,
                                   address, file_offset)
            rng, pos = _eh_pointer(data, pos, entry_end, cie.fde_pointer_encoding & 0x0F, cie.address_size,
                                   address, file_offset)
            if "z" in cie.augmentation:
                n, pos = _uleb(data, pos, entry_end)
                pos += n
        else:
            if cie.segment_size:
                pos += cie.segment_size
            loc = _read(data, pos, cie.address_size, entry_end, "FDE initial location")
            pos += cie.address_size
            rng = _read(data, pos, cie.address_size, entry_end, "FDE address range")
            pos += cie.address_size
        sec.fdes.append(FDE(entry - file_offset, length, cie, loc, rng, pos, entry_end, dwarf64))
    return sec


def _parse_cie(data, sec_off: int, entry: int, length: int, pos: int, end: int, is_eh: bool, dwarf64: bool,
               default_address_size: int) -> CIE:
    version = _read(data, pos, 1, end, "CIE version")
    pos += 1
    if version not in (1, 3, 4):
        raise FormatError(f"CIE version {version} is not 1, 3 or 4", offset=pos - 1)
    aug_end = bytes(data[pos:end]).find(b"\0")
    if aug_end < 0:
        raise FormatError("unterminated CIE augmentation string", offset=pos)
    augmentation = bytes(data[pos:pos + aug_end]).decode("utf-8", "replace")
    pos += aug_end + 1
    address_size, segment_size = default_address_size, 0
    if version == 4:
        address_size = _read(data, pos, 1, end, "CIE address size")
        segment_size = _read(data, pos + 1, 1, end, "CIE segment size")
        pos += 2
    if augmentation.startswith("eh"):
        pos += address_size
    caf, pos = _uleb(data, pos, end)
    daf, pos = _sleb(data, pos, end)
    if version == 1:
        ra = _read(data, pos, 1, end, "CIE return address register")
        pos += 1
    else:
        ra, pos = _uleb(data, pos, end)
    cie = CIE(sec_off, length, version, augmentation, address_size, segment_size, caf, daf, ra, pos, end,
              is_eh, dwarf64)
    if augmentation.startswith("z"):
        n, pos = _uleb(data, pos, end)
        aug_data_end = pos + n
        cie.augmentation_data = bytes(data[pos:aug_data_end])
        p = pos
        for ch in augmentation[1:]:
            if ch == "R":
                cie.fde_pointer_encoding = data[p]
                p += 1
            elif ch == "L":
                p += 1
            elif ch == "P":
                enc = data[p]
                p += 1
                _, p = _eh_pointer(data, p, aug_data_end, enc & 0x7F, address_size, 0, 0)
            elif ch in ("S", "B", "G"):
                pass
            else:
                break
        pos = aug_data_end
        cie.instructions_start = pos
    elif augmentation and not augmentation.startswith("[") and not augmentation.startswith("eh"):
        raise FormatError(f"unknown CIE augmentation {augmentation!r}", offset=sec_off)
    return cie


def decode_instructions(data, start: int, end: int, *, address_size: int = 8) -> list[CFAInstruction]:
    """Decode a run of call frame instructions (CIE initial instructions or an FDE body)."""
    out = []
    pos = start
    while pos < end:
        at = pos
        b = data[pos]
        pos += 1
        high, low = b & 0xC0, b & 0x3F
        if high == 0x40:
            out.append(CFAInstruction(at, "DW_CFA_advance_loc", (low,)))
            continue
        if high == 0x80:
            off, pos = _uleb(data, pos, end)
            out.append(CFAInstruction(at, "DW_CFA_offset", (low, off)))
            continue
        if high == 0xC0:
            out.append(CFAInstruction(at, "DW_CFA_restore", (low,)))
            continue
        if b not in CFA_OPS:
            raise FormatError(f"unknown call frame instruction {b:#04x}", offset=at)
        name, kinds = CFA_OPS[b]
        args = []
        for kind in kinds:
            if kind in ("uleb", "reg"):
                v, pos = _uleb(data, pos, end)
            elif kind == "sleb":
                v, pos = _sleb(data, pos, end)
            elif kind == "block":
                n, pos = _uleb(data, pos, end)
                if pos + n > end:
                    raise FormatError(f"truncated expression block in {name}", offset=pos)
                v = bytes(data[pos:pos + n])
                pos += n
            else:
                n = {"u1": 1, "u2": 2, "u4": 4, "addr": address_size}[kind]
                v = _read(data, pos, n, end, name)
                pos += n
            args.append(v)
        out.append(CFAInstruction(at, name, tuple(args)))
    return out


def cie_instructions(sec: FrameSection, cie: CIE) -> list[CFAInstruction]:
    return decode_instructions(sec.data, cie.instructions_start, cie.instructions_end,
                               address_size=cie.address_size)


def fde_instructions(sec: FrameSection, fde: FDE) -> list[CFAInstruction]:
    return decode_instructions(sec.data, fde.instructions_start, fde.instructions_end,
                               address_size=fde.cie.address_size)

