"""Vector ALU (VOP1/VOP2/VOP3/VOPC, SDWA source/destination selects), one numpy operation per instruction.

Implicit operands (VCC of e32 carries, compares and v_cndmask) are not in the decoder's operand list on
gfx9 and appear as a `vcc`/`vcc_lo` special operand on GFX10+; `_split` normalises both. Floating point
uses numpy's IEEE binary32/binary64 (round to nearest even, denormals kept: the kernels' default
FLOAT_DENORM_MODE_FLUSH_NONE); flush modes, rcp/rsq/sqrt precision and the v_div_* helpers are issue 10's
remaining work and stop the wave as unsupported where they are not implemented.
"""

from __future__ import annotations

import re

import numpy as np

from amddbg.emu.errors import Unsupported
from amddbg.emu.operands import M32, read_scalar, read_vector, write_scalar, write_vector
from amddbg.emu.semantics import fp_errstate, per_insn_cache, semantic
from amddbg.emu.wave import lane_bools
from amddbg.isa.model import OperandKind

U32 = np.uint32
U64 = np.uint64
_VCC_NAMES = ("vcc", "vcc_lo")
_SEL = {"BYTE_0": (0, 8), "BYTE_1": (8, 8), "BYTE_2": (16, 8), "BYTE_3": (24, 8), "WORD_0": (0, 16),
        "WORD_1": (16, 16), "DWORD": (0, 32)}


def _split(insn):
    """(vector destinations, scalar destinations, sources) with implicit-VCC operands removed (fresh lists; the
    split itself is computed once per instruction)."""
    vd, sd, src = per_insn_cache(_SPLITS, insn, _split_once)
    return list(vd), list(sd), list(src)


_SPLITS: dict = {}


def _vcc_sources(insn) -> tuple[int, ...]:
    """Indices of VCC-named operands that are data sources the instruction encodes, not the implicit VCC (carry,
    mask or compare result) the disassembly also prints: `v_and_b32_e32 v8, vcc_lo, v8` reads VCC_LO as src0."""
    ops = insn.operands
    enc = insn.encoding
    if enc in ("VOP1", "VOP2", "VOPC"):
        # e32: only src0 can name an SGPR; its 9-bit field is 106 for VCC_LO. An implicit VCC destination (GFX10+
        # VOPC, carry-out) is printed before it, an implicit mask/carry-in after the VGPR src1.
        if len(insn.raw) < 4 or int.from_bytes(insn.raw[:4], "little") & 0x1FF != 106:
            return ()
        nd = [i for i, o in enumerate(ops) if not o.is_dest]
        vcc = [i for i in nd if ops[i].kind is OperandKind.SPECIAL and ops[i].text in _VCC_NAMES]
        if not vcc:
            return ()
        return (nd[1],) if len(nd) > 1 and nd[0] in vcc and nd[1] in vcc else (nd[0],) if nd[0] in vcc else ()
    if enc.startswith("VOP3") and not enc.endswith(("DPP", "SDWA", "DPP8")):
        # VOP3: every source is encoded; only a lane-mask source (cndmask's select, a carry-in) stands for VCC
        masked = any(k in insn.mnemonic for k in ("cndmask", "addc", "subb", "_ci_"))
        nd = [i for i, o in enumerate(ops) if not o.is_dest]
        return tuple(i for k, i in enumerate(nd) if ops[i].kind is OperandKind.SPECIAL
                     and ops[i].text in _VCC_NAMES and not (masked and k >= 2))
    return ()


def source_indices(insn) -> list[int]:
    """Indices in insn.operands of the sources _split gives, in its order: a source is known by its position, since
    two sources can be equal operands (`v_or_b32_dpp v1, v1, v1`)."""
    keep = _vcc_sources(insn)
    return [i for i, o in enumerate(insn.operands) if not o.is_dest
            and not (o.kind is OperandKind.SPECIAL and o.text in _VCC_NAMES and i not in keep)]


def _split_once(insn):
    vd, sd, src = [], [], []
    keep = _vcc_sources(insn)
    for i, o in enumerate(insn.operands):
        if o.kind is OperandKind.SPECIAL and o.text in _VCC_NAMES and i not in keep:
            continue
        if o.is_dest:
            (vd if o.kind in (OperandKind.VGPR, OperandKind.AGPR) else sd).append(o)
        else:
            src.append(o)
    return vd, sd, src


def operand_texts(insn) -> list[str]:
    """The comma-separated operand strings of the instruction text (modifier tokens after them dropped)."""
    parts = insn.text.split(" ", 1)
    if len(parts) < 2:
        return []
    ops = parts[1].split(", ")
    ops[-1] = ops[-1].split(" ")[0]
    return ops


_BARE = re.compile(r"^(?:-|neg\(|abs\(|sext\(|\|)*(.*?)(?:\)|\|)*$")


def _bare(t: str) -> str:
    """An operand's text without the neg/abs/sext spelling around it."""
    m = _BARE.match(t)
    return m.group(1) if m else t


def source_texts(insn) -> list[str]:
    """The text of each source operand _split gives, where the GFX9 decoder leaves neg/abs/sext and the DPP/SDWA
    forms leave theirs. Why aligned and not counted from the end: the text also prints operands the operand list
    leaves out or _split drops (GFX9's implicit VCC, cndmask's selector, a carry-in after the sources), so in
    `v_cndmask_b32_e64 v1, v1, -v1, vcc` the `-` belongs to the second source, not to whatever text is second from
    the end. Each operand is matched, in order, to the next text that spells the same register or constant."""
    return per_insn_cache(_SOURCE_TEXTS, insn, _align)


_SOURCE_TEXTS: dict = {}


def _align(insn) -> list[str]:
    ss = _split_once(insn)[2]
    texts = operand_texts(insn)
    ops = insn.operands
    at_text: dict[int, str] = {}
    j = 0
    for i, o in enumerate(ops):
        want = _bare(o.text)
        k = j
        while k < len(texts) and _bare(texts[k]) != want:
            k += 1
        if k == len(texts):
            break
        at_text[i] = texts[k]
        j = k + 1
    out, at = [], -1
    for o in ss:
        at = next((i for i in range(at + 1, len(ops)) if ops[i] is o or (ops[i] == o and not ops[i].is_dest)), -1)
        out.append(at_text.get(at, o.text))
    return out


def _explicit_vcc_dest(insn):
    """A VOPC e32 on GFX10+ names its VCC destination as a (non-dest) special operand."""
    for o in insn.operands:
        if o.kind is OperandKind.SPECIAL and o.text in _VCC_NAMES:
            return o
    return None


def _sdwa_sel(text: str, name: str) -> tuple[int, int] | None:
    m = re.search(name + r":(\w+)", text)
    return _SEL.get(m.group(1)) if m else None


def _apply_src_sel(vals: np.ndarray, sel: tuple[int, int] | None, sext: bool) -> np.ndarray:
    if sel is None or sel == (0, 32):
        return vals
    off, width = sel
    v = (vals >> U32(off)) & U32((1 << width) - 1)
    if sext:
        sign = U32(1 << (width - 1))
        v = np.where(v & sign, v | U32(M32 ^ ((1 << width) - 1)), v)
    return v.astype(U32)


def srcs(ctx, insn, bits: int = 32, fmt: str = "i") -> list[np.ndarray]:
    """Source values per lane with SDWA selects and float neg/abs modifiers applied."""
    w = ctx.wave
    _, ss, sdwa, sels, _, _, _, _ = per_insn_cache(_FORMS, insn, _form)
    out = []
    for i, o in enumerate(ss):
        v = read_vector(w, o, bits, fmt)
        if sdwa and bits == 32:
            v = _apply_src_sel(v, sels[i], "sext" in o.modifiers)
        if fmt == "f" and o.modifiers:
            sign = U64(1 << 63) if bits == 64 else U32(1 << 31)
            if "abs" in o.modifiers:
                v = v & ~sign
            if "neg" in o.modifiers:
                v = v ^ sign
        out.append(v)
    return out


def dst(ctx, insn, values, bits: int = 32) -> None:
    w = ctx.wave
    vd, _, sdwa, _, sel, preserve, sext, clamp = per_insn_cache(_FORMS, insn, _form)
    if not vd:
        raise Unsupported(insn.text, insn.address)
    values = np.asarray(values)
    if sdwa and bits == 32:
        if sel is not None and sel != (0, 32):
            off, width = sel
            old = read_vector(w, vd[0], 32)
            field = (values.astype(U32) & U32((1 << width) - 1)) << U32(off)
            if preserve:
                keep = U32(M32 ^ (((1 << width) - 1) << off))
                values = (old & keep) | field
            elif sext:
                top = (values.astype(U32) >> U32(width - 1)) & U32(1)
                ext = np.where(top == 1, U32(M32 ^ ((1 << (off + width)) - 1)), U32(0))
                values = field | ext
            else:
                values = field
    if clamp and values.dtype in (np.float32, np.float64):
        values = np.clip(values, 0.0, 1.0)
    write_vector(w, vd[0], values, bits)


_FORMS: dict = {}


def _form(insn) -> tuple:
    """What `srcs` and `dst` read from the instruction besides register values, derived once per instruction:
    (vector dests, sources, SDWA?, source selects, dst_sel, UNUSED_PRESERVE, UNUSED_SEXT, clamp)."""
    vd, _, ss = _split_once(insn)
    text = insn.text
    sdwa = insn.encoding.endswith("SDWA")
    sels = tuple(_sdwa_sel(text, f"src{i}_sel") for i in range(len(ss))) if sdwa else ()
    return (tuple(vd), tuple(ss), sdwa, sels, _sdwa_sel(text, "dst_sel") if sdwa else None,
            "UNUSED_PRESERVE" in text, "UNUSED_SEXT" in text, fmt_clamp(insn))


def fmt_clamp(insn) -> bool:
    return insn.text.endswith(" clamp") or " clamp " in insn.text


def carry_out_dest(ctx, insn):
    _, sd, _ = _split(insn)
    return sd[0] if sd else None


def write_lane_mask(ctx, op, mask_bits: np.ndarray) -> None:
    """Write a per-lane boolean result as a lane mask (VCC when `op` is None); inactive lanes read 0."""
    w = ctx.wave
    m = w.to_mask(mask_bits & lane_bools(w.exec, w.lanes))
    if op is None:
        w.vcc = (w.vcc & ~w.mask if w.lanes == 32 else 0) | m
        return
    # a lane mask is as wide as the wave: GFX10+ wave64 code disassembled without the wave64 attribute (the ELF does
    # not record it) names a single SGPR where the hardware uses the pair
    bits = 64 if w.lanes == 64 else 32
    if op.kind is OperandKind.SPECIAL and op.text == "vcc_lo" and w.lanes == 64:
        w.vcc = m
        return
    write_scalar(w, op, m, bits)


def read_lane_mask(ctx, op) -> np.ndarray:
    w = ctx.wave
    if op is None or (op.kind is OperandKind.SPECIAL and op.text == "vcc_lo" and w.lanes == 64):
        m = w.vcc
    else:
        m = read_scalar(w, op, 64 if w.lanes == 64 else 32)
    return lane_bools(m, w.lanes).copy()


def _f32(v: np.ndarray) -> np.ndarray:
    return v.astype(U32).view(np.float32)


def _f64(v: np.ndarray) -> np.ndarray:
    return v.astype(U64).view(np.float64)


def _bits32(f: np.ndarray) -> np.ndarray:
    return np.asarray(f, dtype=np.float32).view(U32)


def _bits64(f: np.ndarray) -> np.ndarray:
    return np.asarray(f, dtype=np.float64).view(U64)


def _i32(v):
    return v.astype(U32).view(np.int32)


# ---------------------------------------------------------------------------------------------- moves


@semantic("v_mov_b32", "v_mov_b32_e32", "v_accvgpr_write_b32", "v_accvgpr_read_b32", "v_accvgpr_mov_b32")
def v_mov(ctx, insn):
    (a,) = srcs(ctx, insn)
    dst(ctx, insn, a)


@semantic("v_mov_b64", "v_lshlrev_b64_zero")
def v_mov_b64(ctx, insn):
    (a,) = srcs(ctx, insn, 64)
    dst(ctx, insn, a, 64)


@semantic("v_cndmask_b32")
def v_cndmask(ctx, insn):
    _, sd, ss = _split(insn)
    a, b = (read_vector(ctx.wave, o) for o in ss[:2])
    mask_op = ss[2] if len(ss) > 2 else None
    sel = read_lane_mask(ctx, mask_op)
    dst(ctx, insn, np.where(sel, b, a))


@semantic("v_readfirstlane_b32")
def v_readfirstlane(ctx, insn):
    w = ctx.wave
    _, _, ss = _split(insn)
    v = read_vector(w, ss[0])
    lanes = w.active_lanes()
    write_scalar(w, insn.operands[0], int(v[lanes[0] if lanes else 0]))


@semantic("v_readlane_b32")
def v_readlane(ctx, insn):
    w = ctx.wave
    v = read_vector(w, insn.operands[1])
    lane = read_scalar(w, insn.operands[2]) % w.lanes
    write_scalar(w, insn.operands[0], int(v[lane]))


@semantic("v_writelane_b32")
def v_writelane(ctx, insn):
    w = ctx.wave
    val = read_scalar(w, insn.operands[1])
    lane = read_scalar(w, insn.operands[2]) % w.lanes
    write_vector(w, insn.operands[0], U32(val), 32, mask=_ONE_LANE[lane][: w.lanes])


@semantic("v_permlane16_b32", "v_permlanex16_b32")
def v_permlane16(ctx, insn):
    """GFX10+ lane permutes within rows of 16 lanes: lane L of each row reads lane sel(L) of its own row
    (permlane16) or of the other row of its pair of rows (permlanex16: rows 0<->1, 2<->3), where sel(L) is
    nibble L of {S2, S1} (S1 for lanes 0-7, S2 for 8-15). op_sel[0] is FI (read lanes EXEC leaves out too),
    op_sel[1] BOUND_CTRL; an active lane that reads an inactive one without FI stops the wave (what it gets
    then depends on BOUND_CTRL and is not modelled here)."""
    w = ctx.wave
    ops = insn.operands
    if len(ops) < 4 or ops[0].kind is not OperandKind.VGPR:
        raise Unsupported(insn.text, insn.address)
    src = read_vector(w, ops[1])
    sel = read_scalar(w, ops[2]) | read_scalar(w, ops[3]) << 32
    m = re.search(r"op_sel:\[([01]),([01])\]", insn.text)
    fetch_inactive = bool(m and m.group(1) == "1")
    lanes = np.arange(w.lanes)
    nibble = np.array([(sel >> (4 * (ln & 15))) & 15 for ln in range(16)], dtype=np.int64)
    source = (lanes & ~15) + nibble[lanes & 15]
    if "x16" in insn.mnemonic:
        source ^= 16
    active = lane_bools(w.exec, w.lanes)
    if not fetch_inactive and (active & ~active[source]).any():
        raise Unsupported(f"{insn.text} (an active lane reads an inactive one without FI: BOUND_CTRL's result is "
                          "not modelled)", insn.address)
    write_vector(w, ops[0], src[source], 32)


@semantic("v_movreld_b32", "v_movrels_b32", "v_movrelsd_b32", "v_movrelsd_2_b32")
def v_movrel(ctx, insn):
    """M0-relative VGPR moves (dynamically indexed arrays kept in VGPRs): movreld writes VGPR[D + M0], movrels
    reads VGPR[S + M0], movrelsd both, movrelsd_2 with D offset by M0[25:16] and S by M0[9:0]; lanes in EXEC. A
    register beyond the wave's VGPRs stops the wave (the hardware clamps or drops such accesses)."""
    w = ctx.wave
    mn = insn.mnemonic.removesuffix("_e32").removesuffix("_e64")
    d, s = insn.operands[0], insn.operands[1]
    m0 = w.m0 & M32
    if mn == "v_movrelsd_2_b32":
        dk, sk = m0 >> 16 & 0x3FF, m0 & 0x3FF
    else:
        dk = m0 if mn in ("v_movreld_b32", "v_movrelsd_b32") else 0
        sk = m0 if mn in ("v_movrels_b32", "v_movrelsd_b32") else 0
    n = w.v.shape[0]
    dreg = d.register + dk if d.kind is OperandKind.VGPR else None
    if dreg is None or dreg >= n or (s.kind is OperandKind.VGPR and s.register + sk >= n):
        raise Unsupported(f"{insn.text} (M0 = {m0:#x} indexes past the wave's {n} VGPRs)", insn.address)
    val = w.v[s.register + sk].copy() if s.kind is OperandKind.VGPR else read_vector(w, s)
    np.copyto(w.v[dreg], val, where=lane_bools(w.exec, w.lanes))


_ONE_LANE = np.eye(64, dtype=bool)  # row L: only lane L (v_writelane's write mask)
_ONE_LANE.flags.writeable = False


_MBCNT_LO = np.array([(1 << min(ln, 32)) - 1 for ln in range(64)], dtype=U64).astype(U32)
_MBCNT_HI = np.array([(1 << (ln - 32)) - 1 if ln >= 32 else 0 for ln in range(64)], dtype=U32)


@semantic("v_mbcnt_lo_u32_b32", "v_mbcnt_hi_u32_b32")
def v_mbcnt(ctx, insn):
    w = ctx.wave
    a, b = srcs(ctx, insn)
    below = _MBCNT_HI if "hi" in insn.mnemonic else _MBCNT_LO  # per lane: the mask bits of the lanes below it
    with fp_errstate(over="ignore"):
        out = b + np.bitwise_count(a & below[: w.lanes]).astype(U32)
    dst(ctx, insn, out)


# ---------------------------------------------------------------------------------------------- integer


def _binop(fn, bits=32):
    def run(ctx, insn):
        a, b = srcs(ctx, insn, bits)[:2]
        with fp_errstate(over="ignore"):
            dst(ctx, insn, fn(a, b), bits)

    if bits == 32:
        run.binop = fn  # the lane function, for fastpath's closures of the plain forms
    return run


def _sh(b):
    return b & U32(31)


semantic("v_add_u32", "v_add_nc_u32", "v_add_i32", "v_add_nc_i32")(_binop(lambda a, b: a + b))
semantic("v_sub_u32", "v_sub_nc_u32", "v_sub_i32", "v_sub_nc_i32")(_binop(lambda a, b: a - b))
semantic("v_subrev_u32", "v_subrev_nc_u32")(_binop(lambda a, b: b - a))
semantic("v_and_b32")(_binop(lambda a, b: a & b))
semantic("v_or_b32")(_binop(lambda a, b: a | b))
semantic("v_xor_b32")(_binop(lambda a, b: a ^ b))
semantic("v_xnor_b32")(_binop(lambda a, b: ~(a ^ b)))
semantic("v_lshlrev_b32")(_binop(lambda a, b: b << _sh(a)))
semantic("v_lshrrev_b32")(_binop(lambda a, b: b >> _sh(a)))
semantic("v_ashrrev_i32")(_binop(lambda a, b: (_i32(b) >> _sh(a).astype(np.int32)).view(U32)))
semantic("v_lshl_b32")(_binop(lambda a, b: a << _sh(b)))
semantic("v_lshr_b32")(_binop(lambda a, b: a >> _sh(b)))
semantic("v_ashr_i32")(_binop(lambda a, b: (_i32(a) >> _sh(b).astype(np.int32)).view(U32)))
semantic("v_min_u32")(_binop(np.minimum))
semantic("v_max_u32")(_binop(np.maximum))
semantic("v_min_i32")(_binop(lambda a, b: np.minimum(_i32(a), _i32(b)).view(U32)))
semantic("v_max_i32")(_binop(lambda a, b: np.maximum(_i32(a), _i32(b)).view(U32)))
semantic("v_mul_lo_u32", "v_mul_lo_i32")(_binop(lambda a, b: (a.astype(U64) * b.astype(U64)).astype(U32)))
semantic("v_mul_hi_u32")(_binop(lambda a, b: ((a.astype(U64) * b.astype(U64)) >> U64(32)).astype(U32)))
semantic("v_mul_hi_i32")(_binop(lambda a, b: ((_i32(a).astype(np.int64) * _i32(b).astype(np.int64)) >> 32)
                                .astype(np.int64).astype(U64).astype(U32)))
semantic("v_mul_u32_u24")(_binop(lambda a, b: ((a & U32(0xFFFFFF)).astype(U64) * (b & U32(0xFFFFFF)).astype(U64))
                                 .astype(U32)))
semantic("v_mul_hi_u32_u24")(_binop(lambda a, b: (((a & U32(0xFFFFFF)).astype(U64) * (b & U32(0xFFFFFF))
                                                   .astype(U64)) >> U64(32)).astype(U32)))


def _s24(v):
    x = (v & U32(0xFFFFFF)).astype(np.int64)
    return np.where(x & 0x800000, x - (1 << 24), x)


semantic("v_mul_i32_i24")(_binop(lambda a, b: (_s24(a) * _s24(b)).astype(np.int64).astype(U64).astype(U32)))
semantic("v_bfm_b32")(_binop(lambda a, b: (((U64(1) << (a & U32(31)).astype(U64)) - U64(1)) << (b & U32(31))
                                           .astype(U64)).astype(U32)))
semantic("v_bcnt_u32_b32")(_binop(lambda a, b: np.array([bin(int(x)).count("1") for x in a], dtype=U32) + b))


def _ternop(fn, bits=32):
    def run(ctx, insn):
        a, b, c = srcs(ctx, insn, bits)[:3]
        with fp_errstate(over="ignore"):
            dst(ctx, insn, fn(a, b, c), bits)

    if bits == 32:
        run.ternop = fn  # the lane function, for fastpath's closures of the plain forms
    return run


semantic("v_add3_u32")(_ternop(lambda a, b, c: a + b + c))
semantic("v_lshl_add_u32")(_ternop(lambda a, b, c: (a << _sh(b)) + c))
semantic("v_add_lshl_u32")(_ternop(lambda a, b, c: (a + b) << _sh(c)))
semantic("v_lshl_or_b32")(_ternop(lambda a, b, c: (a << _sh(b)) | c))
semantic("v_and_or_b32")(_ternop(lambda a, b, c: (a & b) | c))
semantic("v_or3_b32")(_ternop(lambda a, b, c: a | b | c))
semantic("v_xor3_b32")(_ternop(lambda a, b, c: a ^ b ^ c))
semantic("v_xad_u32")(_ternop(lambda a, b, c: (a ^ b) + c))
semantic("v_bfi_b32")(_ternop(lambda a, b, c: (a & b) | (~a & c)))
semantic("v_mad_u32_u24")(_ternop(lambda a, b, c: ((a & U32(0xFFFFFF)).astype(U64) * (b & U32(0xFFFFFF))
                                                   .astype(U64) + c.astype(U64)).astype(U32)))
semantic("v_mad_i32_i24")(_ternop(lambda a, b, c: (_s24(a) * _s24(b) + _i32(c).astype(np.int64))
                                  .astype(np.int64).astype(U64).astype(U32)))
semantic("v_min3_u32")(_ternop(lambda a, b, c: np.minimum(np.minimum(a, b), c)))
semantic("v_max3_u32")(_ternop(lambda a, b, c: np.maximum(np.maximum(a, b), c)))
semantic("v_min3_i32")(_ternop(lambda a, b, c: np.minimum(np.minimum(_i32(a), _i32(b)), _i32(c)).view(U32)))
semantic("v_max3_i32")(_ternop(lambda a, b, c: np.maximum(np.maximum(_i32(a), _i32(b)), _i32(c)).view(U32)))
# GFX11+: v_minmax = max(min(S0, S1), S2), v_maxmin = min(max(S0, S1), S2)
semantic("v_minmax_u32")(_ternop(lambda a, b, c: np.maximum(np.minimum(a, b), c)))
semantic("v_maxmin_u32")(_ternop(lambda a, b, c: np.minimum(np.maximum(a, b), c)))
semantic("v_minmax_i32")(_ternop(lambda a, b, c: np.maximum(np.minimum(_i32(a), _i32(b)), _i32(c)).view(U32)))
semantic("v_maxmin_i32")(_ternop(lambda a, b, c: np.minimum(np.maximum(_i32(a), _i32(b)), _i32(c)).view(U32)))
semantic("v_med3_u32")(_ternop(lambda a, b, c: np.maximum(np.minimum(a, b), np.minimum(np.maximum(a, b), c))))
semantic("v_med3_i32")(_ternop(lambda a, b, c: np.maximum(np.minimum(_i32(a), _i32(b)),
                                                         np.minimum(np.maximum(_i32(a), _i32(b)), _i32(c))).view(U32)))
def _align_op(fn):
    """v_alignbit/v_alignbyte: on GFX11 true16 the shift operand S2 is 16 bits wide, so `v12.h` (or op_sel's S2
    bit) shifts by the high half's count (clang-22 -O2 names the half)."""
    base = _ternop(fn)

    def run(ctx, insn):
        _, _, ss = _split(insn)
        if len(ss) >= 3 and (_is_hi16(ss[2]) or (len(sel := _op_sel(insn)) > 2 and sel[2]
                                                  and ss[2].kind in (OperandKind.VGPR, OperandKind.SGPR))):
            a, b = srcs(ctx, insn)[:2]
            c = read_vector(ctx.wave, ss[2]) >> U32(16)
            dst(ctx, insn, fn(a, b, c))
            return
        base(ctx, insn)

    run.__wrapped__ = base
    return run


semantic("v_alignbit_b32")(_align_op(lambda a, b, c: (((a.astype(U64) << U64(32)) | b.astype(U64))
                                                      >> (c & U32(31)).astype(U64)).astype(U32)))
semantic("v_alignbyte_b32")(_align_op(lambda a, b, c: (((a.astype(U64) << U64(32)) | b.astype(U64))
                                                       >> ((c & U32(3)) * U32(8)).astype(U64)).astype(U32)))


@semantic("v_bfe_u32", "v_bfe_i32")
def v_bfe(ctx, insn):
    a, b, c = srcs(ctx, insn)
    off = (b & U32(31)).astype(np.int64)
    width = (c & U32(31)).astype(np.int64)
    val = (a.astype(np.int64) >> off) & ((np.int64(1) << width) - 1)
    if insn.mnemonic.startswith("v_bfe_i32"):
        sign = np.where(width > 0, (val >> np.maximum(width - 1, 0)) & 1, 0)
        val = np.where(sign == 1, val - (np.int64(1) << width), val)
    val = np.where(width == 0, 0, val)
    dst(ctx, insn, (val & M32).astype(U32))


@semantic("v_perm_b32")
def v_perm(ctx, insn):
    a, b, c = srcs(ctx, insn)
    out = np.zeros(ctx.wave.lanes, dtype=U32)
    for ln in range(ctx.wave.lanes):
        src = (int(a[ln]) << 32) | int(b[ln])
        r = 0
        for i in range(4):
            sel = (int(c[ln]) >> (8 * i)) & 0xFF
            if sel <= 7:
                byte = (src >> (8 * sel)) & 0xFF
            elif sel <= 11:
                byte = 0xFF if (src >> (8 * (2 * (sel - 8)) + 15)) & 1 else 0
            elif sel == 12:
                byte = 0
            else:
                byte = 0xFF
            r |= byte << (8 * i)
        out[ln] = r
    dst(ctx, insn, out)


@semantic("v_not_b32")
def v_not(ctx, insn):
    (a,) = srcs(ctx, insn)
    dst(ctx, insn, ~a)


@semantic("v_bfrev_b32")
def v_bfrev(ctx, insn):
    (a,) = srcs(ctx, insn)
    dst(ctx, insn, np.array([int(f"{int(x):032b}"[::-1], 2) for x in a], dtype=U32))


@semantic("v_ffbh_u32", "v_clz_i32_u32")
def v_ffbh(ctx, insn):
    (a,) = srcs(ctx, insn)
    dst(ctx, insn, np.array([32 - int(x).bit_length() if x else M32 for x in a], dtype=U32))


@semantic("v_ffbl_b32", "v_ctz_i32_b32")
def v_ffbl(ctx, insn):
    (a,) = srcs(ctx, insn)
    dst(ctx, insn, np.array([(int(x) & -int(x)).bit_length() - 1 if x else M32 for x in a], dtype=U32))


@semantic("v_ffbh_i32", "v_cls_i32")
def v_ffbh_i32(ctx, insn):
    (a,) = srcs(ctx, insn)
    out = []
    for x in a.tolist():
        if x in (0, M32):
            out.append(M32)
            continue
        s = x >> 31
        n = 0
        for i in range(31, -1, -1):
            if (x >> i & 1) != s:
                break
            n += 1
        out.append(n)
    dst(ctx, insn, np.array(out, dtype=U32))


# -- carries


def carry_math(op: str, a: np.ndarray, b: np.ndarray, cin: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(result, carry out) of a carry op on int64 lanes: add, addc, sub, subrev, subb, subbrev (`cin`: the carry
    in lanes as int64, for the three that take one). fastpath's closures compute the same on uint32 lanes (its
    differential test holds them to this)."""
    if op == "add":
        r = a + b
        co = r > M32
    elif op == "addc":
        r = a + b + cin
        co = r > M32
    elif op == "sub":
        r = a - b
        co = b > a
    elif op == "subrev":
        r = b - a
        co = a > b
    elif op == "subb":
        r = a - b - cin
        co = (b + cin) > a
    else:  # subbrev
        r = b - a - cin
        co = (a + cin) > b
    return r, co


CARRY_IN = frozenset({"addc", "subb", "subbrev"})


def _carry(op):
    def run(ctx, insn):
        w = ctx.wave
        _, sd, ss = _split(insn)
        a = read_vector(w, ss[0]).astype(np.int64)
        b = read_vector(w, ss[1]).astype(np.int64)
        cin = None
        if op in CARRY_IN:
            cin_op = ss[2] if len(ss) > 2 else None
            cin = read_lane_mask(ctx, cin_op).astype(np.int64)
        r, co = carry_math(op, a, b, cin)
        dst(ctx, insn, (r & M32).astype(U32))
        write_lane_mask(ctx, sd[0] if sd else None, co)

    return run


semantic("v_add_co_u32", "v_add_i32_vop2_carry")(_carry("add"))
semantic("v_addc_co_u32", "v_add_co_ci_u32", "v_addc_u32")(_carry("addc"))
semantic("v_sub_co_u32")(_carry("sub"))
semantic("v_subrev_co_u32")(_carry("subrev"))
semantic("v_subb_co_u32", "v_sub_co_ci_u32", "v_subb_u32")(_carry("subb"))
semantic("v_subbrev_co_u32", "v_subrev_co_ci_u32", "v_subbrev_u32")(_carry("subbrev"))


@semantic("v_mad_u64_u32", "v_mad_i64_i32", "v_mad_co_u64_u32", "v_mad_co_i64_i32")
def v_mad64(ctx, insn):
    w = ctx.wave
    _, sd, ss = _split(insn)
    a = read_vector(w, ss[0])
    b = read_vector(w, ss[1])
    c = read_vector(w, ss[2], 64, "s" if "i64" in insn.mnemonic else "i")  # a literal addend: signed or not
    if "i64" in insn.mnemonic:  # 32x32 signed products are exact in int64; the add wraps, overflow is the carry
        p = (a.view(np.int32).astype(np.int64) * b.view(np.int32).astype(np.int64)).view(U64)
        out = p + c
        carry = ((p ^ out) & (c ^ out)) >> U64(63) == U64(1)
    else:  # 32x32 unsigned products are exact in uint64; the add wraps, and wrapped means carry
        p = a.astype(U64) * b.astype(U64)
        out = p + c
        carry = out < p
    dst(ctx, insn, out, 64)
    if sd:
        write_lane_mask(ctx, sd[0], carry)


# -- 64-bit


def _shift64(kind):
    def run(ctx, insn):
        w = ctx.wave
        _, _, ss = _split(insn)
        n = read_vector(w, ss[0]) & U32(63)
        v = read_vector(w, ss[1], 64, "s" if kind == "ashr" else "i")  # a literal: sign-extended for ashr only
        if kind == "lshl":
            r = v << n.astype(U64)
        elif kind == "lshr":
            r = v >> n.astype(U64)
        else:
            r = (v.view(np.int64) >> n.astype(np.int64)).view(U64)
        dst(ctx, insn, r, 64)

    return run


semantic("v_lshlrev_b64")(_shift64("lshl"))
semantic("v_lshrrev_b64")(_shift64("lshr"))
semantic("v_ashrrev_i64")(_shift64("ashr"))


@semantic("v_lshl_add_u64")
def v_lshl_add_u64(ctx, insn):
    w = ctx.wave
    _, _, ss = _split(insn)
    a = read_vector(w, ss[0], 64)
    n = read_vector(w, ss[1]) & U32(7)
    c = read_vector(w, ss[2], 64)
    with fp_errstate(over="ignore"):
        dst(ctx, insn, (a << n.astype(U64)) + c, 64)


# ---------------------------------------------------------------------------------------------- floating point


def _fbin(fn, bits=32):
    def run(ctx, insn):
        a, b = srcs(ctx, insn, bits, "f")[:2]
        conv = _f64 if bits == 64 else _f32
        with fp_errstate(all="ignore"):
            r = fn(conv(a), conv(b))
        dst(ctx, insn, _bits64(r) if bits == 64 else _bits32(r), bits)

    return run


def _fma(bits=32):
    def run(ctx, insn):
        a, b, c = srcs(ctx, insn, bits, "f")[:3]
        if bits == 32:
            r = (_f32(a).astype(np.float64) * _f32(b).astype(np.float64) + _f32(c).astype(np.float64))
            # float64 holds the exact product of two binary32 values; one rounding to binary32 follows
            out = _bits32(r.astype(np.float32))
        else:
            import math

            fa, fb, fc = _f64(a), _f64(b), _f64(c)
            r = np.array([math.fma(x, y, z) if hasattr(math, "fma") else x * y + z
                          for x, y, z in zip(fa.tolist(), fb.tolist(), fc.tolist(), strict=True)], dtype=np.float64)
            out = _bits64(r)
        dst(ctx, insn, out, bits)

    return run


semantic("v_add_f32")(_fbin(lambda a, b: a + b))
semantic("v_sub_f32")(_fbin(lambda a, b: a - b))
semantic("v_subrev_f32")(_fbin(lambda a, b: b - a))
semantic("v_mul_f32")(_fbin(lambda a, b: a * b))
semantic("v_min_f32", "v_min_num_f32")(_fbin(np.fmin))
semantic("v_max_f32", "v_max_num_f32")(_fbin(np.fmax))
semantic("v_add_f64", "v_add_f64_e64")(_fbin(lambda a, b: a + b, 64))
semantic("v_mul_f64")(_fbin(lambda a, b: a * b, 64))
semantic("v_min_f64", "v_min_num_f64")(_fbin(np.fmin, 64))
semantic("v_max_f64", "v_max_num_f64")(_fbin(np.fmax, 64))
semantic("v_fma_f32", "v_fmac_f32", "v_fmaak_f32", "v_fmamk_f32")(_fma(32))
semantic("v_fma_f64", "v_fmac_f64")(_fma(64))


@semantic("v_mac_f32", "v_mad_f32")
def v_mad_f32(ctx, insn):
    a, b, c = srcs(ctx, insn, 32, "f")[:3]
    with fp_errstate(all="ignore"):
        r = (_f32(a) * _f32(b)).astype(np.float32) + _f32(c)  # legacy mad: two roundings
    dst(ctx, insn, _bits32(r))


@semantic("v_ldexp_f32")
def v_ldexp_f32(ctx, insn):
    a, b = srcs(ctx, insn, 32, "f")[:2]
    with fp_errstate(all="ignore"):
        dst(ctx, insn, _bits32(np.ldexp(_f32(a), _i32(b)).astype(np.float32)))


def _funary(fn, bits=32, out_bits=None):
    def run(ctx, insn):
        (a,) = srcs(ctx, insn, bits, "f")[:1]
        conv = _f64 if bits == 64 else _f32
        with fp_errstate(all="ignore"):
            r = fn(conv(a))
        ob = out_bits or bits
        dst(ctx, insn, _bits64(r) if ob == 64 else _bits32(r), ob)

    return run


semantic("v_sqrt_f32")(_funary(lambda a: np.sqrt(a).astype(np.float32)))
semantic("v_rcp_f32")(_funary(lambda a: (np.float32(1.0) / a).astype(np.float32)))
semantic("v_rsq_f32")(_funary(lambda a: (np.float32(1.0) / np.sqrt(a)).astype(np.float32)))
semantic("v_exp_f32")(_funary(lambda a: np.exp2(a).astype(np.float32)))
semantic("v_log_f32")(_funary(lambda a: np.log2(a).astype(np.float32)))
semantic("v_floor_f32")(_funary(np.floor))
semantic("v_ceil_f32")(_funary(np.ceil))
semantic("v_trunc_f32")(_funary(np.trunc))
semantic("v_rndne_f32")(_funary(np.rint))
semantic("v_fract_f32")(_funary(lambda a: np.minimum(a - np.floor(a), np.float32(0.99999994))))
semantic("v_cvt_f64_f32")(_funary(lambda a: a.astype(np.float64), 32, 64))
semantic("v_cvt_f32_f64")(_funary(lambda a: a.astype(np.float32), 64, 32))
semantic("v_sqrt_f64")(_funary(np.sqrt, 64))
semantic("v_rcp_f64")(_funary(lambda a: 1.0 / a, 64))


def _cvt_to_float(signed: bool, bits_out: int = 32):
    def run(ctx, insn):
        (a,) = srcs(ctx, insn)
        vals = _i32(a).astype(np.float64) if signed else a.astype(np.float64)
        dst(ctx, insn, _bits64(vals) if bits_out == 64 else _bits32(vals.astype(np.float32)), bits_out)

    return run


semantic("v_cvt_f32_u32")(_cvt_to_float(False))
semantic("v_cvt_f32_i32")(_cvt_to_float(True))
semantic("v_cvt_f64_u32")(_cvt_to_float(False, 64))
semantic("v_cvt_f64_i32")(_cvt_to_float(True, 64))


def _cvt_from_float(signed: bool, bits_in: int = 32):
    def run(ctx, insn):
        (a,) = srcs(ctx, insn, bits_in, "f")
        f = (_f64(a) if bits_in == 64 else _f32(a).astype(np.float64))
        f = np.where(np.isnan(f), 0.0, np.trunc(f))
        if signed:
            r = np.clip(f, -(2.0 ** 31), 2.0 ** 31 - 1).astype(np.int64)
        else:
            r = np.clip(f, 0.0, 2.0 ** 32 - 1).astype(np.int64)
        dst(ctx, insn, (r & M32).astype(U32))

    return run


semantic("v_cvt_u32_f32")(_cvt_from_float(False))
semantic("v_cvt_i32_f32")(_cvt_from_float(True))
semantic("v_cvt_u32_f64")(_cvt_from_float(False, 64))
semantic("v_cvt_i32_f64")(_cvt_from_float(True, 64))


@semantic("v_cvt_f32_ubyte0", "v_cvt_f32_ubyte1", "v_cvt_f32_ubyte2", "v_cvt_f32_ubyte3")
def v_cvt_ubyte(ctx, insn):
    (a,) = srcs(ctx, insn)
    n = int(insn.mnemonic.split("_ubyte")[1][0])  # the byte: v_cvt_f32_ubyte1_e32 is byte 1 (not the e32's 2)
    dst(ctx, insn, _bits32(((a >> U32(8 * n)) & U32(0xFF)).astype(np.float32)))


# ---------------------------------------------------------------------------------------------- compares

_CMPS = {"eq": np.equal, "ne": np.not_equal, "lg": np.not_equal, "lt": np.less, "le": np.less_equal,
         "gt": np.greater, "ge": np.greater_equal}


def _vcmp(op, typ, exec_write: bool):
    bits = 64 if typ.endswith("64") else 16 if typ.endswith("16") else 32

    def run(ctx, insn):
        w = ctx.wave
        _, sd, ss = _split(insn)
        fmt = "f" if typ[0] == "f" else "s" if typ == "i64" else "i"  # an i64 literal is sign-extended
        if bits == 16:  # a true16 half (`v1.h`) or VOP3 op_sel picks the high half, as every 16-bit source does
            sel = _op_sel(insn)
            a, b = (_isrc16(ctx, o, sel[i] if i < len(sel) else 0) for i, o in enumerate(ss[:2]))
        else:
            a = read_vector(w, ss[0], bits, fmt)
            b = read_vector(w, ss[1], bits, fmt)
        if typ[0] == "i":
            a = a.view(np.int64 if bits == 64 else np.int32) if bits != 16 else a.astype(np.int16)
            b = b.view(np.int64 if bits == 64 else np.int32) if bits != 16 else b.astype(np.int16)
        elif typ[0] == "f":
            a = _f64(a) if bits == 64 else _f32(a)
            b = _f64(b) if bits == 64 else _f32(b)
        elif bits == 16:
            a, b = a & U32(0xFFFF), b & U32(0xFFFF)
        if op == "f":
            res = np.zeros(w.lanes, dtype=bool)
        elif op in ("t", "tru"):
            res = np.ones(w.lanes, dtype=bool)
        elif op in ("o", "u"):
            nan = np.isnan(a) | np.isnan(b)
            res = ~nan if op == "o" else nan
        elif op.startswith("n") and typ[0] == "f" and op != "ne":
            base = {"neq": "eq", "nlg": "lg", "nlt": "lt", "nle": "le", "ngt": "gt", "nge": "ge"}[op]
            with fp_errstate(invalid="ignore"):
                res = ~_CMPS[base](a, b)
        elif op == "lg" and typ[0] == "f":
            with fp_errstate(invalid="ignore"):
                res = np.less(a, b) | np.greater(a, b)
        else:
            with fp_errstate(invalid="ignore"):
                res = _CMPS[op](a, b)
        res = np.asarray(res, dtype=bool) & lane_bools(w.exec, w.lanes)
        target = sd[0] if sd else _explicit_vcc_dest(insn)
        if exec_write:
            new_exec = w.to_mask(res)
            if w.family == "gfx9":
                write_lane_mask(ctx, target if target is not None and target.text != "exec" else None, res)
            w.exec = new_exec
        else:
            write_lane_mask(ctx, target if target is not None and target.text not in ("vcc", "vcc_lo") else None,
                            res)

    return run


for _op in ("f", "lt", "eq", "le", "gt", "ne", "lg", "ge", "t", "o", "u", "nge", "nlg", "ngt", "nle", "neq", "nlt",
            "tru"):
    for _t in ("i32", "u32", "i64", "u64", "f32", "f64", "i16", "u16"):
        semantic(f"v_cmp_{_op}_{_t}")(_vcmp(_op, _t, False))
        semantic(f"v_cmpx_{_op}_{_t}")(_vcmp(_op, _t, True))


@semantic("v_pk_mov_b32")
def v_pk_mov_b32(ctx, insn):
    """Two dwords from two 64-bit sources, picked by op_sel (lo from src0, hi from src1)."""
    w = ctx.wave
    _, _, ss = _split(insn)
    a = read_vector(w, ss[0], 64)
    b = read_vector(w, ss[1], 64)
    m = re.search(r"op_sel:\[(\d),(\d)\]", insn.text)
    s0, s1 = (int(m.group(1)), int(m.group(2))) if m else (0, 1)
    lo = ((a >> U64(32 * s0)) & U64(M32)).astype(U64)
    hi = ((b >> U64(32 * s1)) & U64(M32)).astype(U64)
    dst(ctx, insn, lo | (hi << U64(32)), 64)


def _vopd_halves(insn):
    """Split a VOPD instruction (`v_dual_X ... :: v_dual_Y ...`) into two ordinary VALU instructions."""
    import dataclasses

    names = insn.mnemonic.split("::")
    if len(names) != 2:
        raise Unsupported(insn.text, insn.address)
    starts = [i for i, o in enumerate(insn.operands) if o.is_dest]
    if len(starts) != 2:
        raise Unsupported(insn.text, insn.address)
    texts = insn.text.split("::")
    halves = []
    for k, (name, lo, hi) in enumerate(zip(names, starts, [starts[1], len(insn.operands)], strict=True)):
        base = "v_" + name.strip()[len("v_dual_"):]
        halves.append(dataclasses.replace(insn, mnemonic=base, encoding="VOP2", operands=insn.operands[lo:hi],
                                          text=texts[k].strip().replace("v_dual_", "v_", 1)))
    return halves


_DUALS: dict = {}


@semantic("v_dual")
def v_dual(ctx, insn):
    """VOPD dual issue (and gfx1250's VOPD3): both halves read their sources before either writes (results
    applied together)."""
    from amddbg.emu.semantics import lookup

    w = ctx.wave
    x, y, fx, fy = per_insn_cache(_DUALS, insn, lambda i: (*_vopd_halves(i), *map(lookup, _vopd_halves(i))))
    if fx is None or fy is None:
        raise Unsupported(insn.text, insn.address)
    before = w.v.copy()
    fx(ctx, x)
    dx = x.operands[0].register
    x_row = w.v[dx].copy()
    w.v[: before.shape[0]] = before
    fy(ctx, y)
    w.v[dx] = x_row


# ---------------------------------------------------------------------------------------------- 16-bit integer (true16)
# GFX11+ code from clang-22 addresses 16-bit VGPR halves by name ("v2.l", "v0.h"; the decoder marks ".h" with the
# "hi" modifier). A write to one half keeps the other half. Without a half name the 16-bit destination rules differ per
# generation, so those forms stop as unsupported rather than guess.


def _is_hi16(op) -> bool:
    return "hi" in op.modifiers or op.text.endswith(".h")


def _src16(ctx, insn, op) -> np.ndarray:
    v = read_vector(ctx.wave, op, 32)
    if op.kind in (OperandKind.VGPR, OperandKind.SGPR) and not op.text.endswith((".l", ".h")) and "op_sel" in insn.text:
        raise Unsupported(insn.text, insn.address)
    if _is_hi16(op):
        v = v >> U32(16)
    return v & U32(0xFFFF)


def _dst16(ctx, insn, values: np.ndarray) -> None:
    vd, _, _ = _split(insn)
    if not vd or not vd[0].text.endswith((".l", ".h")):
        raise Unsupported(insn.text, insn.address)
    old = read_vector(ctx.wave, vd[0], 32)
    vals = values.astype(U32) & U32(0xFFFF)
    new = (old & U32(0xFFFF)) | (vals << U32(16)) if _is_hi16(vd[0]) else (old & U32(0xFFFF0000)) | vals
    write_vector(ctx.wave, vd[0], new)


def _bin16(fn):
    def run(ctx, insn):
        _, _, ss = _split(insn)
        a, b = (_src16(ctx, insn, o) for o in ss[:2])
        _dst16(ctx, insn, fn(a, b))

    return run


semantic("v_and_b16")(_bin16(lambda a, b: a & b))
semantic("v_or_b16")(_bin16(lambda a, b: a | b))
semantic("v_xor_b16")(_bin16(lambda a, b: a ^ b))


@semantic("v_mov_b16")
def v_mov_b16(ctx, insn):
    _, _, ss = _split(insn)
    _dst16(ctx, insn, _src16(ctx, insn, ss[0]))


@semantic("v_not_b16")
def v_not_b16(ctx, insn):
    _, _, ss = _split(insn)
    _dst16(ctx, insn, ~_src16(ctx, insn, ss[0]))


@semantic("v_cndmask_b16")
def v_cndmask_b16(ctx, insn):
    _, _, ss = _split(insn)
    a, b = (_src16(ctx, insn, o) for o in ss[:2])
    sel = read_lane_mask(ctx, ss[2] if len(ss) > 2 else None)
    _dst16(ctx, insn, np.where(sel, b, a))


# ---------------------------------------------------------------------------------------------- 16-bit integer
# v_add_u16 (GFX9) / v_add_nc_u16 (GFX10+) and the other 16-bit integer ALU ops. Where the result goes: a named half
# (GFX11 true16 "v1.l"/"v1.h") keeps the other half; otherwise GFX9 zeroes the high 16 bits and GFX10+ keep them,
# with op_sel's last bit selecting the high half (LLVM's GCNSubtarget::zeroesHigh16BitsOfDest).


def _op_sel(insn) -> list[int]:
    m = re.search(r"op_sel:\[([01,]+)\]", insn.text)
    return [int(x) for x in m.group(1).split(",")] if m else []


def _isrc16(ctx, op, sel_bit: int) -> np.ndarray:
    v = read_vector(ctx.wave, op, 32)
    hi = _is_hi16(op) or (sel_bit == 1 and op.kind in (OperandKind.VGPR, OperandKind.SGPR)
                          and not op.text.endswith(".l"))
    return (v >> U32(16) if hi else v) & U32(0xFFFF)


def _idst16(ctx, insn, vd, values: np.ndarray, sel: list[int], nsrc: int) -> None:
    named = vd.text.endswith((".l", ".h"))
    hi = _is_hi16(vd) if named else (len(sel) > nsrc and sel[nsrc] == 1)
    keep = named or hi or ctx.wave.family != "gfx9"
    old = read_vector(ctx.wave, vd, 32)
    vals = values.astype(U32) & U32(0xFFFF)
    if hi:
        new = (old & U32(0xFFFF)) | (vals << U32(16)) if keep else vals << U32(16)
    else:
        new = (old & U32(0xFFFF0000)) | vals if keep else vals
    write_vector(ctx.wave, vd, new)


def _s16(v: np.ndarray) -> np.ndarray:
    return v.astype(np.int32) - ((v.astype(np.int32) & 0x8000) << 1)


_INT16 = {
    "add_u16": lambda a, b: a + b, "add_nc_u16": lambda a, b: a + b, "add_nc_i16": lambda a, b: a + b,
    "sub_u16": lambda a, b: a - b, "sub_nc_u16": lambda a, b: a - b, "sub_nc_i16": lambda a, b: a - b,
    "subrev_u16": lambda a, b: b - a, "mul_lo_u16": lambda a, b: a * b,
    "lshlrev_b16": lambda a, b: b << (a & U32(15)), "lshrrev_b16": lambda a, b: b >> (a & U32(15)),
    "ashrrev_i16": lambda a, b: (_s16(b) >> (a & U32(15)).astype(np.int32)).astype(np.int64),
    "max_u16": np.maximum, "min_u16": np.minimum,
    "max_i16": lambda a, b: np.maximum(_s16(a), _s16(b)).astype(np.int64),
    "min_i16": lambda a, b: np.minimum(_s16(a), _s16(b)).astype(np.int64),
}


def _int16(name: str):
    fn = _INT16[name]

    def run(ctx, insn):
        if fmt_clamp(insn):  # saturating forms are not modelled
            raise Unsupported(insn.text, insn.address)
        vd, _, ss = _split(insn)
        if not vd:
            raise Unsupported(insn.text, insn.address)
        sel = _op_sel(insn)
        a, b = (_isrc16(ctx, o, sel[i] if i < len(sel) else 0) for i, o in enumerate(ss[:2]))
        r = np.asarray(fn(a.astype(np.int64), b.astype(np.int64))) & 0xFFFF
        _idst16(ctx, insn, vd[0], r, sel, 2)

    return run


for _name in _INT16:
    semantic(f"v_{_name}")(_int16(_name))


# ---------------------------------------------------------------------------------------------- swaps


@semantic("v_swap_b32")
def v_swap_b32(ctx, insn):
    """Exchange two VGPRs in the active lanes (gfx9 from gfx90a on, GFX10+; clang-22 -O2 emits it for a
    register shuffle). Both operands are read before either is written, so `v_swap_b32 v1, v1` changes nothing."""
    w = ctx.wave
    a, b = insn.operands[0], insn.operands[1]
    x, y = read_vector(w, a), read_vector(w, b)
    write_vector(w, a, y)
    write_vector(w, b, x)


@semantic("v_swap_b16")
def v_swap_b16(ctx, insn):
    """GFX11 true16: exchange two 16-bit halves (each operand names its half); the other halves are kept."""
    w = ctx.wave
    a, b = insn.operands[0], insn.operands[1]
    if not (a.text.endswith((".l", ".h")) and b.text.endswith((".l", ".h"))):
        raise Unsupported(insn.text, insn.address)
    x, y = _src16(ctx, insn, a), _src16(ctx, insn, b)
    for op, val in ((a, y), (b, x)):
        old = read_vector(w, op)
        write_vector(w, op, (old & U32(0xFFFF)) | (val << U32(16)) if _is_hi16(op) else
                     (old & U32(0xFFFF0000)) | val)


@semantic("v_cvt_i32_i16", "v_cvt_u32_u16")
def v_cvt_32_16(ctx, insn):
    """GFX11+: a 16-bit integer (a true16 half, or op_sel's) sign- or zero-extended to 32 bits."""
    vd, _, ss = _split(insn)
    sel = _op_sel(insn)
    v = _isrc16(ctx, ss[0], sel[0] if sel else 0)
    if insn.mnemonic.startswith("v_cvt_i32"):
        v = _s16(v).astype(np.int64).astype(U64).astype(U32)
    write_vector(ctx.wave, vd[0], v.astype(U32))


def _three16(name: str):
    signed = name.endswith("i16")
    op = name[2:6]  # min3 / max3 / med3

    def run(ctx, insn):
        if fmt_clamp(insn):
            raise Unsupported(insn.text, insn.address)
        vd, _, ss = _split(insn)
        sel = _op_sel(insn)
        a, b, c = (_isrc16(ctx, o, sel[i] if i < len(sel) else 0).astype(np.int64) for i, o in enumerate(ss[:3]))
        if signed:
            a, b, c = _s16(a), _s16(b), _s16(c)
        if op == "min3":
            r = np.minimum(np.minimum(a, b), c)
        elif op == "max3":
            r = np.maximum(np.maximum(a, b), c)
        else:
            r = np.maximum(np.minimum(a, b), np.minimum(np.maximum(a, b), c))
        _idst16(ctx, insn, vd[0], np.asarray(r) & 0xFFFF, sel, 3)

    return run


for _name in ("v_min3_i16", "v_min3_u16", "v_max3_i16", "v_max3_u16", "v_med3_i16", "v_med3_u16"):
    semantic(_name)(_three16(_name))
