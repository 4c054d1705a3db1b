"""Section access for DWARF readers: a minimal ELF64 little-endian view over a buffer.

Why our own: the DWARF readers need only section bytes (as zero-copy memoryviews), the section
address ranges and the symbol table. pyelftools builds Python objects per header and per symbol and
copies section data; on 10+ MB code objects nested inside a 1.3 GB fat binary we want an mmap
slice and no copies. ``ElfImage`` works on ``bytes``, ``mmap`` or a ``memoryview`` of an embedded
object (``base`` = offset of the ELF header inside the buffer).
"""

from __future__ import annotations

import mmap
import os
import struct
from collections import namedtuple
from functools import cached_property

from amddbg.errors import FormatError, NotSupported

SHF_ALLOC = 0x2
SHF_EXECINSTR = 0x4
SHF_COMPRESSED = 0x800
SHT_NOBITS = 8
SHT_SYMTAB = 2
SHT_DYNSYM = 11

STT_NOTYPE, STT_OBJECT, STT_FUNC, STT_SECTION, STT_FILE = 0, 1, 2, 3, 4
STT_GNU_IFUNC = 10
STB_LOCAL = 0
SHN_UNDEF = 0
SHN_LORESERVE = 0xFF00
SHN_ABS = 0xFFF1
SHN_COMMON = 0xFFF2


# Plain named tuples (not dataclasses): importing dataclasses costs more than a whole addr2line lookup.
Section = namedtuple("Section", "index name type flags address offset size link entsize")
Section.__doc__ = "One section header; ``offset`` is relative to the ELF header."
ElfSymbol = namedtuple("ElfSymbol", "index name value size type bind shndx")


class ElfImage:
    """Read-only view of one ELF64 LE file inside ``buf`` starting at ``base``."""

    def __init__(self, buf, base: int = 0, size: int | None = None, name: str = "<memory>") -> None:
        self.name = name
        self._buf = memoryview(buf)
        if self._buf.ndim != 1 or self._buf.itemsize != 1:
            self._buf = self._buf.cast("B")
        end = len(self._buf) if size is None else base + size
        self.view = self._buf[base:end]
        v = self.view
        if len(v) < 64 or bytes(v[:4]) != b"\x7fELF":
            raise FormatError("not an ELF file", file=name, offset=base)
        if v[4] != 2 or v[5] != 1:
            raise NotSupported("DWARF reading of non-ELF64-little-endian files", file=name)
        (self.e_type, self.e_machine, _ver, self.e_entry, _phoff, shoff, self.e_flags, _ehsz, _phentsz,
         _phnum, shentsize, shnum, shstrndx) = struct.unpack_from("<HHIQQQIHHHHHH", v, 16)
        self.osabi = v[7]
        self.abiversion = v[8]
        if shoff == 0 or shnum == 0:
            self.sections: list[Section] = []
            return
        if shentsize < 64 or shoff + shnum * shentsize > len(v):
            raise FormatError("section header table runs past the end of the file", file=name, offset=shoff)
        raw = []
        for i in range(shnum):
            raw.append(struct.unpack_from("<IIQQQQIIQQ", v, shoff + i * shentsize))
        strtab = b""
        if shstrndx < shnum:
            s = raw[shstrndx]
            strtab = bytes(v[s[4]:s[4] + s[5]])
        secs = []
        for i, (nm, typ, flags, addr, off, sz, link, _info, _align, entsize) in enumerate(raw):
            end_nm = strtab.find(b"\0", nm)
            sname = strtab[nm:end_nm if end_nm >= 0 else None].decode("utf-8", "replace")
            if typ != SHT_NOBITS and off + sz > len(v):
                raise FormatError(f"section {sname} runs past the end of the file", file=name, offset=off)
            secs.append(Section(i, sname, typ, flags, addr, off, sz, link, entsize))
        self.sections = secs

    @classmethod
    def from_path(cls, path: str | os.PathLike) -> ElfImage:
        """Map ``path`` read-only (never read whole, never written)."""
        path = os.fspath(path)
        try:
            with open(path, "rb") as f:
                size = os.fstat(f.fileno()).st_size
                if size == 0:
                    raise FormatError("empty file", file=path, offset=0)
                mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except OSError as exc:
            raise FormatError(f"cannot open: {exc.strerror}", file=path) from None
        img = cls(mm, name=path)
        img._mmap = mm
        return img

    @cached_property
    def by_name(self) -> dict[str, Section]:
        out: dict[str, Section] = {}
        for s in self.sections:
            out.setdefault(s.name, s)
        return out

    def section(self, name: str) -> Section | None:
        return self.by_name.get(name)

    def data(self, sec: Section | str | None) -> memoryview:
        """Zero-copy bytes of a section (empty for NOBITS / missing)."""
        if isinstance(sec, str):
            sec = self.by_name.get(sec)
        if sec is None or sec.type == SHT_NOBITS:
            return memoryview(b"")
        if sec.flags & SHF_COMPRESSED:
            raise NotSupported(f"compressed section {sec.name}", file=self.name, offset=sec.offset)
        return self.view[sec.offset:sec.offset + sec.size]

    def debug_sections(self) -> dict[str, memoryview]:
        return {s.name: self.data(s) for s in self.sections if s.name.startswith(".debug_")}

    def text_sections(self) -> list[Section]:
        return [s for s in self.sections if s.flags & SHF_EXECINSTR and s.type != SHT_NOBITS]

    @cached_property
    def symbols(self) -> list[ElfSymbol]:
        """Entries of .symtab (or .dynsym when there is no .symtab)."""
        tab = next((s for s in self.sections if s.type == SHT_SYMTAB), None)
        if tab is None:
            tab = next((s for s in self.sections if s.type == SHT_DYNSYM), None)
        if tab is None or tab.size == 0:
            return []
        names = bytes(self.data(self.sections[tab.link])) if tab.link < len(self.sections) else b""
        raw = self.data(tab)
        out = []
        for i in range(tab.size // 24):
            nm, info, _other, shndx, value, size = struct.unpack_from("<IBBHQQ", raw, i * 24)
            e = names.find(b"\0", nm)
            out.append(ElfSymbol(i, names[nm:e if e >= 0 else None].decode("utf-8", "replace"), value, size,
                                 info & 0xF, info >> 4, shndx))
        return out
