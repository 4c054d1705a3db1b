"""What a register held earlier in a function, recomputed from what survives in the core: a backward static slice.

A wave's saved registers are its state at the stop. The value an address register held when an earlier load ran
(the pointer load `table[t % 4]` feeding a fault, the stack slot -O0 reloads a pointer from) is usually gone:
the compiler reuses the register. It can still be recomputed from the code: walk back from the use to the
instruction that defined it, evaluate that instruction on *its* inputs, and so on, until every input is a fact
the core holds:

- a register no instruction writes between that point and the stop (its saved value, per lane);
- a constant;
- the function's entry values when the function is a kernel (the work-item ids in v0-v2, packed into v0 on the
  targets that pack them; the kernarg segment pointer in its user SGPR);
- memory the core holds at an address the slice computes (the kernarg segment, the wave's stack for -O0's
  spills, a pointer table in global memory), when no store on the way to the stop may have changed it.

The walk is sound or it gives up (None), never guesses: a def reached across a join counts only when no branch
into the join bypasses it (a region a branch may skip, or a loop body, that writes the register makes the value
unknown); a VGPR def made before EXEC widens (a divergent region's end) may have missed the lane; a call ends
the walk; an instruction without a known shape is unknown. The same walk in symbolic form (`expression`) gives a
canonical description of where an address comes from, so two accesses in different blocks can be compared
(analysis.likely_writers: the store whose pointer is the polling load's own variable).
"""

from __future__ import annotations

import re

from amddbg.errors import AmddbgError
from amddbg.isa.model import OperandKind

# (TTMPs: GFX12 reads its workgroup ids from ttmp9/ttmp7, which user code cannot write: the core's value is the
# value at entry)
_GPR = {OperandKind.SGPR: "s", OperandKind.VGPR: "v", OperandKind.AGPR: "a", OperandKind.TTMP: "ttmp"}
_SPECIAL = {"vcc": ("vcc_lo", "vcc_hi"), "vcc_lo": ("vcc_lo",), "vcc_hi": ("vcc_hi",), "exec": ("exec_lo", "exec_hi"),
            "exec_lo": ("exec_lo",), "exec_hi": ("exec_hi",), "m0": ("m0",), "scc": ("scc",)}
_SCC_WRITERS = ("s_add_", "s_addc_", "s_sub_", "s_subb_", "s_and_", "s_or_", "s_xor_", "s_andn2_", "s_orn2_",
                "s_nand_", "s_nor_", "s_xnor_", "s_lshl", "s_lshr_", "s_ashr_", "s_bfe_", "s_min_", "s_max_",
                "s_abs_", "s_not_", "s_cmp", "s_bitcmp", "s_bcnt", "s_and_not1", "s_or_not1", "s_mul_hi")
_M32 = 0xFFFFFFFF
_ADD_CARRY_IN = ("v_addc_co_u32", "v_add_co_ci_u32", "v_addc_u32")
_SAVEEXEC_ALL = re.compile(r"^s_or_saveexec_b(32|64)$")


def _keys(op) -> list[tuple]:
    """The 32-bit register names an operand covers: ("v", 3), ("s", 6), ("x", "vcc_lo"), ..."""
    if op.kind is OperandKind.TTMP:  # the operand's register is the encoding (ttmp7 is 115): the name says which
        m = re.match(r"ttmp\[?(\d+)", op.text.lower())
        return [("ttmp", int(m[1]) + k) for k in range(op.count)] if m else []
    if op.kind in _GPR and op.register is not None:
        return [(_GPR[op.kind], op.register + k) for k in range(op.count)]
    if op.kind is OperandKind.SPECIAL:
        return [("x", n) for n in _SPECIAL.get(op.text.split()[0].lower(), ())]
    return []


def _dests(insn) -> list[tuple]:
    out = [k for o in insn.operands if o.is_dest for k in _keys(o)]
    m = insn.mnemonic
    if m.startswith("s_") and m.startswith(_SCC_WRITERS):
        out.append(("x", "scc"))
    if m.startswith("v_cmp") and m.endswith("_e32"):
        out += [("x", "vcc_lo"), ("x", "vcc_hi")]
    if insn.writes_exec:
        out += [("x", "exec_lo"), ("x", "exec_hi")]
    return out


def _wave64_masks(insn):
    """The instruction with its lane-mask SGPR operands two registers wide, as a wave64 wave runs it: GFX10+
    disassembly spells a VALU carry, compare result or select mask as one SGPR (`v_add_co_u32 v0, s6, v0, v3`)
    where wave64 writes and reads s[6:7]."""
    import dataclasses

    m = insn.mnemonic
    if not m.startswith("v_") or m.startswith(("v_readlane", "v_readfirstlane", "v_writelane")):
        return insn
    dests = [n for n, o in enumerate(insn.operands) if o.is_dest]
    srcs = [n for n, o in enumerate(insn.operands) if not o.is_dest and o.kind is not OperandKind.OFFSET]
    widen = set()
    if m.startswith(("v_cmp", "v_cmpx")):
        widen.update(dests[:1])
    elif len(dests) >= 2:
        widen.add(dests[1])  # v_add_co_u32 / v_sub_co / v_mad_u64_u32 / v_div_scale: the carry or flag mask
    if ("_co_ci" in m or m.startswith(("v_addc", "v_subb", "v_cndmask"))) and len(srcs) >= 3:
        widen.add(srcs[2])
    ops = list(insn.operands)
    changed = False
    for n in widen:
        o = ops[n]
        if o.kind is OperandKind.SGPR and o.count == 1 and ":" not in o.text:
            ops[n] = dataclasses.replace(o, count=2)
            changed = True
        elif o.kind is OperandKind.SPECIAL and o.text == "vcc_lo":
            ops[n] = dataclasses.replace(o, text="vcc", count=2)
            changed = True
    return dataclasses.replace(insn, operands=tuple(ops)) if changed else insn


def _size(mnemonic: str) -> int | None:
    """Bytes a dword-granular load moves (sub-dword loads are not followed)."""
    m = re.search(r"_(dword(?:x(\d))?|b(32|64|96|128))(?:_|$)", mnemonic)
    if not m:
        return None
    if m.group(1).startswith("dword"):
        return 4 * int(m.group(2) or 1)
    return int(m.group(3)) // 8


def _offset(insn) -> int:
    m = re.search(r"\boffset:(-?0x[0-9a-fA-F]+|-?\d+)", insn.text)
    return int(m.group(1), 0) if m else 0


class Slicer:
    """Values registers held before an instruction of one function, for one wave (`t`) stopped at `stop_pc`."""

    def __init__(self, program, t, stop_pc: int | None = None):
        self.program, self.t = program, t
        pc = t.pc if stop_pc is None else stop_pc
        try:
            self.insns = list(program.disassemble(pc))
        except AmddbgError:
            self.insns = []
        if getattr(t, "lanes", 32) == 64:
            self.insns = [_wave64_masks(i) for i in self.insns]
        self.index = {i.address: k for k, i in enumerate(self.insns)}
        self.stop = self.index.get(pc)
        self.into: dict[int, list[int]] = {}  # index of a branch target -> indices of the branches to it
        for k, i in enumerate(self.insns):
            if i.is_branch and i.branch_target in self.index:
                self.into.setdefault(self.index[i.branch_target], []).append(k)
        self._memo: dict = {}
        self._dest_cache: dict[int, list] = {}
        self._assumed: dict = {}  # (load index, lane) -> the bytes a load is assumed to have read (_self_consistent)
        self.is_kernel = self._kernel()

    def _kernel(self) -> bool:
        from amddbg.replay.code import _in_kernel

        return bool(self.insns) and _in_kernel(self.program, self.insns[0].address)

    def dests(self, k: int) -> list:
        if k not in self._dest_cache:
            self._dest_cache[k] = _dests(self.insns[k])
        return self._dest_cache[k]

    def _writes(self, k: int, key, lane: int | None = None) -> bool:
        """Does insns[k] write `key` (its lane `lane`: a `v_writelane` to another lane does not)?"""
        i = self.insns[k]
        if i.is_call:
            return True
        if key not in self.dests(k):
            return False
        if lane is not None and i.mnemonic.startswith("v_writelane"):
            sel = [o for o in i.operands if not o.is_dest]
            sel = sel[1].value if len(sel) > 1 else None
            return not isinstance(sel, int) or sel % self.t.lanes == lane
        return True

    # -- where the value comes from -------------------------------------------------------------------
    def survives(self, key, idx: int, lane: int | None = None) -> bool:
        """Is `key`'s value before insns[idx] still in the saved registers (nothing writes it on the way)?"""
        if self.stop is None or idx > self.stop:
            return False
        return not any(self._writes(k, key, lane) for k in self.between(idx))

    def between(self, idx: int) -> list[int]:
        """Indices of the instructions that may run after insns[idx] and before the stop: those in between, and,
        when the stop is inside a loop that starts at or after `idx`, the rest of the loop's body too (earlier
        iterations ran it: a write after the stop in the body, such as wave64's carry into s[0:1] in the loop's
        increment, happened after the def before the loop)."""
        out = list(range(idx, self.stop))
        tail = self.stop
        for b, i in enumerate(self.insns):
            if b > self.stop and i.is_branch and i.branch_target in self.index:
                h = self.index[i.branch_target]
                if idx <= h <= self.stop:
                    tail = max(tail, b + 1)
        return out + list(range(self.stop, tail))

    def definition(self, key, idx: int, lane: int | None = None) -> int | None | str:
        """Index of the instruction whose result `key` (its lane `lane`) holds before insns[idx], "entry" when
        nothing before it writes it, None when that is not decided by the code (a join a def may be bypassed
        through, a call)."""
        for j in range(idx - 1, -1, -1):
            if self.insns[j].is_call:
                return None
            if not self._region_ok(key, j + 1, idx, lane):
                return None
            if self._writes(j, key, lane):
                if key[0] == "v" and self._exec_widens(j, idx):
                    return None
                return j
        if not self._region_ok(key, 0, idx, lane):
            return None
        return "entry"

    def _region_ok(self, key, label: int, idx: int, lane: int | None = None) -> bool:
        """A branch into `label` must not bypass a write of `key` on the way from it to `idx`: the code between the
        branch and its target (a skipped region, a loop body) does not write `key` (the def found first on the
        way back is the one that holds, whichever way the code came)."""
        for b in self.into.get(label, ()):
            lo, hi = (b + 1, label) if b < label else (label, b + 1)
            if any(self._writes(k, key, lane) for k in range(lo, hi)):
                return False
            if b > label and b >= idx and any(self._writes(k, key, lane) for k in range(idx, b + 1)):
                return False
        return True

    def _exec_widens(self, j: int, idx: int) -> bool:
        """May EXEC hold a lane at insns[idx] that it did not hold at insns[j] (a divergent region that ends on
        the way: `s_or exec, exec, saved`), so the lane did not run insns[j]? Narrowings (`s_and_saveexec`, a
        loop's `s_andn2 exec`) and the restores that match them cancel out; the whole-wave spill pattern
        (`s_or_saveexec -1` ... `s_mov exec, saved`) does not count."""
        depth, saved = 0, False
        for k in range(j + 1, idx):
            i = self.insns[k]
            if not i.writes_exec:
                continue
            m = i.mnemonic
            if _SAVEEXEC_ALL.match(m) and i.text.replace(" ", "").endswith(",-1"):
                saved = True
                continue
            if m.startswith("s_mov_b") and saved:
                saved = False
                continue
            if m.startswith(("s_and_saveexec", "s_and_b", "s_andn2_b", "s_and_not1_b", "s_andn2_saveexec",
                             "s_and_not1_saveexec", "v_cmpx")):
                depth += 1  # narrows: a lane active after it was active before
                continue
            if m.startswith(("s_xor_b", "s_xor_saveexec")) and depth > 0:
                continue  # an else: other lanes of the same narrowed set
            depth -= 1  # s_or exec / s_mov exec: a restore
            if depth < 0:
                return True
        return False

    # -- values --------------------------------------------------------------------------------------
    def value(self, key, idx: int, lane: int) -> int | None:
        """The 32-bit value of register `key` before insns[idx] for `lane` (SGPRs ignore the lane), or None."""
        memo_key = (key, idx, lane if key[0] != "s" else None)
        if memo_key in self._memo:
            return self._memo[memo_key]
        self._memo[memo_key] = None  # a cycle through a loop: unknown
        v = self._value(key, idx, lane)
        self._memo[memo_key] = v
        return v

    def _value(self, key, idx: int, lane: int) -> int | None:
        vl = lane if key[0] != "s" else None
        if self.survives(key, idx, vl):
            return self._saved(key, lane)
        d = self.definition(key, idx, vl)
        if d is None:
            return None
        if d == "entry":
            return self._entry(key, lane)
        out = self.execute(d, lane, want=key)
        return None if out is None else out.get(key)

    def pair(self, op, idx: int, lane: int) -> int | None:
        keys = _keys(op)
        vals = [self.value(k, idx, lane) for k in keys]
        if not keys or any(v is None for v in vals):
            return None
        return sum(v << (32 * n) for n, v in enumerate(vals))

    def _saved(self, key, lane: int) -> int | None:
        kind, n = key
        name = f"{kind}{n}" if kind != "x" else n
        try:
            regs = self.t.registers
            if kind in ("v", "a"):
                return regs.read_named(name, lane=lane) & _M32
            return regs.read_named(name) & _M32
        except (AmddbgError, KeyError, IndexError, ValueError, TypeError):
            return None

    def _entry(self, key, lane: int) -> int | None:
        """A kernel's entry values: the work-item ids, the kernarg segment pointer."""
        if not self.is_kernel:
            return None
        t = self.t
        d = t.dispatch
        kind, n = key
        if kind == "v" and n <= 2:
            try:
                pos = _lane_position(t, lane)
            except AmddbgError:
                return None
            if pos is None:
                return None
            if _packed(self.program, t.pc):
                return pos[0] | pos[1] << 10 | pos[2] << 20 if n == 0 else None
            return pos[n]
        if kind == "s" and d is not None and d.kernarg_address is not None:
            from amddbg.replay.code import _kernarg_sgpr

            base = _kernarg_sgpr(self.program, d, t.pc)
            if base is not None and n in (base, base + 1):
                return (d.kernarg_address >> (32 * (n - base))) & _M32
        return None

    # -- one instruction ---------------------------------------------------------------------------------
    def execute(self, k: int, lane: int, want=None) -> dict | None:
        """Results of insns[k] for `lane` ({key: 32-bit value}), from its inputs' values before it."""
        i = self.insns[k]
        m = i.mnemonic
        srcs = [o for o in i.operands if not o.is_dest and o.kind is not OperandKind.OFFSET]
        dsts = [o for o in i.operands if o.is_dest]
        if i.memory is not None:
            return self._load(k, lane)
        if not dsts:
            return None

        def src(n: int, width: int = 1) -> int | None:
            if n >= len(srcs):
                return None
            o = srcs[n]
            if o.kind in (OperandKind.INLINE, OperandKind.LITERAL):
                if not isinstance(o.value, int):
                    return None
                return o.value & ((1 << (32 * width)) - 1) if width == 1 or o.value >= 0 else o.value & (
                    (1 << 64) - 1)
            if o.kind is OperandKind.SPECIAL and o.text in ("null", "off"):
                return 0
            keys = _keys(o)[:width] if o.count >= width else _keys(o)
            if len(keys) < width:
                return None
            vals = [self.value(x, k, lane) for x in keys]
            if any(v is None for v in vals):
                return None
            return sum(v << (32 * n) for n, v in enumerate(vals))

        base = re.sub(r"_e(32|64)$|_dpp$|_sdwa$", "", m)
        dkeys = _keys(dsts[0])
        if base in _ADD_CARRY_IN:  # v_addc_co_u32 d, c_out, a, b, c_in: this lane's carry bit from c_in's def
            a, b, c = src(0), src(1), self.carry(srcs[2], k, lane) if len(srcs) > 2 else None
            if a is None or b is None or c is None:
                return None
            return {dkeys[0]: (a + b + c) & _M32}
        if base == "s_addc_u32":
            a, b, c = src(0), src(1), self.carry(None, k, lane)
            if a is None or b is None or c is None:
                return None
            return {dkeys[0]: (a + b + c) & _M32}
        if base == "v_readlane_b32":  # s = v[sel]: the VGPR's value in the selected lane
            sel = src(1)
            keys = _keys(srcs[0]) if srcs else []
            if sel is None or len(keys) != 1:
                return None
            v = self.value(keys[0], k, sel % self.t.lanes)
            return None if v is None else {dkeys[0]: v}
        if base == "v_pk_mov_b32" and "op_sel" in i.text and "op_sel:[0,1]" not in i.text:
            return None  # a lane swap: not the pair copy -O0 uses
        r = _alu(base, src, len(dkeys))
        if r is None:
            return None
        value, carry = r if isinstance(r, tuple) else (r, None)
        out = {}
        if base == "v_writelane_b32":  # one lane of the destination VGPR: the others keep their value
            sel = src(1)
            if sel is None:
                return None
            out[dkeys[0]] = value if sel % self.t.lanes == lane else self.value(dkeys[0], k, lane)
            return out if out[dkeys[0]] is not None else None
        for n, key in enumerate(dkeys):
            out[key] = (value >> (32 * n)) & _M32
        return out

    def carry(self, op, k: int, lane: int) -> int | None:
        """The carry bit `lane` reads before insns[k] from `op` (a VCC/SGPR lane mask) or, for None, SCC: recomputed
        from the add that produced it, or read from the saved mask when it survives."""
        keys = _keys(op) if op is not None else [("x", "scc")]
        if not keys:
            return None
        if self.survives(keys[0], k) and op is not None:
            lo = self._saved(keys[0], lane)
            hi = self._saved(keys[1], lane) if len(keys) > 1 else 0
            return None if lo is None or hi is None else ((lo | hi << 32) >> lane) & 1
        d = self.definition(keys[0], k)
        if not isinstance(d, int):
            return None
        i = self.insns[d]
        base = re.sub(r"_e(32|64)$", "", i.mnemonic)
        srcs = [o for o in i.operands if not o.is_dest and o.kind is not OperandKind.OFFSET]
        if base not in ("v_add_co_u32", "s_add_u32") or len(srcs) < 2:
            return None
        vals = []
        for o in srcs[:2]:
            if o.kind in (OperandKind.INLINE, OperandKind.LITERAL):
                vals.append(o.value & _M32 if isinstance(o.value, int) else None)
            else:
                ks = _keys(o)
                vals.append(self.value(ks[0], d, lane) if len(ks) == 1 else None)
        if None in vals:
            return None
        return (vals[0] + vals[1]) >> 32

    def _load(self, k: int, lane: int) -> dict | None:
        i = self.insns[k]
        mem = i.memory
        if not mem.is_load or mem.is_atomic:
            return None
        size = _size(i.mnemonic)
        at = self.address(k, lane)
        if size is None or at is None:
            return None
        space, address = at
        dest = next((o for o in i.operands if o.is_dest), None)
        if dest is None:
            return None
        if (k, lane) in self._assumed:
            data = self._assumed[(k, lane)]
        else:
            try:
                data = self.program.read(space, address, size, lane=lane if space != "global" else None,
                                         thread=self.t)
            except AmddbgError:
                return None
            if not self._unchanged(k, space, address, size, lane) and \
                    not self._self_consistent(k, space, address, size, lane, data):
                return None
        return {key: int.from_bytes(data[4 * n:4 * n + 4], "little") for n, key in enumerate(_keys(dest)[:size // 4])}

    def _self_consistent(self, k: int, space: str, address: int, size: int, lane: int, data: bytes) -> bool:
        """Did the load at insns[k] read what memory holds now, although a later store's address is not known? At
        -O0 the store's address can be the loaded value itself (clang-19 for GFX12 keeps the generic address of a
        local's slot in another slot, reloads it, and stores through it: `src = ...`). Assume the load read `data`
        (what memory holds now) and recompute: when then no later store writes [address, address + size), and each
        store whose address needed the assumption stores other bytes than `data` (had it written the slot, the slot
        would hold what it stored), the assumption is the only consistent history."""
        if self._assumed or self.stop is None:
            return False  # one assumption at a time: no nesting
        trial = Slicer.__new__(Slicer)
        trial.__dict__.update(self.__dict__)
        trial._memo, trial._assumed = {}, {(k, lane): data}
        if not trial._unchanged(k, space, address, size, lane):
            return False
        for j in self.between(k + 1):
            i = self.insns[j]
            mem = i.memory
            if mem is not None and mem.is_store and j >= self.stop:
                return False
            if mem is None or not mem.is_store or mem.space.value in ("lds", "gds") or self.address(j, lane):
                continue  # (a store whose address is known without the assumption was checked already)
            ops = [o for o in i.operands if not o.is_dest and o.kind in (OperandKind.VGPR, OperandKind.SGPR)]
            if mem.is_atomic or len(ops) < 2 or not i.mnemonic.startswith(("flat_", "global_")):
                return False  # (flat/global stores: address, data[, saddr])
            stored = trial.pair(ops[1], j, lane)
            n = _size(i.mnemonic) or 16
            if stored is None or stored.to_bytes(16, "little")[:min(n, size)] == data[:min(n, size)]:
                return False
        return True

    def address(self, k: int, lane: int) -> tuple[str, int] | None:
        """(address space, address) a memory instruction at index `k` accesses for `lane`."""
        i = self.insns[k]
        mem = i.memory
        ops = [o for o in i.operands if not o.is_dest and o.kind in (OperandKind.SGPR, OperandKind.VGPR)]
        if mem is not None and mem.is_store and not mem.is_atomic and len(ops) >= 2:
            ops = ops[:1] + ops[2:]  # stores: address, data[, saddr]
        enc = i.encoding
        m = i.mnemonic
        if enc == "SMEM" or m.startswith("s_load") or m.startswith("s_buffer"):
            if not ops or ops[0].kind is not OperandKind.SGPR or m.startswith("s_buffer"):
                return None
            base = self.pair(ops[0], k, lane)
            imm = next((o.value for o in i.operands if not o.is_dest and o.kind in
                        (OperandKind.INLINE, OperandKind.LITERAL, OperandKind.OFFSET, OperandKind.IMMEDIATE)
                        and isinstance(o.value, int)), 0)
            soff = next((o for o in ops[1:] if o.kind is OperandKind.SGPR and o.count == 1), None)
            extra = self.value(_keys(soff)[0], k, lane) if soff is not None else 0
            if base is None or extra is None:
                return None
            return "global", (base + imm + extra) & ((1 << 64) - 1)
        off = _offset(i)
        if m.startswith("scratch_"):
            total = off
            for o in ops:
                v = self.value(_keys(o)[0], k, lane) if o.count == 1 else None
                if v is None:
                    return None
                total += v
            return "private", total & _M32
        if m.startswith("buffer_"):
            soff = next((o for o in ops if o.kind is OperandKind.SGPR and o.count == 1), None)
            if soff is None or "offen" in i.text or "idxen" in i.text:
                return None
            v = self.value(_keys(soff)[0], k, lane)
            return None if v is None else ("private", (v + off) & _M32)
        if m.startswith(("global_", "flat_")):
            saddr = next((o for o in ops if o.kind is OperandKind.SGPR and o.count == 2), None)
            vaddr = next((o for o in ops if o.kind is OperandKind.VGPR), None)
            if saddr is not None:
                base = self.pair(saddr, k, lane)
                v = self.value(_keys(vaddr)[0], k, lane) if vaddr is not None else 0
                if base is None or v is None:
                    return None
                return "global", (base + v + off) & ((1 << 64) - 1)
            if vaddr is None or vaddr.count != 2:
                return None
            a = self.pair(vaddr, k, lane)
            if a is None:
                return None
            a = (a + off) & ((1 << 64) - 1)
            if m.startswith("flat_"):
                return _generic(self.program, a)
            return "global", a
        return None

    def _unchanged(self, k: int, space: str, address: int, size: int, lane: int) -> bool:
        """No store between insns[k] and the stop may have written [address, address + size) (private and
        generic memory: stores whose address the slice computes and that miss it are fine)."""
        if self.stop is None:
            return False
        for j in self.between(k + 1):
            i = self.insns[j]
            if i.is_call:
                return False
            mem = i.memory
            if mem is None or not (mem.is_store or mem.is_atomic) or mem.space.value in ("lds", "gds"):
                continue
            if j >= self.stop:
                return False  # a store in the loop after the stop ran in an earlier iteration: address not known
            at = self.address(j, lane)
            if at is None:
                return False
            n = _size(i.mnemonic) or 16
            if at[1] < address + size and address < at[1] + n:
                return False
        return True


_COPIES = ("v_mov_b32", "s_mov_b32", "v_readfirstlane_b32", "v_accvgpr_read_b32", "v_accvgpr_write_b32",
           "v_accvgpr_mov_b32", "s_mov_b64", "v_mov_b64", "v_pk_mov_b32", "v_readlane_b32", "v_writelane_b32")


class Symbols:
    """Where a register's value comes from, as a canonical expression over the code (no wave's values): two
    accesses in different blocks whose address expressions are equal access the same location. Through copies
    (moves, the -O0 spills into VGPR lanes and AGPRs and their reloads) to the instruction that computed the
    value; a register the flow-sensitive walk cannot follow across a join is followed flow-insensitively: when
    every write of it in the function copies the same origin (the spill lane written once in the prologue), that
    origin holds wherever it is read."""

    def __init__(self, slicer: Slicer):
        self.s = slicer
        self.loops = [(self.s.index[i.branch_target], k) for k, i in enumerate(slicer.insns)
                      if i.is_branch and i.branch_target in slicer.index and slicer.index[i.branch_target] <= k]
        self._origin: dict = {}
        self._frame_ok: dict = {}

    def slot(self, k: int) -> tuple | None:
        """("m", base SGPR, offset) of a dword scratch access at a fixed frame offset (`scratch_load_b32 v9, off,
        s33 offset:56`, `buffer_store_dword v9, off, s[0:3], s33 offset:56`: -O0's VGPR spills), when the frame
        register is written at most once in the function."""
        i = self.s.insns[k]
        m = i.mnemonic
        if not m.startswith(("scratch_", "buffer_")) or _size(m) != 4 or i.memory is None or i.memory.is_atomic:
            return None
        if any(o.kind is OperandKind.VGPR and not o.is_dest for o in i.operands) and i.memory.is_load:
            return None  # a VGPR address (or, for a load, any VGPR source): not a fixed slot
        if i.memory.is_store and sum(o.kind is OperandKind.VGPR and not o.is_dest for o in i.operands) != 1:
            return None
        if "offen" in i.text or "idxen" in i.text:
            return None
        base = [o for o in i.operands if not o.is_dest and o.kind is OperandKind.SGPR and o.count == 1]
        if len(base) != 1:
            return None
        key = _keys(base[0])[0]
        if key not in self._frame_ok:
            self._frame_ok[key] = sum(key in self.s.dests(j) for j in range(len(self.s.insns))) <= 1
        return ("m", key[1], _offset(i)) if self._frame_ok[key] else None

    def address(self, k: int) -> tuple | None:
        """The canonical expression of the address the memory instruction insns[k] accesses (lane 0's view)."""
        i = self.s.insns[k]
        ops = [o for o in i.operands if not o.is_dest and o.kind in (OperandKind.SGPR, OperandKind.VGPR)]
        if i.memory is not None and i.memory.is_store and not i.memory.is_atomic and len(ops) >= 2:
            ops = ops[:1] + ops[2:]
        if not ops:
            return None
        return (i.mnemonic.split("_")[0], _offset(i), *(self.value(key, k, 0) for o in ops for key in _keys(o)))

    def value(self, key, idx: int, lane: int, depth: int = 0) -> tuple:
        if depth > 64:
            return ("unknown", key, idx)
        d = self.s.definition(key, idx, lane if key[0] != "s" else None)
        if d == "entry":
            return ("entry", key, lane if key[0] != "s" else None)
        if d is None:
            return self.origin(key, lane) or ("unknown", key, idx)
        i = self.s.insns[d]
        base = re.sub(r"_e(32|64)$", "", i.mnemonic)
        srcs = [o for o in i.operands if not o.is_dest and o.kind is not OperandKind.OFFSET]
        dest = next((o for o in i.operands if o.is_dest), None)
        part = _keys(dest).index(key) if dest is not None and key in _keys(dest) else 0
        if base == "v_writelane_b32":
            sel = srcs[1].value if len(srcs) > 1 and isinstance(srcs[1].value, int) else None
            if sel is None:
                return ("unknown", key, idx)
            if sel % self.s.t.lanes != lane:
                return self.value(key, d, lane, depth + 1)  # another lane's write
            return self._src(srcs[0], 0, d, lane, depth)
        if base in _COPIES:
            if base == "v_readlane_b32":
                sel = srcs[1].value if len(srcs) > 1 and isinstance(srcs[1].value, int) else None
                if sel is None:
                    return ("unknown", key, idx)
                return self._src(srcs[0], 0, d, sel % self.s.t.lanes, depth)
            return self._src(srcs[0], part, d, lane, depth) if srcs else ("unknown", key, idx)
        if i.memory is not None:
            if not i.memory.is_load or i.memory.is_atomic:
                return ("insn", d)
            slot = self.slot(d)
            if slot is not None:  # a spill reload: whatever every store to that slot copies
                return self.origin(slot, lane) or ("unknown", key, idx)
            return ("load", _size(i.mnemonic), part, self.address(d))
        args = [self._src(o, n, d, lane, depth) for o in srcs for n in range(len(_keys(o)) or 1)]
        if base.startswith(("s_cselect", "s_cmov")):
            scc = self.value(("x", "scc"), d, lane, depth + 1)
            if scc[0] == "const" and len(args) >= 2 and base.startswith("s_cselect"):
                width = len(_keys(srcs[0])) or 1
                return args[part] if scc[1] else args[width + part]  # the -O0 prologue's null checks fold
            return (base, part, *args, scc)
        if base.startswith("v_cmp") and len(args) >= 2 and all(a[0] == "const" for a in args[:2]):
            return ("const", int(_compare(base.replace("v_cmp", "s_cmp"), args[0][1], args[1][1])))  # lane's bit
        if base == "v_cndmask_b32" and len(args) >= 3 and args[-1][0] == "const":
            return args[1] if args[-1][1] else args[0]
        if key == ("x", "scc") and base.startswith("s_cmp") and len(args) == 2 and all(a[0] == "const" for a in args):
            return ("const", int(_compare(base, args[0][1], args[1][1])))
        if args and all(a[0] == "const" for a in args) and not base.startswith("s_cmp"):
            vals = [a[1] for a in args]
            r = _alu(base, lambda n, w=1: vals[n] if n < len(vals) and isinstance(vals[n], int) else None, 1)
            if isinstance(r, int):
                return ("const", r)
        return (base, part, *args)

    def _src(self, o, part: int, idx: int, lane: int, depth: int) -> tuple:
        if o.kind in (OperandKind.INLINE, OperandKind.LITERAL):
            return ("const", o.value if part == 0 else 0)
        if o.kind is OperandKind.SPECIAL and o.text.startswith("src_"):
            return ("unknown", f"{o.text}:{part}")  # an aperture base: one value for the whole dispatch
        keys = _keys(o)
        if part >= len(keys):
            return ("unknown", o.text, idx)
        return self.value(keys[part], idx, lane, depth + 1)

    def origin(self, key, lane: int) -> tuple | None:
        """The one origin every write of `key` (its lane `lane`, for a VGPR/AGPR) in the function copies, through
        any chain of copies (v11 -> a1 -> v10 -> a2 ...), or None when there are several (or none)."""
        memo = (key, lane if key[0] != "s" else None)
        if memo in self._origin:
            return self._origin[memo] if self._origin[memo] != "pending" else None
        self._origin[memo] = "pending"
        todo, seen, found = [memo], {memo}, set()
        while todo and len(found) < 2:
            node, ln = todo.pop()
            for j, i in enumerate(self.s.insns):
                if node[0] == "m":  # a stack slot: the stores to it copy their data register
                    if i.memory is None or not i.memory.is_store or self.slot(j) != node:
                        continue
                    data = next(o for o in i.operands if not o.is_dest and o.kind is OperandKind.VGPR)
                    nxt = (_keys(data)[0], ln)
                    if nxt not in seen:
                        seen.add(nxt)
                        todo.append(nxt)
                    continue
                if node not in self.s.dests(j) or not self.s._writes(j, node, ln):
                    continue
                if i.memory is not None and i.memory.is_load and self.slot(j) is not None:
                    nxt = (self.slot(j), ln)
                    if nxt not in seen:
                        seen.add(nxt)
                        todo.append(nxt)
                    continue
                base = re.sub(r"_e(32|64)$", "", i.mnemonic)
                srcs = [o for o in i.operands if not o.is_dest and o.kind is not OperandKind.OFFSET]
                dest = next((o for o in i.operands if o.is_dest), None)
                part = _keys(dest).index(node) if dest is not None and node in _keys(dest) else 0
                if base == "v_writelane_b32":
                    v = self._src(srcs[0], 0, j, ln, 1) if srcs else ("unknown",)
                    found.add(v if _followed(v) else None)
                elif base in _COPIES and base != "v_readlane_b32" and srcs and srcs[0].kind in _GPR and \
                        part < len(_keys(srcs[0])):
                    nxt = (_keys(srcs[0])[part], ln if _keys(srcs[0])[part][0] != "s" else None)
                    v = self.value(nxt[0], j, ln if ln is not None else 0, 1)  # what it copies, where it does
                    if _followed(v):
                        found.add(v)
                    elif nxt not in seen:
                        seen.add(nxt)
                        todo.append(nxt)
                elif any(lo <= j <= hi for lo, hi in self.loops):
                    found.add(None)  # computed again on every trip of a loop: not one value
                else:  # what it computes (writes of one value in several places compare equal)
                    v = self.value(node, j + 1, ln if ln is not None else 0, 1)
                    found.add(None if not _followed(v) else v)
        out = found.pop() if len(found) == 1 else None
        self._origin[memo] = out
        return out


def same_location(program, t, pc: int, others: list[int]) -> list[int]:
    """The PCs among `others` (memory instructions of the function holding `pc`) whose address expression is the
    one of the access at `pc`: both read their pointer from the same place (at -O0 the same stack slot, whose
    address the prologue computed once and spilled) and add the same offset. Expressions with a register the
    walk could not follow compare as nothing."""
    s = Slicer(program, t, pc)
    k = s.index.get(pc)
    if k is None:
        return []
    sy = Symbols(s)
    ref = sy.address(k)
    if ref is None or not _followed(ref):
        return []
    return [o for o in others if o in s.index and sy.address(s.index[o]) == ref]


def _followed(expr) -> bool:
    """No register leaf the walk gave up on (a hardware constant such as the private aperture is fine)."""
    if not isinstance(expr, tuple):
        return True
    if expr and expr[0] == "unknown":
        return isinstance(expr[1], str) and expr[1].startswith("src_")
    return all(_followed(e) for e in expr)


def _compare(base: str, a: int, b: int) -> bool:
    """SCC of an `s_cmp_<op>_<type>` of two constants."""
    signed = "_i32" in base
    a, b = a & _M32, b & _M32
    if signed:
        a, b = (a - (1 << 32) if a >> 31 else a), (b - (1 << 32) if b >> 31 else b)
    op = base.split("_")[2] if not base.startswith("s_cmpk") else base.split("_")[2]
    op = {"ne": "lg", "neq": "lg"}.get(op, op)
    return {"eq": a == b, "lg": a != b, "gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= b}.get(op, False)


def _generic(program, address: int) -> tuple[str, int]:
    """A flat address in the space its aperture says: ("private", offset) for the wave's stack (-O0's slots),
    ("local", offset) for LDS, ("global", address) otherwise."""
    from amddbg.amdgpu.address_space import AddressSpace
    from amddbg.core.address_spaces import classify_generic

    core = getattr(program, "core", None)
    agents = getattr(core, "agents", None) or []
    space, off = classify_generic(address, agents[0] if len(agents) == 1 else None)
    if space is AddressSpace.PRIVATE_LANE:
        return "private", off
    if space is AddressSpace.LOCAL:
        return "local", off
    return "global", address


def _lane_position(t, lane: int):
    """The lane's work-item position in its workgroup (session.scope's rule)."""
    from amddbg.session.scope import ProgramScope

    frames = t.frames()
    return ProgramScope(t.program, frames[0] if frames else None, lane).lane_position()


def _packed(program, pc: int) -> bool:
    """Do the work-item ids arrive packed into v0 (gfx90a, gfx94x, gfx11+)?"""
    from amddbg.emu.machine import PACKED_TID, _startswith_any

    lco = program.code_object_at(pc)
    return lco is not None and _startswith_any(lco.processor.split(":")[0], PACKED_TID)


def _alu(base: str, src, width: int):
    """The result of an ALU instruction whose sources `src(n, width)` gives: an int (the destination's bits), a
    (value, carry) pair for the carry-out forms, or None for shapes not followed."""
    s0, s1 = (lambda w=1: src(0, w)), (lambda w=1: src(1, w))

    def need(*vals):
        return None if any(v is None for v in vals) else vals

    if base in ("v_mov_b32", "s_mov_b32", "v_readfirstlane_b32", "v_accvgpr_read_b32", "v_accvgpr_write_b32",
                "v_accvgpr_mov_b32", "s_movk_i32"):
        return s0()
    if base in ("s_mov_b64", "v_mov_b64", "v_pk_mov_b32", "v_lshlrev_b64", "v_lshl_add_u64", "s_lshl_b64",
                "v_mad_u64_u32", "s_lshr_b64", "s_ashr_i64", "s_and_b64", "s_or_b64", "s_xor_b64", "s_add_u64",
                "s_sub_u64", "s_add_nc_u64", "s_sub_nc_u64") and width != 2:
        return None
    if base in ("s_mov_b64", "v_mov_b64"):
        return s0(2)
    if base == "v_pk_mov_b32":  # v_pk_mov_b32 v[0:1], s[8:9], s[8:9] op_sel:[0,1]: the pair, copied
        a, b = s0(2), s1(2)
        return None if need(a, b) is None else (a & _M32) | (b & ~_M32)
    if base == "v_readlane_b32":
        return s0()
    if base == "v_writelane_b32":
        return s0()
    a, b = s0(), s1()
    if base in ("v_and_b32", "s_and_b32"):
        return None if need(a, b) is None else a & b
    if base in ("v_or_b32", "s_or_b32"):
        return None if need(a, b) is None else a | b
    if base in ("v_xor_b32", "s_xor_b32"):
        return None if need(a, b) is None else a ^ b
    if base in ("v_add_u32", "v_add_nc_u32", "s_add_u32", "s_add_i32", "v_add_i32", "v_add_co_u32"):
        return None if need(a, b) is None else (a + b) & _M32
    if base in ("v_sub_u32", "v_sub_nc_u32", "s_sub_u32", "s_sub_i32"):
        return None if need(a, b) is None else (a - b) & _M32
    if base in ("v_subrev_u32", "v_subrev_nc_u32"):
        return None if need(a, b) is None else (b - a) & _M32
    if base in ("v_mul_lo_u32", "s_mul_i32", "v_mul_u32_u24"):
        if need(a, b) is None:
            return None
        if base == "v_mul_u32_u24":
            a, b = a & 0xFFFFFF, b & 0xFFFFFF
        return (a * b) & _M32
    if base in ("v_lshlrev_b32",):
        return None if need(a, b) is None else (b << (a & 31)) & _M32
    if base in ("v_lshrrev_b32",):
        return None if need(a, b) is None else b >> (a & 31)
    if base in ("v_ashrrev_i32",):
        return None if need(a, b) is None else ((b - (1 << 32) if b >> 31 else b) >> (a & 31)) & _M32
    if base == "s_ashr_i32":
        return None if need(a, b) is None else ((a - (1 << 32) if a >> 31 else a) >> (b & 31)) & _M32
    if base in ("s_sext_i32_i16",):
        return None if a is None else ((a & 0xFFFF) - (0x10000 if a & 0x8000 else 0)) & _M32
    if base in ("s_lshl_b32",):
        return None if need(a, b) is None else (a << (b & 31)) & _M32
    if base in ("s_lshr_b32",):
        return None if need(a, b) is None else a >> (b & 31)
    if base in ("s_lshl1_add_u32", "s_lshl2_add_u32", "s_lshl3_add_u32", "s_lshl4_add_u32"):
        return None if need(a, b) is None else ((a << int(base[6])) + b) & _M32
    if base == "v_lshlrev_b64":
        v = s1(2)
        return None if need(a, v) is None else (v << (a & 63)) & ((1 << 64) - 1)
    if base in ("s_lshl_b64", "s_lshr_b64", "s_ashr_i64"):
        v, n = s0(2), src(1)
        if need(v, n) is None:
            return None
        if base == "s_ashr_i64" and v >> 63:
            v -= 1 << 64
        return ((v << (n & 63)) if base == "s_lshl_b64" else (v >> (n & 63))) & ((1 << 64) - 1)
    if base in ("s_and_b64", "s_or_b64", "s_xor_b64", "s_add_u64", "s_sub_u64", "s_add_nc_u64", "s_sub_nc_u64"):
        x, y = s0(2), s1(2)
        if need(x, y) is None:
            return None
        return {"s_and_b64": x & y, "s_or_b64": x | y, "s_xor_b64": x ^ y, "s_add_u64": x + y,
                "s_sub_u64": x - y, "s_add_nc_u64": x + y, "s_sub_nc_u64": x - y}[base] & ((1 << 64) - 1)
    if base == "v_lshl_add_u64":
        v, n, c = s0(2), s1(), src(2, 2)
        return None if need(v, n, c) is None else ((v << (n & 7)) + c) & ((1 << 64) - 1)
    c = src(2)
    if base == "v_lshl_add_u32":
        return None if need(a, b, c) is None else ((a << (b & 31)) + c) & _M32
    if base == "v_add_lshl_u32":
        return None if need(a, b, c) is None else ((a + b) << (c & 31)) & _M32
    if base == "v_lshl_or_b32":
        return None if need(a, b, c) is None else ((a << (b & 31)) | c) & _M32
    if base == "v_add3_u32":
        return None if need(a, b, c) is None else (a + b + c) & _M32
    if base in ("v_mad_u32_u24",):
        return None if need(a, b, c) is None else ((a & 0xFFFFFF) * (b & 0xFFFFFF) + c) & _M32
    if base in ("v_and_or_b32",):
        return None if need(a, b, c) is None else ((a & b) | c) & _M32
    if base in ("v_bfe_u32",):
        return None if need(a, b, c) is None else (a >> (b & 31)) & ((1 << (c & 31)) - 1)
    if base == "v_mad_u64_u32":
        c64 = src(2, 2)
        return None if need(a, b, c64) is None else ((a * b + c64) & ((1 << 64) - 1), 0)
    return None

