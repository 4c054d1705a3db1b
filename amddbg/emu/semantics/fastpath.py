"""Specialised closures for the instructions real kernels execute most, built once per decoded instruction.

The generic semantic functions re-derive on every execution what the instruction alone fixes (which operand is a
register, which a constant, where the result goes) and go through the general operand readers and writers. For the
plain forms of the most frequent instructions — moves, readlane/writelane, 32-bit integer VALU operations and
compares, v_cndmask, the scalar moves, arithmetic, compares, branches — `compile_fast(insn)` instead returns a
closure with the operands resolved: register numbers and constants bound, the EXEC-all case written as one array
assignment. Anything unusual (modifiers, SDWA/DPP, clamp, 16-bit halves, special registers other than VCC/EXEC,
AccVGPRs, a lane-mask width the generic path treats specially) gets no closure and runs the generic function.

The closures compute exactly what the generic functions do: tests/emu/test_fastpath.py runs both on random wave
states for every instruction of the oracle corpus that gets a closure and compares the whole wave.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from amddbg.emu.operands import M32, M64, read_scalar
from amddbg.emu.semantics import fastint
from amddbg.emu.semantics.salu import _LOGIC, _SAVEEXEC, set_exec_scc
from amddbg.emu.semantics.valu import CARRY_IN, _split_once
from amddbg.emu.wave import lane_bools
from amddbg.isa.model import OperandKind

SGPR, VGPR, INLINE, LITERAL, SPECIAL = (OperandKind.SGPR, OperandKind.VGPR, OperandKind.INLINE, OperandKind.LITERAL,
                                        OperandKind.SPECIAL)
U32 = np.uint32
U64 = np.uint64


def _plain(insn, text: str | None = None) -> bool:
    """No modifier of any kind, no SDWA/DPP, no clamp/omod, no 16-bit register halves (in `text`: the
    instruction's text, or that text less a modifier the caller's closure handles)."""
    if _NOT_PLAIN.search(insn.text if text is None else text) or "sdwa" in insn.mnemonic \
            or insn.encoding.endswith(("DPP", "SDWA", "DPP8")):
        return False
    for o in insn.operands:
        if o.modifiers:
            return False
    return True


# (a "-" before a register or "|" is a neg modifier the GFX9 decoder leaves only in the text; "-2" is a constant)
_OP_SEL = re.compile(r" op_sel:\[[01],[01]\]")  # (v_pk_mov_b32's dword selection: its closure reads it)
_NOT_PLAIN = re.compile(r" clamp|mul:|div:|neg|abs|\||op_sel|sext|\.[lh]|row_|quad_perm|bound_ctrl|dpp|[ ,]-(?![0-9.])")


# ---------------------------------------------------------------------------------------------- operand access


def _scalar_const(op, bits: int = 32) -> int | None:
    """The value of an inline constant or literal as the generic reader gives it (None: not a constant)."""
    if op.kind in (INLINE, LITERAL):
        return read_scalar(None, op, bits)
    return None


def _scalar_getter(op) -> Callable | None:
    """w -> 32-bit scalar value of an SGPR or constant operand (None: the generic reader is needed)."""
    c = _scalar_const(op)
    if c is not None:
        return lambda w: c
    if op.kind is SGPR:
        r = op.register
        return lambda w: w.s[r]
    return None


def _vector_source(op) -> tuple[str, object] | None:
    """('v', register) | ('c', constant) | ('s', register): a 32-bit VALU source without modifiers."""
    if op.kind is VGPR:
        return "v", op.register
    c = _scalar_const(op)
    if c is not None:
        return "c", c
    if op.kind is SGPR:
        return "s", op.register
    return None


def _is_vcc(op, lanes_hint: str) -> bool:
    return op.kind is SPECIAL and op.text == lanes_hint


# ---------------------------------------------------------------------------------------------- VALU


def _need(*regs: int) -> int:
    """VGPRs a closure touches: one past the highest of `regs` (destination and VGPR source registers)."""
    return max(regs) + 1


def _vgprs(w, need: int) -> np.ndarray:
    """The wave's VGPR file, grown to `need` registers first (as the generic writers grow it)."""
    if len(w.v) < need:
        w.ensure_vgprs(need)
    return w.v


def _put32(w, d: int, r) -> None:
    """Write VGPR `d` in the lanes of EXEC (every lane at once when EXEC is full)."""
    ex = w.exec
    if ex == w.mask:
        w.v[d] = r
    elif ex:
        np.copyto(w.v[d], r, where=lane_bools(ex, w.lanes), casting="unsafe")


def _lane_mask(w, sgpr: int | None) -> int:
    """A lane-mask operand: VCC (None) or an SGPR (pair in wave64), as valu.read_lane_mask reads it."""
    if sgpr is None:
        return w.vcc
    return w.s[sgpr] | (w.s[sgpr + 1] << 32 if w.lanes == 64 else 0)


def _put_lane_mask(w, sgpr: int | None, bits: np.ndarray) -> None:
    """Per-lane truth values as a lane mask (inactive lanes 0) into VCC (None) or an SGPR (pair in wave64), as
    valu.write_lane_mask writes it."""
    m = int.from_bytes(np.packbits(bits, bitorder="little").tobytes(), "little") & w.exec
    if sgpr is None:
        w.vcc = (w.vcc & ~w.mask if w.lanes == 32 else 0) | m
    else:
        s = w.s
        s[sgpr] = m & M32
        if w.lanes == 64:
            s[sgpr + 1] = m >> 32


def _vregs(*sources) -> list[int]:
    """The VGPR numbers among ('v'|'c'|'s', value) sources."""
    return [r for k, r in sources if k == "v"]


def _vmove(dreg: int, src) -> Callable:
    kind, val = src
    need = _need(dreg, *_vregs(src))

    if kind == "v":
        def run(ctx, insn):
            w = ctx.wave
            v = _vgprs(w, need)
            ex = w.exec
            if ex == w.mask:
                v[dreg] = v[val]
            elif ex:
                np.copyto(v[dreg], v[val], where=lane_bools(ex, w.lanes))
        return run

    def run(ctx, insn):
        w = ctx.wave
        v = _vgprs(w, need)
        x = val if kind == "c" else w.s[val]
        ex = w.exec
        if ex == w.mask:
            v[dreg].fill(x)
        elif ex:
            v[dreg][lane_bools(ex, w.lanes)] = x
    return run


def _vbinop(dreg: int, a, b, fn) -> Callable:
    """dst = fn(a, b) on uint32 lanes, written in EXEC."""
    need = _need(dreg, *_vregs(a, b))

    def run(ctx, insn):
        w = ctx.wave
        _vgprs(w, need)
        _put32(w, dreg, fn(_get32(w, a), _get32(w, b)))
    return run


_FULL: dict[tuple[int, int], np.ndarray] = {}


def _full(x: int, lanes: int) -> np.ndarray:
    """A read-only uint32 vector of `x` in every lane (shared: the generic path broadcasts scalars the same way)."""
    key = (x, lanes)
    a = _FULL.get(key)
    if a is None:
        if len(_FULL) > 4096:
            _FULL.clear()
        a = np.full(lanes, x, dtype=U32)
        a.flags.writeable = False
        _FULL[key] = a
    return a


def _readlane(sdst: int, vreg: int, lane) -> Callable:
    kind, val = lane
    need = _need(vreg)

    def run(ctx, insn):
        w = ctx.wave
        n = (val if kind == "c" else w.s[val]) % w.lanes
        w.s[sdst] = int(_vgprs(w, need)[vreg, n])
    return run


def _writelane(vreg: int, src, lane) -> Callable:
    (ks, vs), (kl, vl) = src, lane
    need = _need(vreg)

    def run(ctx, insn):
        w = ctx.wave
        n = (vl if kl == "c" else w.s[vl]) % w.lanes
        _vgprs(w, need)[vreg, n] = vs if ks == "c" else w.s[vs]
    return run


def _readfirstlane(sdst: int, src) -> Callable:
    kind, val = src
    need = _need(0, *_vregs(src))

    def run(ctx, insn):
        w = ctx.wave
        if kind == "v":
            ex = w.exec
            first = (ex & -ex).bit_length() - 1 if ex else 0
            w.s[sdst] = int(_vgprs(w, need)[val, first])
        else:
            w.s[sdst] = val if kind == "c" else w.s[val]
    return run


def _vcmp(target, a, b, fn, signed: bool) -> Callable:
    """A 32-bit integer compare (not v_cmpx) into VCC (target None) or an SGPR (pair in wave64)."""
    need = _need(0, *_vregs(a, b))

    def run(ctx, insn):
        w = ctx.wave
        _vgprs(w, need)
        x, y = _get32(w, a), _get32(w, b)
        if signed:
            x, y = x.view(np.int32), y.view(np.int32)
        _put_lane_mask(w, target, fn(x, y))
    return run


def _cndmask(dreg: int, a, b, sel) -> Callable:
    """dst = sel ? b : a, sel None = VCC, else an SGPR (pair in wave64)."""
    need = _need(dreg, *_vregs(a, b))

    def run(ctx, insn):
        w = ctx.wave
        _vgprs(w, need)
        _put32(w, dreg, np.where(lane_bools(_lane_mask(w, sel), w.lanes), _get32(w, b), _get32(w, a)))
    return run


def _accmove(d, src) -> Callable | None:
    """v_accvgpr_read/write/mov: a dword between VGPRs and AccVGPRs (or a constant into one), in EXEC. The generic
    reader grows the AccVGPR file to the register after the one it reads (kept here)."""
    if d.kind not in (VGPR, OperandKind.AGPR):
        return None
    c = _scalar_const(src)
    if c is None and src.kind not in (VGPR, OperandKind.AGPR):
        return None
    dr, d_acc = d.register, d.kind is OperandKind.AGPR
    sr, s_acc = (src.register, src.kind is OperandKind.AGPR) if c is None else (0, False)

    def run(ctx, insn):
        w = ctx.wave
        if c is None:
            if s_acc:
                if len(w.a) < sr + 2:
                    w.ensure_agprs(sr + 2)
                x = w.a[sr]
            else:
                if len(w.v) < sr + 1:
                    w.ensure_vgprs(sr + 2)
                x = w.v[sr]
        else:
            x = c
        if d_acc:
            w.ensure_agprs(dr + 2)
            rows = w.a
        else:
            if len(w.v) < dr + 1:
                w.ensure_vgprs(dr + 1)
            rows = w.v
        ex = w.exec
        if ex == w.mask:
            rows[dr] = x
        elif ex:
            np.copyto(rows[dr], x, where=lane_bools(ex, w.lanes), casting="unsafe")
    return run


def _source64(op, fmt: str = "i"):
    """('v', VGPR pair) | ('s', SGPR pair) | ('c', 64-bit constant as operands.read_scalar gives it) | None."""
    if op.kind is VGPR:
        return "v", op.register
    if op.kind in (INLINE, LITERAL):
        return "c", read_scalar(None, op, 64, fmt)
    if op.kind is SGPR and op.register + 1 < 106:
        return "s", op.register
    return None


def _get64(w, src):
    k, r = src
    if k == "v":  # the pair's two rows interleaved per lane (lo, hi) and read as one uint64 each: one copy
        return np.ascontiguousarray(w.v[r:r + 2].T).view(U64).ravel()
    if k == "c":
        return np.full(w.lanes, r, dtype=U64)
    return np.full(w.lanes, w.s[r] | w.s[r + 1] << 32, dtype=U64)


def _get32(w, src):
    k, r = src
    if k == "v":
        return w.v[r]
    return _full(r if k == "c" else w.s[r], w.lanes)


def _put64(w, d: int, vals) -> None:
    """Write uint64 lanes to the VGPR pair `d` in EXEC: the lanes' (lo, hi) dwords as a (2, lanes) view."""
    rows = np.ascontiguousarray(vals, dtype=U64).view(U32).reshape(-1, 2).T
    ex = w.exec
    if ex == w.mask:
        w.v[d:d + 2] = rows
    elif ex:
        np.copyto(w.v[d:d + 2], rows, where=lane_bools(ex, w.lanes))


def _dword(w, src, k: int):
    """Dword `k` (0 low, 1 high) of a 64-bit source (`_source64`) in every lane."""
    kind, r = src
    if kind == "v":
        return w.v[r + k]
    return _full((r >> (32 * k)) & M32 if kind == "c" else w.s[r + k], w.lanes)


def _v64(base: str, d: int, srcs, text: str = "") -> Callable | None:
    """v_mov_b64, v_lshlrev_b64, v_lshrrev_b64, v_lshl_add_u64, v_pk_mov_b32 as valu.py computes them."""
    if base == "v_mov_b64":
        if len(srcs) != 1:
            return None
        a = _source64(srcs[0])
        if a is None:
            return None
        need = _need(d + 1, *(r + 1 for r in _vregs(a)))

        def run(ctx, insn):
            w = ctx.wave
            _vgprs(w, need)
            _put64(w, d, _get64(w, a))
        return run
    if base in ("v_lshlrev_b64", "v_lshrrev_b64"):
        if len(srcs) != 2:
            return None
        n, a = _vector_source(srcs[0]), _source64(srcs[1])
        if n is None or a is None:
            return None
        left = base == "v_lshlrev_b64"
        need = _need(d + 1, *(r + 1 for r in _vregs(a)), *_vregs(n))

        def run(ctx, insn):
            w = ctx.wave
            _vgprs(w, need)
            k = (_get32(w, n) & U32(63)).astype(U64)
            x = _get64(w, a)
            _put64(w, d, x << k if left else x >> k)
        return run
    if base == "v_pk_mov_b32":  # dword op_sel[0] of src0 to the low half, dword op_sel[1] of src1 to the high
        if len(srcs) != 2:
            return None
        a, b = _source64(srcs[0]), _source64(srcs[1])
        if a is None or b is None:
            return None
        m = re.search(r"op_sel:\[(\d),(\d)\]", text)
        s0, s1 = (int(m.group(1)), int(m.group(2))) if m else (0, 1)
        need = _need(d + 1, *(r + 1 for r in _vregs(a, b)))

        def run(ctx, insn):
            w = ctx.wave
            _vgprs(w, need)
            rows = np.array((_dword(w, a, s0), _dword(w, b, s1)))  # a copy: the sources may overlap the pair
            ex = w.exec
            if ex == w.mask:
                w.v[d:d + 2] = rows
            elif ex:
                np.copyto(w.v[d:d + 2], rows, where=lane_bools(ex, w.lanes))
        return run
    if base == "v_lshl_add_u64":
        if len(srcs) != 3:
            return None
        a, n, c = _source64(srcs[0]), _vector_source(srcs[1]), _source64(srcs[2])
        if a is None or n is None or c is None:
            return None
        need = _need(d + 1, *(r + 1 for r in _vregs(a, c)), *_vregs(n))

        def run(ctx, insn):
            w = ctx.wave
            _vgprs(w, need)
            k = (_get32(w, n) & U32(7)).astype(U64)
            _put64(w, d, (_get64(w, a) << k) + _get64(w, c))
        return run
    return None


_FLOAT_OPS = {f"v_{name}_{t}": (fn, 64 if t == "f64" else 32) for t in ("f32", "f64") for name, fn in (
    ("add", lambda a, b: a + b), ("sub", lambda a, b: a - b), ("subrev", lambda a, b: b - a),
    ("mul", lambda a, b: a * b))}
_FLOAT_OPS["v_fmac_f32"] = (None, 32)
_FLOAT_OPS["v_fma_f32"] = (None, 32)
_FLOAT_OPS["v_fmaak_f32"] = (None, 32)  # D = S0 * S1 + K and D = S0 * K + S1: an fma of the operands in the order
_FLOAT_OPS["v_fmamk_f32"] = (None, 32)  # printed, as vfloat runs them


def _float(base: str, fop, d: int, srcs, generic, mods: list | None = None) -> Callable | None:
    """f32/f64 add, sub, subrev, mul and f32 fma/fmac under the default MODE (round to nearest even, denormals
    kept): the numpy operation vfloat computes, written when no lane's result is a NaN. Any other mode, or a NaN
    result (whose bits vfloat's NaN rules decide), runs the generic function instead (nothing written before).
    `mods`: per source, the neg/abs modifiers (abs then neg, as vfloat._apply_negabs: both exact on the value)."""
    fn, bits = fop
    if bits == 64:
        ops = [_source64(o, "f") for o in srcs]
        rshift, dshift, ft = 2, 6, np.float64
    else:
        ops = [_vector_source(o) for o in srcs]
        rshift, dshift, ft = 0, 4, np.float32
    if any(o is None for o in ops):
        return None
    fma = fn is None
    if fma:
        from amddbg.emu.semantics.vfloat import _fma_exact

        if base == "v_fmac_f32" and len(ops) == 2:
            ops.append(("v", d))
        if len(ops) != 3:
            return None
    elif len(ops) != 2:
        return None
    width = 2 if bits == 64 else 1  # (a 64-bit operand is a register pair)
    need = _need(d + width - 1, *(r + width - 1 for r in _vregs(*ops)))
    if bits == 32 and not mods:
        return _float32(d, ops, fn, need, generic)
    get = (lambda w, o: _get64(w, o).view(np.float64)) if bits == 64 else (lambda w, o: _get32(w, o).view(ft))

    def run(ctx, insn):
        w = ctx.wave
        mode = w.mode
        if (mode >> rshift) & 3 or (mode >> dshift) & 3 != 3:
            return generic(ctx, insn)
        _vgprs(w, need)
        xs = [get(w, o) for o in ops]
        if mods:
            for i, m in enumerate(mods):
                if "abs" in m:
                    xs[i] = np.abs(xs[i])
                if "neg" in m:
                    xs[i] = -xs[i]
        r = _fma_exact(xs[0], xs[1], xs[2], 32) if fma else fn(xs[0], xs[1])
        if np.count_nonzero(np.isnan(r)):
            return generic(ctx, insn)
        if bits == 64:
            _put64(w, d, r.view(U64))
        else:
            _put32(w, d, r.view(U32))
        return None
    return run


def _float32(d: int, ops: list, fn, need: int, generic) -> Callable:
    """`_float`'s f32 forms without modifiers, the sources read in place (a VGPR row viewed as float32, a constant
    or SGPR as a float32 scalar: numpy broadcasts it as `_get32`'s shared row would be) and no helper calls."""
    from amddbg.emu.semantics.vfloat import _fma_exact

    srcs = [(k, np.uint32(r).view(np.float32) if k == "c" else r) for k, r in ops]
    (k0, r0), (k1, r1) = srcs[0], srcs[1]
    k2, r2 = srcs[2] if len(srcs) > 2 else ("c", None)
    fma = fn is None
    f32 = np.float32
    isnan = np.isnan

    def run(ctx, insn):
        w = ctx.wave
        mode = w.mode
        if mode & 3 or (mode >> 4) & 3 != 3:
            return generic(ctx, insn)
        v = w.v
        if len(v) < need:
            w.ensure_vgprs(need)
            v = w.v
        x = v[r0].view(f32) if k0 == "v" else (r0 if k0 == "c" else U32(w.s[r0]).view(f32))
        y = v[r1].view(f32) if k1 == "v" else (r1 if k1 == "c" else U32(w.s[r1]).view(f32))
        if fma:
            z = v[r2].view(f32) if k2 == "v" else (r2 if k2 == "c" else U32(w.s[r2]).view(f32))
            r = _fma_exact(x, y, z, 32)
        else:
            r = fn(x, y)
        if np.count_nonzero(isnan(r)):
            return generic(ctx, insn)
        ex = w.exec
        if ex == w.mask:
            v[d] = r.view(U32)
        elif ex:
            np.copyto(v[d], r.view(U32), where=lane_bools(ex, w.lanes), casting="unsafe")
        return None
    return run


def _unary32(insn, generic) -> Callable | None:
    """The plain f32 unary operations of vfloat._arith (v_rcp, v_sqrt, v_rsq, v_floor, v_fract, v_exp...) under
    the default MODE (round to nearest even, f32 denormals kept): the lane function vfloat applies, written when no
    lane's result is a NaN (vfloat's NaN rules decide those bits; nothing else of `_finish` acts on a plain form
    in that mode). Any other mode or a NaN runs the generic function (nothing written before)."""
    if insn.encoding.endswith(("DPP", "SDWA", "DPP8")):
        return None
    dests = [o for o in insn.operands if o.is_dest]
    srcs = [o for o in insn.operands if not o.is_dest]
    if len(dests) != 1 or dests[0].kind is not VGPR or len(srcs) != 1:
        return None
    src = _vector_source(srcs[0])
    if src is None:
        return None
    fn = generic.unary32
    d = dests[0].register
    k, r = src
    need = _need(d, *_vregs(src))
    f32 = np.float32
    isnan = np.isnan

    def run(ctx, insn):
        w = ctx.wave
        mode = w.mode
        if mode & 3 or (mode >> 4) & 3 != 3:
            return generic(ctx, insn)
        v = w.v
        if len(v) < need:
            w.ensure_vgprs(need)
            v = w.v
        x = v[r] if k == "v" else _full(r if k == "c" else w.s[r], w.lanes)
        y = fn(x.view(f32))
        if np.count_nonzero(isnan(y)):
            return generic(ctx, insn)
        ex = w.exec
        if ex == w.mask:
            v[d] = y.view(U32)
        elif ex:
            np.copyto(v[d], y.view(U32), where=lane_bools(ex, w.lanes), casting="unsafe")
        return None
    return run


_B16 = {"v_mov_b16": None, "v_and_b16": np.bitwise_and, "v_or_b16": np.bitwise_or, "v_xor_b16": np.bitwise_xor}


def _half16(op) -> tuple | None:
    """('v', register, high half) for a named VGPR half (v3.l, v3.h), ('c', 16-bit value) for a constant, else None."""
    if op.kind is VGPR and op.text.endswith((".l", ".h")) and set(op.modifiers) <= {"hi"}:
        return "v", op.register, op.text.endswith(".h") or "hi" in op.modifiers
    c = _scalar_const(op)
    if c is not None and not op.modifiers:
        return "c", c & 0xFFFF, False
    return None


def _b16(insn, base: str, generic: Callable) -> Callable | None:
    """GFX11+ true16 v_mov/and/or/xor_b16 between named VGPR halves and constants, without other modifiers: the
    16-bit value put into the destination's half, the other half kept (valu._src16/_dst16)."""
    if insn.encoding.endswith(("DPP", "SDWA", "DPP8")) or "op_sel" in insn.text or _NOT_PLAIN.search(
            re.sub(r"\.[lh]\b", "", insn.text)):
        return None
    dests = [o for o in insn.operands if o.is_dest]
    srcs = [o for o in insn.operands if not o.is_dest]
    fn = _B16[base]
    if len(dests) != 1 or len(srcs) != (1 if fn is None else 2):
        return None
    dst = _half16(dests[0])
    ss = [_half16(o) for o in srcs]
    if dst is None or dst[0] != "v" or any(x is None for x in ss):
        return None
    d, dhi = dst[1], dst[2]
    fast = fastint.half16(base, d, dhi, ss, generic)
    if fast is not None:
        return fast
    need = _need(d, *(x[1] for x in ss if x[0] == "v"))
    m16, sh = U32(0xFFFF), U32(16)

    def get(w, x):
        if x[0] == "c":
            return U32(x[1])
        v = w.v[x[1]]
        return (v >> sh) & m16 if x[2] else v & m16

    def run(ctx, insn):
        w = ctx.wave
        _vgprs(w, need)
        val = get(w, ss[0]) if fn is None else fn(get(w, ss[0]), get(w, ss[1]))
        old = w.v[d]
        new = (old & m16) | (val << sh) if dhi else (old & U32(0xFFFF0000)) | val
        _put32(w, d, np.broadcast_to(new, old.shape) if np.ndim(new) == 0 else new)
        return None
    return run


_DIV = frozenset({"v_div_scale_f32", "v_div_fmas_f32", "v_div_fixup_f32"})


def _div(insn, base: str, generic) -> Callable | None:
    """The f32 division steps clang emits for IEEE `a / b`, in the case every lane of EXEC is ordinary, under the
    default MODE (round to nearest even, f32 denormals kept); any other lane or mode runs the generic function
    (vfloat.v_div_scale/v_div_fmas/v_div_fixup; nothing written before). Without source modifiers, clamp or omod:
    - v_div_scale_f32: S0, S1, S2 with biased exponents in [32, 220] and |e(S2) - e(S1)| <= 64 need no scaling
      (none of the pseudocode's cases applies: no zero, denormal, NaN, infinity, denormal reciprocal or
      quotient, tiny numerator, or exponent gap of 96): D = S0, the VCC/SDST lanes of EXEC 0.
    - v_div_fmas_f32: no lane of EXEC has VCC set: the fma alone (vfloat's single-rounding `_fma_exact`), written
      when no lane's result is a NaN.
    - v_div_fixup_f32: S1 and S2 finite normal (biased exponents 1..254) with e(S2) - e(S1) > -120 and S0 not
      NaN or infinite: none of the special cases applies, D = |S0| with the sign of S1 xor S2."""
    from amddbg.emu.semantics.valu import write_lane_mask
    from amddbg.emu.semantics.vfloat import _fma_exact, _form

    if insn.encoding.endswith(("DPP", "SDWA", "DPP8")):
        return None
    f = _form(insn)
    if f.dst is None or f.dst.kind is not VGPR or len(f.srcs) != 3 or any(f.mods) or f.clamp or f.omod != 1.0 \
            or any(f.op_sel):
        return None
    ops = [_vector_source(o) for o in f.srcs]
    if any(o is None for o in ops):
        return None
    d = f.dst.register
    need = _need(d, *_vregs(*ops))
    sdst = f.sdst if (f.sdst is not None and f.sdst.text not in ("vcc", "vcc_lo")) else None
    e8, s23, sign, mag = U32(0xFF), U32(23), U32(0x80000000), U32(0x7FFFFFFF)
    f32 = np.float32

    def exps(w, us):
        ex = w.exec
        if ex != w.mask:
            sel = lane_bools(ex, w.lanes)
            us = [u[sel] for u in us]
        return [((u >> s23) & e8).astype(np.int32) for u in us]

    def run(ctx, insn):
        w = ctx.wave
        mode = w.mode
        if mode & 3 or (mode >> 4) & 3 != 3 or not w.exec:
            return generic(ctx, insn)
        _vgprs(w, need)
        us = [_get32(w, o) for o in ops]
        if base == "v_div_scale_f32":
            e0, e1, e2 = exps(w, us)
            gap = e2 - e1
            if e0.min() < 32 or e1.min() < 32 or e2.min() < 32 or max(e0.max(), e1.max(), e2.max()) > 220 \
                    or gap.min() < -64 or gap.max() > 64:
                return generic(ctx, insn)
            _put32(w, d, us[0])
            write_lane_mask(ctx, sdst, np.zeros(w.lanes, dtype=bool))
            return None
        if base == "v_div_fmas_f32":
            if w.vcc & w.exec:
                return generic(ctx, insn)
            r = _fma_exact(us[0].view(f32), us[1].view(f32), us[2].view(f32), 32)
            if np.count_nonzero(np.isnan(r)):
                return generic(ctx, insn)
            _put32(w, d, r.view(U32))
            return None
        e0, e1, e2 = exps(w, us)
        if e1.min() < 1 or e2.min() < 1 or e1.max() > 254 or e2.max() > 254 or e0.max() > 254 \
                or (e2 - e1).min() <= -120:
            return generic(ctx, insn)
        _put32(w, d, (us[0] & mag) | ((us[1] ^ us[2]) & sign))
        return None
    return run


_PACKED = {"v_pk_add_f32": (2, lambda a, b: a + b), "v_pk_mul_f32": (2, lambda a, b: a * b),
           "v_pk_fma_f32": (3, None)}


def _packed(insn, base: str, generic) -> Callable | None:
    """v_pk_add/mul/fma_f32 with VGPR-pair or SGPR-pair sources, any op_sel/op_sel_hi dword choice, no
    neg_lo/neg_hi, clamp or other modifier, under the default MODE (round to nearest even, f32 denormals kept): both
    halves computed as one (2, lanes) array — f32 add/mul with numpy's IEEE rounding, fma through vfloat's
    single-rounding `_fma_exact` — and written when no lane's result is a NaN (whose bits vfloat's NaN rules
    decide). Any other mode or a NaN result runs the generic function (nothing written before). Constants (their
    packed meaning depends on the operand's type) get no closure."""
    from amddbg.emu.semantics.vfloat import _fma_exact, _form

    nsrc, fn = _PACKED[base]
    if insn.encoding.endswith(("DPP", "DPP8")):
        return None
    f = _form(insn)
    if f.dst is None or f.dst.kind is not VGPR or len(f.srcs) != nsrc or any(f.mods) or f.clamp or f.omod != 1.0 \
            or any(f.neg_lo) or any(f.neg_hi) or f.sdst is not None:
        return None
    osh = f.op_sel_hi if f.op_sel_hi is not None else [1] * nsrc
    srcs = []
    for i, op in enumerate(f.srcs):
        lo_dw, hi_dw = (1 if i < len(f.op_sel) and f.op_sel[i] else 0), (1 if i < len(osh) and osh[i] else 0)
        if op.kind is VGPR:
            srcs.append(("v", op.register + lo_dw, op.register + hi_dw))
        elif op.kind is SGPR and op.register + 1 < 106:
            srcs.append(("s", op.register + lo_dw, op.register + hi_dw))
        else:
            return None
    d = f.dst.register
    need = _need(d + 1, *(r + 1 for k, r, _ in srcs if k == "v"))
    f32 = np.float32

    def get(w, src):
        k, lo, hi = src
        if k == "v":
            v = w.v
            if hi == lo + 1:  # (the usual dword choice: the pair's two rows, one contiguous view)
                return v[lo:lo + 2].reshape(-1).view(f32)
            return np.concatenate((v[lo], v[hi])).view(f32)
        return np.repeat(np.array([w.s[lo], w.s[hi]], dtype=U32), w.lanes).view(f32)

    def run(ctx, insn):
        w = ctx.wave
        mode = w.mode
        if mode & 3 or (mode >> 4) & 3 != 3:
            return generic(ctx, insn)
        _vgprs(w, need)
        xs = [get(w, o) for o in srcs]
        r = _fma_exact(xs[0], xs[1], xs[2], 32) if fn is None else fn(xs[0], xs[1])
        if np.count_nonzero(np.isnan(r)):
            return generic(ctx, insn)
        n = w.lanes
        rb = r.view(U32).reshape(2, n)
        ex = w.exec
        if ex == w.mask:
            w.v[d:d + 2] = rb
        elif ex:
            np.copyto(w.v[d:d + 2], rb, where=lane_bools(ex, n))
        return None
    return run


def _float_negabs(insn, base: str, generic) -> Callable | None:
    """`_float` for a form whose only modifiers are neg/abs on sources (clang's `v_fma_f32 v4, -v4, v7, v6` in
    every IEEE division), as vfloat's parsed form gives them; anything else: no closure."""
    from amddbg.emu.semantics.vfloat import _form

    if insn.encoding.endswith(("DPP", "SDWA", "DPP8")) or "sdwa" in insn.mnemonic:
        return None
    f = _form(insn)
    if f.dst is None or f.dst.kind is not VGPR or f.sdst is not None or f.clamp or f.omod != 1.0 or any(f.op_sel) \
            or f.op_sel_hi is not None or any(f.neg_lo) or any(f.neg_hi) or any(m - {"neg", "abs"} for m in f.mods):
        return None
    return _float(base, _FLOAT_OPS[base], f.dst.register, f.srcs, generic, [set(m) for m in f.mods])


_MINMAX = {"v_min_f32": True, "v_max_f32": False, "v_min_num_f32": True, "v_max_num_f32": False}


def _fminmax(d: int, a, b, is_min: bool, generic) -> Callable:
    """f32 min/max without NaN operands as vfloat._minmax picks (-0 < +0), denormals kept (else generic)."""
    need = _need(d, *_vregs(a, b))
    sign = U32(0x80000000)
    f32 = np.float32

    def run(ctx, insn):
        w = ctx.wave
        if (w.mode >> 4) & 3 != 3:
            return generic(ctx, insn)
        _vgprs(w, need)
        xb, yb = _get32(w, a), _get32(w, b)
        x, y = xb.view(f32), yb.view(f32)
        if np.count_nonzero(np.isnan(x)) or np.count_nonzero(np.isnan(y)):
            return generic(ctx, insn)
        bothzero = (x == 0) & (y == 0)
        xneg = (xb & sign) != 0
        yneg = (yb & sign) != 0
        pick_a = (x < y) | (bothzero & xneg & ~yneg) if is_min else (x > y) | (bothzero & ~xneg & yneg)
        _put32(w, d, np.where(pick_a, xb, yb))
        return None
    return run


def _any_vcc(op) -> bool:
    return op.kind is SPECIAL and op.text in ("vcc", "vcc_lo")


_CARRY = {"v_add_co_u32": "add", "v_add_i32_vop2_carry": "add", "v_addc_co_u32": "addc", "v_add_co_ci_u32": "addc",
          "v_addc_u32": "addc", "v_sub_co_u32": "sub", "v_subrev_co_u32": "subrev", "v_subb_co_u32": "subb",
          "v_sub_co_ci_u32": "subb", "v_subb_u32": "subb", "v_subbrev_co_u32": "subbrev",
          "v_subrev_co_ci_u32": "subbrev", "v_subbrev_u32": "subbrev"}


def _vcarry(op: str, dreg: int, a, b, cout: int | None, cin: int | None) -> Callable:
    """valu._carry's add/sub (valu.carry_math's results) with carry out and carry in in VCC (None) or an SGPR
    (pair), on uint32 lanes: they wrap as the hardware does, and each carry (borrow) is a compare."""
    need = _need(dreg, *_vregs(a, b))
    if op not in CARRY_IN:
        rev = op == "subrev"

        def run(ctx, insn):
            w = ctx.wave
            _vgprs(w, need)
            x, y = _get32(w, a), _get32(w, b)
            if op == "add":
                r = x + y
                co = r < x
            else:
                if rev:
                    x, y = y, x
                r = x - y
                co = y > x
            _put32(w, dreg, r)
            if cout != DISCARD:
                _put_lane_mask(w, cout, co)
        return run

    if op in ("addc", "subb", "subbrev"):  # two steps: a carry (borrow) out of either
        rev = op == "subbrev"

        def run(ctx, insn):
            w = ctx.wave
            _vgprs(w, need)
            c = lane_bools(_lane_mask(w, cin), w.lanes)
            x, y = _get32(w, a), _get32(w, b)
            if op == "addc":
                r1 = x + y
                r = r1 + c
                co = (r1 < x) | (r < r1)
            else:
                if rev:
                    x, y = y, x
                r1 = x - y
                r = r1 - c
                co = (y > x) | (c > r1)
            _put32(w, dreg, r)
            if cout != DISCARD:
                _put_lane_mask(w, cout, co)
        return run
    raise ValueError(f"carry op {op!r}")


DISCARD = -1  # a lane-mask destination that is `null`: the result is not written


def _is_null(op) -> bool:
    return op.kind is SPECIAL and op.text == "null"


def _lane_mask_target(op) -> int | None:
    """A VOP3 lane-mask destination as the closures take it: an SGPR (pair) number, None for VCC, DISCARD for
    null."""
    if _is_null(op):
        return DISCARD
    return None if _any_vcc(op) else op.register


_MAD64 = frozenset({"v_mad_u64_u32", "v_mad_i64_i32", "v_mad_co_u64_u32", "v_mad_co_i64_i32"})


def _mad64(dreg: int, a, b, c, cout: int | None, signed: bool) -> Callable:
    """valu.v_mad64: a 32x32 product (exact in 64 bits) plus a 64-bit addend, wrapping; the carry (unsigned) or
    the signed overflow into a lane mask."""
    need = _need(dreg + 1, *_vregs(a, b), *(r + 1 for r in _vregs(c)))
    i32, i64 = np.int32, np.int64

    def run(ctx, insn):
        w = ctx.wave
        _vgprs(w, need)
        x, y, z = _get32(w, a), _get32(w, b), _get64(w, c)
        if signed:
            p = (x.view(i32).astype(i64) * y.view(i32).astype(i64)).view(U64)
            out = p + z
            carry = ((p ^ out) & (z ^ out)) >> U64(63) == U64(1)
        else:
            p = x.astype(U64) * y.astype(U64)
            out = p + z
            carry = out < p
        _put64(w, dreg, out)
        if cout != DISCARD:
            _put_lane_mask(w, cout, carry)
    return run


_VCMP_FNS = {"eq": np.equal, "ne": np.not_equal, "lg": np.not_equal, "lt": np.less, "le": np.less_equal,
             "gt": np.greater, "ge": np.greater_equal}


def _valu(insn, generic, lanes_name) -> Callable | None:
    mn = insn.mnemonic
    base = mn[:-4] if mn.endswith(("_e32", "_e64")) else mn
    ops = insn.operands
    dests = [o for o in ops if o.is_dest]
    srcs = [o for o in ops if not o.is_dest]
    if base in ("v_mov_b32",) and len(dests) == 1 and dests[0].kind is VGPR and len(srcs) == 1:
        s = _vector_source(srcs[0])
        return _vmove(dests[0].register, s) if s is not None else None
    if base == "v_readlane_b32" and len(ops) == 3 and ops[0].kind is SGPR and ops[1].kind is VGPR:
        lane = _vector_source(ops[2])
        if lane is not None and lane[0] != "v" and ops[0].register < 106:
            return _readlane(ops[0].register, ops[1].register, lane)
        return None
    if base == "v_writelane_b32" and len(ops) == 3 and ops[0].kind is VGPR:
        src, lane = _vector_source(ops[1]), _vector_source(ops[2])
        if src is not None and lane is not None and src[0] != "v" and lane[0] != "v":
            return _writelane(ops[0].register, src, lane)
        return None
    if base == "v_readfirstlane_b32" and len(dests) == 1 and dests[0].kind is SGPR and len(srcs) == 1:
        s = _vector_source(srcs[0])
        return _readfirstlane(dests[0].register, s) if s is not None and dests[0].register < 106 else None
    if base == "v_cndmask_b32":
        vd = [o for o in dests if o.kind is VGPR]
        # the sources as the generic semantics take them (valu._split): VCC as the selector is implicit and dropped,
        # VCC as a data source (`v_cndmask_b32_e64 v0, v1, vcc_lo, s[4:5]`) stays and sends this to the generic path
        # (either VCC name is the whole VCC as selector, as read_lane_mask takes it: wave64 code from the GFX10+
        # decoders without the wave64 attribute names vcc_lo)
        ss = _split_once(insn)[2]
        if len(vd) != 1 or len(dests) != 1 or len(ss) not in (2, 3):
            return None
        a, b = _vector_source(ss[0]), _vector_source(ss[1])
        if a is None or b is None:
            return None
        if len(ss) == 3:
            if ss[2].kind is not SGPR:
                return None
            sel = ss[2].register
        elif any(_any_vcc(o) for o in srcs) or lanes_name == "vcc":
            sel = None
        else:
            return None
        return _cndmask(vd[0].register, a, b, sel)
    if base.startswith("v_cmp_") and base[-4:] in ("_i32", "_u32"):
        op = base[len("v_cmp_"):-4]
        fn = _VCMP_FNS.get(op)
        if fn is None:
            return None
        ss = [o for o in srcs if not _any_vcc(o)]
        sd = [o for o in dests if not _any_vcc(o)]
        if len(ss) != 2 or len(sd) > 1:
            return None
        a, b = _vector_source(ss[0]), _vector_source(ss[1])
        if a is None or b is None:
            return None
        if sd:
            if sd[0].kind is not SGPR:
                return None
            target = sd[0].register
        else:
            target = None
        return _vcmp(target, a, b, fn, base.endswith("_i32"))
    if base in ("v_accvgpr_read_b32", "v_accvgpr_write_b32", "v_accvgpr_mov_b32") and len(dests) == 1 \
            and len(srcs) == 1:
        return _accmove(dests[0], srcs[0])
    if base in ("v_mov_b64", "v_lshlrev_b64", "v_lshrrev_b64", "v_lshl_add_u64", "v_pk_mov_b32") \
            and len(dests) == 1 and dests[0].kind is VGPR:
        return _v64(base, dests[0].register, srcs, insn.text)
    if base in _MINMAX and len(dests) == 1 and dests[0].kind is VGPR and len(srcs) == 2:
        a, b = _vector_source(srcs[0]), _vector_source(srcs[1])
        if a is None or b is None:
            return None
        return _fminmax(dests[0].register, a, b, _MINMAX[base], generic)
    if base in _PACKED and len(dests) == 1:
        return _packed(insn, base, generic)
    fop = _FLOAT_OPS.get(base)
    if fop is not None and len(dests) == 1 and dests[0].kind is VGPR:
        return _float(base, fop, dests[0].register, srcs, generic)
    carry = _CARRY.get(base)
    if carry is not None:
        vd = [o for o in dests if o.kind is VGPR]
        sd = [o for o in dests if o.kind is not VGPR and not _any_vcc(o)]
        ss = _split_once(insn)[2]  # (a VCC data source stays, and goes generic, as in v_cndmask above)
        if len(vd) != 1 or len(sd) > 1 or (sd and sd[0].kind is not SGPR and not _is_null(sd[0])):
            return None
        needs_cin = carry in ("addc", "subb", "subbrev")
        if len(ss) != (3 if needs_cin and len(ss) == 3 else 2):
            return None
        if len(ss) == 3 and ss[2].kind is not SGPR:
            return None
        a, b = _vector_source(ss[0]), _vector_source(ss[1])
        if a is None or b is None:
            return None
        return _vcarry(carry, vd[0].register, a, b, _lane_mask_target(sd[0]) if sd else None,
                       ss[2].register if len(ss) == 3 else None)
    if base in _MAD64 and len(srcs) == 3:
        vd = [o for o in dests if o.kind is VGPR]
        sd = [o for o in dests if o.kind is not VGPR]
        if len(vd) != 1 or len(sd) > 1 or (sd and sd[0].kind is not SGPR and not _is_null(sd[0])
                                           and not _any_vcc(sd[0])):
            return None
        signed = "i64" in base
        a, b, c = _vector_source(srcs[0]), _vector_source(srcs[1]), _source64(srcs[2], "s" if signed else "i")
        if a is None or b is None or c is None:
            return None
        return _mad64(vd[0].register, a, b, c, _lane_mask_target(sd[0]) if sd else DISCARD, signed)
    ternop = _binop_of(generic, "ternop")
    if ternop is not None and len(dests) == 1 and dests[0].kind is VGPR and len(srcs) == 3:
        a, b, c = (_vector_source(o) for o in srcs)
        if a is None or b is None or c is None:
            return None
        return fastint.ternop(base, dests[0].register, a, b, c) or _vternop(dests[0].register, a, b, c, ternop)
    binop = _binop_of(generic)
    if binop is not None and len(dests) == 1 and dests[0].kind is VGPR and len(srcs) == 2:
        a, b = _vector_source(srcs[0]), _vector_source(srcs[1])
        if a is None or b is None:
            return None
        return fastint.binop(base, dests[0].register, a, b) or _vbinop(dests[0].register, a, b, binop)
    return None


def _vternop(dreg: int, a, b, c, fn) -> Callable:
    """dst = fn(a, b, c) on uint32 lanes, written in EXEC (valu._ternop's plain forms: v_add3, v_lshl_or,
    v_alignbit...)."""
    need = _need(dreg, *_vregs(a, b, c))

    def run(ctx, insn):
        w = ctx.wave
        _vgprs(w, need)
        _put32(w, dreg, fn(_get32(w, a), _get32(w, b), _get32(w, c)))
    return run


def _binop_of(fn, attr: str = "binop") -> Callable | None:
    """The 32-bit lane function of a `valu._binop` semantic (`attr` "ternop": of a `valu._ternop`), seen through
    wrappers, or None."""
    seen = 0
    while fn is not None and seen < 4:
        op = getattr(fn, attr, None)
        if op is not None:
            return op
        fn = getattr(fn, "__wrapped__", None)
        seen += 1
    return None


# ---------------------------------------------------------------------------------------------- SALU


def _sgpr(op) -> int | None:
    return op.register if op.kind is SGPR and op.register < 106 else None


def _smov(d: int, src, bits: int) -> Callable:
    if bits == 64:
        c = _scalar_const(src, 64)
        if c is not None:
            lo, hi = c & M32, c >> 32 & M32

            def run(ctx, insn):
                s = ctx.wave.s
                s[d] = lo
                s[d + 1] = hi
            return run
        r = src.register

        def run(ctx, insn):
            s = ctx.wave.s
            s[d] = s[r]
            s[d + 1] = s[r + 1]
        return run
    get = _scalar_getter(src)

    def run(ctx, insn):
        w = ctx.wave
        w.s[d] = get(w) & M32
    return run


def _sop2(mn: str, d: int, a, b) -> Callable | None:
    """32-bit SOP2 arithmetic and logic with SCC, as salu.py defines them."""
    if mn == "s_add_u32" or mn == "s_add_co_u32":
        def run(ctx, insn):
            w = ctx.wave
            r = a(w) + b(w)
            w.s[d] = r & M32
            w.scc = int(r > M32)
        return run
    if mn == "s_sub_u32" or mn == "s_sub_co_u32":
        def run(ctx, insn):
            w = ctx.wave
            x, y = a(w), b(w)
            w.s[d] = (x - y) & M32
            w.scc = int(y > x)
        return run
    if mn in ("s_and_b32", "s_or_b32", "s_xor_b32"):
        op = {"s_and_b32": int.__and__, "s_or_b32": int.__or__, "s_xor_b32": int.__xor__}[mn]

        def run(ctx, insn):
            w = ctx.wave
            r = op(a(w), b(w)) & M32
            w.s[d] = r
            w.scc = int(r != 0)
        return run
    if mn == "s_lshl_b32":
        def run(ctx, insn):
            w = ctx.wave
            r = (a(w) << (b(w) & 31)) & M32
            w.s[d] = r
            w.scc = int(r != 0)
        return run
    if mn == "s_lshr_b32":
        def run(ctx, insn):
            w = ctx.wave
            r = a(w) >> (b(w) & 31)
            w.s[d] = r
            w.scc = int(r != 0)
        return run
    if mn in ("s_add_i32", "s_add_co_i32", "s_sub_i32", "s_sub_co_i32"):
        sub = "sub" in mn

        def run(ctx, insn):
            w = ctx.wave
            x, y = a(w), b(w)
            x = x - (1 << 32) if x >> 31 else x
            y = y - (1 << 32) if y >> 31 else y
            r = x - y if sub else x + y
            w.s[d] = r & M32
            w.scc = int(not -(1 << 31) <= r < (1 << 31))
        return run
    if mn == "s_mul_i32":
        def run(ctx, insn):
            w = ctx.wave
            w.s[d] = (a(w) * b(w)) & M32
        return run
    if mn == "s_cselect_b32":
        def run(ctx, insn):
            w = ctx.wave
            w.s[d] = (a(w) if w.scc else b(w)) & M32
        return run
    return None


_SCMP = {"eq": int.__eq__, "lg": int.__ne__, "ne": int.__ne__, "gt": int.__gt__, "ge": int.__ge__,
         "lt": int.__lt__, "le": int.__le__}


def _scmp(op: str, signed: bool, a, b) -> Callable:
    cmp = _SCMP[op]

    def run(ctx, insn):
        w = ctx.wave
        x, y = a(w), b(w)
        if signed:
            x = x - (1 << 32) if x >> 31 else x
            y = y - (1 << 32) if y >> 31 else y
        w.scc = int(cmp(x, y))
    return run


def _branch(target: int, cond: str | None) -> Callable:
    if cond is None:
        def run(ctx, insn):
            ctx.next_pc = target
    elif cond == "scc0":
        def run(ctx, insn):
            if not ctx.wave.scc:
                ctx.next_pc = target
    elif cond == "scc1":
        def run(ctx, insn):
            if ctx.wave.scc:
                ctx.next_pc = target
    elif cond == "vccz":
        def run(ctx, insn):
            w = ctx.wave
            if not w.vcc & w.mask:
                ctx.next_pc = target
    elif cond == "vccnz":
        def run(ctx, insn):
            w = ctx.wave
            if w.vcc & w.mask:
                ctx.next_pc = target
    elif cond == "execz":
        def run(ctx, insn):
            if not ctx.wave.exec:
                ctx.next_pc = target
    else:  # execnz
        def run(ctx, insn):
            if ctx.wave.exec:
                ctx.next_pc = target
    return run


def _salu(insn) -> Callable | None:
    mn = insn.mnemonic
    ops = insn.operands
    if mn == "s_branch" or mn in ("s_cbranch_scc0", "s_cbranch_scc1", "s_cbranch_vccz", "s_cbranch_vccnz",
                                  "s_cbranch_execz", "s_cbranch_execnz"):
        target = getattr(insn, "branch_target", None)
        if target is None:
            return None
        return _branch(target, None if mn == "s_branch" else mn[len("s_cbranch_"):])
    if _plain_scalar(insn) is False:
        return None
    if mn in ("s_mov_b32", "s_mov_b64") and len(ops) == 2:
        d = _sgpr(ops[0])
        bits = 64 if mn.endswith("64") else 32
        src = ops[1]
        if (d is None or (bits == 64 and (d + 1 >= 106)) or (_scalar_const(src) is None and _sgpr(src) is None)
                or (bits == 64 and src.kind is SGPR and src.register + 1 >= 106)):
            return _salu_more(insn)
        return _smov(d, src, bits)
    if mn in ("s_add_u32", "s_add_co_u32", "s_sub_u32", "s_sub_co_u32", "s_and_b32", "s_or_b32", "s_xor_b32",
              "s_lshl_b32", "s_lshr_b32", "s_cselect_b32", "s_add_i32", "s_add_co_i32", "s_sub_i32",
              "s_sub_co_i32", "s_mul_i32") and len(ops) == 3:
        d = _sgpr(ops[0])
        a, b = _scalar_getter(ops[1]), _scalar_getter(ops[2])
        if d is None or a is None or b is None:
            return _salu_more(insn)  # EXEC/VCC operands of the logic ops
        return _sop2(mn, d, a, b)
    if mn.startswith("s_cmp_") and mn[-4:] in ("_i32", "_u32") and len(ops) == 2:
        op = mn[len("s_cmp_"):-4]
        a, b = _scalar_getter(ops[0]), _scalar_getter(ops[1])
        if op not in _SCMP or a is None or b is None:
            return None
        return _scmp(op, mn.endswith("_i32"), a, b)
    return _salu_more(insn)


_SPECIAL_READ = {
    "exec": lambda w: w.exec, "exec_lo": lambda w: w.exec & M32,
    "vcc_lo": lambda w: w.vcc & M32,
}


def _sget(op, bits: int) -> Callable | None:
    """w -> value of a scalar source of `bits` bits: SGPR (pair), constant, EXEC or VCC (as operands.read_scalar)."""
    c = _scalar_const(op, bits)
    if c is not None:
        return lambda w: c
    if op.kind is SGPR and op.register + (bits == 64) < 106:
        r = op.register
        if bits == 64:
            return lambda w: w.s[r] | w.s[r + 1] << 32
        return lambda w: w.s[r]
    if op.kind is SPECIAL:
        if op.text == "vcc":
            return (lambda w: w.vcc) if bits == 64 else (lambda w: w.vcc & (M64 if w.lanes == 64 else M32))
        if op.text == "exec" and bits == 64:
            return _SPECIAL_READ["exec"]
        if op.text in ("exec_lo", "vcc_lo") and bits == 32:
            return _SPECIAL_READ[op.text]
    return None


def _sset(op, bits: int) -> Callable | None:
    """(w, value) -> None writing a scalar destination as operands.write_scalar does, or None."""
    if op.kind is SGPR and op.register + (bits == 64) < 106:
        r = op.register
        if bits == 64:
            def put(w, x):
                s = w.s
                s[r] = x & M32
                s[r + 1] = x >> 32 & M32
            return put

        def put32(w, x):
            w.s[r] = x & M32
        return put32
    if op.kind is SPECIAL:
        t = op.text
        if t == "exec" and bits == 64:
            def put_exec(w, x):
                w.exec = x & w.mask
            return put_exec
        if t == "exec_lo" and bits == 32:
            def put_exec_lo(w, x):
                w.exec = ((w.exec & ~M32) | (x & M32)) & w.mask
            return put_exec_lo
        if t == "vcc" and bits == 64:
            def put_vcc(w, x):
                w.vcc = x & (M64 if w.lanes == 64 else M32)
            return put_vcc
        if t == "vcc_lo" and bits == 32:
            def put_vcc_lo(w, x):
                w.vcc = (w.vcc & ~M32) | (x & M32)
            return put_vcc_lo
    return None


# (the scalar logic and saveexec operations are salu.py's own tables: one definition of what each computes)


_SMINMAX = {"s_min_i32": (True, True), "s_max_i32": (False, True), "s_min_u32": (True, False),
            "s_max_u32": (False, False)}  # (min, signed)
_SSHIFT64 = {"s_lshl_b64": True, "s_lshr_b64": False}  # (left)
_SFIRST = {"s_ff1_i32_b32": 32, "s_ff1_i32_b64": 64, "s_ctz_i32_b32": 32, "s_ctz_i32_b64": 64}  # source bits


def _salu_arith(mn: str, ops) -> Callable | None:
    """s_min/s_max (SCC: the first source chosen), the 64-bit logical shifts (SCC: result not zero) and
    s_ff1/s_ctz (no SCC; all ones for a zero source), as salu.py computes them."""
    if mn in _SMINMAX and len(ops) == 3:
        put, a, b = _sset(ops[0], 32), _sget(ops[1], 32), _sget(ops[2], 32)
        if put is None or a is None or b is None:
            return None
        is_min, signed = _SMINMAX[mn]

        def minmax(ctx, insn):
            w = ctx.wave
            x, y = a(w), b(w)
            kx, ky = (x - (x >> 31 << 32), y - (y >> 31 << 32)) if signed else (x, y)
            first = kx < ky if is_min else kx > ky
            put(w, x if first else y)
            w.scc = int(first)
        return minmax
    if mn in _SSHIFT64 and len(ops) == 3:
        put, a, n = _sset(ops[0], 64), _sget(ops[1], 64), _sget(ops[2], 32)
        if put is None or a is None or n is None:
            return None
        left = _SSHIFT64[mn]

        def shift(ctx, insn):
            w = ctx.wave
            r = (a(w) << (n(w) & 63) if left else a(w) >> (n(w) & 63)) & M64
            put(w, r)
            w.scc = int(r != 0)
        return shift
    if mn in _SFIRST and len(ops) == 2:
        put, a = _sset(ops[0], 32), _sget(ops[1], _SFIRST[mn])
        if put is None or a is None:
            return None

        def first_one(ctx, insn):
            w = ctx.wave
            x = a(w)
            put(w, ((x & -x).bit_length() - 1) & M32 if x else M32)
        return first_one
    return None


def _slogic(fn, put, a, b, bits: int) -> Callable:
    mask = (1 << bits) - 1

    def run(ctx, insn):
        w = ctx.wave
        r = fn(a(w), b(w)) & mask
        put(w, r)
        w.scc = int(r != 0)
    return run


def _ssaveexec(fn, put, src, bits: int) -> Callable:
    mask = (1 << bits) - 1

    def run(ctx, insn):
        w = ctx.wave
        old = w.exec & mask
        new = fn(src(w), old) & mask
        put(w, old)
        set_exec_scc(w, new, bits)
    return run


def _swaitcnt(limits: dict) -> Callable:
    def run(ctx, insn):
        w = ctx.wave
        c = w.counters
        if c is None or not c.pending:  # nothing outstanding: no wait
            return
        if ctx.machine.wait_counters(w, limits):
            ctx.next_pc = insn.address
    return run


def _salu_more(insn) -> Callable | None:
    """64-bit logic and the saveexec family (EXEC/VCC operands included), s_cselect_b64, s_waitcnt forms."""
    mn = insn.mnemonic
    ops = insn.operands
    if mn.startswith(("s_waitcnt", "s_wait_")) and mn not in ("s_wait_idle", "s_wait_alu", "s_wait_event",
                                                                 "s_wait_asynccnt"):  # (lands copies: salu.py)
        limits = getattr(insn, "waitcnt", None)
        if not limits:
            return None
        if mn.startswith("s_waitcnt_") and ops and ops[0].text != "null":
            return None
        return _swaitcnt(limits)
    more = _salu_arith(mn, ops)
    if more is not None:
        return more
    parts = mn.split("_")
    if len(parts) < 3 or parts[-1] not in ("b32", "b64"):
        return None
    bits = 64 if parts[-1] == "b64" else 32
    if len(ops) == 3 and mn.startswith("s_") and "_".join(parts[1:-1]) in _LOGIC:
        put, a, b = _sset(ops[0], bits), _sget(ops[1], bits), _sget(ops[2], bits)
        if put is None or a is None or b is None:
            return None
        return _slogic(_LOGIC["_".join(parts[1:-1])], put, a, b, bits)
    if len(ops) == 2 and parts[-2] == "saveexec" and "_".join(parts[1:-2]) in _SAVEEXEC:
        put, src = _sset(ops[0], bits), _sget(ops[1], bits)
        if put is None or src is None or ops[0].kind is not SGPR:
            return None
        return _ssaveexec(_SAVEEXEC["_".join(parts[1:-2])], put, src, bits)
    if mn == "s_cselect_b64" and len(ops) == 3:
        put, a, b = _sset(ops[0], 64), _sget(ops[1], 64), _sget(ops[2], 64)
        if put is None or a is None or b is None:
            return None

        def run(ctx, insn):
            w = ctx.wave
            put(w, a(w) if w.scc else b(w))
        return run
    if mn in ("s_mov_b32", "s_mov_b64") and len(ops) == 2:  # EXEC/VCC moves (SGPR ones are handled above)
        put, src = _sset(ops[0], bits), _sget(ops[1], bits)
        if put is None or src is None:
            return None

        def run(ctx, insn):
            w = ctx.wave
            put(w, src(w))
        return run
    return None


def _plain_scalar(insn) -> bool:
    return not any(o.modifiers for o in insn.operands)


# ---------------------------------------------------------------------------------------------- entry


def _sdwa_int(insn) -> Callable | None:
    """GFX9 SDWA forms of the 32-bit integer VALU operations (clang's `v_xor_b32_sdwa v2, v2, v2 ... src0_sel:WORD_1`
    for `h ^= h >> 16`) with a whole-dword destination (dst_sel:DWORD) and VGPR/SGPR sources: each source's
    byte/word extracted (sext: sign-extended) as vfloat.sdwa does, the operation, the result written in EXEC — without
    the generic path's temporary VGPRs (which grow and cut the register file per execution). Other forms: none."""
    from amddbg.emu.semantics.vfloat import _sdwa_form

    if " clamp" in insn.text:
        return None
    mn, _enc, fn, vd, nsrc, sources, dsel, _pad, top, _bases = _sdwa_form(insn)
    binop = _binop_of(fn) if fn is not None else None
    if binop is None or dsel != (0, 32) or nsrc != 2 or len(sources) != 2 or not vd or vd[0].kind is not VGPR:
        return None
    srcs = []
    for _k, _at, o, (off, width), sext, mods in sources:
        if set(mods) - {"sext"}:
            return None
        if o.kind is VGPR:
            src = ("v", o.register)
        elif o.kind is SGPR and o.register < 106:
            src = ("s", o.register)
        else:
            return None
        srcs.append((src, U32(off), U32((1 << width) - 1) if width < 32 else None, sext,
                     U32(width - 1), U32(M32 ^ ((1 << width) - 1))))
    d = vd[0].register
    need = max(top, _need(d, *(src[1] for src, *_ in srcs if src[0] == "v")))
    one = U32(1)

    def get(w, s):
        src, off, mask, sext, topbit, ext = s
        v = _get32(w, src)
        if mask is None:
            return v
        v = (v >> off) & mask
        if sext:
            v = np.where(v >> topbit & one, v | ext, v).astype(U32)
        return v

    def run(ctx, insn):
        w = ctx.wave
        _vgprs(w, need)
        _put32(w, d, binop(get(w, srcs[0]), get(w, srcs[1])))
        return None
    return run


def _dual(insn, lanes: int) -> Callable | None:
    """VOPD (`v_dual_X ... :: v_dual_Y ...`) with both halves' closures: valu.v_dual runs X, keeps X's result,
    restores the VGPRs and runs Y so Y reads its sources as they were before X wrote; when no source of Y (nor Y's
    destination, which fmac reads) is X's destination register, running X's closure and then Y's gives the same
    wave without the copy of the VGPR file. Otherwise, or when a half has no closure: none."""
    from amddbg.emu.semantics import lookup
    from amddbg.emu.semantics.valu import _vopd_halves

    if any(not n.strip().startswith("v_dual_") for n in insn.mnemonic.split("::")):
        return None
    try:
        x, y = _vopd_halves(insn)
    except Exception:  # noqa: BLE001 (a form the generic splitter refuses stays generic)
        return None
    dx = x.operands[0]

    def regs(o) -> set:
        return set(range(o.register, o.register + max(1, o.count or 1)))

    if dx.kind is not VGPR or any(o.kind is VGPR and regs(o) & regs(dx) for o in y.operands):
        return None
    fx, fy = compile_fast(x, lookup(x), lanes), compile_fast(y, lookup(y), lanes)
    if fx is None or fy is None:
        return None

    def run(ctx, insn):
        fx(ctx, x)
        fy(ctx, y)
        return None
    return run


def compile_fast(insn, generic: Callable | None, lanes: int) -> Callable | None:
    """A closure `(ctx, insn) -> None` equivalent to `generic` for this instruction, or None (use `generic`).
    `lanes` is the wave size (which VCC name a VOPC/v_cndmask names implicitly)."""
    if generic is None:
        return None
    mn = insn.mnemonic
    if mn.startswith("s_"):
        if not (mn in _SALU_NAMES or mn.startswith(("s_cbranch_", "s_cmp_", "s_wait")) or "saveexec" in mn):
            return None
        return _salu(insn)
    if mn.endswith("_sdwa") and insn.encoding.endswith("SDWA"):
        return _sdwa_int(insn)
    if mn.startswith("v_dual_") and "::" in mn:
        return _dual(insn, lanes)
    if mn.startswith("v_") and "::" not in mn:
        base = mn[:-4] if mn.endswith(("_e32", "_e64")) else mn
        if base not in _VALU_NAMES and not base.startswith("v_cmp_") and _binop_of(generic) is None \
                and _binop_of(generic, "ternop") is None and getattr(generic, "unary32", None) is None:
            return None  # (checked before the operands: most instructions get no closure, and cheaply)
        if base in _DIV:  # (its closure checks the modifiers through vfloat's parsed form)
            return _div(insn, base, generic)
        if getattr(generic, "unary32", None) is not None:
            return _unary32(insn, generic) if _plain(insn) else None
        if base in _FLOAT_OPS and not _plain(insn):
            return _float_negabs(insn, base, generic)
        if base in _B16:  # (the .l/.h halves its closure reads; other modifiers: none)
            return _b16(insn, base, generic)
        if base in _PACKED:  # (op_sel/op_sel_hi are dword choices its closure reads; other modifiers: none)
            return _valu(insn, generic, "vcc_lo" if lanes == 32 else "vcc")
        if _plain(insn) or (base == "v_pk_mov_b32" and _plain(insn, _OP_SEL.sub("", insn.text))):
            return _valu(insn, generic, "vcc_lo" if lanes == 32 else "vcc")
    return None


_SALU_NAMES = frozenset({"s_branch", "s_mov_b32", "s_mov_b64", "s_add_u32", "s_add_co_u32", "s_sub_u32",
                         "s_sub_co_u32", "s_lshl_b32", "s_lshr_b32", "s_cselect_b32", "s_cselect_b64", "s_add_i32",
                         "s_add_co_i32", "s_sub_i32", "s_sub_co_i32", "s_mul_i32"}
                        | {f"s_{op}_{b}" for op in _LOGIC for b in ("b32", "b64")}
                        | set(_SMINMAX) | set(_SSHIFT64) | set(_SFIRST))
_VALU_NAMES = frozenset({"v_mov_b32", "v_readlane_b32", "v_writelane_b32", "v_readfirstlane_b32", "v_cndmask_b32",
                         "v_accvgpr_read_b32", "v_accvgpr_write_b32", "v_accvgpr_mov_b32", "v_mov_b64",
                         "v_lshlrev_b64", "v_lshrrev_b64", "v_lshl_add_u64", "v_pk_mov_b32"}
                        | set(_CARRY) | set(_FLOAT_OPS) | _MAD64
                        | set(_MINMAX) | set(_PACKED) | set(_B16) | _DIV)
