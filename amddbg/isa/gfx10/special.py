"""Operand syntax that is not a register or a constant: waitcnt/delay/depctr/sendmsg/hwreg immediates,
GFX12 temporal hints and scopes, DPP and SDWA controls.

Field layouts from the AMD ISA manuals / LLVM (AMDGPUAsmUtils, SIDefines); name lists that differ per
generation (hwreg registers, messages, depctr fields) come from the generated tables.
"""

from __future__ import annotations

from amddbg.isa.gfx10.tablefile import UnknownEncoding as _Unknown
from amddbg.isa.gfx10.tablefile import load_tables
from amddbg.isa.model import Operand, OperandKind

_INSTID = ["NO_DEP", "VALU_DEP_1", "VALU_DEP_2", "VALU_DEP_3", "VALU_DEP_4", "TRANS32_DEP_1", "TRANS32_DEP_2",
           "TRANS32_DEP_3", "FMA_ACCUM_CYCLE_1", "SALU_CYCLE_1", "SALU_CYCLE_2", "SALU_CYCLE_3"]
_INSTSKIP = ["SAME", "NEXT", "SKIP_1", "SKIP_2", "SKIP_3", "SKIP_4"]


def _tables(gen: str) -> dict:
    return load_tables(gen)


def hwreg(gen: str, imm: int) -> str:
    hid, off, size = imm & 63, (imm >> 6) & 31, (imm >> 11) + 1
    names = _tables(gen).get("_hwreg", [])
    name = names[hid] if hid < len(names) and names[hid] else str(hid)
    if off == 0 and size == 32:
        return f"hwreg({name})"
    return f"hwreg({name}, {off}, {size})"


_VER_FLAGS = ((0x2000, "UC_VERSION_W64_BIT"), (0x4000, "UC_VERSION_W32_BIT"), (0x8000, "UC_VERSION_MDP_BIT"))


def version(imm: int, gen: str = "gfx11") -> str:
    """s_version: `UC_VERSION_<gen>|<flag bits>` when every set bit is known, else the raw value."""
    names = _tables(gen).get("_ver", {})
    low = imm & 0x1FFF
    if low > 0xFF:
        return str(imm) if imm <= 64 else hex(imm)
    parts = [names.get(str(low), str(low))]
    parts += [n for b, n in _VER_FLAGS if imm & b]
    text = parts[0]
    for i, p in enumerate(parts[1:]):
        text = f"({text})|{p}" if i else f"{text}|{p}"  # LLVM prints the OR chain as a nested expression
    return text


def waitcnt(gen: str, imm: int) -> tuple[str, dict[str, int]]:
    if gen == "gfx10":
        vm = (imm & 0xF) | (((imm >> 14) & 3) << 4)
        exp = (imm >> 4) & 7
        lgkm = (imm >> 8) & 0x3F
    else:
        vm = (imm >> 10) & 0x3F
        exp = imm & 7
        lgkm = (imm >> 4) & 0x3F
    parts = [("vmcnt", vm, 63), ("expcnt", exp, 7), ("lgkmcnt", lgkm, 63)]
    shown = [f"{n}({v})" for n, v, m in parts if v != m]
    if not shown:
        shown = [f"{n}({v})" for n, v, _m in parts]
    return " ".join(shown), {n: v for n, v, _m in parts}


def delay_alu(imm: int) -> str:
    if imm == 0:
        return "0"
    id0, skip, id1 = imm & 0xF, (imm >> 4) & 7, (imm >> 7) & 0xF
    out = []

    def nm(lst: list[str], v: int, what: str) -> str:
        return lst[v] if v < len(lst) else f"/* invalid {what} value */"

    if id0:
        out.append(f"instid0({nm(_INSTID, id0, 'instid')})")
    if skip:
        out.append(f"instskip({nm(_INSTSKIP, skip, 'instskip')})")
    if id1:
        out.append(f"instid1({nm(_INSTID, id1, 'instid')})")
    return " | ".join(out)


def depctr(gen: str, imm: int) -> str:
    rule = _tables(gen).get("_depctr") or {}
    if not rule or imm & rule["zero"]:
        return hex(imm)
    vals = [(n, (imm >> lo) & ((1 << w) - 1), (1 << w) - 1) for n, lo, w in rule["fields"]]
    shown = [f"depctr_{n}({v})" for n, v, m in vals if v != m]
    if not shown:
        shown = [f"depctr_{n}({v})" for n, v, _m in vals]
    return " ".join(shown)


def sendmsg(gen: str, mn: str, imm: int) -> str:
    key = "s_sendmsg_rtn_b32" if mn.startswith("s_sendmsg_rtn") else "s_sendmsg"
    table = _tables(gen).get("_sendmsg", {})
    text = table.get(f"{key}:{imm}")
    if text is None and imm & 0x80:
        # returning messages (ids 128+) ignore the operation/stream bits above the id
        text = table.get(f"{key}:{imm & 0xFF}")
        if text is not None and "MSG_RTN" not in text:
            text = None
    return text if text is not None else str(imm)


def sopp(gen: str, mn: str, imm: int) -> tuple[str, dict[str, int] | None]:
    """Text of a SOPP immediate printed symbolically, plus waitcnt counters when it is a wait."""
    if mn == "s_waitcnt":
        return waitcnt(gen, imm)
    if mn == "s_delay_alu":
        return delay_alu(imm), None
    if mn in ("s_waitcnt_depctr", "s_wait_alu"):
        return depctr(gen, imm), None
    if mn.startswith("s_sendmsg"):
        return sendmsg(gen, mn, imm), None
    return hex(imm), None


# GFX12 cache policy --------------------------------------------------------------------------------
_TH_LOAD = {1: "NT", 2: "HT", 4: "NT_RT", 5: "RT_NT", 6: "NT_HT", 7: "NT_WB"}


def th_text(th: int, scope: int, is_atomic: bool, is_store: bool, gen: str = "gfx12") -> str:
    if th == 0:
        return ""
    if is_atomic:
        if th & 4:
            body = ("CASCADE" + ("_NT" if th & 2 else "_RT")) if scope >= 2 else hex(th)
        elif th & 2:
            body = "NT" + ("_RETURN" if th & 1 else "")
        elif th & 1:
            body = "RETURN"
        else:
            body = hex(th)
        return " th:TH_ATOMIC_" + body
    if not is_store and th == 7:
        return f" th:{hex(th)}"
    pre = "TH_STORE_" if is_store else "TH_LOAD_"
    if th == 3:
        if scope == 3:
            return " th:" + pre + "BYPASS"
        return " th:" + pre + ("WB" if is_store else "LU")
    return " th:" + pre + _TH_LOAD[th]


def scope_text(scope: int) -> str:
    return ("", " scope:SCOPE_SE", " scope:SCOPE_DEV", " scope:SCOPE_SYS")[scope]


# DPP / SDWA ----------------------------------------------------------------------------------------
def dpp_ctrl(ctrl: int) -> str | None:
    if ctrl <= 0xFF:
        return "quad_perm:[" + ",".join(str((ctrl >> (2 * i)) & 3) for i in range(4)) + "]"
    for base, name in ((0x100, "row_shl"), (0x110, "row_shr"), (0x120, "row_ror")):
        if base < ctrl <= base + 0xF:
            return f"{name}:{ctrl - base}"
    if ctrl == 0x140:
        return "row_mirror"
    if ctrl == 0x141:
        return "row_half_mirror"
    if 0x150 <= ctrl <= 0x15F:
        return f"row_share:{ctrl - 0x150}"
    if 0x160 <= ctrl <= 0x16F:
        return f"row_xmask:{ctrl - 0x160}"
    return None


def neg_text(o: Operand, t: str, has_abs: bool) -> str:
    """LLVM writes a negated constant without abs as `neg(c)` (so `-1` and `neg(1)` stay distinct)."""
    if not has_abs and o.kind in (OperandKind.INLINE, OperandKind.LITERAL):
        return f"neg({t})"
    return f"-{t}"


def _with_mods(o: Operand, neg: int, ab: int) -> Operand:
    t = o.text
    if ab:
        t = f"|{t}|"
    if neg:
        t = neg_text(o, t, bool(ab))
    return Operand(o.kind, t, o.register, o.count, o.value, o.is_dest, o.modifiers)


def dpp16(dec, enc: str, ops: list[Operand], mnemonic: str, w1: int, entry: dict) -> tuple:
    ctrl = (w1 >> 8) & 0x1FF
    c = dpp_ctrl(ctrl)
    if c is None:
        raise _Unknown(f"DPP control 0x{ctrl:x} not valid")
    srcs = [i for i, tok in enumerate(entry["t"]) if tok[0] == "F" and tok[1] in ("src0", "vsrc1")]
    abm, ngm = dec.mods_mask(entry["m"])
    for j, i in enumerate(srcs[:2]):
        neg = (w1 >> (20 + 2 * j)) & 1 & (ngm >> j)
        ab = (w1 >> (21 + 2 * j)) & 1 & (abm >> j)
        if neg or ab:
            ops[i] = _with_mods(ops[i], neg, ab)
    suffix = f" {c} row_mask:0x{(w1 >> 28) & 0xF:x} bank_mask:0x{(w1 >> 24) & 0xF:x}"
    if (w1 >> 19) & 1:
        suffix += " bound_ctrl:1"
    if (w1 >> 18) & 1:
        suffix += " fi:1"
    return dec._finish(mnemonic, enc, ops, suffix)


_SEL = ["BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD"]
_UNUSED = ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"]


def sdwa(dec, ctx, entry: dict, f: dict[str, int], base: str, w1: int) -> tuple:
    enc = "VOPC" if "vsrc1" in f and "vdst" not in f else ("VOP2" if "vsrc1" in f else "VOP1")
    src0 = (w1 & 0xFF) + (0 if (w1 >> 23) & 1 else 256)
    ov = {"src0": src0}
    ops = dec._render(ctx, entry, f, ov)
    if enc == "VOPC":
        if (w1 >> 15) & 1:
            sd = dec._src(ctx, (w1 >> 8) & 0x7F, 1, "b32", True)
        else:
            sd = Operand(OperandKind.SPECIAL, "vcc_lo", is_dest=True)
        if ops and ops[0].text == "vcc_lo":
            ops[0] = sd
    try:
        s0sel, s1sel = _SEL[(w1 >> 16) & 7], _SEL[(w1 >> 24) & 7]
        dsel, dun = ("", "") if enc == "VOPC" else (_SEL[(w1 >> 8) & 7], _UNUSED[(w1 >> 11) & 3])
    except IndexError:
        raise _Unknown("SDWA selector not valid") from None
    srcs = [i for i, tok in enumerate(entry["t"]) if tok[0] == "F" and tok[1] in ("src0", "vsrc1")]
    abm, ngm = dec.mods_mask(entry["m"])
    if len(srcs) > 1 and (w1 >> 31) & 1:  # S1: the VOP2/VOPC second source is scalar (or a constant)
        ops[srcs[1]] = dec._src(ctx, f["vsrc1"], 1, "b32")
    for j, i in enumerate(srcs[:2]):
        sh = 16 + 8 * j
        o = ops[i]
        o = _with_mods(o, (w1 >> (sh + 4)) & 1 & (ngm >> j), (w1 >> (sh + 5)) & 1 & (abm >> j))
        if (w1 >> (sh + 3)) & 1:
            o = Operand(o.kind, f"sext({o.text})", o.register, o.count, o.value, o.is_dest, ("sext",))
        ops[i] = o
    suffix = ""
    if enc != "VOPC":
        if (w1 >> 13) & 1:
            suffix += " clamp"
        omod = (w1 >> 14) & 3
        if omod:
            suffix += (" mul:2", " mul:4", " div:2")[omod - 1]
        suffix += f" dst_sel:{dsel} dst_unused:{dun}"
    suffix += f" src0_sel:{s0sel}"
    if enc != "VOP1":
        suffix += f" src1_sel:{s1sel}"
    ctx.lit = -1
    return dec._finish(base + "_sdwa", enc, ops, suffix)


def swizzle(v: int) -> str:
    """ds_swizzle_b32 offset text (LLVM's symbolic swizzle modes), '' for 0."""
    if v == 0:
        return ""
    if v & 0xE000 == 0xE000:
        return f"offset:swizzle(FFT,{v & 0x1F})"
    if v & 0xE000 == 0xC000:
        return f"offset:swizzle(ROTATE,{(v >> 10) & 1},{(v >> 5) & 0x1F})"
    if v & 0xFF00 == 0x8000:
        return "offset:swizzle(QUAD_PERM," + ",".join(str((v >> (2 * i)) & 3) for i in range(4)) + ")"
    if v & 0x8000:
        return f"offset:{v}"
    a, o, x = v & 0x1F, (v >> 5) & 0x1F, (v >> 10) & 0x1F
    if a == 0x1F and o == 0 and x and x & (x - 1) == 0:
        return f"offset:swizzle(SWAP,{x})"
    if a == 0x1F and o == 0 and x and (x + 1) & x == 0:
        return f"offset:swizzle(REVERSE,{x + 1})"
    if x == 0:
        for sh in range(1, 6):
            g = 1 << sh
            if a == 0x1F & ~(g - 1) and o < g:
                return f"offset:swizzle(BROADCAST,{g},{o})"
    chars = []
    for i in range(4, -1, -1):
        ab, ob, xb = (a >> i) & 1, (o >> i) & 1, (x >> i) & 1
        if ob:
            chars.append("0" if xb else "1")
        elif ab:
            chars.append("i" if xb else "p")
        else:
            chars.append("1" if xb else "0")
    return 'offset:swizzle(BITMASK_PERM,"' + "".join(chars) + '")'
