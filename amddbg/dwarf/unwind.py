"""Unwinding AMDGPU call stacks: CFI first, the calling-convention ABI when there is no CFI.

Upstream compilers (clang 19/22, Debian clang-15) emit an FDE per function with *no* instructions, so the
ABI fallback is what runs on real code objects. It follows the AMDGPU manual's call convention ("SGPR30-31
return address", "SGPR32 is used for the stack pointer ... an unswizzled scratch offset", "SGPR33 is used
as a frame pointer", "the CFA as the unswizzled address ... in the unswizzled private address space") and
reads the callee's prologue to learn where it saved the caller's s30/s31/s33 and the whole-wave VGPRs it
spilled to scratch. What it learns is expressed as an ordinary CFI row (the same expressions LLVM's
upstream-main CFI uses: PC pair, `select_bit_piece` under the entry EXEC), so both methods share one
evaluator. Every frame records the method that produced it.

A kernel (entry function) is the outermost frame.
"""

from __future__ import annotations

import copy
import enum
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from amddbg.amdgpu import AddressSpace
from amddbg.dwarf.cfi import FDE, FrameSection, Row, compute_rows, frame_sections
from amddbg.dwarf.cfi.rows import (
    EXPRESSION,
    OFFSET,
    REGISTER,
    SAME_VALUE,
    UNDEFINED,
    VAL_EXPRESSION,
    VAL_OFFSET,
    CFARule,
    RegisterRule,
)
from amddbg.dwarf.expr.aspace import Apertures, dwarf_aspace
from amddbg.dwarf.expr.context import BaseContext, Context
from amddbg.dwarf.expr.evaluator import Evaluator, read_bits
from amddbg.dwarf.expr.location import EvaluationError, Location, Memory, Register, UndefinedLocation
from amddbg.dwarf.expr.ops import Encoding, encode, encoding_for
from amddbg.dwarf.expr.regs import EXEC_32, EXEC_64, PC_64, register_info
from amddbg.errors import AmddbgError, NotSupported

__all__ = ["CodeInfo", "Frame", "FrameContext", "Function", "LaneFrame", "Method", "abi_row", "frames_for_lane",
           "unwind"]

SP, FP = 32 + 32, 32 + 33  # DWARF numbers of s32 / s33
RA_LO, RA_HI = 32 + 30, 32 + 31


class Method(enum.Enum):
    CONTEXT = "context"  # the innermost frame: the registers as given
    CFI = "cfi"  # rules from .debug_frame / .eh_frame
    ABI = "abi"  # prologue analysis + the AMDGPU call convention
    ABI_KERNEL = "abi-kernel"  # an entry function: outermost by convention

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class Function:
    name: str
    address: int
    size: int
    is_kernel: bool = False

    def __contains__(self, pc: int) -> bool:
        return self.address <= pc < self.address + self.size


@dataclass
class CodeInfo:
    """What the unwinder needs from a code object: functions, code bytes, CFI, processor, wave size."""

    functions: list[Function]
    code: list[tuple[int, bytes]]  # (address, bytes) of executable sections
    frames: list[FrameSection]
    processor: str
    wave_size: int = 64
    augmentation: str | None = None
    bias: int = 0  # load address of the code object: functions/code are shifted, FDEs are looked up unbiased

    @classmethod
    def from_code_object(cls, co, *, wave_size: int | None = None) -> CodeInfo:
        """From an `amddbg.codeobj.CodeObject`. Kernels are the functions with a `<name>.kd` descriptor."""
        syms = co.symbols()
        kernel_names = {s.name[:-3] for s in syms if s.name.endswith(".kd")}
        kernel_names |= {s.name for s in syms if s.kind == "kernel"}
        funcs = [Function(s.name, s.address, s.size, s.name in kernel_names)
                 for s in syms if s.kind in ("function", "kernel") and s.size]
        code = [(sec.address, bytes(sec.data)) for sec in co.code_sections()]
        if wave_size is None:
            sizes = set()
            for k in getattr(co, "kernels", []):
                meta = getattr(k, "metadata", None)
                size = getattr(meta, "wavefront_size", None) if meta is not None else None
                if size is None and getattr(k, "descriptor", None) is not None:
                    props = getattr(k.descriptor, "kernel_code_properties", {}) or {}
                    size = 32 if props.get("enable_wavefront_size32") else 64
                if size:
                    sizes.add(int(size))
            if len(sizes) > 1:
                raise NotSupported("unwinding a code object that mixes wave32 and wave64 kernels "
                                   "(pass wave_size=)")
            wave_size = sizes.pop() if sizes else 64
        return cls(sorted(funcs, key=lambda f: f.address), code, frame_sections(co.data, name=str(co.path)),
                   co.processor, wave_size)

    def function_at(self, pc: int) -> Function | None:
        for f in self.functions:
            if pc in f:
                return f
        return None

    def read_code(self, address: int, size: int) -> bytes:
        for base, data in self.code:
            if base <= address and address + size <= base + len(data):
                return data[address - base:address - base + size]
        raise AmddbgError(f"code at {address:#x}+{size} is not in the code object")

    def loaded_at(self, bias: int) -> CodeInfo:
        """This code object as loaded at `bias` (a core's link-map load address): absolute PCs unwind."""
        if bias == self.bias:
            return self
        d = bias - self.bias
        funcs = [Function(f.name, f.address + d, f.size, f.is_kernel) for f in self.functions]
        return CodeInfo(funcs, [(a + d, b) for a, b in self.code], self.frames, self.processor, self.wave_size,
                        self.augmentation, bias)

    def fde_at(self, pc: int) -> tuple[FrameSection, FDE] | None:
        for sec in self.frames:
            fde = sec.fde_for(pc - self.bias)
            if fde is not None:
                return sec, fde
        return None

    @property
    def swizzled_stack(self) -> bool:
        return swizzled_stack(self.processor)


def swizzled_stack(processor: str) -> bool:
    """True where the stack pointer is a per-lane (swizzled) offset: targets with architected flat
    scratch (gfx940/941/942/950, GFX11, GFX12); elsewhere SP/FP are unswizzled wave offsets."""
    digits = processor.split(":")[0][3:]
    if digits.startswith(("94", "95")):
        return True
    return len(digits) >= 4 and digits[:2] in ("11", "12")


# --------------------------------------------------------------------------- the ABI prologue scan


def _sgprs(op) -> list[int]:
    return list(range(op.register, op.register + op.count)) if op.kind.value == "sgpr" else []


def _imm(op) -> int | None:
    if op.kind.value in ("inline", "literal", "immediate", "offset") and isinstance(op.value, int):
        return op.value
    return None


def _offset_of(ins) -> int:
    for op in ins.operands:
        if op.kind.value == "offset" and isinstance(op.value, int):
            return op.value
    text = ins.text
    if "offset:" in text:
        tail = text.split("offset:", 1)[1].split()[0].rstrip(",")
        return int(tail, 0)
    return 0


@dataclass
class _Scan:
    fp_saved_in: int | None = None  # SGPR index holding the caller's s33
    fp_set: bool = False  # s33 = entry s32 (the CFA)
    sp_delta: int = 0  # s32 - entry s32 while no frame pointer is set
    lanes: dict[int, tuple[int, int]] = field(default_factory=dict)  # SGPR index -> (VGPR, lane)
    # VGPR index -> (byte offset from CFA per lane, which lanes were stored: "inactive" | "all" | "active")
    vgpr_spills: dict[int, tuple[int, str]] = field(default_factory=dict)
    window: str | None = None  # inside `s_xor_saveexec -1` ("inactive") / `s_or_saveexec -1` ("all")
    clobbered: set[int] = field(default_factory=set)  # SGPR indexes overwritten without a save
    notes: list[str] = field(default_factory=list)


def scan_prologue(code: CodeInfo, func: Function, pc: int) -> _Scan:
    """Walk the instructions of `func` that run before `pc` and record where the caller's state went.

    The walk follows control flow from the entry, not the bytes in order: clang places cold blocks (the trap of
    an assert, `__builtin_trap()`'s halt loop) after the epilogue's `s_setpc_b64`, reached only by a branch, and a
    straight-line walk would first see the epilogue restore s33 and pop the stack (the caller's frame base then
    read the callee's s33). Each block is walked once, with the state of the first path that reaches it (the
    prologue is the same on every path); a `pc` no static path reaches falls back to the straight-line walk."""
    from amddbg.isa import decoder_for

    try:
        decoder = decoder_for(code.processor)
    except Exception as exc:  # the decoder family may not be available yet
        raise NotSupported(f"ABI unwinding on {code.processor} (no instruction decoder: {exc})") from None
    end = func.address + func.size
    insns = list(decoder.decode_all(code.read_code(func.address, max(0, end - func.address)), func.address))
    at = {ins.address: i for i, ins in enumerate(insns)}
    seen: set[int] = set()
    paths = [(0, _Scan())]
    while paths:
        i, st = paths.pop()
        while i < len(insns):
            ins = insns[i]
            if ins.address == pc:
                return st
            if ins.address in seen:
                break
            seen.add(ins.address)
            _step(st, ins)
            if ins.is_return or ins.is_endpgm:
                break
            if ins.is_branch and not ins.is_call:
                target = at.get(ins.branch_target) if ins.branch_target is not None else None
                if target is not None:
                    paths.append((target, copy.deepcopy(st)))
                if not ins.is_conditional:
                    break
            i += 1
    st = _Scan()  # not reached by a static path (an indirect branch): the bytes in order, as before
    for ins in insns:
        if ins.address >= pc:
            break
        _step(st, ins)
    st.notes.append(f"{pc:#x}: no branch from the entry reaches this PC; the prologue scan took the bytes in order")
    return st


def _step(st: _Scan, ins) -> None:
    """One instruction's effect on the record of where the caller's state is."""
    if ins.is_unknown:
        # Saves are only ever s_mov/v_writelane/buffer|scratch stores, which decode; an undecodable
        # instruction could still overwrite a saved register, so the frame says so.
        st.notes.append(f"{ins.address:#x}: undecodable instruction assumed not to touch saved registers")
        return
    m = ins.mnemonic
    ops = ins.operands
    dests = [o for o in ops if o.is_dest]
    srcs = [o for o in ops if not o.is_dest]
    if m == "s_mov_b32" and dests and srcs and _sgprs(dests[0]) and _sgprs(srcs[0]):
        d, s = dests[0].register, srcs[0].register
        if s == 33 and d != 33 and not st.fp_set and st.fp_saved_in is None:
            # the caller's s33 saved before this function makes s33 its own frame pointer; a later copy of s33
            # (clang-22 -O0 forms private addresses from it: `s_mov_b32 s0, s33`) is a use, not the save
            st.fp_saved_in = d
            st.clobbered.discard(d)
            return
        if d == 33 and s == 32:
            st.fp_set = True
            return
        if d == 32 and s == 33:
            st.sp_delta = 0
            return
        if d == 33 and s == st.fp_saved_in:
            st.fp_set = False
            st.fp_saved_in = None
            st.clobbered.discard(33)
            return
    if m in ("s_addk_i32", "s_add_i32", "s_add_u32", "s_sub_u32", "s_sub_i32", "s_add_co_i32") and dests:
        if _sgprs(dests[0]) == [32]:
            imm = next((_imm(o) for o in srcs if _imm(o) is not None), None)
            if imm is None:
                st.notes.append(f"{ins.address:#x}: stack pointer changed by a register amount")
                st.clobbered.add(32)
            else:
                imm = imm - (1 << 32) if imm >= 1 << 31 else imm
                st.sp_delta += -imm if m.startswith("s_sub") else imm
            return
    if m.startswith(("s_xor_saveexec_b", "s_or_saveexec_b")) and srcs and _imm(srcs[0]) == -1:
        st.window = "inactive" if m.startswith("s_xor") else "all"
        return
    if m.startswith("s_mov_b") and dests and dests[0].kind.value == "special" and "exec" in dests[0].text:
        st.window = None
        return
    if m == "v_writelane_b32" and len(srcs) >= 2 and _sgprs(srcs[0]) and _imm(srcs[1]) is not None:
        st.lanes[srcs[0].register] = (dests[0].register, _imm(srcs[1]))
        return
    if m == "v_readlane_b32" and dests and _sgprs(dests[0]):
        st.lanes.pop(dests[0].register, None)
        st.clobbered.discard(dests[0].register)
        return
    if m in ("buffer_store_dword", "scratch_store_dword", "scratch_store_b32"):
        vg = next((o.register for o in srcs if o.kind.value == "vgpr"), None)
        base = [r for o in srcs for r in _sgprs(o) if o.count == 1]
        if vg is not None and base and base[-1] in (32, 33):
            # Whole-wave saves happen inside an exec window; outside one, only callee-saved VGPRs are
            # saves (their active lanes); other stores are locals and spills of this function.
            kind = st.window or ("active" if _callee_saved_vgpr(vg) else None)
            off = _offset_of(ins)
            if kind is None:
                pass
            elif base[-1] == 33 and st.fp_set:
                st.vgpr_spills.setdefault(vg, (off, kind))
            elif base[-1] == 32 and not st.fp_set:
                st.vgpr_spills.setdefault(vg, (off - st.sp_delta, kind))
        return
    if m in ("buffer_load_dword", "scratch_load_dword", "scratch_load_b32"):
        for o in dests:
            if o.kind.value == "vgpr":
                st.vgpr_spills.pop(o.register, None)
        return
    for o in dests:
        for r in _sgprs(o):
            if r in (30, 31) and r not in st.lanes:
                st.clobbered.add(r)
            if r == st.fp_saved_in:
                st.clobbered.add(33)
            if r == 33 and st.fp_saved_in is None:
                st.clobbered.add(33)


def _callee_saved_vgpr(n: int) -> bool:
    """USAGE call convention: preserved VGPR40-47, 56-63, 72-79, ... 248-255 (every other block of 8)."""
    return n >= 40 and (n // 8) % 2 == 1


def _vgpr(n: int, wave_size: int) -> int:
    return (2560 if wave_size == 64 else 1536) + n


def _sgpr_expr(index: int, st: _Scan, wave: int) -> list[tuple]:
    """Expression operations for the location of the caller's SGPR `index` (32-bit)."""
    if index in st.lanes:
        vg, lane = st.lanes[index]
        return [("DW_OP_regx", _vgpr(vg, wave)), ("DW_OP_LLVM_offset_uconst", 4 * lane)]
    if index in st.clobbered:
        return [("DW_OP_LLVM_undefined",)]
    return [("DW_OP_regx", 32 + index)]


def abi_row(code: CodeInfo, func: Function, pc: int) -> tuple[Row, list[str]]:
    """A synthetic CFI row for `pc` in `func`, from the call convention and the prologue."""
    wave = code.wave_size
    if func.is_kernel:
        cfa = CFARule(None, 0, 0, encode([("DW_OP_lit0",), ("DW_OP_lit6",), ("DW_OP_LLVM_form_aspace_address",)]))
        return Row(func.address, func.address + func.size, cfa, {PC_64: RegisterRule(UNDEFINED)}), []
    st = scan_prologue(code, func, pc)
    base, off = (33, 0) if st.fp_set else (32, -st.sp_delta)
    if 32 in st.clobbered and not st.fp_set:
        raise NotSupported(f"ABI unwinding through a dynamically sized stack at {pc:#x}")
    if code.swizzled_stack:
        ops = [("DW_OP_regx", 32 + base), ("DW_OP_deref_size", 4)]
        if off:
            ops += [("DW_OP_consts", off), ("DW_OP_plus",)]
        shift = wave.bit_length() - 1
        ops += [(f"DW_OP_lit{shift}",), ("DW_OP_shl",), ("DW_OP_lit6",), ("DW_OP_LLVM_form_aspace_address",)]
        cfa = CFARule(None, 0, 0, encode(ops))
    else:
        cfa = CFARule(32 + base, off, 6)
    rules: dict[int, RegisterRule] = {}
    pc_ops = (_sgpr_expr(30, st, wave) + [("DW_OP_piece", 4)] + _sgpr_expr(31, st, wave) + [("DW_OP_piece", 4)])
    rules[PC_64] = RegisterRule(EXPRESSION, expression=encode(pc_ops))
    for s in (30, 31):
        if s in st.lanes or s in st.clobbered:
            rules[32 + s] = RegisterRule(EXPRESSION, expression=encode(_sgpr_expr(s, st, wave)))
    if st.fp_saved_in is not None and 33 not in st.clobbered:
        rules[FP] = RegisterRule(REGISTER, register=32 + st.fp_saved_in)
    elif 33 in st.lanes:
        rules[FP] = RegisterRule(EXPRESSION, expression=encode(_sgpr_expr(33, st, wave)))
    elif 33 in st.clobbered:
        rules[FP] = RegisterRule(UNDEFINED)
    if st.fp_set:
        rules[SP] = RegisterRule(REGISTER, register=FP)
    elif st.sp_delta:
        rules[SP] = RegisterRule(VAL_EXPRESSION, expression=encode(
            [("DW_OP_regx", SP), ("DW_OP_deref_size", 4), ("DW_OP_consts", st.sp_delta), ("DW_OP_minus",)]))
    exec_reg = EXEC_64 if wave == 64 else EXEC_32
    for vg, (k, kind) in st.vgpr_spills.items():
        # The saved dwords are at CFA + k*wave + 4*lane (swizzled scratch). "inactive": lanes inactive at the
        # call site ("Lanes of all VGPRs that are inactive at the call site" are preserved) come from scratch,
        # active lanes are clobbered unless the VGPR is callee-saved. "active": a callee-saved VGPR's active
        # lanes come from scratch, the others never changed. "all": every lane from scratch.
        memory = [("DW_OP_LLVM_offset_uconst", k * wave)]
        live = [("DW_OP_regx", _vgpr(vg, wave))]
        mask = [("DW_OP_LLVM_call_frame_entry_reg", exec_reg), ("DW_OP_deref_size", wave // 8),
                ("DW_OP_LLVM_select_bit_piece", 32, wave)]
        if kind == "all":
            ops = memory
        elif kind == "active":
            ops = [("DW_OP_regx", _vgpr(vg, wave)), ("DW_OP_swap",)] + memory + mask
        else:
            one = live if _callee_saved_vgpr(vg) else [("DW_OP_LLVM_undefined",)]
            ops = memory + one + mask
        rules[_vgpr(vg, wave)] = RegisterRule(EXPRESSION, expression=encode(ops))
    return Row(func.address, func.address + func.size, cfa, rules), st.notes


# --------------------------------------------------------------------------- frames


class FrameContext(BaseContext):
    """The registers and memory of one frame, as a `Context` for the expression evaluator.

    Frame 0 reads the target directly. An outer frame reads register R through the rule its callee's row
    gives R (same value -> the callee's register, offset -> memory at CFA+N, expression -> the location the
    expression computes in the callee's context...). Memory is shared by all frames.
    """

    def __init__(self, target: Context, *, callee: FrameContext | None = None, callee_row: Row | None = None,
                 encoding: Encoding = Encoding.LLVM_USER) -> None:
        self.target = target
        self.wave_size = target.wave_size
        self.apertures: Apertures = getattr(target, "apertures", Apertures())
        self.callee = callee
        self.callee_row = callee_row  # rules that give this frame's registers (None for frame 0)
        self.row: Row | None = None  # this frame's own row (for its CFA and call_frame_entry_reg)
        self.cfa: Location | None = None
        self.encoding = encoding
        self.frame_base_location: Location | None = None
        self._locations: dict[int, Location | None] = {}

    # -- registers
    def register_location(self, number: int) -> Location | None:
        """Where this frame's register lives in the callee (None: same value, read the callee's register)."""
        if self.callee is None or self.callee_row is None:
            return None
        if number not in self._locations:
            self._locations[number] = self.callee.rule_location(number, self.callee_row)
        return self._locations[number]

    def read_register(self, number: int, *, lane: int | None = None) -> int:
        if self.callee is None:
            return self.target.read_register(number, lane=lane)
        loc = self.register_location(number)
        if loc is None:
            return self.callee.read_register(number, lane=lane)
        info = register_info(number)
        if info is None:
            raise EvaluationError(f"DWARF register {number} is not an AMDGPU register")
        if info.is_vector:
            if lane is None:
                raise EvaluationError(f"{info.name} read without a lane")
            return read_bits(self.callee, loc.offset_bits(32 * lane) if lane else loc, 32, lane=lane)
        return read_bits(self.callee, loc, info.bits, lane=lane)

    def read_memory(self, space: AddressSpace, address: int, size: int, *, lane: int | None = None) -> bytes:
        return self.target.read_memory(space, address, size, lane=lane)

    # -- what expressions evaluated in this frame may ask
    def call_frame_cfa(self) -> Location:
        if self.cfa is None:
            raise NotSupported("DW_OP_call_frame_cfa in a frame without a CFA")
        return self.cfa

    def frame_base(self) -> Location:
        if self.frame_base_location is None:
            return super().frame_base()
        return self.frame_base_location

    def entry_value(self, expression: bytes):
        """`DW_OP_entry_value(DW_OP_regx R)` / `(DW_OP_bregx R, 0; DW_OP_deref...)`: the value R had on entry
        to this frame's subprogram, read through the same rule as `call_frame_entry_reg`. Other blocks are
        not supported (they would need the caller's full evaluation context)."""
        from amddbg.dwarf.expr.location import Value
        from amddbg.dwarf.expr.ops import decode

        ops = decode(expression, encoding=self.encoding)
        if len(ops) == 1 and (ops[0].name == "DW_OP_regx" or ops[0].name.startswith("DW_OP_reg")):
            number = ops[0].operands[0] if ops[0].name == "DW_OP_regx" else int(ops[0].name[9:])
            info = register_info(number)
            if info is None or info.is_vector:
                raise NotSupported("DW_OP_entry_value of a vector register")
            return Value(read_bits(self, self.entry_register(number), info.bits))
        raise NotSupported("DW_OP_entry_value of anything but a scalar register")

    def use_abi_frame_base(self, register: int, *, swizzled_stack: bool) -> Location:
        """Frame base for producers that say only `DW_AT_frame_base: DW_OP_regx SGPR33` (upstream clang).

        USAGE: "DW_AT_frame_base will be defined as the swizzled address in the swizzled private address
        space by dividing the CFA by the wavefront size"; on architected-flat-scratch targets SP/FP already
        hold per-lane (swizzled) offsets. The result is a private_lane location, and `DW_OP_fbreg N` then
        stays in private_lane (EXT: fbreg = frame base + DW_OP_LLVM_offset_uconst N).
        """
        value = self.read_register(register) & 0xFFFFFFFF
        if not swizzled_stack:
            value //= self.wave_size
        self.frame_base_location = Location.memory(AddressSpace.PRIVATE_LANE, value)
        return self.frame_base_location

    def entry_register(self, number: int) -> Location:
        """`DW_OP_LLVM_call_frame_entry_reg`: the location of `number` on entry to this frame's subprogram,
        i.e. the rule this frame's own row gives it (same value -> the register itself)."""
        if self.row is None:
            raise NotSupported("DW_OP_LLVM_call_frame_entry_reg without a CFI row")
        loc = self.rule_location(number, self.row)
        return loc if loc is not None else Location.register(number)

    def rule_location(self, number: int, row: Row) -> Location | None:
        """Evaluate `row`'s rule for register `number` in this (callee) frame. None means same value."""
        rule = row.rule(number)
        k = rule.kind
        if k == SAME_VALUE:
            return None
        if k == UNDEFINED:
            return Location.undefined()
        if k == REGISTER:
            return Location.register(rule.register)
        cfa = self.call_frame_cfa()
        if k == OFFSET:
            return cfa.offset_bits(rule.offset * 8)
        if k == VAL_OFFSET:
            space, addr = cfa.address()
            info = register_info(number)
            size = (info.bits if info else 64) // 8
            return Location.implicit(((addr + rule.offset) & ((1 << (8 * size)) - 1)).to_bytes(size, "little"))
        ev = Evaluator(self, encoding=self.encoding, cfi=True, initial_stack=[cfa])
        ev.run(rule.expression)
        if k == EXPRESSION:
            return ev.result()
        if k == VAL_EXPRESSION:
            v = ev.value()
            info = register_info(number)
            size = (info.bits if info else 64) // 8
            return Location.implicit((v.bits & ((1 << (8 * size)) - 1)).to_bytes(size, "little"))
        raise EvaluationError(f"unknown register rule {k}")

    def compute_cfa(self, row: Row) -> Location:
        rule = row.cfa
        if rule.is_expression:
            loc = Evaluator(self, encoding=self.encoding, cfi=True).run(rule.expression).result()
            s = loc.singles[0] if loc.singles else None
            if s is None or not isinstance(s.storage, Memory):
                raise EvaluationError("DW_CFA_def_cfa_expression did not give a memory location")
            return loc
        if rule.register is None:
            raise EvaluationError("CFI row has no CFA rule")
        info = register_info(rule.register)
        value = self.read_register(rule.register) & ((1 << min(info.bits if info else 64, 64)) - 1)
        space = dwarf_aspace(rule.aspace)
        return Location.memory(space, value + rule.offset)


@dataclass
class Frame:
    index: int
    pc: int
    function: Function | None
    method: Method  # how this frame's registers were obtained
    context: FrameContext
    cfa: Location | None = None
    rules_from: str = ""  # "cfi" / "abi" / "abi-kernel": how this frame's own row (to unwind it) was made
    outermost: bool = False
    stop_reason: str = ""  # why unwinding stopped after this frame, if it did
    notes: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.function.name if self.function else "??"

    def __str__(self) -> str:
        cfa = f" cfa={self.cfa}" if self.cfa is not None else ""
        return f"#{self.index} {self.pc:#x} in {self.name} [{self.method}]{cfa}"


def _has_rules(sec: FrameSection, fde: FDE) -> bool:
    rows = compute_rows(sec, fde)
    return any(r.cfa.register is not None or r.cfa.is_expression or r.rules for r in rows)


def _row_for(code: CodeInfo, func: Function | None, pc: int, lookup_pc: int,
             prefer_cfi: bool) -> tuple[Row, str, list[str]]:
    found = code.fde_at(lookup_pc) if prefer_cfi else None
    if found is not None and _has_rules(*found):
        sec, fde = found
        rel = lookup_pc - code.bias
        for row in compute_rows(sec, fde):
            if row.address <= rel < row.end:
                return row, "cfi", []
    if func is None:
        raise NotSupported(f"unwinding from {pc:#x}: no function covers it and no CFI describes it")
    row, notes = abi_row(code, func, pc)
    return row, ("abi-kernel" if func.is_kernel else "abi"), notes


def unwind(target: Context, code: CodeInfo, *, pc: int | None = None, max_frames: int = 64,
           prefer_cfi: bool = True) -> list[Frame]:
    """The call stack of one wave. `target` gives frame 0's registers (PC_64 = 16 unless `pc` is given).

    Stops at an undefined return address (kernel entry / CFI `DW_CFA_undefined PC`), at a PC outside the
    code object, or when a rule cannot be evaluated (the last frame says why).
    """
    return list(iter_frames(target, code, pc=pc, max_frames=max_frames, prefer_cfi=prefer_cfi))


def iter_frames(target: Context, code: CodeInfo, *, pc: int | None = None, max_frames: int = 64,
                prefer_cfi: bool = True) -> Iterator[Frame]:
    encoding = encoding_for(augmentation=code.augmentation)
    ctx = FrameContext(target, encoding=encoding)
    if pc is None:
        pc = target.read_register(PC_64)
    method = Method.CONTEXT
    seen: set[tuple[int, int]] = set()
    for index in range(max_frames):
        lookup = pc if index == 0 else pc - 1  # a return address points after the call (manual: subtract 1)
        func = code.function_at(lookup)
        frame = Frame(index, pc, func, method, ctx)
        try:
            row, how, notes = _row_for(code, func, pc, lookup, prefer_cfi)
            frame.rules_from, frame.notes = how, notes
            ctx.row = row
            ctx.cfa = frame.cfa = ctx.compute_cfa(row)
            ret = row.rule(PC_64)
            if ret.kind == UNDEFINED:
                frame.outermost = True
                frame.stop_reason = "return address undefined (outermost frame)"
                yield frame
                return
            caller = FrameContext(target, callee=ctx, callee_row=row, encoding=encoding)
            caller_pc = caller.read_register(PC_64)
        except (AmddbgError, UndefinedLocation) as exc:
            frame.stop_reason = f"cannot unwind further: {exc}"
            yield frame
            return
        yield frame
        key = (caller_pc, _cfa_key(frame.cfa))
        if key in seen:
            return
        seen.add(key)
        if code.function_at(caller_pc - 1) is None:
            last = Frame(index + 1, caller_pc, None, Method(how) if how != "abi-kernel" else Method.ABI_KERNEL,
                         caller, stop_reason=f"return address {caller_pc:#x} is outside the code object")
            yield last
            return
        ctx, pc = caller, caller_pc
        method = Method.CFI if how == "cfi" else Method.ABI


def _cfa_key(loc: Location | None) -> tuple:
    if loc is None or not loc.singles:
        return ()
    s = loc.singles[0]
    st = s.storage
    if isinstance(st, Memory):
        return (st.space.value, s.bit_offset)
    if isinstance(st, Register):
        return ("reg", st.number, s.bit_offset)
    return (type(st).__name__, s.bit_offset)


def frames_text(frames: Sequence[Frame]) -> str:
    return "\n".join(str(f) + (f"  ({f.stop_reason})" if f.stop_reason else "") for f in frames)


@dataclass(frozen=True)
class LaneFrame:
    """One frame as a single lane sees it: the frame and the lane's program location in it."""

    frame: Frame
    pc: int
    state: str  # LaneState value: active / divergent / inactive-at-wave-pc


def frames_for_lane(frames: Sequence[Frame], lane: int, lane_pcs_of) -> list[LaneFrame]:
    """The call stack of one lane (innermost first).

    `lane_pcs_of(frame)` returns that frame's `LanePC` list (from `amddbg.dwarf.expr.lane_pcs`, evaluated
    with the subprogram's DW_AT_LLVM_lane_pc / DW_AT_LLVM_active_lane). USAGE: "Conceptually the lane only
    has the call frames that it has a non-undefined DW_AT_LLVM_lane_pc" - frames where the lane was not
    active on entry are dropped; the lane's PC in a frame is its lane PC.
    """
    from amddbg.dwarf.expr.lanes import LaneState

    out = []
    for frame in frames:
        info = lane_pcs_of(frame)[lane]
        if info.state is LaneState.NOT_IN_FRAME or info.pc is None:
            continue
        out.append(LaneFrame(frame, info.pc, info.state.value))
    return out
