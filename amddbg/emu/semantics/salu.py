"""Scalar ALU, program control and synchronisation: SOP1/SOP2/SOPK/SOPC/SOPP.

Semantics follow the AMD ISA manuals (SCC results, 64-bit forms, saveexec families). Names of both
generations are registered (``s_andn2_b64`` / GFX11's ``s_and_not1_b64``).
"""

from __future__ import annotations

from amddbg.emu.errors import ModeSwitch, Unsupported, WaveStop
from amddbg.emu.operands import M32, M64, read_scalar, write_scalar
from amddbg.emu.semantics import fp_errstate, semantic

# MODE.GPR_IDX_EN (bit 27, GFX9): set by s_set_gpr_idx_on, cleared by s_set_gpr_idx_off; amddbg.emu.gpr_index reads
# it to pick the renumbered plan table (defined here, beside the instructions, so that module imports this one).
GPR_IDX_EN = 1 << 27

# ---------------------------------------------------------------------------------------------- helpers


def _bits(mn: str) -> int:
    return 64 if mn.endswith("64") else 32


def _sx(v: int, bits: int) -> int:
    return v - (1 << bits) if v >> (bits - 1) & 1 else v


def _ops(insn):
    return insn.operands


def _src(ctx, insn, i: int, bits: int) -> int:
    # a 32-bit literal is sign-extended only for a signed 64-bit operand (s_ashr_i64, s_bfe_i64), else zero-extended
    return read_scalar(ctx.wave, insn.operands[i], bits, "s" if bits == 64 and "_i64" in insn.mnemonic else "i")


def _dst(ctx, insn, value: int, bits: int) -> None:
    write_scalar(ctx.wave, insn.operands[0], value, bits)


# ---------------------------------------------------------------------------------------------- SOP2 logic

_LOGIC = {
    "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
    "andn2": lambda a, b: a & ~b, "orn2": lambda a, b: a | ~b, "nand": lambda a, b: ~(a & b),
    "nor": lambda a, b: ~(a | b), "xnor": lambda a, b: ~(a ^ b),
    "and_not1": lambda a, b: a & ~b, "or_not1": lambda a, b: a | ~b,
}


def _logic(op):
    def run(ctx, insn):
        bits = _bits(insn.mnemonic)
        mask = (1 << bits) - 1
        r = _LOGIC[op](_src(ctx, insn, 1, bits), _src(ctx, insn, 2, bits)) & mask
        _dst(ctx, insn, r, bits)
        ctx.wave.scc = int(r != 0)

    return run


for _op in _LOGIC:
    semantic(f"s_{_op}_b32", f"s_{_op}_b64")(_logic(_op))


@semantic("s_not_b32", "s_not_b64")
def s_not(ctx, insn):
    bits = _bits(insn.mnemonic)
    r = ~_src(ctx, insn, 1, bits) & ((1 << bits) - 1)
    _dst(ctx, insn, r, bits)
    ctx.wave.scc = int(r != 0)


# ---------------------------------------------------------------------------------------------- saveexec

_SAVEEXEC = {
    "and": lambda s, e: s & e, "or": lambda s, e: s | e, "xor": lambda s, e: s ^ e,
    "andn2": lambda s, e: s & ~e, "orn2": lambda s, e: s | ~e, "nand": lambda s, e: ~(s & e),
    "nor": lambda s, e: ~(s | e), "xnor": lambda s, e: ~(s ^ e), "andn1": lambda s, e: ~s & e,
    "orn1": lambda s, e: ~s | e, "and_not1": lambda s, e: s & ~e, "or_not1": lambda s, e: s | ~e,
    "and_not0": lambda s, e: ~s & e, "or_not0": lambda s, e: ~s | e,
}


def _saveexec(op):
    def run(ctx, insn):
        w = ctx.wave
        bits = _bits(insn.mnemonic)
        mask = (1 << bits) - 1
        old = w.exec & mask
        src = _src(ctx, insn, 1, bits)
        new = _SAVEEXEC[op](src, old) & mask
        _dst(ctx, insn, old, bits)
        set_exec_scc(w, new, bits)

    return run


def set_exec_scc(w, new: int, bits: int) -> None:
    """A saveexec's new EXEC (a b32 form writes EXEC_LO) and SCC = (new EXEC != 0); fastpath's closures too."""
    if bits == 32:
        w.exec = ((w.exec & ~M32) | new) & w.mask
    else:
        w.exec = new & w.mask
    w.scc = int(new != 0)


for _op in _SAVEEXEC:
    semantic(f"s_{_op}_saveexec_b32", f"s_{_op}_saveexec_b64")(_saveexec(_op))
    semantic(f"s_{_op}_wrexec_b32", f"s_{_op}_wrexec_b64")(_saveexec(_op))


# ---------------------------------------------------------------------------------------------- moves


@semantic("s_mov_b32", "s_mov_b64", "s_movk_i32", "s_mov_fed_b32")
def s_mov(ctx, insn):
    bits = _bits(insn.mnemonic) if "movk" not in insn.mnemonic else 32
    v = _src(ctx, insn, 1, bits)
    if insn.mnemonic == "s_movk_i32":
        v = _sx(v & 0xFFFF, 16) & M32
    _dst(ctx, insn, v, bits)


@semantic("s_cmov_b32", "s_cmov_b64", "s_cmovk_i32")
def s_cmov(ctx, insn):
    if ctx.wave.scc:
        bits = _bits(insn.mnemonic) if "cmovk" not in insn.mnemonic else 32
        v = _src(ctx, insn, 1, bits)
        if insn.mnemonic == "s_cmovk_i32":
            v = _sx(v & 0xFFFF, 16) & M32
        _dst(ctx, insn, v, bits)


@semantic("s_cselect_b32", "s_cselect_b64")
def s_cselect(ctx, insn):
    bits = _bits(insn.mnemonic)
    _dst(ctx, insn, _src(ctx, insn, 1 if ctx.wave.scc else 2, bits), bits)


# ---------------------------------------------------------------------------------------------- arithmetic


@semantic("s_add_u32", "s_add_co_u32")
def s_add_u32(ctx, insn):
    r = _src(ctx, insn, 1, 32) + _src(ctx, insn, 2, 32)
    _dst(ctx, insn, r, 32)
    ctx.wave.scc = int(r > M32)


@semantic("s_addc_u32", "s_add_co_ci_u32")
def s_addc_u32(ctx, insn):
    r = _src(ctx, insn, 1, 32) + _src(ctx, insn, 2, 32) + ctx.wave.scc
    _dst(ctx, insn, r, 32)
    ctx.wave.scc = int(r > M32)


@semantic("s_sub_u32", "s_sub_co_u32")
def s_sub_u32(ctx, insn):
    a, b = _src(ctx, insn, 1, 32), _src(ctx, insn, 2, 32)
    _dst(ctx, insn, a - b, 32)
    ctx.wave.scc = int(b > a)


@semantic("s_subb_u32", "s_sub_co_ci_u32")
def s_subb_u32(ctx, insn):
    a, b = _src(ctx, insn, 1, 32), _src(ctx, insn, 2, 32)
    c = ctx.wave.scc
    _dst(ctx, insn, a - b - c, 32)
    ctx.wave.scc = int(b + c > a)


@semantic("s_add_i32", "s_add_co_i32")
def s_add_i32(ctx, insn):
    a, b = _sx(_src(ctx, insn, 1, 32), 32), _sx(_src(ctx, insn, 2, 32), 32)
    r = a + b
    _dst(ctx, insn, r & M32, 32)
    ctx.wave.scc = int(not -(1 << 31) <= r < (1 << 31))


@semantic("s_sub_i32", "s_sub_co_i32")
def s_sub_i32(ctx, insn):
    a, b = _sx(_src(ctx, insn, 1, 32), 32), _sx(_src(ctx, insn, 2, 32), 32)
    r = a - b
    _dst(ctx, insn, r & M32, 32)
    ctx.wave.scc = int(not -(1 << 31) <= r < (1 << 31))


@semantic("s_add_u64", "s_sub_u64", "s_add_nc_u64", "s_sub_nc_u64")
def s_addsub_u64(ctx, insn):
    a, b = _src(ctx, insn, 1, 64), _src(ctx, insn, 2, 64)
    _dst(ctx, insn, (a + b if "add" in insn.mnemonic else a - b) & M64, 64)


@semantic("s_addk_i32", "s_addk_co_i32")
def s_addk(ctx, insn):
    a = _sx(_src(ctx, insn, 0, 32), 32)
    k = _sx(int(insn.operands[1].value) & 0xFFFF, 16)
    r = a + k
    _dst(ctx, insn, r & M32, 32)
    ctx.wave.scc = int(not -(1 << 31) <= r < (1 << 31))


@semantic("s_mulk_i32")
def s_mulk(ctx, insn):
    a = _sx(_src(ctx, insn, 0, 32), 32)
    k = _sx(int(insn.operands[1].value) & 0xFFFF, 16)
    _dst(ctx, insn, (a * k) & M32, 32)


@semantic("s_mul_i32", "s_mul_u64")
def s_mul_i32(ctx, insn):
    bits = 64 if insn.mnemonic.endswith("64") else 32
    _dst(ctx, insn, _src(ctx, insn, 1, bits) * _src(ctx, insn, 2, bits), bits)


@semantic("s_mul_hi_u32")
def s_mul_hi_u32(ctx, insn):
    _dst(ctx, insn, (_src(ctx, insn, 1, 32) * _src(ctx, insn, 2, 32)) >> 32, 32)


@semantic("s_mul_hi_i32")
def s_mul_hi_i32(ctx, insn):
    r = _sx(_src(ctx, insn, 1, 32), 32) * _sx(_src(ctx, insn, 2, 32), 32)
    _dst(ctx, insn, (r >> 32) & M32, 32)


@semantic("s_min_i32", "s_max_i32", "s_min_u32", "s_max_u32")
def s_minmax(ctx, insn):
    a, b = _src(ctx, insn, 1, 32), _src(ctx, insn, 2, 32)
    signed = insn.mnemonic.endswith("i32")
    ka, kb = (_sx(a, 32), _sx(b, 32)) if signed else (a, b)
    first = ka < kb if "min" in insn.mnemonic else ka > kb
    _dst(ctx, insn, a if first else b, 32)
    ctx.wave.scc = int(first)


@semantic("s_abs_i32")
def s_abs(ctx, insn):
    r = abs(_sx(_src(ctx, insn, 1, 32), 32)) & M32
    _dst(ctx, insn, r, 32)
    ctx.wave.scc = int(r != 0)


@semantic("s_absdiff_i32")
def s_absdiff(ctx, insn):
    r = abs(_sx(_src(ctx, insn, 1, 32), 32) - _sx(_src(ctx, insn, 2, 32), 32)) & M32
    _dst(ctx, insn, r, 32)
    ctx.wave.scc = int(r != 0)


# ---------------------------------------------------------------------------------------------- shifts, bits


@semantic("s_lshl_b32", "s_lshl_b64", "s_lshr_b32", "s_lshr_b64", "s_ashr_i32", "s_ashr_i64")
def s_shift(ctx, insn):
    bits = _bits(insn.mnemonic)
    a = _src(ctx, insn, 1, bits)
    n = _src(ctx, insn, 2, 32) & (bits - 1)
    mn = insn.mnemonic
    if mn.startswith("s_lshl"):
        r = a << n
    elif mn.startswith("s_lshr"):
        r = a >> n
    else:
        r = _sx(a, bits) >> n
    r &= (1 << bits) - 1
    _dst(ctx, insn, r, bits)
    ctx.wave.scc = int(r != 0)


@semantic("s_lshl1_add_u32", "s_lshl2_add_u32", "s_lshl3_add_u32", "s_lshl4_add_u32")
def s_lshl_add(ctx, insn):
    n = int(insn.mnemonic[6])
    r = (_src(ctx, insn, 1, 32) << n) + _src(ctx, insn, 2, 32)
    _dst(ctx, insn, r, 32)
    ctx.wave.scc = int(r > M32)


@semantic("s_bfe_u32", "s_bfe_i32", "s_bfe_u64", "s_bfe_i64")
def s_bfe(ctx, insn):
    bits = _bits(insn.mnemonic)
    a = _src(ctx, insn, 1, bits)
    spec = _src(ctx, insn, 2, 32)
    off, width = spec & (bits - 1), (spec >> 16) & 0x7F
    r = (a >> off) & ((1 << width) - 1) if width else 0
    if "_i" in insn.mnemonic and width and r >> (width - 1) & 1:
        r -= 1 << width
    r &= (1 << bits) - 1
    _dst(ctx, insn, r, bits)
    ctx.wave.scc = int(r != 0)


@semantic("s_bfm_b32", "s_bfm_b64")
def s_bfm(ctx, insn):
    bits = _bits(insn.mnemonic)
    width = _src(ctx, insn, 1, 32) & (bits - 1)
    off = _src(ctx, insn, 2, 32) & (bits - 1)
    _dst(ctx, insn, (((1 << width) - 1) << off) & ((1 << bits) - 1), bits)


@semantic("s_brev_b32", "s_brev_b64")
def s_brev(ctx, insn):
    bits = _bits(insn.mnemonic)
    a = _src(ctx, insn, 1, bits)
    _dst(ctx, insn, int(f"{a:0{bits}b}"[::-1], 2), bits)


@semantic("s_bcnt1_i32_b32", "s_bcnt1_i32_b64", "s_bcnt0_i32_b32", "s_bcnt0_i32_b64")
def s_bcnt(ctx, insn):
    bits = _bits(insn.mnemonic)
    a = _src(ctx, insn, 1, bits)
    r = bin(a).count("1") if "bcnt1" in insn.mnemonic else bits - bin(a).count("1")
    _dst(ctx, insn, r, 32)
    ctx.wave.scc = int(r != 0)


@semantic("s_ff1_i32_b32", "s_ff1_i32_b64", "s_ctz_i32_b32", "s_ctz_i32_b64")
def s_ff1(ctx, insn):
    bits = _bits(insn.mnemonic)
    a = _src(ctx, insn, 1, bits)
    _dst(ctx, insn, ((a & -a).bit_length() - 1) & M32 if a else M32, 32)


@semantic("s_flbit_i32_b32", "s_flbit_i32_b64", "s_clz_i32_u32", "s_clz_i32_u64")
def s_flbit(ctx, insn):
    bits = _bits(insn.mnemonic)
    a = _src(ctx, insn, 1, bits)
    _dst(ctx, insn, bits - a.bit_length() if a else M32, 32)


@semantic("s_flbit_i32", "s_cls_i32")
def s_flbit_i32(ctx, insn):
    a = _src(ctx, insn, 1, 32)
    if a in (0, M32):
        _dst(ctx, insn, M32, 32)
        return
    s = a >> 31
    n = 0
    for i in range(31, -1, -1):
        if (a >> i & 1) != s:
            break
        n += 1
    _dst(ctx, insn, n, 32)


@semantic("s_sext_i32_i8", "s_sext_i32_i16")
def s_sext(ctx, insn):
    width = 8 if insn.mnemonic.endswith("i8") else 16
    a = _src(ctx, insn, 1, 32) & ((1 << width) - 1)
    _dst(ctx, insn, _sx(a, width) & M32, 32)


@semantic("s_bitset0_b32", "s_bitset0_b64", "s_bitset1_b32", "s_bitset1_b64")
def s_bitset(ctx, insn):
    bits = _bits(insn.mnemonic)
    cur = read_scalar(ctx.wave, insn.operands[0], bits)
    n = _src(ctx, insn, 1, 32) & (bits - 1)
    _dst(ctx, insn, cur | (1 << n) if "bitset1" in insn.mnemonic else cur & ~(1 << n), bits)


@semantic("s_pack_ll_b32_b16", "s_pack_lh_b32_b16", "s_pack_hh_b32_b16", "s_pack_hl_b32_b16")
def s_pack(ctx, insn):
    a, b = _src(ctx, insn, 1, 32), _src(ctx, insn, 2, 32)
    sel = insn.mnemonic[7:9]
    lo = (a & 0xFFFF) if sel[0] == "l" else a >> 16
    hi = (b & 0xFFFF) if sel[1] == "l" else b >> 16
    _dst(ctx, insn, lo | hi << 16, 32)


# ---------------------------------------------------------------------------------------------- compares

_CMP = {"eq": lambda a, b: a == b, "lg": lambda a, b: a != b, "ne": lambda a, b: a != b,
        "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b, "lt": lambda a, b: a < b, "le": lambda a, b: a <= b}


def _scmp(op, typ):
    def run(ctx, insn):
        bits = 64 if typ.endswith("64") else 32
        a, b = _src(ctx, insn, 0, bits), _src(ctx, insn, 1, bits)
        if typ.startswith("i"):
            a, b = _sx(a, bits), _sx(b, bits)
        ctx.wave.scc = int(_CMP[op](a, b))

    return run


for _op in _CMP:
    for _t in ("i32", "u32", "u64", "i64"):
        semantic(f"s_cmp_{_op}_{_t}")(_scmp(_op, _t))


def _scmpk(op, typ):
    def run(ctx, insn):
        a = _src(ctx, insn, 0, 32)
        k = int(insn.operands[1].value) & 0xFFFF
        if typ == "i32":
            a, k = _sx(a, 32), _sx(k, 16)
        ctx.wave.scc = int(_CMP[op](a, k))

    return run


for _op in _CMP:
    for _t in ("i32", "u32"):
        semantic(f"s_cmpk_{_op}_{_t}")(_scmpk(_op, _t))

# GFX12 SALU float compares (SOPC): SCC = the IEEE comparison, false when unordered except for the negated
# (`n*`) forms, `o` ordered and `u` unordered; -0 == +0
_FCMP = {"lt": lambda a, b: a < b, "eq": lambda a, b: a == b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b,
         "lg": lambda a, b: a < b or a > b, "ge": lambda a, b: a >= b, "o": lambda a, b: a == a and b == b}


def _scmp_f(op, typ):
    import numpy as np

    def run(ctx, insn):
        ua, ub = _src(ctx, insn, 0, 32), _src(ctx, insn, 1, 32)
        if typ == "f16":
            a, b = (float(np.uint16(u & 0xFFFF).view(np.float16)) for u in (ua, ub))
        else:
            a, b = (float(np.uint32(u).view(np.float32)) for u in (ua, ub))
        if op == "u":
            r = a != a or b != b
        elif op.startswith("n"):
            r = not _FCMP["eq" if op == "neq" else op[1:]](a, b)
        else:
            r = _FCMP[op](a, b)
        ctx.wave.scc = int(r)

    return run


for _op in (*_FCMP, "u", "nge", "nlg", "ngt", "nle", "neq", "nlt"):
    for _t in ("f32", "f16"):
        semantic(f"s_cmp_{_op}_{_t}")(_scmp_f(_op, _t))


@semantic("s_bitcmp0_b32", "s_bitcmp1_b32", "s_bitcmp0_b64", "s_bitcmp1_b64")
def s_bitcmp(ctx, insn):
    bits = _bits(insn.mnemonic)
    a = _src(ctx, insn, 0, bits)
    n = _src(ctx, insn, 1, 32) & (bits - 1)
    ctx.wave.scc = int((a >> n & 1) == (1 if "bitcmp1" in insn.mnemonic else 0))


# ---------------------------------------------------------------------------------------------- program control


@semantic("s_nop", "s_setprio", "s_inst_prefetch", "s_delay_alu", "s_clause", "s_waitcnt_depctr", "s_icache_inv",
          "s_dcache_wb", "s_ttracedata", "s_code_end", "s_set_inst_prefetch_distance",
          "s_singleuse_vdst", "s_prefetch_inst", "s_version", "s_denorm_mode", "s_round_mode")
def s_nop(ctx, insn):
    return None


@semantic("s_endpgm")
def s_endpgm(ctx, insn):
    raise WaveStop("ended", "s_endpgm")


@semantic("s_branch")
def s_branch(ctx, insn):
    ctx.next_pc = insn.branch_target


def _cbranch(cond):
    def run(ctx, insn):
        if cond(ctx.wave):
            ctx.next_pc = insn.branch_target

    return run


semantic("s_cbranch_scc0")(_cbranch(lambda w: w.scc == 0))
semantic("s_cbranch_scc1")(_cbranch(lambda w: w.scc == 1))
semantic("s_cbranch_vccz")(_cbranch(lambda w: w.vcc & w.mask == 0))
semantic("s_cbranch_vccnz")(_cbranch(lambda w: w.vcc & w.mask != 0))
semantic("s_cbranch_execz")(_cbranch(lambda w: w.exec == 0))
semantic("s_cbranch_execnz")(_cbranch(lambda w: w.exec != 0))


@semantic("s_getpc_b64")
def s_getpc(ctx, insn):
    _dst(ctx, insn, insn.address + insn.size, 64)


@semantic("s_setpc_b64")
def s_setpc(ctx, insn):
    ctx.next_pc = read_scalar(ctx.wave, insn.operands[0], 64)


@semantic("s_swappc_b64")
def s_swappc(ctx, insn):
    target = read_scalar(ctx.wave, insn.operands[1], 64)
    _dst(ctx, insn, insn.address + insn.size, 64)
    ctx.next_pc = target


@semantic("s_call_b64")
def s_call(ctx, insn):
    _dst(ctx, insn, insn.address + insn.size, 64)
    ctx.next_pc = insn.branch_target


@semantic("s_trap")
def s_trap(ctx, insn):
    """Enter the trap handler with the trap id (1 breakpoint, 2 assert/`llvm.trap`, 3 `llvm.debugtrap`); the
    handler (`enter_trap_handler`) records it and halts the wave, as ROCm's does with a debugger attached."""
    w = ctx.wave
    tid = int(insn.operands[0].value or 0) if insn.operands else 0
    w.trap_id = tid
    names = {1: "breakpoint", 2: "assert_trap", 3: "debug_trap"}
    raise WaveStop("trapped", f"s_trap {tid} ({names.get(tid, 'trap')})")


# Trap temporaries and status bits as ROCm's trap handler (ROCr trap_handler_v2, r_version 10) and the SPI
# leave them, in the layout amd-dbgapi reads (docs: core-file-format.md, "TTMP conventions").
STATUS_EXECZ, STATUS_VCCZ, STATUS_HALT, STATUS_SKIP_EXPORT = 1 << 9, 1 << 10, 1 << 13, 1 << 18
TRAPSTS_XNACK_ERROR = 1 << 28  # a page fault (amd-dbgapi: memory_violation); MEM_VIOL (bit 8) is an aperture one
EXCP_FLAG_PRIV_XNACK_ERROR = 1 << 12  # GFX12 has no TRAPSTS: its EXCP_FLAG_PRIV says the same
TTMP6_SAVED_HALT, TTMP6_STOPPED = 1 << 29, 1 << 30
TTMP11_DEBUG_ENABLED = 1 << 23
PACKET_INDEX = 0  # the emulator's dispatch packet is the first of its queue's ring


def _parks(processor: str, family: str) -> bool:
    """Architectures whose trap handler parks a stopped wave (saves its PC in TTMPs): gfx900-90a, gfx1010-1012,
    GFX11 and GFX12 (r_version > 8); not gfx94x/gfx950 nor gfx1030-1036."""
    if family == "gfx9":
        return not processor.startswith(("gfx94", "gfx95"))
    if family == "gfx10":
        return processor.startswith("gfx101")
    return True


def wave_status(w, *, halted: bool) -> int:
    """The STATUS register the context save area would hold: SCC, EXECZ, VCCZ, and HALT for a halted wave
    (the trap handler's, or the debugger's when it stops every wave to write a core)."""
    st = (w.status & ~(1 | STATUS_EXECZ | STATUS_VCCZ)) | (w.scc & 1)
    if w.exec == 0:
        st |= STATUS_EXECZ
    if w.vcc & w.mask == 0:
        st |= STATUS_VCCZ
    return st | STATUS_HALT if halted else st


def enter_trap_handler(machine, w, state: str) -> None:
    """What the hardware and ROCm's trap handler leave in a wave that trapped (`s_trap`) or faulted.

    s_trap: the hardware saves the PC of the s_trap; the handler (r_version < 12) advances it past the
    4-byte s_trap, saves the trap id (at most 15) and STATUS.HALT in ttmp6, marks the wave stopped
    (ttmp6[30]) and halts it (STATUS.HALT, STATUS.SKIP_EXPORT except on gfx94x). A memory violation (a
    page fault) sets TRAPSTS.XNACK_ERROR (GFX12: EXCP_FLAG_PRIV) and stops the wave at the faulting
    instruction. The SPI's TTMPs (packet index, workgroup ids, wave in group, debug enabled) are filled
    as at launch; parking architectures keep the stopped PC in ttmp7/ttmp11 (GFX12: ttmp10/ttmp11)."""
    fam, proc = machine.family, machine.processor
    t = w.ttmp
    trap_id = 0
    if state == "trapped":
        trap_id = min(w.trap_id or 0, 15)
        w.pc += 4
    else:
        if fam == "gfx12":
            w.excp_flag_priv = getattr(w, "excp_flag_priv", 0) | EXCP_FLAG_PRIV_XNACK_ERROR
        else:
            w.trapsts |= TRAPSTS_XNACK_ERROR
    x, y, z = w.workgroup
    gfx94 = proc.startswith(("gfx94", "gfx95"))
    if fam == "gfx12":
        t[7] = (y & 0xFFFF) | (z & 0xFFFF) << 16
        t[8] = PACKET_INDEX | (w.wave_in_group & 0x1F) << 25 | int(bool(y or z)) << 30 | 1 << 31
        t[9] = x
    else:
        t[8], t[9], t[10] = x, y, z
        if gfx94:
            t[11] = 1 << 31 | PACKET_INDEX << 6 | (w.wave_in_group & 0x3F)
            t[13] |= TTMP11_DEBUG_ENABLED
        else:
            t[6] = (t[6] & ~0x1FFFFFF) | PACKET_INDEX
            t[11] = (t[11] & ~0x3F) | (w.wave_in_group & 0x3F) | TTMP11_DEBUG_ENABLED
    t[0], t[1] = w.pc & M32, (w.pc >> 32 & 0xFFFF) | trap_id << 16  # the PC (and trap id) the handler returns to
    t[6] = (t[6] & ~(0xF << 25 | TTMP6_SAVED_HALT | 1 << 31)) | trap_id << 25 | (
        TTMP6_SAVED_HALT if w.status & STATUS_HALT else 0) | TTMP6_STOPPED
    if _parks(proc, fam):
        lo = 10 if fam == "gfx12" else 7
        t[lo] = w.pc & M32
        t[11] = (t[11] & ~(0xFFFF << 7)) | (w.pc >> 32 & 0xFFFF) << 7
    w.status = wave_status(w, halted=True) | (0 if gfx94 or fam == "gfx12" else STATUS_SKIP_EXPORT)
    t[12] = w.status


@semantic("s_sleep", "s_sleep_var")
def s_sleep(ctx, insn):
    ctx.machine.sleep(ctx.wave, int(insn.operands[0].value or 0) if insn.operands else 0)


@semantic("s_barrier", "s_barrier_wait", "s_barrier_signal", "s_barrier_signal_isfirst", "s_barrier_init",
          "s_barrier_join", "s_barrier_leave")
def s_barrier(ctx, insn):
    """Barrier operations on the workgroup's barrier objects (amddbg/emu/barriers.py): GFX6-11 `s_barrier` is
    arrive-then-wait; GFX12 splits them (`s_barrier_signal[_isfirst]`, `s_barrier_wait`); GFX12.5 adds
    named barriers (`s_barrier_init`, `_join`, `_leave`)."""
    m, w, mn = ctx.machine, ctx.wave, insn.mnemonic
    if mn == "s_barrier":
        m.barrier_signal(w, insn)
        m.barrier_wait(w, insn)
    elif mn == "s_barrier_wait":
        m.barrier_wait(w, insn)
    elif mn in ("s_barrier_signal", "s_barrier_signal_isfirst"):
        m.barrier_signal(w, insn)
    elif mn == "s_barrier_init":
        m.barrier_init(w, insn)
    elif mn == "s_barrier_join":
        m.barrier_join(w, insn)
    else:
        m.barrier_leave(w, insn)


_ALL_COUNTERS = {"vmcnt": 0, "vscnt": 0, "lgkmcnt": 0, "expcnt": 0, "loadcnt": 0, "storecnt": 0, "dscnt": 0,
                 "kmcnt": 0, "samplecnt": 0, "bvhcnt": 0, "asynccnt": 0}


@semantic("s_waitcnt", "s_waitcnt_vscnt", "s_waitcnt_vmcnt", "s_waitcnt_lgkmcnt", "s_waitcnt_expcnt",
          "s_wait_loadcnt", "s_wait_storecnt", "s_wait_dscnt", "s_wait_kmcnt", "s_wait_expcnt", "s_wait_samplecnt",
          "s_wait_bvhcnt", "s_wait_loadcnt_dscnt", "s_wait_storecnt_dscnt", "s_wait_idle", "s_wait_xcnt",
          "s_wait_asynccnt", "s_wait_tensorcnt")
def s_waitcnt(ctx, insn):
    """Block until each named counter is at most its value (the wave issues this instruction again when the
    counters allow, so its PC stays on the wait while it is blocked)."""
    limits = _ALL_COUNTERS if insn.mnemonic == "s_wait_idle" else insn.waitcnt
    if limits is None:
        if insn.mnemonic.startswith("s_waitcnt_") and insn.operands and insn.operands[0].text != "null":
            raise Unsupported(f"{insn.text} (a count from an SGPR)", insn.address)
        raise Unsupported(insn.text, insn.address)
    if ctx.machine.wait_counters(ctx.wave, limits):
        ctx.next_pc = insn.address
    elif "asynccnt" in limits and getattr(ctx.wave, "async_lds", None):  # GFX12.5: the completed copies land
        from amddbg.emu.semantics.asynclds import land

        land(ctx.machine, ctx.wave, limits["asynccnt"])


@semantic(".long")
def undecoded(ctx, insn):
    """A word the decoder does not know. On GFX10+ an EXP-encoded word (bits 31:26 = 0b111110) is an export
    (`exp mrt0 ...`): a compute dispatch has no render targets to export to, so the wave stops naming it (gfx90a and
    gfx94x have no export instruction at all). `expcnt` waits are satisfied at once: no export is ever issued."""
    word = int(insn.operands[0].value or 0) if insn.operands else 0
    if ctx.wave.family in ("gfx10", "gfx11", "gfx12") and word >> 26 == 0x3E:
        raise Unsupported(f"exp (export, {insn.text}): no export targets in a compute dispatch", insn.address)
    raise Unsupported(insn.text, insn.address)


@semantic("s_wait_alu")
def s_wait_alu(ctx, insn):
    """Dependency-counter waits on ALU results: every ALU result is written when issued here."""
    return None


@semantic("s_getreg_b32")
def s_getreg(ctx, insn):
    # the GFX9 decoder lists the hwreg operand first and the SGPR destination second: find each by what it is
    hw = next((o for o in insn.operands if "hwreg" in o.text), None)
    text = hw.text if hw is not None else ""
    w = ctx.wave
    val = 0
    if "MODE" in text:
        val = w.mode
    elif "STATUS" in text:
        val = w.status
    elif "TRAPSTS" in text:
        val = w.trapsts
    elif "HW_ID" in text:
        val = w.wave_in_group
    elif "IB_STS2" in text:  # GFX12.5: bits 9:6 nonzero in a cluster dispatch, 24:21 the flat id in the cluster
        val = getattr(w, "ib_sts2", 0)
    elif "SHADER_CYCLES_HI" in text:  # GFX12: __builtin_readcyclecounter reads HI, LO, HI
        val = (ctx.machine.clock >> 32) & 0xFFFFFFFF
    elif "SHADER_CYCLES" in text:  # GFX10.3/GFX11: a 20-bit counter (the field); GFX12: SHADER_CYCLES_LO
        val = ctx.machine.clock & 0xFFFFFFFF  # the machine clock, as s_memtime reads it: a deadline poll ends
    m = _hwreg_field(text)
    if m is not None:
        off, size = m
        val = (val >> off) & ((1 << size) - 1)
    dst = next((o for o in insn.operands if o.is_dest), insn.operands[0])
    write_scalar(w, dst, val, 32)


def _hwreg_field(text: str):
    import re

    m = re.search(r"hwreg\(\s*\w+\s*,\s*(\d+)\s*,\s*(\d+)\s*\)", text)
    return (int(m.group(1)), int(m.group(2))) if m else None


@semantic("s_setreg_b32", "s_setreg_imm32_b32")
def s_setreg(ctx, insn):
    w = ctx.wave
    text = insn.operands[0].text
    src = read_scalar(w, insn.operands[1], 32)
    off, size = _hwreg_field(text) or (0, 32)
    mask = ((1 << size) - 1) << off
    if "MODE" in text:
        w.mode = (w.mode & ~mask) | ((src << off) & mask)
    elif "FLAT_SCR" in text:
        if "HI" in text:
            w.flat_scratch = (w.flat_scratch & M32) | (src & M32) << 32
        else:
            w.flat_scratch = (w.flat_scratch & ~M32) | (src & M32)


@semantic("s_sendmsg", "s_sendmsghalt")
def s_sendmsg(ctx, insn):
    return None  # MSG_DEALLOC_VGPRS and friends: no architectural effect a program can observe here


# -- GFX9 VGPR index mode (amddbg/emu/gpr_index.py): each ends the wave's turn, so its next turn reads the code
# through the new index and mode


@semantic("s_set_gpr_idx_on")
def s_set_gpr_idx_on(ctx, insn):
    """MODE.GPR_IDX_EN = 1, M0[7:0] = S0[7:0] (the index), M0[15:12] = the gpr_idx(...) operand set (bit 0 SRC0,
    1 SRC1, 2 SRC2, 3 DST); M0's other bits are kept."""
    w = ctx.wave
    idx = read_scalar(w, insn.operands[0]) & 0xFF
    modes = int(insn.operands[1].value or 0) & 0xF
    w.m0 = (w.m0 & ~0xF0FF & M32) | idx | modes << 12
    w.mode |= GPR_IDX_EN
    raise ModeSwitch()


@semantic("s_set_gpr_idx_off")
def s_set_gpr_idx_off(ctx, insn):
    ctx.wave.mode &= ~GPR_IDX_EN
    raise ModeSwitch()


@semantic("s_set_gpr_idx_idx")
def s_set_gpr_idx_idx(ctx, insn):
    w = ctx.wave
    w.m0 = (w.m0 & ~0xFF & M32) | read_scalar(w, insn.operands[0]) & 0xFF
    raise ModeSwitch()


@semantic("s_set_gpr_idx_mode")
def s_set_gpr_idx_mode(ctx, insn):
    w = ctx.wave
    w.m0 = (w.m0 & ~0xF000 & M32) | (int(insn.operands[0].value or 0) & 0xF) << 12
    raise ModeSwitch()


@semantic("s_sendmsg_rtn_b32", "s_sendmsg_rtn_b64")
def s_sendmsg_rtn(ctx, insn):
    """GFX11+ messages that return a value: MSG_RTN_GET_REALTIME (what clock64/wall_clock64 and
    __builtin_readsteadycounter read) returns the machine clock, as s_memrealtime does; the others (doorbell,
    dispatch ids, trap handler bases, SAVE_WAVE...) name hardware this machine has no values for, and stop."""
    if "MSG_RTN_GET_REALTIME" not in insn.text:
        raise Unsupported(f"{insn.text} (this message's reply is not modelled)", insn.address)
    _dst(ctx, insn, ctx.machine.clock if insn.mnemonic.endswith("b64") else ctx.machine.clock & M32,
         64 if insn.mnemonic.endswith("b64") else 32)


@semantic("s_memtime", "s_memrealtime", "s_getreg_b64")
def s_memtime(ctx, insn):
    _dst(ctx, insn, ctx.machine.clock, 64)


# ---------------------------------------------------------------------------------------------- SALU float (GFX12)
# gfx12 has scalar f32 instructions; clang uses them for uniform integer division (s_cvt_f32_u32, s_mul_f32,
# s_trunc_f32, s_fmac_f32, s_cvt_u32_f32). IEEE binary32 in MODE.FP_ROUND's f32 direction (_s_round); the FMA
# forms round once.


def _f32(bits: int) -> float:
    import struct

    return struct.unpack("<f", (bits & M32).to_bytes(4, "little"))[0]


def _f32_bits(x: float) -> int:
    import numpy as np

    return int(np.array([x], dtype=np.float32).view(np.uint32)[0])


def _fma_f32(a: int, b: int, c: int) -> int:
    """a * b + c rounded once to binary32 (bit patterns in and out)."""
    import math
    from fractions import Fraction

    import numpy as np

    fa, fb, fc = _f32(a), _f32(b), _f32(c)
    if not all(math.isfinite(v) for v in (fa, fb, fc)):
        return _f32_bits(np.float32(np.float64(fa) * np.float64(fb) + np.float64(fc)))
    exact = Fraction(fa) * Fraction(fb) + Fraction(fc)
    if exact == 0:
        return _f32_bits(np.float32(np.float64(fa) * np.float64(fb) + np.float64(fc)))  # the sign of an exact zero
    guess = np.float32(float(exact))
    best = None
    with fp_errstate(over="ignore"):
        for cand in (np.nextafter(guess, np.float32(-np.inf)), guess, np.nextafter(guess, np.float32(np.inf))):
            if not np.isfinite(cand):
                continue
            key = (abs(Fraction(float(cand)) - exact), int(cand.view(np.uint32)) & 1)
            if best is None or key < best[0]:
                best = (key, cand)
    return _f32_bits(best[1] if best is not None else guess)


def _s_round(ctx, near: int, ins: list[int], exact, addends=None, extra=()) -> int:
    """`near` (the nearest-even result), or under a directed MODE.FP_ROUND (f32 field) the exact value of the
    operation rounded in that direction (rounding.directed, one lane)."""
    rnd = ctx.wave.mode & 3
    if not rnd:
        return near
    import numpy as np

    from amddbg.emu.semantics.rounding import directed

    return int(directed([np.array([v & M32], dtype=np.uint32) for v in ins], 32, np.array([near], dtype=np.uint32),
                        32, rnd, exact, addends, extra=[[x] for x in extra])[0])


@semantic("s_cvt_f32_u32", "s_cvt_f32_i32")
def s_cvt_f32_int(ctx, insn):
    from fractions import Fraction

    v = _src(ctx, insn, 1, 32)
    n = _sx(v, 32) if insn.mnemonic.endswith("i32") else v
    _dst(ctx, insn, _s_round(ctx, _f32_bits(float(n)), [], lambda k: Fraction(k) if k else None, extra=[n]), 32)


@semantic("s_cvt_u32_f32", "s_cvt_i32_f32")
def s_cvt_int_f32(ctx, insn):
    """Truncate toward zero, saturating at the type's bounds; NaN gives 0."""
    import math

    x = _f32(_src(ctx, insn, 1, 32))
    lo, hi = (0, M32) if insn.mnemonic.startswith("s_cvt_u32") else (-(1 << 31), (1 << 31) - 1)
    r = 0 if math.isnan(x) else hi if x >= hi else lo if x <= lo else int(x)
    _dst(ctx, insn, r & M32, 32)


@semantic("s_trunc_f32", "s_floor_f32", "s_ceil_f32", "s_rndne_f32")
def s_round_f32(ctx, insn):
    import numpy as np

    fn = {"s_trunc_f32": np.trunc, "s_floor_f32": np.floor, "s_ceil_f32": np.ceil, "s_rndne_f32": np.rint}
    x = np.float32(_f32(_src(ctx, insn, 1, 32)))
    _dst(ctx, insn, _f32_bits(fn[insn.mnemonic](x)), 32)


@semantic("s_add_f32", "s_sub_f32", "s_mul_f32")
def s_arith_f32(ctx, insn):
    import numpy as np

    from amddbg.emu.semantics.rounding import signed

    ua, ub = _src(ctx, insn, 1, 32), _src(ctx, insn, 2, 32)
    a, b = np.float32(_f32(ua)), np.float32(_f32(ub))
    with fp_errstate(all="ignore"):
        r = {"s_add_f32": a + b, "s_sub_f32": a - b, "s_mul_f32": a * b}[insn.mnemonic]
    if insn.mnemonic == "s_mul_f32":
        out = _s_round(ctx, _f32_bits(r), [ua, ub], lambda x, y: x * y)
    else:
        k = 1 if insn.mnemonic == "s_add_f32" else -1
        out = _s_round(ctx, _f32_bits(r), [ua, ub], lambda x, y: x + k * y, lambda x, y: [signed(x), signed(k * y)])
    _dst(ctx, insn, out, 32)


@semantic("s_min_num_f32", "s_max_num_f32")
def s_minmax_num_f32(ctx, insn):
    """GFX12 scalar minimumNumber/maximumNumber: as v_min_num_f32/v_max_num_f32 on one value (a NaN loses to a
    number, -0 < +0, input denormals as MODE says)."""
    import numpy as np

    from amddbg.emu.semantics.vfloat import _denorm, _flush, _minmax

    a, b = (np.array([_src(ctx, insn, k, 32)], dtype=np.uint32) for k in (1, 2))
    if not _denorm(ctx, 32)[0]:
        a, b = _flush(a, 32), _flush(b, 32)
    _dst(ctx, insn, int(_minmax(ctx, a, b, 32, insn.mnemonic == "s_min_num_f32", True)[0]), 32)


@semantic("s_fmac_f32", "s_fmamk_f32", "s_fmaak_f32")
def s_fma_f32(ctx, insn):
    """fmac: D = S0 * S1 + D; fmamk: D = S0 * K + S1; fmaak: D = S0 * S1 + K (operands in the order printed)."""
    from amddbg.emu.semantics.rounding import product, signed

    a, b = _src(ctx, insn, 1, 32), _src(ctx, insn, 2, 32)
    c = _src(ctx, insn, 0 if insn.mnemonic == "s_fmac_f32" else 3, 32)
    r = _s_round(ctx, _fma_f32(a, b, c), [a, b, c], lambda x, y, z: x * y + z,
                 lambda x, y, z: [product(x, y), signed(z)])
    _dst(ctx, insn, r, 32)
