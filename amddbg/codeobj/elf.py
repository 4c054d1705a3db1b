"""A small, strict ELF64 little-endian reader over bytes or an mmap.

Why our own and not only pyelftools: every malformed field must become a one-line `FormatError` with
the file offset it concerns (pyelftools raises a dozen exception types, often without offsets), and
headers, symbols and notes must be readable from a 1 GB host library without reading it whole.
pyelftools is still offered (`ElfFile.pyelftools()`) for the DWARF layer.
"""

from __future__ import annotations

import mmap
import os
import struct
import sys
from collections import namedtuple
from collections.abc import Iterator
from functools import cached_property

from amddbg.errors import FormatError
from amddbg.textsafe import open_regular

ELF_MAGIC = b"\x7fELF"

EM_X86_64 = 62
EM_AMDGPU = 224

ET_NONE, ET_REL, ET_EXEC, ET_DYN, ET_CORE = 0, 1, 2, 3, 4
ET_NAMES = {ET_NONE: "NONE", ET_REL: "REL", ET_EXEC: "EXEC", ET_DYN: "DYN", ET_CORE: "CORE"}

SHT_NULL, SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_RELA = 0, 1, 2, 3, 4
SHT_NOTE, SHT_NOBITS, SHT_DYNSYM = 7, 8, 11
SHF_ALLOC, SHF_EXECINSTR = 0x2, 0x4

PT_LOAD, PT_NOTE = 1, 4

SHN_UNDEF = 0
SHN_ABS = 0xFFF1
SHN_COMMON = 0xFFF2
SHN_AMDGPU_LDS = 0xFF00

STT_NOTYPE, STT_OBJECT, STT_FUNC, STT_SECTION, STT_FILE = 0, 1, 2, 3, 4
STB_LOCAL, STB_GLOBAL, STB_WEAK = 0, 1, 2

_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
_SHDR = struct.Struct("<IIQQQQIIQQ")
_PHDR = struct.Struct("<IIQQQQQQ")
_SYM = struct.Struct("<IBBHQQ")
_NHDR = struct.Struct("<III")


# Records are named tuples, not dataclasses: importing `dataclasses` (it pulls in `inspect`, `ast`,
# `dis`, `tokenize`) costs ~10 ms of CPU, a third of a whole `amddbg addr2line` run on a small object,
# and `check_debug_sections` puts this module on that path. Immutable, hashable, keyword-constructible
# and printed as ``Section(index=..., ...)`` as the frozen dataclasses were.
class Section(namedtuple("Section", "index name type flags address offset size link info align entsize")):
    __slots__ = ()

    @property
    def is_executable(self) -> bool:
        return bool(self.flags & SHF_EXECINSTR) and self.type == SHT_PROGBITS


class Segment(namedtuple("Segment", "type flags offset vaddr paddr filesz memsz align")):
    __slots__ = ()


class ElfSymbol(namedtuple("ElfSymbol", "name value size type bind visibility shndx table")):
    """``table`` is ".symtab" or ".dynsym"."""

    __slots__ = ()


class Note(namedtuple("Note", "owner type desc offset")):
    """``offset``: file offset of the note header."""

    __slots__ = ()


def _cstr(data: bytes, offset: int, limit: int) -> str:
    end = data.find(b"\0", offset, limit)
    if end < 0:
        end = limit
    return data[offset:end].decode("utf-8", "replace")


class ElfFile:
    """An ELF64 LE file. Parsing is lazy: headers at construction, tables on first use."""

    def __init__(self, data: bytes | bytearray | memoryview | mmap.mmap, name: str = "<memory>") -> None:
        self.data = data
        self.name = name
        size = len(data)
        if size < 4 or bytes(data[:4]) != ELF_MAGIC:
            raise FormatError("not an ELF file (bad magic)", file=name, offset=0)
        if size < 16:
            raise FormatError("truncated ELF identification", file=name, offset=size)
        ident = bytes(data[:16])
        if ident[4] != 2:
            raise FormatError(f"ELF class {ident[4]} is not ELF64 (AMDGPU code objects are ELF64)",
                              file=name, offset=4)
        if ident[5] != 1:
            raise FormatError("big-endian ELF is not supported", file=name, offset=5)
        if size < _EHDR.size:
            raise FormatError("truncated ELF header", file=name, offset=size)
        (self.ident, self.type, self.machine, self.version, self.entry, self.phoff, self.shoff, self.flags,
         self.ehsize, self.phentsize, self.phnum, self.shentsize, self.shnum, self.shstrndx) = _EHDR.unpack_from(
            data, 0)
        self.os_abi = ident[7]
        self.abi_version = ident[8]

    # -- construction ---------------------------------------------------------------------------

    @classmethod
    def from_path(cls, path: str | os.PathLike) -> ElfFile:
        name = os.fspath(path)
        try:
            with open_regular(name) as f:
                size = os.fstat(f.fileno()).st_size
                if size == 0:
                    raise FormatError("empty file", file=name, offset=0)
                data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except FormatError:
            raise
        except OSError as exc:
            raise FormatError(f"cannot read: {exc.strerror or exc}", file=name) from None
        return cls(data, name)

    # -- helpers --------------------------------------------------------------------------------

    def _check_range(self, offset: int, size: int, what: str) -> None:
        if offset < 0 or size < 0 or offset + size > len(self.data):
            raise FormatError(f"{what} extends past end of file ({size} bytes)", file=self.name, offset=offset)

    def bytes_at(self, offset: int, size: int, what: str = "data") -> bytes:
        self._check_range(offset, size, what)
        return bytes(self.data[offset : offset + size])

    # -- tables ---------------------------------------------------------------------------------

    @cached_property
    def sections(self) -> list[Section]:
        if self.shoff == 0 or self.shnum == 0:
            return []
        if self.shentsize != _SHDR.size:
            raise FormatError(f"section header size {self.shentsize} is not {_SHDR.size}", file=self.name,
                              offset=0x3A)
        self._check_range(self.shoff, self.shnum * _SHDR.size, "section header table")
        raw = [_SHDR.unpack_from(self.data, self.shoff + i * _SHDR.size) for i in range(self.shnum)]
        names = b""
        if 0 < self.shstrndx < len(raw):
            s = raw[self.shstrndx]
            names = self.bytes_at(s[4], s[5], "section name table")
        out = []
        for i, (nm, typ, flags, addr, off, size, link, info, align, entsize) in enumerate(raw):
            name = _cstr(names, nm, len(names)) if nm < len(names) else ""
            out.append(Section(i, name, typ, flags, addr, off, size, link, info, align, entsize))
        return out

    def section_by_name(self, name: str) -> Section | None:
        return next((s for s in self.sections if s.name == name), None)

    def section_data(self, section: Section) -> bytes:
        if section.type == SHT_NOBITS:
            return b""
        return self.bytes_at(section.offset, section.size, f"section {section.name or section.index}")

    def section_view(self, section: Section) -> memoryview:
        """Zero-copy view of a section's bytes (for large sections in mapped files)."""
        if section.type == SHT_NOBITS:
            return memoryview(b"")
        self._check_range(section.offset, section.size, f"section {section.name or section.index}")
        return memoryview(self.data)[section.offset : section.offset + section.size]

    @cached_property
    def segments(self) -> list[Segment]:
        if self.phoff == 0 or self.phnum == 0:
            return []
        if self.phentsize != _PHDR.size:
            raise FormatError(f"program header size {self.phentsize} is not {_PHDR.size}", file=self.name,
                              offset=0x36)
        self._check_range(self.phoff, self.phnum * _PHDR.size, "program header table")
        return [Segment(*_PHDR.unpack_from(self.data, self.phoff + i * _PHDR.size)) for i in range(self.phnum)]

    @cached_property
    def symbols(self) -> list[ElfSymbol]:
        """Symbols of .symtab, or of .dynsym when the file is stripped."""
        tables = [s for s in self.sections if s.type == SHT_SYMTAB] or [
            s for s in self.sections if s.type == SHT_DYNSYM
        ]
        out: list[ElfSymbol] = []
        for table in tables:
            if table.entsize not in (0, _SYM.size):
                raise FormatError(f"symbol size {table.entsize} in {table.name}", file=self.name,
                                  offset=table.offset)
            self._check_range(table.offset, table.size, f"symbol table {table.name}")
            if not 0 <= table.link < len(self.sections):
                raise FormatError(f"symbol table {table.name} links to missing string table {table.link}",
                                  file=self.name, offset=table.offset)
            strtab = self.sections[table.link]
            strings = self.bytes_at(strtab.offset, strtab.size, f"string table {strtab.name}")
            for i in range(1, table.size // _SYM.size):
                nm, info, other, shndx, value, size = _SYM.unpack_from(self.data, table.offset + i * _SYM.size)
                if nm >= strtab.size:
                    raise FormatError(f"symbol {i} name offset {nm:#x} outside {strtab.name}", file=self.name,
                                      offset=table.offset + i * _SYM.size)
                name = _cstr(strings, nm, len(strings))
                out.append(ElfSymbol(name, value, size, info & 0xF, info >> 4, other & 3, shndx, table.name))
        return out

    def notes(self) -> Iterator[Note]:
        """Notes of every SHT_NOTE section, or of PT_NOTE segments when there are no sections."""
        try:
            regions = [(s.offset, s.size) for s in self.sections if s.type == SHT_NOTE]
        except FormatError:
            regions = []  # a damaged section table: the program headers still locate the notes
        if not regions:
            regions = [(p.offset, p.filesz) for p in self.segments if p.type == PT_NOTE]
        for start, size in regions:
            yield from iter_notes(self.data, start, size, self.name)

    def pyelftools(self):
        """A pyelftools `ELFFile` over the same bytes (for DWARF parsing)."""
        import io

        from elftools.elf.elffile import ELFFile

        stream = self.data if isinstance(self.data, mmap.mmap) else io.BytesIO(bytes(self.data))
        return ELFFile(stream)


def iter_notes(data, start: int, size: int, name: str, align: int = 4) -> Iterator[Note]:
    """Walk ELF note records in data[start:start+size] (4-byte aligned name and desc)."""
    end = start + size
    if end > len(data):
        raise FormatError("note region extends past end of file", file=name, offset=start)
    pos = start
    while pos + _NHDR.size <= end:
        namesz, descsz, ntype = _NHDR.unpack_from(data, pos)
        name_off = pos + _NHDR.size
        desc_off = name_off + ((namesz + align - 1) & ~(align - 1))
        next_pos = desc_off + ((descsz + align - 1) & ~(align - 1))
        if desc_off + descsz > end:
            raise FormatError(f"note (type {ntype}) extends past its section", file=name, offset=pos)
        owner = bytes(data[name_off : name_off + namesz]).rstrip(b"\0").decode("utf-8", "replace")
        yield Note(owner, ntype, bytes(data[desc_off : desc_off + descsz]), pos)
        pos = next_pos


# DWARF sections of the largest real code objects are a few hundred MB (rocsparse gfx90a .debug_info:
# 180 MB). A larger claim, or a section lying wholly in a hole of a sparse file, is not debug
# information: refusing it up front keeps a DWARF reader from touching gigabytes of zeros.
MAX_DEBUG_SECTION = 1 << 30


def check_debug_sections(path: str | os.PathLike, prefixes: tuple[str, ...] = (".debug_", ".eh_frame")) -> None:
    """FormatError if a debug section of the ELF file at `path` is out of bounds, larger than
    `MAX_DEBUG_SECTION`, or has no data on disk (a hole of a sparse file)."""
    name = os.fspath(path)
    elf = ElfFile.from_path(name)
    fd = os.open(name, os.O_RDONLY)
    try:
        for sec in elf.sections:
            if sec.type == SHT_NOBITS or not sec.size or not sec.name.startswith(prefixes):
                continue
            elf._check_range(sec.offset, sec.size, f"section {sec.name}")
            if sec.size > MAX_DEBUG_SECTION:
                raise FormatError(f"section {sec.name} claims {sec.size} bytes (more than the "
                                  f"{MAX_DEBUG_SECTION >> 20} MiB any real debug section holds)",
                                  file=name, offset=sec.offset)
            try:
                data_at = os.lseek(fd, sec.offset, os.SEEK_DATA)
            except OSError:  # ENXIO: no data after the offset; or SEEK_DATA unsupported (EINVAL)
                import errno

                data_at = None if sys.exc_info()[1].errno == errno.ENXIO else sec.offset
            if data_at is None or data_at >= sec.offset + sec.size:
                raise FormatError(f"section {sec.name} lies in a hole of a sparse file (no data on disk)",
                                  file=name, offset=sec.offset)
    finally:
        os.close(fd)
