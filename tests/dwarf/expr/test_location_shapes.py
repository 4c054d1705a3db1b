"""Every location-expression shape of the corpus, evaluated against a core and compared with what it names.

`corefiles/location-shapes.json` (written by `corefiles/make_location_shapes.py`) is the census: every
distinct shape (register numbers, offsets and constants normalised) of every code object under corefiles/.
`test_census_is_current` recomputes it, so a new shape cannot arrive unchecked.

`test_shape_against_core` takes one real example of each shape (per wave size) and evaluates it through the
production path (`variable_value`, the session's frame context) against a scenario core of the same wave
size, whose wave stopped with a partial EXEC (active and inactive lanes, wave32 gfx1100 and wave64 gfx90a).
The expectation comes from a separate, deliberately small reading of what the expression *names*: the
register dwords of the lane (read by name through the wave's register file, not by DWARF number), a value
computed from them, or the memory at the frame-base / symbol address. Shapes outside that vocabulary (the
handmade objects' `DW_OP_LLVM_*` sequences, which tests/dwarf/expr/test_expr_evaluate_spec.py checks
against the specification's own examples) must still evaluate or fail with an amddbg error, never crash.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

import amddbg
from amddbg.dwarf.context import DwarfInfo
from amddbg.dwarf.expr import decode, encoding_for, producer_options
from amddbg.dwarf.expr.regs import register_info
from amddbg.errors import AmddbgError

ROOT = Path(__file__).resolve().parents[3]
DATA = json.loads((ROOT / "corefiles" / "location-shapes.json").read_text())
CORES = {"64": ROOT / "corefiles/scenarios/divergence-demo-gfx90a.gpu",
         "32": ROOT / "corefiles/scenarios/divergence-demo-gfx1100.gpu"}
# Frame-base shapes need a frame with a frame base and scratch: trap_in_callee built at -O0, run now by
# `amddbg run --core` (frame 0 is check_positive, whose `v` lives at DW_OP_fbreg +0 in private_lane).
FB_OBJECTS = {"64": ROOT / "corefiles/scenarios/scenarios-gfx90a-O0.co",
              "32": ROOT / "corefiles/scenarios/scenarios-gfx1100-O0.co"}
CASES = [(shape, wave) for shape, e in sorted(DATA.items()) for wave in sorted(e["examples"])]
M64 = (1 << 64) - 1


def test_census_is_current():
    import sys

    sys.path.insert(0, str(ROOT / "corefiles"))
    from make_location_shapes import census

    now = census(ROOT)
    # The shape set is exact (a new shape must be looked at); counts move as objects are added.
    assert sorted(now) == sorted(DATA), "new or vanished shapes: run corefiles/make_location_shapes.py"
    assert len(DATA) >= 90 and sum(e["count"] for e in DATA.values()) > 25000


@cache
def _fb_core(wave: str) -> Path:
    import atexit
    import shutil
    import subprocess
    import sys
    import tempfile

    tmp = Path(tempfile.mkdtemp(prefix="amddbg-shapes-"))
    atexit.register(shutil.rmtree, tmp, True)
    out = tmp / f"trap-in-callee-O0-w{wave}.gpu"
    subprocess.run([sys.executable, "-m", "amddbg", "run", str(FB_OBJECTS[wave]), "--kernel", "trap_in_callee",
                    "--grid", "64", "--block", "64", "--arg", "buf:i32:64:iota", "--arg", "buf:i32:64",
                    "--core", str(out)], check=True, capture_output=True, timeout=600)
    return out


@cache
def _wave(wave: str, frame_base: bool = False):
    prog = amddbg.open(_fb_core(wave) if frame_base else CORES[wave])
    w = prog.waves[0]
    assert w.lanes == int(wave)
    if not frame_base:
        assert 0 < len(w.active_lanes) < w.lanes  # active and inactive lanes
    return prog, w


class _Skip(Exception):
    """The reference reading does not cover this op."""


def _reference(ops, wave, frame_ctx, dwarf, unit, lanes, size, pieces_out=None) -> dict[int, bytes]:
    """What the expression names, per lane, read without the evaluator: registers by name, values as Python
    integers, memory through the session. The upstream address-space annotation `litN, swap, xderef` at the
    end of a piece is an annotation: on a value it changes nothing, on a frame-base or symbol address it
    names the memory's space."""
    regs = wave.registers
    whole_register = not producer_options(dwarf.producer_info(unit).producer,
                                          dwarf.producer_info(unit).augmentation)["lane_slice_vector_registers"]
    out = {}
    for lane in lanes:
        pieces: list[tuple[int | None, int]] = []  # (value, bits) per DW_OP_piece / DW_OP_bit_piece
        stack: list = []  # ints (values) or ("mem", space, address) or ("reg", name) or ("bytes", b)
        i = 0
        while i < len(ops):
            op = ops[i]
            n, a = op.name, op.operands
            if n == "DW_OP_litN" or (n.startswith("DW_OP_lit") and n[9:].isdigit()):
                if ops[i + 1:i + 3] and [o.name for o in ops[i + 1:i + 3]] == ["DW_OP_swap", "DW_OP_xderef"]:
                    top = stack[-1]
                    if isinstance(top, tuple) and top[0] == "mem":
                        space = {"clang-old": {0: "global", 1: "private_lane", 2: "local"},
                                 "dwarf-aspace": {0: "global", 1: "generic", 3: "local", 5: "private_lane"}}[
                            dwarf.producer_info(unit).aspace_numbering][int(n[9:])]
                        if top[1] != "global" and space in ("generic", top[1]):
                            space = top[1]  # a frame-base address stays in the frame base's space
                        stack[-1] = ("mem", space, top[2])
                    elif isinstance(top, int):  # a value computed from registers: it *is* the variable
                        stack[-1] = ("bytes", top.to_bytes(8, "little"))
                    i += 3
                    continue
                stack.append(int(n[9:]))
            elif n in ("DW_OP_constu", "DW_OP_consts") or (n.startswith("DW_OP_const") and n[11:12] in "1248"):
                stack.append(a[0] & M64)
            elif n == "DW_OP_regx":
                # the heterogeneous extension's `regx VGPRn` is the whole register: bit 0 is lane 0's
                stack.append(("reg", register_info(a[0]).name, 0 if whole_register else None))
            elif n == "DW_OP_bregx":
                info = register_info(a[0])
                v = regs.read_named(info.name, lane=lane if info.is_vector else None)
                stack.append((v + a[1]) & M64)
            elif n == "DW_OP_fbreg":
                space, addr = frame_ctx.frame_base().address()
                stack.append(("mem", space.value if hasattr(space, "value") else str(space), addr + a[0]))
            elif n == "DW_OP_addrx":
                lco = wave.frames()[0].code_object
                stack.append(("mem", "global", dwarf.addrx(unit, a[0]) + (lco.load_address if lco else 0)))
            elif n == "DW_OP_implicit_value":
                stack.append(("bytes", bytes(a[0])))
            elif n in ("DW_OP_plus", "DW_OP_minus", "DW_OP_mul", "DW_OP_and", "DW_OP_or", "DW_OP_xor",
                       "DW_OP_shl", "DW_OP_shr", "DW_OP_eq", "DW_OP_ne", "DW_OP_div"):
                y, x = stack.pop(), stack.pop()
                sx, sy = (x - (1 << 64) if x >> 63 else x), (y - (1 << 64) if y >> 63 else y)
                stack.append({"DW_OP_plus": x + y, "DW_OP_minus": x - y, "DW_OP_mul": x * y, "DW_OP_and": x & y,
                              "DW_OP_or": x | y, "DW_OP_xor": x ^ y, "DW_OP_shl": x << y if y < 64 else 0,
                              "DW_OP_shr": x >> y, "DW_OP_eq": int(sx == sy), "DW_OP_ne": int(sx != sy),
                              "DW_OP_div": int(sx / sy) if sy else None}[n])
                if stack[-1] is None:
                    raise _Skip
                stack[-1] &= M64
            elif n == "DW_OP_not":
                stack.append(~stack.pop() & M64)
            elif n == "DW_OP_plus_uconst":
                stack.append((stack.pop() + a[0]) & M64)
            elif n == "DW_OP_convert":
                t = dwarf.die(unit.offset + a[0])
                from amddbg.dwarf import constants as C

                stack.append(stack.pop() & ((1 << (8 * t.attrs[C.DW_AT_byte_size])) - 1))
            elif n == "DW_OP_stack_value":
                top = stack.pop()
                stack.append(top if isinstance(top, tuple) and top[0] == "bytes"
                             else ("bytes", (top & M64).to_bytes(8, "little")))
            elif n in ("DW_OP_piece", "DW_OP_bit_piece"):
                nbits, off = (a[0] * 8, 0) if n == "DW_OP_piece" else (a[0], a[1])
                raw = _read(stack.pop() if stack else None, (off + nbits + 7) // 8, lane, wave)
                value = None if raw is None else int.from_bytes(raw, "little") >> off & ((1 << nbits) - 1)
                pieces.append((value, nbits))
            else:
                raise _Skip(n)
            i += 1
        if pieces_out is not None:
            pieces_out[lane] = pieces
        if pieces:
            # a piece that is undefined, or pieces that describe less than the object: optimized out
            whole, at = 0, 0
            for value, nbits in pieces:
                whole |= (value or 0) << at
                at += nbits
            complete = all(v is not None for v, _n in pieces) and at >= 8 * size
            out[lane] = (whole & ((1 << 8 * size) - 1)).to_bytes(size, "little") if complete else None
        else:
            out[lane] = _read(stack[-1], size, lane, wave)
    return out


def _read(entry, size: int, lane: int, wave) -> bytes | None:
    if entry is None:
        return None  # an empty piece: undefined (optimized out)
    if isinstance(entry, int):
        entry = ("mem", "global", entry)  # a value without stack_value is an address (DWARF 5)
    kind = entry[0]
    if kind == "bytes":
        return entry[1][:size].ljust(size, b"\0") if len(entry[1]) >= size else None
    if kind == "reg":
        name = entry[1]
        vec = wave.registers.is_vector(name)
        at = entry[2] if entry[2] is not None else lane
        v = wave.registers.read_named(name, lane=at if vec else None)
        width = 4 if vec or name.startswith("s") else 8
        if size > width:
            return None
        return v.to_bytes(width, "little")[:size]
    try:
        return wave.program.read(entry[1], entry[2], size, lane=lane)
    except AmddbgError:
        return None


@pytest.mark.parametrize(("shape", "wave_size"), CASES, ids=[f"{w}-{s[:90]}" for s, w in CASES])
def test_shape_against_core(shape, wave_size):
    from amddbg.dwarf.scopes import Variable, variable_value
    from amddbg.dwarf.types import type_of

    ex = DATA[shape]["examples"][wave_size]
    prog, wave = _wave(wave_size, "fbreg" in shape)
    dwarf = DwarfInfo.from_path(ROOT / ex["object"])
    die = dwarf.die(ex["die"])
    unit = die.unit
    info = dwarf.producer_info(unit)
    ops = decode(bytes.fromhex(ex["expr"]), encoding=encoding_for(info.producer, info.augmentation))
    frame = wave.frames()[0]
    ctx = frame.context()
    lanes = list(range(wave.lanes))
    lco = frame.code_object
    var = Variable(die, ex["name"], type_of(die), False, None, None)
    bias = lco.load_address if lco else 0
    if shape.startswith("frame_base") or not var.type.size:
        # a subprogram's frame base, or a handmade DIE without a type: read 4 bytes of the location
        from amddbg.dwarf.expr import evaluate_lanes, read_bytes
        from amddbg.dwarf.unitctx import UnitContext

        uctx = UnitContext(ctx, unit, load_bias=bias)
        res = evaluate_lanes(ops, uctx, lanes, **producer_options(info.producer, info.augmentation))
        got = {}
        for ln in lanes:
            try:
                loc = res.locations[ln]
                got[ln] = loc if isinstance(loc, Exception) else read_bytes(uctx, loc, 4, lane=ln)
            except AmddbgError as exc:
                got[ln] = exc
        size = 4
    else:
        size = var.type.size
        got = variable_value(var, ex["lo"], ctx, lanes, load_bias=bias)
    pieces: dict[int, list] = {}
    try:
        want = _reference(ops, wave, ctx, dwarf, unit, lanes, size, pieces)
    except AmddbgError:  # what the expression names does not exist here (no frame base...): no value either
        want = dict.fromkeys(lanes)
    except (_Skip, IndexError, KeyError, AttributeError, TypeError) as why:
        # Outside the reference's vocabulary: the production evaluation must have given bytes or an
        # amddbg error for every lane, never an internal exception.
        assert all(v is None or isinstance(v, (bytes, AmddbgError)) for v in got.values()), (shape, why)
        return
    checked = 0
    for ln in lanes:
        g = got[ln]
        if want[ln] is None:
            assert g is None or isinstance(g, AmddbgError), (shape, ln, g)
            continue
        assert g == want[ln], (shape, ln, g, want[ln])
        checked += 1
    if any(pieces.values()):
        checked += _compare_pieces(ops, ctx, unit, info, bias, lanes, pieces)
    names = {op.name for op in ops}
    if shape.startswith("location") and ("DW_OP_regx" in names or (
            "DW_OP_bregx" in names and names & {"DW_OP_xderef", "DW_OP_stack_value"})):
        assert checked, f"{shape}: no lane compared"


def _compare_pieces(ops, ctx, unit, info, bias, lanes, pieces) -> int:
    """Each described piece of a composite, read on its own, equals what the piece names (a variable that
    is only partly described prints <optimized out> as a whole, so its pieces are checked here)."""
    from amddbg.dwarf.expr import evaluate_lanes, read_bits
    from amddbg.dwarf.unitctx import UnitContext

    uctx = UnitContext(ctx, unit, load_bias=bias)
    res = evaluate_lanes(ops, uctx, lanes, **producer_options(info.producer, info.augmentation))
    checked = 0
    for ln in lanes:
        loc = res.locations[ln]
        offset = 0
        for want, nbits in pieces[ln]:
            if want is not None:
                assert read_bits(uctx, loc.offset_bits(offset) if offset else loc, nbits, lane=ln) == want
                checked += 1
            offset += nbits
    return checked


def test_promoted_idiom_rewrites_and_refusals():
    """The rewrite on its own: the register, the value, pieces, and a refusal naming the shape for an
    annotation it cannot resolve (never a read of memory at a register's value)."""
    from amddbg.dwarf.expr import Evaluator, StaticContext, encode, evaluate_lanes, read_bits
    from amddbg.errors import NotSupported

    opts = producer_options("Debian clang version 22.1.8", None)
    v = [100 + ln for ln in range(32)]
    ctx = StaticContext(registers={1536: v, 1537: [7] * 32, 33: 5}, wave_size=32)
    reg = encode([("DW_OP_bregx", 1536, 0), ("DW_OP_lit1",), ("DW_OP_swap",), ("DW_OP_xderef",)])
    res = evaluate_lanes(reg, ctx, range(32), **opts)
    assert res.evaluations == 1 and [read_bits(ctx, res.locations[ln], 32) for ln in (0, 31)] == [100, 131]
    value = encode([("DW_OP_bregx", 1536, 3), ("DW_OP_lit1",), ("DW_OP_swap",), ("DW_OP_xderef",)])
    assert read_bits(ctx, Evaluator(ctx, lane=4, **opts).run(value).result(), 32) == 107
    pair = encode([("DW_OP_bregx", 33, 0), ("DW_OP_lit1",), ("DW_OP_swap",), ("DW_OP_xderef",), ("DW_OP_piece", 4),
                   ("DW_OP_bregx", 1537, 0), ("DW_OP_lit1",), ("DW_OP_swap",), ("DW_OP_xderef",),
                   ("DW_OP_piece", 4)])
    assert read_bits(ctx, Evaluator(ctx, lane=2, **opts).run(pair).result(), 64) == 5 | 7 << 32
    inside = encode([("DW_OP_bregx", 1536, 0), ("DW_OP_lit1",), ("DW_OP_swap",), ("DW_OP_xderef",),
                     ("DW_OP_lit4",), ("DW_OP_plus",)])
    with pytest.raises(NotSupported, match=r"not supported yet: location expression shape DW_OP_bregx VGPR\+0"):
        Evaluator(ctx, lane=0, **opts).run(inside)
    assert not [r for r in ctx.reads if r[0] == "mem"]
    # A producer with the heterogeneous extension means what it says: xderef reads memory.
    amd = producer_options("AMD clang version 17.0.0", "[llvm:v0.0]")
    with pytest.raises(AmddbgError):
        Evaluator(ctx, lane=0, **amd).run(reg).result()


def test_unsupported_location_prints_an_error_not_a_value():
    """What the session prints for a location it cannot evaluate: gdb's `<error: ...>` naming the shape."""
    from types import SimpleNamespace

    from amddbg.errors import NotSupported
    from amddbg.session.values import INT
    from amddbg.session.variables import FrameVariable

    fv = FrameVariable(None, SimpleNamespace(type=INT))
    err = NotSupported("location expression shape DW_OP_bregx VGPR+0, DW_OP_litN, DW_OP_swap, DW_OP_xderef, ...")
    text = fv._value(3, err).format()
    assert text == ("<error: not supported yet: location expression shape DW_OP_bregx VGPR+0, DW_OP_litN, "
                    "DW_OP_swap, DW_OP_xderef, ...>")


def test_eight_byte_variable_in_one_vgpr_is_zero_extended():
    """clang describes `size_t lid = get_local_id(0)` (OpenCL, -O2) by the 32-bit VGPR alone
    (`DW_OP_bregx VGPRn+0, DW_OP_lit5, DW_OP_swap, DW_OP_xderef`): 8 bytes per lane are the lane's dword
    zero-extended, as `bregx` reads a register, never the next lane's dword above it."""
    from amddbg.dwarf.expr.shapes import shape_of
    from amddbg.dwarf.scopes import Variable, location_expressions, variable_value
    from amddbg.dwarf.types import type_of

    prog, wave = _wave("64")
    ctx = wave.frames()[0].context()
    found = 0
    for name in ("llvm22-gfx1100-w64-O2-cl.co", "llvm19-gfx1100-w64-O2-cl.co"):
        dwarf = DwarfInfo.from_path(ROOT / "corefiles" / "co" / name)
        for e in location_expressions(dwarf):
            if e["name"] != "lid" or e["attr"] != "location":
                continue
            ops = decode(e["expr"])
            if shape_of(ops) != "DW_OP_bregx VGPR+0, DW_OP_litN, DW_OP_swap, DW_OP_xderef":
                continue
            var = Variable(e["die"], "lid", type_of(e["die"]), False, None, None)
            assert var.type.size == 8
            got = variable_value(var, e["lo"], ctx, range(64))
            reg = register_info(ops[0].operands[0]).name
            for lane in range(64):
                assert got[lane] == wave.registers.read_named(reg, lane=lane).to_bytes(8, "little"), lane
            found += 1
            break
    assert found == 2


def test_wide_variable_in_one_vgpr_slice_is_refused():
    """Upstream `DW_OP_regx VGPRn` names the lane's dword; an 8-byte variable there would read the next
    lane's dword as its upper half: the session says it cannot, instead of printing that."""
    from types import SimpleNamespace

    from amddbg.dwarf.expr import StaticContext, encode
    from amddbg.dwarf.scopes import variable_value

    unit = SimpleNamespace(addr_size=8, offset_size=4, offset=0,
                           dwarf=SimpleNamespace(producer_info=lambda u: SimpleNamespace(
                               producer="Debian clang version 22.1.8", augmentation=None)))
    expr = encode([("DW_OP_regx", 2560)])
    var = SimpleNamespace(const_value=None, location_at=lambda pc: expr, die=SimpleNamespace(unit=unit),
                          type=SimpleNamespace(size=8, name="long"))
    ctx = StaticContext(registers={2560: list(range(64))})
    got = variable_value(var, 0, ctx, [0, 5])
    assert all(isinstance(g, AmddbgError) and "32-bit slice" in g.message for g in got.values())
    var.type = SimpleNamespace(size=4, name="int")
    assert variable_value(var, 0, ctx, [5])[5] == (5).to_bytes(4, "little")
