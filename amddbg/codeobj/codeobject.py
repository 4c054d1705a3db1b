"""`CodeObject`: one AMDGPU ELF code object (ET_DYN as loaded by the runtime, or ET_REL from the compiler).

Everything is lazy: the header is decoded at construction; notes, symbols, kernel descriptors and
the pyelftools view for DWARF are decoded on first use, so opening thousands of code objects (one per
core) costs little.
"""

from __future__ import annotations

import bisect
import os
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from amddbg.codeobj import elf as E
from amddbg.codeobj.descriptor import KERNEL_DESCRIPTOR_SIZE, KernelDescriptor, decode_kernel_descriptor
from amddbg.codeobj.notes import (
    NT_AMDGPU_METADATA,
    KernelMetadata,
    decode_isa_version,
    decode_msgpack_metadata,
    kernels_from_metadata,
    note_type_name,
    strip_dots,
)
from amddbg.codeobj.processors import Processor, by_gfx_version
from amddbg.codeobj.target import Target, decode_target
from amddbg.errors import FormatError


@dataclass(frozen=True, slots=True)
class CodeSection:
    name: str
    address: int
    offset: int
    size: int
    data: bytes | memoryview


@dataclass(frozen=True, slots=True)
class Symbol:
    name: str
    address: int
    size: int
    kind: str  # "kernel", "function", "kernel_descriptor", "lds", "resource", "object", "undefined", "other"
    binding: str  # "local", "global", "weak"
    section: str | None


class Kernel:
    """A kernel: its metadata record, entry symbol and descriptor (any may be missing).

    The descriptor is decoded on first use: a code object can hold thousands of kernels.
    """

    __slots__ = ("name", "metadata", "entry", "descriptor_symbol", "_decode", "_descriptor")

    def __init__(self, name: str, metadata: KernelMetadata | None, entry: Symbol | None,
                 descriptor_symbol: Symbol | None, decode=None) -> None:
        self.name = name
        self.metadata = metadata
        self.entry = entry
        self.descriptor_symbol = descriptor_symbol
        self._decode = decode
        self._descriptor: KernelDescriptor | None = None

    @property
    def descriptor(self) -> KernelDescriptor | None:
        if self._descriptor is None and self.descriptor_symbol is not None and self._decode is not None:
            self._descriptor = self._decode(self.descriptor_symbol)
        return self._descriptor

    @property
    def entry_address(self) -> int | None:
        if self.entry is not None:
            return self.entry.address
        d = self.descriptor
        return d.entry_address if d else None

    def __repr__(self) -> str:
        return f"Kernel({self.name!r})"


_BIND = {E.STB_LOCAL: "local", E.STB_GLOBAL: "global", E.STB_WEAK: "weak"}


class CodeObject:
    def __init__(self, reader: E.ElfFile, *, path: str | None = None) -> None:
        self.reader = reader
        self.name = reader.name
        self.path = path
        if reader.machine != E.EM_AMDGPU:
            raise FormatError(f"ELF machine {reader.machine} is not EM_AMDGPU ({E.EM_AMDGPU})", file=self.name,
                              offset=0x12)
        if reader.type == E.ET_CORE:
            raise FormatError("this is a core file, not a code object", file=self.name, offset=0x10)

    # -- construction ---------------------------------------------------------------------------

    @classmethod
    def from_path(cls, path: str | os.PathLike) -> CodeObject:
        return cls(E.ElfFile.from_path(path), path=os.fspath(path))

    @classmethod
    def from_bytes(cls, data: bytes | memoryview, name: str = "<memory>") -> CodeObject:
        return cls(E.ElfFile(data, name))

    # -- raw access -------------------------------------------------------------------------------

    @property
    def data(self):
        return self.reader.data

    @cached_property
    def elf(self):
        """pyelftools view of the same bytes (DWARF parsing builds on it)."""
        return self.reader.pyelftools()

    @property
    def elf_type(self) -> str:
        return E.ET_NAMES.get(self.reader.type, str(self.reader.type))

    # -- target ---------------------------------------------------------------------------------

    @cached_property
    def _v2_processor(self) -> Processor | None:
        for note in self._notes:
            if note.owner == "AMD" and note.type == 3:
                isa = decode_isa_version(note.desc, file=self.name, offset=note.offset)
                return by_gfx_version(isa.major, isa.minor, isa.stepping)
        return None

    @cached_property
    def target(self) -> Target:
        r = self.reader
        v2 = self._v2_processor if (r.os_abi == 64 and r.abi_version == 0) else None
        return decode_target(r.os_abi, r.abi_version, r.flags, v2_processor=v2)

    @property
    def processor(self) -> str:
        return self.target.processor_name

    @property
    def target_id(self) -> str:
        return self.target.target_id

    @property
    def code_object_version(self) -> int | None:
        return self.target.code_object_version

    # -- notes and metadata -----------------------------------------------------------------------

    @cached_property
    def _notes(self) -> list[E.Note]:
        return list(self.reader.notes())

    @cached_property
    def metadata(self) -> dict[str, Any] | None:
        """The decoded NT_AMDGPU_METADATA map (keys as in the note), or None (code object V2)."""
        for note in self._notes:
            if note.owner == "AMDGPU" and note.type == NT_AMDGPU_METADATA:
                return decode_msgpack_metadata(note.desc, file=self.name, offset=note.offset)
        return None

    def note_summary(self) -> list[dict[str, Any]]:
        return [{"owner": n.owner, "type": n.type, "name": note_type_name(n.owner, n.type), "size": len(n.desc),
                 "offset": n.offset} for n in self._notes]

    @cached_property
    def kernel_metadata(self) -> list[KernelMetadata]:
        md = self.metadata
        if md is None:
            return []
        note = next(n for n in self._notes if n.type == NT_AMDGPU_METADATA)
        return kernels_from_metadata(md, file=self.name, offset=note.offset)

    # -- sections and symbols ---------------------------------------------------------------------

    def code_sections(self) -> list[CodeSection]:
        out = []
        for s in self.reader.sections:
            if s.is_executable:
                out.append(CodeSection(s.name, s.address, s.offset, s.size, self.reader.section_view(s)))
        return out

    def _section_name(self, shndx: int) -> str | None:
        if 0 < shndx < len(self.reader.sections):
            return self.reader.sections[shndx].name
        return None

    @cached_property
    def _symbols(self) -> list[Symbol]:
        raw = self.reader.symbols
        kd_names = {s.name[:-3] for s in raw if s.name.endswith(".kd") and s.type == E.STT_OBJECT}
        out = []
        for s in raw:
            if s.type in (E.STT_SECTION, E.STT_FILE) or not s.name:
                continue
            if s.shndx == E.SHN_AMDGPU_LDS:
                kind = "lds"
            elif s.shndx == E.SHN_UNDEF:
                kind = "undefined"
            elif s.shndx == E.SHN_ABS:
                kind = "resource" if "." in s.name else "other"
            elif s.type == E.STT_FUNC:
                kind = "kernel" if s.name in kd_names else "function"
            elif s.type == E.STT_OBJECT and s.name.endswith(".kd"):
                kind = "kernel_descriptor"
            elif s.type == E.STT_OBJECT:
                kind = "object"
            else:
                kind = "other"
            out.append(Symbol(s.name, s.value, s.size, kind, _BIND.get(s.bind, str(s.bind)),
                              self._section_name(s.shndx)))
        # .symtab and .dynsym may both list a symbol; keep one of each (name, address, kind).
        seen: set[tuple[str, int, str]] = set()
        unique = []
        for sym in out:
            key = (sym.name, sym.address, sym.kind)
            if key not in seen:
                seen.add(key)
                unique.append(sym)
        return unique

    def symbols(self) -> list[Symbol]:
        return list(self._symbols)

    @cached_property
    def _functions(self) -> list[Symbol]:
        return sorted((s for s in self._symbols if s.kind in ("kernel", "function")), key=lambda s: s.address)

    @cached_property
    def _function_starts(self) -> list[int]:
        return [s.address for s in self._functions]

    def functions(self) -> list[Symbol]:
        """Kernels and device functions, by address."""
        return list(self._functions)

    def symbol_at(self, address: int) -> Symbol | None:
        """The function containing `address` (for naming PCs and branch targets)."""
        i = bisect.bisect_right(self._function_starts, address) - 1
        while i >= 0:
            s = self._functions[i]
            if address < s.address + s.size or (s.size == 0 and s.address == address):
                return s
            if s.address < address:
                return None
            i -= 1
        return None

    def read_address(self, address: int, size: int) -> bytes:
        """Bytes at a virtual address of an ET_DYN object (from the section that holds it)."""
        for s in self.reader.sections:
            if s.flags & E.SHF_ALLOC and s.type != E.SHT_NOBITS and s.address <= address and \
                    address + size <= s.address + s.size:
                return self.reader.bytes_at(s.offset + address - s.address, size, f"address {address:#x}")
        raise FormatError(f"address {address:#x}+{size} is not in any section", file=self.name)

    @cached_property
    def _raw_symbol_index(self) -> dict[tuple[str, int], E.ElfSymbol]:
        return {(r.name, r.value): r for r in self.reader.symbols}

    def _descriptor_for(self, sym: Symbol) -> KernelDescriptor:
        raw = self._raw_symbol_index[(sym.name, sym.address)]
        if not 0 < raw.shndx < len(self.reader.sections):
            raise FormatError(f"kernel descriptor {sym.name} has no section", file=self.name)
        sec = self.reader.sections[raw.shndx]
        # ET_REL symbol values are section offsets; ET_DYN ones are addresses.
        rel = raw.value if self.reader.type == E.ET_REL else raw.value - sec.address
        offset = sec.offset + rel
        data = self.reader.bytes_at(offset, KERNEL_DESCRIPTOR_SIZE, f"kernel descriptor {sym.name}")
        return decode_kernel_descriptor(data, sym.address, self.target.processor, file=self.name, offset=offset)

    @cached_property
    def kernels(self) -> list[Kernel]:
        """Kernels from the metadata, joined with their entry and descriptor symbols.

        Kernels that have a descriptor symbol but no metadata record (stripped or V2 objects) are listed
        too, so nothing a dispatch might point at is missed.
        """
        by_name = {s.name: s for s in self._symbols}
        out = []
        names = []
        for md in self.kernel_metadata:
            names.append((md.name, md.symbol or f"{md.name}.kd", md))
        known = {n for n, _, _ in names}
        for s in self._symbols:
            if s.kind == "kernel_descriptor" and s.name[:-3] not in known:
                names.append((s.name[:-3], s.name, None))
        for name, kd_name, md in names:
            out.append(Kernel(name, md, by_name.get(name), by_name.get(kd_name), self._descriptor_for))
        return out

    @cached_property
    def wavefront_size(self) -> int | None:
        """64 or 32 when every kernel says so (the descriptor's ENABLE_WAVEFRONT_SIZE32, else the metadata's
        .wavefront_size); None without kernels or when they differ. GFX10+ code is compiled for one wave size,
        which decides how its lane masks are named (`vcc` or `vcc_lo`) and how wide they are."""
        sizes = set()
        for k in self.kernels:
            try:
                d = k.descriptor
            except FormatError:  # a malformed descriptor: fall back to the metadata
                d = None
            size = d.wavefront_size if d is not None else (k.metadata.wavefront_size if k.metadata else None)
            if size:
                sizes.add(size)
        return sizes.pop() if len(sizes) == 1 else None

    def kernel(self, name: str) -> Kernel | None:
        return next((k for k in self.kernels if k.name == name or (k.metadata and k.metadata.symbol == name)), None)

    def kernel_by_descriptor(self, address: int) -> Kernel | None:
        return next((k for k in self.kernels if k.descriptor_symbol and k.descriptor_symbol.address == address),
                    None)

    # -- views ------------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The `amddbg info --json` document for a code object.

        A damaged part (notes, symbols, one kernel's descriptor) does not hide the others: it is left
        empty and its error is listed under "errors", so a truncated file still shows what it can.
        """
        errors: list[str] = []

        def attempt(fn, default):
            try:
                return fn()
            except FormatError as exc:
                msg = exc.user_message()
                if msg not in errors:  # (one damaged note spoils several parts: say it once)
                    errors.append(msg)
                return default

        t = attempt(lambda: self.target, None) or decode_target(self.reader.os_abi, self.reader.abi_version,
                                                                self.reader.flags)
        md = attempt(lambda: self.metadata, None)
        kernels = []
        kernel_list = attempt(lambda: self.kernels, None)
        if kernel_list is None:  # symbols unreadable: the metadata alone still names the kernels
            kernel_list = [Kernel(m.name, m, None, None) for m in attempt(lambda: self.kernel_metadata, [])]
        for k in kernel_list:
            entry: dict[str, Any] = {"name": k.name}
            if k.metadata is not None:
                entry.update(k.metadata.fields)
            else:
                entry["symbol"] = k.descriptor_symbol.name if k.descriptor_symbol else None
            descriptor = attempt(lambda k=k: k.descriptor, None)
            entry["entry_address"] = k.entry.address if k.entry else (descriptor.entry_address if descriptor
                                                                      else None)
            entry["descriptor"] = descriptor.to_json() if descriptor else None
            kernels.append(entry)
        symbols = attempt(lambda: self._symbols, [])
        return {
            "file": self.path or self.name,
            "elf_type": self.elf_type,
            "os_abi": t.os_abi,
            "code_object_version": t.code_object_version,
            "e_flags": self.reader.flags,
            "processor": t.processor_name,
            "family": t.processor.family if t.processor else None,
            "generic_version": t.generic_version,
            "features": {"xnack": t.xnack, "sramecc": t.sramecc},
            "target_id": t.target_id,
            "metadata_version": md.get("amdhsa.version") if md else None,
            "metadata_target": md.get("amdhsa.target") if md else None,
            "metadata": strip_dots({k: v for k, v in md.items() if k != "amdhsa.kernels"}) if md else None,
            "notes": attempt(self.note_summary, []),
            "kernels": kernels,
            "functions": [{"name": s.name, "address": s.address, "size": s.size, "kind": s.kind}
                          for s in sorted(symbols, key=lambda s: s.address) if s.kind in ("kernel", "function")],
            "lds_symbols": [{"name": s.name, "alignment": s.address, "size": s.size}
                            for s in symbols if s.kind == "lds"],
            "resource_symbols": {s.name: s.address for s in symbols if s.kind == "resource"},
            "errors": errors,
        }
