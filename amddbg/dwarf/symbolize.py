"""Address -> source frames (function, file, line, column, discriminator), as llvm-symbolizer does.

``Symbolizer`` answers the questions of ``addr2line``: the line-table row of an address, the
inlined chain of subroutines around it, and the ELF symbol-table fallback (LLVM's
``SymbolizableObjectFile``: symbols sorted by (address, size, name), one per address, the last one
at or below an address matches unless its non-zero size ends before it). Data comes from an
``AddressIndex`` (built from DWARF lazily, or loaded from the on-disk cache).
"""

from __future__ import annotations

import os
from collections import namedtuple

from amddbg.dwarf import sections as S
from amddbg.dwarf.context import DwarfInfo
from amddbg.dwarf.reader import guard, paused_gc
from amddbg.dwarf.sections import ElfImage
from amddbg.dwarf.symtab import SymbolTable

BAD = None  # LLVM's DILineInfo::BadString; printed as "??"

# With less DWARF than this (all .debug_* sections together), decoding the units an address needs
# costs less than opening the on-disk index (importing sqlite3 and json alone is ~4 ms); measured
# crossover 36-77 KB of DWARF (bench/results.md). ``use_cache=None`` uses the index from here up;
# ``use_cache=True`` always does.
INDEX_MIN_DEBUG_BYTES = 64 << 10


Frame = namedtuple("Frame", "function file line column discriminator start_line inlined", defaults=(0, False))
Frame.__doc__ = "One source frame. ``function``/``file`` are None when unknown (printed as ``??``)."


class Symbolizer:
    """addr2line for one code object. ``use_cache`` reads/writes the on-disk index (data only): True
    always, False never, None (default) when ``AMDDBG_NO_CACHE`` is unset and the object has at least
    ``INDEX_MIN_DEBUG_BYTES`` of DWARF."""

    def __init__(self, image: ElfImage, *, use_cache: bool | None = None,
                 cache_key: str | None = None) -> None:
        self.elf = image
        self.dwarf = DwarfInfo(image)
        self._cache = None
        self.index = None
        if use_cache is None and _debug_bytes(image) < INDEX_MIN_DEBUG_BYTES:
            use_cache = False
        if use_cache is not False:
            from amddbg.dwarf import cache as cache_mod  # only when a cache may be used: sqlite3, json

            use_cache = cache_mod.enabled() if use_cache is None else use_cache
        if use_cache:
            self._cache = cache_mod.IndexCache.for_image(image, key=cache_key)
            self.index = self._cache.load(self.dwarf)
        if self.index is None:
            from amddbg.dwarf.addrindex import AddressIndex

            self.index = AddressIndex(self.dwarf, SymbolTable.from_elf(image))
        self._dirty = self._cache is not None and not self._cache.loaded

    @classmethod
    def from_path(cls, path: str | os.PathLike, **kw) -> Symbolizer:
        return cls(ElfImage.from_path(path), **kw)

    @classmethod
    def from_code_object(cls, code_object, **kw) -> Symbolizer:
        """From an ``amddbg.codeobj.CodeObject`` (its ``.data`` bytes; embedded objects work too)."""
        name = str(getattr(code_object, "path", None) or getattr(code_object, "name", "<memory>"))
        return cls(ElfImage(code_object.data, name=name), **kw)

    def close(self) -> None:
        """Write the index cache if it was built in this run (complete index, all units)."""
        if self._dirty and self._cache is not None:
            with paused_gc():
                self.index.complete()
            self._cache.store(self.index)
            self._dirty = False

    # ------------------------------------------------------------------ queries
    @guard("DWARF")
    def frames(self, address: int, *, inline: bool = True, linkage: bool = True) -> list[Frame]:
        """Frames for ``address``, innermost first (one frame when ``inline`` is false).

        Mirrors ``DWARFContext::getInliningInfoForAddress`` / ``getLineInfoForAddress`` followed by
        ``SymbolizableObjectFile``'s symbol-table override of the outermost function name.
        """
        idx = self.index
        cu = idx.cu_for(address)
        out: list[Frame] = []
        if cu is not None:
            chain = idx.chain(cu, address)
            lt = idx.lines(cu)
            row = lt.row_index(address) if lt is not None else None
            if not inline:
                fn = _fname(chain[0], linkage) if chain else None
                if row is not None:
                    out.append(_row_frame(lt, row, fn))
                else:
                    out.append(Frame(fn, None, 0, 0, 0))
            elif not chain:
                if row is not None:
                    out.append(_row_frame(lt, row, None))
            else:
                s = chain[0]
                fn = _fname(s, linkage)
                out.append(_row_frame(lt, row, fn) if row is not None else Frame(fn, None, 0, 0, 0))
                for caller in chain[1:]:  # each frame's call site is in its callee's DIE
                    path = lt.file_path(s.call_file) if lt is not None else None
                    out.append(Frame(_fname(caller, linkage), path, s.call_line, s.call_column,
                                     s.call_discriminator, 0, True))
                    s = caller
        if not out:
            out.append(Frame(None, None, 0, 0, 0))
        if linkage:
            sym = idx.symbols.lookup(address)
            if sym is not None:
                last = out[-1]
                if last.function is None or (last.file is None and sym[3]):
                    fn = last.function if last.function is not None else sym[2]
                    file = last.file
                    if file is None and sym[3]:
                        file = sym[3]
                    out[-1] = Frame(fn, file, last.line, last.column, last.discriminator, last.start_line,
                                    last.inlined)
        return out

    def symbol_addresses(self, name: str) -> list[int]:
        """Addresses of symbols called ``name`` (for ``addr2line SYMBOL[+OFFSET]``)."""
        return sorted({s.value for s in self.elf.symbols
                       if s.name == name and s.shndx != S.SHN_UNDEF and s.type in (S.STT_FUNC, S.STT_NOTYPE,
                                                                                    S.STT_OBJECT)})

    def line(self, address: int):
        """The line-table row (``LineRow``) for ``address`` or None."""
        cu = self.index.cu_for(address)
        if cu is None:
            return None
        lt = self.index.lines(cu)
        return lt.lookup(address) if lt is not None else None


def _debug_bytes(image: ElfImage) -> int:
    return sum(s.size for s in image.sections if s.name.startswith(".debug_"))


def _fname(s, linkage: bool) -> str | None:
    if linkage and s.linkage_name:
        return s.linkage_name
    return s.name


def _row_frame(lt, row: int, fn) -> Frame:
    return Frame(fn, lt.file_path(lt.files_col[row]), lt.lines_col[row], lt.cols_col[row],
                 lt.discs_col[row])
