"""A minimal ELF64 little-endian core-file reader over mmap.

pyelftools would do, but a core needs almost none of it (no sections, only program headers and notes)
and cores are huge: this reads the header, the program header table and the notes in place, lazily,
and tolerates what real cores do (ROCr's log2 `p_align` and scrambled `p_flags`, files truncated at
RLIMIT_CORE, sparse zero runs). Problems with the whole file are `FormatError`; problems with one
segment or note become warnings so the rest still loads.
"""

from __future__ import annotations

import mmap
import os
import struct
from dataclasses import dataclass

from amddbg.errors import FormatError
from amddbg.textsafe import open_regular

ET_CORE = 4
EM_X86_64 = 62
EM_AMDGPU = 0xE0
ELFOSABI_AMDGPU_HSA = 0x40
PT_LOAD = 1
PT_NOTE = 4
PN_XNUM = 0xFFFF

_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
_PHDR = struct.Struct("<IIQQQQQQ")
_NHDR = struct.Struct("<III")
_U32 = struct.Struct("<I")


# Without a mapping, a note segment is read into memory whole; real ones are kilobytes to a few MiB.
NOTE_SEGMENT_MAX = 256 << 20


class PreadFile:
    """The read-only subset of `mmap` the core reader uses (slicing, `len`, the buffer protocol for
    `struct.unpack_from` through `__getitem__`), served by `os.pread` on a duplicated descriptor.

    Why: mapping a whole 100 GB core needs 100 GB of address space, which a cluster's `ulimit -v`
    refuses (ENOMEM). Only the bytes a command reads are then read; nothing is mapped.
    """

    def __init__(self, fd: int, size: int) -> None:
        self._fd = os.dup(fd)
        self._size = size

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, key):
        if isinstance(key, slice):
            start, stop, step = key.indices(self._size)
            if step != 1:
                raise ValueError("PreadFile supports contiguous slices only")
            return self._pread(start, stop - start) if stop > start else b""
        i = key + self._size if key < 0 else key
        if not 0 <= i < self._size:
            raise IndexError("index out of range")
        return self._pread(i, 1)[0]

    def _pread(self, offset: int, size: int) -> bytes:
        chunks = []
        while size > 0:
            b = os.pread(self._fd, min(size, 1 << 30), offset)
            if not b:  # the file shrank under us: what a truncated file shows
                break
            chunks.append(b)
            offset += len(b)
            size -= len(b)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def _map(fd: int, size: int):
    """The whole file mapped read-only, or a `PreadFile` when the address space will not hold it."""
    try:
        return mmap.mmap(fd, 0, prot=mmap.PROT_READ)
    except (OSError, OverflowError, ValueError):  # ENOMEM under RLIMIT_AS (ulimit -v), 32-bit limits
        return PreadFile(fd, size)


def _unpack(st: struct.Struct, data, offset: int) -> tuple:
    if isinstance(data, PreadFile):
        return st.unpack(data[offset : offset + st.size])
    return st.unpack_from(data, offset)


@dataclass(frozen=True)
class Phdr:
    index: int
    p_type: int
    p_flags: int
    p_offset: int
    p_vaddr: int
    p_paddr: int
    p_filesz: int
    p_memsz: int
    p_align: int


@dataclass(frozen=True)
class Note:
    name: str
    type: int
    desc: memoryview  # view into the mapped file
    offset: int  # file offset of the descriptor


class ElfCore:
    """An opened ELF64 core file: `.path`, header fields, `.phdrs`, `.notes`, `.data` (the mmap)."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = os.fspath(path)
        self.warnings: list[str] = []
        f = open_regular(self.path, what="core")
        fd = f.fileno()
        try:
            self.file_size = os.fstat(fd).st_size
            if self.file_size < _EHDR.size:
                raise FormatError("file too short for an ELF header", file=self.path, offset=self.file_size)
            self.data = _map(fd, self.file_size)
        finally:
            f.close()
        self._parse_header()
        self._notes: list[Note] | None = None

    # -- header --------------------------------------------------------------------------------
    def _parse_header(self) -> None:
        (
            ident,
            self.e_type,
            self.e_machine,
            _ver,
            _entry,
            self.e_phoff,
            _shoff,
            self.e_flags,
            _ehsize,
            phentsize,
            phnum,
            _shentsize,
            _shnum,
            _shstrndx,
        ) = _unpack(_EHDR, self.data, 0)
        if ident[:4] != b"\x7fELF":
            raise FormatError("not an ELF file (bad magic)", file=self.path, offset=0)
        if ident[4] != 2:
            raise FormatError("not an ELF64 file (EI_CLASS is not ELFCLASS64)", file=self.path, offset=4)
        if ident[5] != 1:
            raise FormatError("not a little-endian ELF file", file=self.path, offset=5)
        self.osabi = ident[7]
        self.abiversion = ident[8]
        if self.e_type != ET_CORE:
            raise FormatError(f"not an ELF core file (e_type {self.e_type})", file=self.path, offset=16)
        if phnum and phentsize < _PHDR.size:
            raise FormatError(f"bad e_phentsize {phentsize}", file=self.path, offset=54)
        if phnum == PN_XNUM and _shoff and _shoff + 64 <= self.file_size:
            # extended numbering (more than 65534 segments): the count is section header 0's sh_info
            phnum = _unpack(_U32, self.data, _shoff + 44)[0]
        self.phdrs: list[Phdr] = []
        for i in range(phnum):
            off = self.e_phoff + i * phentsize
            if off + _PHDR.size > self.file_size:
                self.warnings.append(f"program header table truncated: {phnum - i} of {phnum} headers missing")
                break
            self.phdrs.append(Phdr(i, *_unpack(_PHDR, self.data, off)))

    @property
    def expected_size(self) -> int | None:
        """The file size its program headers need (the end of the last segment's file bytes); None when the
        program header table itself is cut, so the size cannot be known."""
        if any(w.startswith("program header table truncated") for w in self.warnings):
            return None
        ends = [ph.p_offset + ph.p_filesz for ph in self.phdrs if ph.p_filesz]
        return max([self.e_phoff + len(self.phdrs) * _PHDR.size, *ends])

    @property
    def truncated(self) -> bool:
        """The file ends before what its headers describe (a dump cut short: disk full, killed writer)."""
        expected = self.expected_size
        return expected is None or self.file_size < expected or any("truncated" in w for w in self.warnings)

    def truncation_text(self) -> str:
        """``truncated at offset 0x800 (0x18060 bytes expected)``, as damage reports say it."""
        expected = self.expected_size
        known = f"{expected:#x} bytes expected" if expected is not None else "inside the program header table"
        return f"truncated at offset {self.file_size:#x} ({known})"

    @property
    def is_gpu_core(self) -> bool:
        """A split AMDGPU core (EM_AMDGPU, as ROCr writes `gpucore.<pid>`)."""
        return self.e_machine == EM_AMDGPU

    # -- notes ---------------------------------------------------------------------------------
    @property
    def notes(self) -> list[Note]:
        if self._notes is None:
            self._notes = []
            for ph in self.phdrs:
                if ph.p_type == PT_NOTE:
                    self._notes.extend(self._parse_notes(ph))
        return self._notes

    def _parse_notes(self, ph: Phdr) -> list[Note]:
        out: list[Note] = []
        start = ph.p_offset
        end = ph.p_offset + ph.p_filesz
        if end > self.file_size:
            self.warnings.append(f"note segment {ph.index} truncated by the end of the file")
            end = self.file_size
        pos = start
        if isinstance(self.data, PreadFile):  # no mapping: the segment is read once (its size is checked)
            if end - start > NOTE_SEGMENT_MAX:
                self.warnings.append(f"note segment {ph.index} is {end - start} bytes, over the "
                                     f"{NOTE_SEGMENT_MAX >> 20} MiB read without a mapping; ignored")
                return out
            view = memoryview(self.data[start:end] if end > start else b"")
            rel = start
        else:
            view = memoryview(self.data)
            rel = 0
        while pos + 12 <= end:
            namesz, descsz, ntype = _NHDR.unpack_from(view, pos - rel)
            name_off = pos + 12
            desc_off = name_off + ((namesz + 3) & ~3)
            next_pos = desc_off + ((descsz + 3) & ~3)
            if desc_off + descsz > end:
                self.warnings.append(f"note at file offset {pos:#x} (type {ntype}) runs past its segment; ignored")
                break
            name = bytes(view[name_off - rel : name_off - rel + namesz]).split(b"\0", 1)[0]
            out.append(Note(name.decode("latin-1"), ntype, view[desc_off - rel : desc_off - rel + descsz], desc_off))
            pos = next_pos
        return out

    def close(self) -> None:
        try:
            self.data.close()
        except BufferError:  # views still alive (notes); the mapping goes with the object
            pass
