"""DWARF line programs (versions 2-5): decode once into flat rows, look addresses up like LLVM.

Rows are kept as columns (``addrs``, ``files_col``, ``lines_col``, ``cols_col``, ``flags_col``,
``discs_col``; row i is the i-th entry of each), with sequences ``(low, high, first_row, end_row)``
sorted by ``high`` (LLVM's lookup order). The address lookup follows
``DWARFDebugLine::LineTable::lookupAddress``: take the first sequence whose end is above the
address, check it contains the address, then the last row at or below it (the end_sequence row
never matches). That is what llvm-addr2line prints, so we copy it.
"""

from __future__ import annotations

import bisect
from array import array
from collections import namedtuple
from itertools import islice

from amddbg.dwarf import constants as C
from amddbg.dwarf.reader import U16, U32, U64, guard, uint, uleb
from amddbg.errors import FormatError, NotSupported

IS_STMT = 1
BASIC_BLOCK = 2
END_SEQUENCE = 4
PROLOGUE_END = 8
EPILOGUE_BEGIN = 16


LineRow = namedtuple("LineRow", "address file line column is_stmt discriminator file_index")
LineRow.__doc__ = "One line-table answer: file (full path or None), line, column, is_stmt, discriminator."


def _posix_append(path: str, *parts: str) -> str:
    """``llvm::sys::path::append`` for POSIX paths (skips empty parts, no doubled separators)."""
    for c in parts:
        if not c:
            continue
        if path.endswith("/"):
            path += c.lstrip("/")
        elif c.startswith("/") or not path:
            path += c
        else:
            path += "/" + c
    return path


class LineTable:
    """One line program: row columns and ``sequences`` (plain data, also what the on-disk cache holds)."""

    def __init__(self, dwarf, offset: int, comp_dir: str | None, unit=None, *, decode: bool = True) -> None:
        self.dwarf = dwarf
        self.offset = offset
        self.comp_dir = comp_dir or ""
        self.unit = unit
        self.dirs: list[str] = []
        self.files: list[tuple[str, int]] = []  # (name, dir index)
        self.addrs = array("Q")
        self.files_col = array("I")
        self.lines_col = array("I")
        self.cols_col = array("I")
        self.flags_col = array("B")
        self.discs_col = array("I")
        self.sequences: list[tuple[int, int, int, int]] = []
        self._seq_high: list[int] = []
        self._paths: dict[int, str | None] = {}
        if decode:
            self._decode()

    # ------------------------------------------------------------------ decoding
    def _read_entry_format(self, buf, pos):
        n = buf[pos]
        pos += 1
        fmt = []
        for _ in range(n):
            ct, pos = uleb(buf, pos)
            form, pos = uleb(buf, pos)
            fmt.append((ct, form))
        return fmt, pos

    def _read_entries(self, buf, pos, fmt, offsz, unit_addr_size):
        count, pos = uleb(buf, pos)
        out = []
        d = self.dwarf
        for _ in range(count):
            name = None
            dir_idx = 0
            for ct, form in fmt:
                val, pos = _line_form(d, buf, pos, form, offsz, self.unit)
                if ct == C.DW_LNCT_path:
                    name = val
                elif ct == C.DW_LNCT_directory_index:
                    dir_idx = val
            out.append((name if isinstance(name, str) else "", dir_idx))
        return out, pos

    @guard("line table (.debug_line)")
    def _decode(self) -> None:  # noqa: C901 - the line state machine is one loop on purpose
        d = self.dwarf
        buf = d.line_bytes
        off = self.offset
        if off + 4 > len(buf):
            raise FormatError("line table offset out of range", file=d.name, offset=off)
        length = U32(buf, off)[0]
        pos = off + 4
        offsz = 4
        if length == 0xFFFFFFFF:
            length = U64(buf, pos)[0]
            pos += 8
            offsz = 8
        end = pos + length
        if end > len(buf):
            raise FormatError("line table runs past the end of .debug_line", file=d.name, offset=off)
        version = U16(buf, pos)[0]
        pos += 2
        if not 2 <= version <= 5:
            raise FormatError(f"unsupported line table version {version}", file=d.name, offset=off)
        self.version = version
        if version >= 5:
            pos += 2  # address_size, seg_sel_size
        hlen = uint(buf, pos, offsz)
        pos += offsz
        prog = pos + hlen
        min_inst = buf[pos]
        pos += 1
        max_ops = 1
        if version >= 4:
            max_ops = buf[pos] or 1
            pos += 1
        default_is_stmt = buf[pos] != 0
        line_base = buf[pos + 1]
        if line_base >= 128:
            line_base -= 256
        line_range = buf[pos + 2]
        opcode_base = buf[pos + 3]
        pos += 4
        std_lens = list(buf[pos:pos + opcode_base - 1])
        pos += opcode_base - 1
        if version >= 5:
            dfmt, pos = self._read_entry_format(buf, pos)
            dirs, pos = self._read_entries(buf, pos, dfmt, offsz, None)
            self.dirs = [n for n, _ in dirs]
            ffmt, pos = self._read_entry_format(buf, pos)
            self.files, pos = self._read_entries(buf, pos, ffmt, offsz, None)
        else:
            while buf[pos] != 0:
                e = _find0(buf, pos, d.name)
                self.dirs.append(bytes(buf[pos:e]).decode("utf-8", "replace"))
                pos = e + 1
            pos += 1
            while buf[pos] != 0:
                e = _find0(buf, pos, d.name)
                name = bytes(buf[pos:e]).decode("utf-8", "replace")
                pos = e + 1
                di, pos = uleb(buf, pos)
                _, pos = uleb(buf, pos)
                _, pos = uleb(buf, pos)
                self.files.append((name, di))
            pos += 1
        if line_range == 0:
            raise FormatError("line table with line_range 0", file=d.name, offset=off)
        if max_ops != 1:
            raise NotSupported("line programs with maximum_operations_per_instruction > 1 (VLIW)")
        flat = _run_program(bytes(buf[prog:end]), opcode_base, line_base, line_range, min_inst,
                            default_is_stmt, std_lens, self.files, self.sequences, d.name)
        if flat:
            # Columns by strided slices of the flat row list (C speed); mostly lists, not arrays:
            # building arrays costs more than it saves here (``to_data`` makes arrays for the cache).
            self.addrs = flat[0::6]
            self.files_col = flat[1::6]
            lines = flat[2::6]
            try:  # the array conversion is also the cheapest range check
                self.lines_col = array("I", lines)
            except OverflowError:  # a line advanced below 0: LLVM's row.Line is unsigned 32-bit
                self.lines_col = array("I", [x & 0xFFFFFFFF for x in lines])
            self.cols_col = flat[3::6]
            self.flags_col = flat[4::6]
            self.discs_col = flat[5::6]
        self._finish()

    @property
    def rows(self) -> list[tuple]:
        """Rows as (address, file, line, column, flags, discriminator) tuples."""
        return list(zip(self.addrs, self.files_col, self.lines_col, self.cols_col, self.flags_col,
                        self.discs_col, strict=True))

    def _finish(self) -> None:
        # LLVM sorts sequences by high pc and looks up with upper_bound on it.
        self.sequences.sort(key=lambda s: s[1])
        self._seq_high = [s[1] for s in self.sequences]

    # ------------------------------------------------------------------ file names
    def has_file(self, index: int) -> bool:
        if self.version >= 5:
            return 0 <= index < len(self.files)
        return 1 <= index <= len(self.files)

    def file_path(self, index: int) -> str | None:
        """Absolute file name as llvm-addr2line prints it (``Prologue::getFileNameByIndex``)."""
        p = self._paths.get(index, 0)
        if p != 0:
            return p
        p = None
        if self.has_file(index):
            name, di = self.files[index if self.version >= 5 else index - 1]
            if name.startswith("/"):
                p = name
            else:
                inc = ""
                if self.version >= 5:
                    if di < len(self.dirs):
                        inc = self.dirs[di]
                elif 0 < di <= len(self.dirs):
                    inc = self.dirs[di - 1]
                path = ""
                if (self.version < 5 or di != 0) and self.comp_dir and not inc.startswith("/"):
                    path = _posix_append(path, self.comp_dir)
                p = _posix_append(path, inc, name)
        self._paths[index] = p
        return p

    # ------------------------------------------------------------------ lookups
    def row_index(self, address: int) -> int | None:
        i = bisect.bisect_right(self._seq_high, address)
        if i >= len(self.sequences):
            return None
        lo, hi, first, last = self.sequences[i]
        if not lo <= address < hi:
            return None
        # last row in [first, last-1) with row.address <= address (LLVM upper_bound - 1)
        return bisect.bisect_right(self.addrs, address, first + 1, last - 1) - 1

    def lookup(self, address: int) -> LineRow | None:
        """Row that describes ``address`` (file, line, column, is_stmt, discriminator) or None."""
        i = self.row_index(address)
        if i is None:
            return None
        f = self.files_col[i]
        return LineRow(address, self.file_path(f), self.lines_col[i], self.cols_col[i],
                       bool(self.flags_col[i] & IS_STMT), self.discs_col[i], f)

    def addresses_for_line(self, file: str, line: int, *, stmt_only: bool = True) -> list[int]:
        """Start addresses of rows for ``file`` (full path or basename suffix) at ``line``."""
        want = {i for i in range(len(self.files) + 1)
                if self.has_file(i) and _same_file(self.file_path(i), file)}
        out = []
        for _lo, _hi, first, last in self.sequences:
            prev_key = None
            for i in range(first, last - 1):
                f, ln = self.files_col[i], self.lines_col[i]
                key = (f, ln)
                if f in want and ln == line and (self.flags_col[i] & IS_STMT or not stmt_only) \
                        and key != prev_key:
                    out.append(self.addrs[i])
                prev_key = key
        return sorted(set(out))

    def iter_rows(self):
        """All rows as LineRow (end_sequence rows included, flagged by line table order)."""
        for a, f, ln, col, fl, disc in self.rows:
            yield LineRow(a, self.file_path(f), ln, col, bool(fl & IS_STMT), disc, f)

    # ------------------------------------------------------------------ cache (plain data)
    COLUMNS = ("addrs", "files_col", "lines_col", "cols_col", "flags_col", "discs_col")
    TYPECODES = ("Q", "I", "I", "I", "B", "I")

    def to_data(self) -> tuple[dict, dict[str, bytes]]:
        """(JSON-able header, column name -> little-endian array bytes)."""
        meta = {"version": self.version, "comp_dir": self.comp_dir, "dirs": self.dirs,
                "files": [list(f) for f in self.files], "sequences": [list(s) for s in self.sequences]}
        return meta, {c: array(t, getattr(self, c)).tobytes() for c, t in zip(self.COLUMNS, self.TYPECODES,
                                                                                strict=True)}

    @classmethod
    def from_data(cls, dwarf, offset: int, meta: dict, cols: dict[str, bytes]) -> LineTable:
        t = cls(dwarf, offset, meta["comp_dir"], decode=False)
        t.version = meta["version"]
        t.dirs = list(meta["dirs"])
        t.files = [tuple(f) for f in meta["files"]]
        for c, code in zip(cls.COLUMNS, cls.TYPECODES, strict=True):
            setattr(t, c, memoryview(cols[c]).cast(code))  # zero-copy, read-only columns
        t.sequences = [tuple(s) for s in meta["sequences"]]
        t._seq_high = [s[1] for s in t.sequences]
        return t


def _run_program(prog: bytes, opcode_base: int, line_base: int, line_range: int, min_inst: int,
                 default_is_stmt: bool, std_lens: list[int], files: list, seqs: list, name: str) -> list[int]:
    """Run one line program (the bytes after the header); fill ``seqs`` and return the rows as one
    flat list, six ints per row: address, file, line, column, flags, discriminator.

    Why this shape: it is the hottest loop of a cold ``addr2line`` (a 14 MB rocsparse object has
    620k opcodes). The program is consumed through one bytes iterator (no index arithmetic),
    special opcodes use precomputed address/line advances, the frequent one- and two-byte LEB128
    operands are decoded inline, and each row extends one flat list (columns are then taken by
    strided slices, which avoids a tuple object per row). Values too large for the row columns are
    checked only where they can arise (multi-byte operands, ends of sequences), not per row.
    A program cut short inside an operand ends the table there.
    """
    rows: list[int] = []
    append = rows.extend
    sp_addr = [0] * 256
    sp_line = [0] * 256
    for op in range(opcode_base, 256):
        a = op - opcode_base
        sp_addr[op] = (a // line_range) * min_inst
        sp_line[op] = line_base + a % line_range
    const_add = sp_addr[255]
    ds_flag = IS_STMT if default_is_stmt else 0
    addr = 0
    file = 1
    line = 1
    col = 0
    flags = ds_flag
    disc = 0
    seq_start = 0
    it = iter(prog)
    nxt = it.__next__
    try:
        for op in it:
            if op >= opcode_base:
                addr += sp_addr[op]
                line += sp_line[op]
                append((addr, file, line, col, flags, disc))
                flags &= 1  # IS_STMT (a constant: no global lookup in the hottest path)
                disc = 0
            elif op == 3:  # DW_LNS_advance_line (SLEB128)
                v = nxt()
                if v < 0x80:
                    line += v - 0x80 if v & 0x40 else v
                else:
                    v2 = nxt()
                    if v2 < 0x80:
                        v = (v & 0x7F) | (v2 << 7)
                        line += v - 0x4000 if v2 & 0x40 else v
                    else:
                        line += _sleb_rest(nxt, (v & 0x7F) | ((v2 & 0x7F) << 7), 14)
            elif op == 5:  # DW_LNS_set_column
                col = nxt()
                if col >= 0x80:
                    col = _uleb_rest(nxt, col, 32)
            elif op == 6:  # DW_LNS_negate_stmt
                flags ^= 1  # IS_STMT
            elif op == 4:  # DW_LNS_set_file
                file = nxt()
                if file >= 0x80:
                    file = _uleb_rest(nxt, file, 32)
            elif op == 0:  # extended opcode: ULEB length, sub-opcode, operands
                n = nxt()
                if n >= 0x80:
                    n = _uleb_rest(nxt, n)
                if n == 0:
                    continue
                body = bytes(islice(it, n))
                if len(body) < n:
                    break
                sub = body[0]
                if sub == 1:  # DW_LNE_end_sequence
                    if addr >> 64:
                        raise OverflowError("address above 64 bits")
                    append((addr, file, line, col, flags | END_SEQUENCE, disc))
                    nrows = len(rows) // 6
                    lo = rows[seq_start * 6]
                    if lo < addr:
                        seqs.append((lo, addr, seq_start, nrows))
                    seq_start = nrows
                    addr = 0
                    file = 1
                    line = 1
                    col = 0
                    flags = ds_flag
                    disc = 0
                elif sub == 2:  # DW_LNE_set_address
                    if addr >> 64:
                        raise OverflowError("address above 64 bits")
                    addr = int.from_bytes(body[1:], "little")
                elif sub == 4:  # DW_LNE_set_discriminator
                    disc = uleb(body, 1)[0]
                    if disc >> 32:
                        raise OverflowError("discriminator above 32 bits")
                elif sub == 3:  # DW_LNE_define_file
                    e = body.find(b"\0", 1)
                    if e < 0:
                        raise FormatError("unterminated file name in DW_LNE_define_file", file=name)
                    files.append((body[1:e].decode("utf-8", "replace"), uleb(body, e + 1)[0]))
            elif op == 8:  # DW_LNS_const_add_pc
                addr += const_add
            elif op == 1:  # DW_LNS_copy
                append((addr, file, line, col, flags, disc))
                flags &= IS_STMT
                disc = 0
            elif op == 2:  # DW_LNS_advance_pc
                v = nxt()
                if v >= 0x80:
                    v = _uleb_rest(nxt, v)
                addr += v * min_inst
            elif op == 10:  # DW_LNS_set_prologue_end
                flags |= PROLOGUE_END
            elif op == 7:  # DW_LNS_set_basic_block
                flags |= BASIC_BLOCK
            elif op == 9:  # DW_LNS_fixed_advance_pc (uhalf)
                v = nxt()
                addr += v | (nxt() << 8)
            elif op == 11:  # DW_LNS_set_epilogue_begin
                flags |= EPILOGUE_BEGIN
            else:  # unknown standard opcode: skip its ULEB operands
                for _ in range(std_lens[op - 1] if op - 1 < len(std_lens) else 0):
                    v = nxt()
                    if v >= 0x80:
                        _uleb_rest(nxt, v)
    except StopIteration:
        pass
    if addr >> 64:
        raise OverflowError("address above 64 bits")
    return rows


def _uleb_rest(nxt, first: int, bits: int = 64) -> int:
    """Finish a ULEB128 whose first byte ``first`` had its continuation bit set; a value that does
    not fit ``bits`` bits (what the row columns hold) is an OverflowError (a corrupt table)."""
    result = first & 0x7F
    shift = 7
    while True:
        b = nxt()
        result |= (b & 0x7F) << shift
        if b < 0x80:
            if result >> bits:
                raise OverflowError(f"line table operand above {bits} bits")
            return result
        shift += 7


def _sleb_rest(nxt, result: int, shift: int) -> int:
    """Finish a SLEB128 after ``shift`` bits (``result``) whose last byte read had the continuation bit."""
    while True:
        b = nxt()
        result |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            if b & 0x40:
                result -= 1 << shift
            return result


def _same_file(path: str | None, want: str) -> bool:
    if path is None:
        return False
    return path == want or path.endswith("/" + want.lstrip("/"))


def _find0(buf, pos: int, name: str) -> int:
    n = len(buf)
    p = pos
    while p < n and buf[p] != 0:
        p += 1
    if p >= n:
        raise FormatError("unterminated string in .debug_line", file=name, offset=pos)
    return p


def _line_form(d, buf, pos, form, offsz, unit):
    """Decode one v5 file/directory entry field."""
    if form == C.DW_FORM_string:
        e = _find0(buf, pos, d.name)
        return bytes(buf[pos:e]).decode("utf-8", "replace"), e + 1
    if form == C.DW_FORM_line_strp:
        v = uint(buf, pos, offsz)
        return d.line_strp(v), pos + offsz
    if form == C.DW_FORM_strp:
        v = uint(buf, pos, offsz)
        return d.strp(v), pos + offsz
    if form == C.DW_FORM_udata:
        return uleb(buf, pos)
    if form == C.DW_FORM_data1:
        return buf[pos], pos + 1
    if form == C.DW_FORM_data2:
        return U16(buf, pos)[0], pos + 2
    if form == C.DW_FORM_data4:
        return U32(buf, pos)[0], pos + 4
    if form == C.DW_FORM_data8:
        return U64(buf, pos)[0], pos + 8
    if form == C.DW_FORM_data16:
        return bytes(buf[pos:pos + 16]), pos + 16
    if form == C.DW_FORM_block:
        n, pos = uleb(buf, pos)
        return bytes(buf[pos:pos + n]), pos + n
    if form in (C.DW_FORM_strx, C.DW_FORM_strx1, C.DW_FORM_strx2, C.DW_FORM_strx3, C.DW_FORM_strx4):
        if form == C.DW_FORM_strx:
            idx, pos = uleb(buf, pos)
        else:
            n = {C.DW_FORM_strx1: 1, C.DW_FORM_strx2: 2, C.DW_FORM_strx3: 3, C.DW_FORM_strx4: 4}[form]
            idx = uint(buf, pos, n)
            pos += n
        return (d.strx(unit, idx) if unit is not None else ""), pos
    raise FormatError(f"unsupported form {form:#x} in a line table header", file=d.name, offset=pos)
