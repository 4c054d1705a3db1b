#!/usr/bin/env python3
"""Rebuild the instruction-level edge-case kernels (tests/emu/test_edges.py) from their hand-written bodies.

Why bodies and not whole files: every kernel shares the same frame (kernel descriptor, metadata, two buffer
arguments), which differs per target; each `<case>.<family>.s` holds only the instructions that matter, and this
script puts them in the frame for each target of that family (`<case>.gfx11+12.s`: of both families), then assembles
and links with the LLVM 22 tools:

    llvm-mc-22 -triple=amdgcn-amd-amdhsa -mcpu=<target> -filetype=obj k.s -o k.o && ld.lld-22 -shared k.o -o k.co

Frame contract (what a body may rely on): kernel `<case>(const uint *in, uint *out)`, one wave (64 lanes on GFX9,
32 on GFX11/12, 64 in the `gfx11w64`/`gfx12w64` families: gfx1100/gfx1200 in wave64); s[4:5] = in,
s[6:7] = out, v0 = lane id, v1 = lane id * 4 (GFX9: s[2:3] = out + 4096 for slots 16..31, past the 12-bit
offset). Macros: `LD vN, k` loads input slot k (in[k * lanes + lane]) and waits; `ST vN, k` stores output slot k
(out[k * lanes + lane]); GFX11/12 `WAIT_MSG` waits for a message reply (s_sendmsg_rtn), `WAIT_LOAD` for the
loads in flight, `WAIT_DS` for LDS operations. Every body ends with the frame's s_endpgm. Registers v2..v63
and s8..s31 are free; MODE starts with denormals kept (3/3), IEEE and DX10 clamp on (GFX9/11), round to nearest
even.

Usage: python3 corefiles/emu-edges/build.py   (writes <case>-<target>.co next to the bodies)
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGETS = {"gfx9": ("gfx90a", "gfx942"), "gfx11": ("gfx1100",), "gfx12": ("gfx1200",), "gfx1250": ("gfx1250",),
           "gfx11w64": ("gfx1100",), "gfx12w64": ("gfx1200",)}  # gfx11w64/gfx12w64: the same frames in wave64

_GFX9_MACROS = """\
.macro LD dst, slot
  global_load_dword \\dst, v1, s[4:5] offset:(\\slot)*256
  s_waitcnt vmcnt(0)
.endm
.macro ST src, slot
.if (\\slot) < 16
  global_store_dword v1, \\src, s[6:7] offset:(\\slot)*256
.else
  global_store_dword v1, \\src, s[2:3] offset:((\\slot)-16)*256
.endif
.endm
"""
_GFX11_MACROS = """\
.macro LD dst, slot
  global_load_b32 \\dst, v1, s[4:5] offset:(\\slot)*128
  s_waitcnt vmcnt(0)
.endm
.macro ST src, slot
  global_store_b32 v1, \\src, s[6:7] offset:(\\slot)*128
.endm
.macro WAIT_MSG
  s_waitcnt lgkmcnt(0)
.endm
.macro WAIT_LOAD
  s_waitcnt vmcnt(0)
.endm
.macro WAIT_DS
  s_waitcnt lgkmcnt(0)
.endm
"""
_GFX12_MACROS = """\
.macro LD dst, slot
  global_load_b32 \\dst, v1, s[4:5] offset:(\\slot)*128
  s_wait_loadcnt 0
.endm
.macro ST src, slot
  global_store_b32 v1, \\src, s[6:7] offset:(\\slot)*128
.endm
.macro WAIT_MSG
  s_wait_kmcnt 0
.endm
.macro WAIT_LOAD
  s_wait_loadcnt 0
.endm
.macro WAIT_DS
  s_wait_dscnt 0
.endm
"""
_PROLOGUE = {
    "gfx9": "  s_load_dwordx4 s[4:7], s[0:1], 0x0\n  v_and_b32 v0, 0x3ff, v0\n  v_lshlrev_b32 v1, 2, v0\n"
            "  s_waitcnt lgkmcnt(0)\n  s_add_u32 s2, s6, 0x1000\n  s_addc_u32 s3, s7, 0\n",
    "gfx11": "  s_load_b128 s[4:7], s[0:1], 0x0\n  v_and_b32 v0, 0x3ff, v0\n  v_lshlrev_b32 v1, 2, v0\n"
             "  s_waitcnt lgkmcnt(0)\n",
    "gfx12": "  s_load_b128 s[4:7], s[0:1], 0x0\n  v_and_b32 v0, 0x3ff, v0\n  v_lshlrev_b32 v1, 2, v0\n"
             "  s_wait_kmcnt 0\n",
}
_PROLOGUE["gfx1250"] = _PROLOGUE["gfx12"]  # GFX12.5 (gfx1250): the GFX12 frame, wave32 only
_PROLOGUE["gfx11w64"], _PROLOGUE["gfx12w64"] = _PROLOGUE["gfx11"], _PROLOGUE["gfx12"]


def _descriptor(family: str, target: str, name: str) -> str:
    lines = [f".amdhsa_kernel {name}", ".amdhsa_kernarg_size 16", ".amdhsa_user_sgpr_count 2",
             ".amdhsa_user_sgpr_kernarg_segment_ptr 1", ".amdhsa_system_sgpr_workgroup_id_x 1",
             ".amdhsa_system_vgpr_workitem_id 0", ".amdhsa_next_free_vgpr 64", ".amdhsa_next_free_sgpr 32",
             ".amdhsa_float_denorm_mode_32 3", ".amdhsa_float_denorm_mode_16_64 3"]
    if family == "gfx9":
        if target != "gfx942":  # gfx942 has architected flat scratch: no private segment buffer SGPRs
            lines += [".amdhsa_user_sgpr_private_segment_buffer 0"]
        lines += [".amdhsa_accum_offset 64", ".amdhsa_dx10_clamp 1", ".amdhsa_ieee_mode 1"]
    else:
        lines += [f".amdhsa_wavefront_size32 {0 if family.endswith('w64') else 1}"]
        if family.startswith("gfx11"):
            lines += [".amdhsa_dx10_clamp 1", ".amdhsa_ieee_mode 1"]
    return "\n".join("  " + x for x in lines) + "\n.end_amdhsa_kernel\n"


def _metadata(name: str, family: str) -> str:
    wave = 64 if family == "gfx9" or family.endswith("w64") else 32
    return f""".amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - {{ .address_space: global, .is_const: true, .offset: 0, .size: 8, .value_kind: global_buffer }}
      - {{ .address_space: global, .offset: 8, .size: 8, .value_kind: global_buffer }}
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 16
    .max_flat_workgroup_size: {wave}
    .name: {name}
    .private_segment_fixed_size: 0
    .sgpr_count: 32
    .symbol: {name}.kd
    .vgpr_count: 64
    .wavefront_size: {wave}
amdhsa.target: amdgcn-amd-amdhsa--{{target}}
amdhsa.version:
  - 1
  - 2
...
.end_amdgpu_metadata
"""


def frame(body: str, family: str, target: str, name: str) -> str:
    """The complete assembly file for one body on one target."""
    macros = {"gfx9": _GFX9_MACROS, "gfx11": _GFX11_MACROS, "gfx12": _GFX12_MACROS, "gfx1250": _GFX12_MACROS,
              "gfx11w64": _GFX11_MACROS.replace("*128", "*256"),
              "gfx12w64": _GFX12_MACROS.replace("*128", "*256")}[family]
    return (f'.amdgcn_target "amdgcn-amd-amdhsa--{target}"\n.amdhsa_code_object_version 5\n{macros}'
            f".text\n.globl {name}\n.p2align 8\n.type {name},@function\n{name}:\n{_PROLOGUE[family]}"
            f"{body}\n  s_endpgm\n.Lend_{name}:\n.size {name}, .Lend_{name}-{name}\n"
            f'.rodata\n.p2align 6\n{_descriptor(family, target, name)}'
            + _metadata(name, family).replace("{target}", target))


def build(src: Path) -> list[Path]:
    case, families = src.name[: -len(".s")].rsplit(".", 1)
    out = []
    for family, target in ((f, t) for f in families.replace("gfx11+12", "gfx11+gfx12").split("+")
                           for t in TARGETS[f]):
        co = HERE / f"{case}-{target}.co"
        with tempfile.TemporaryDirectory() as tmp:
            s = Path(tmp) / f"{case}.s"
            o = Path(tmp) / f"{case}.o"
            s.write_text(frame(src.read_text(), family, target, case))
            mattr = ["-mattr=+wavefrontsize64"] if family.endswith("w64") else []
            subprocess.run(["llvm-mc-22", "-triple=amdgcn-amd-amdhsa", f"-mcpu={target}", *mattr, "-filetype=obj",
                            str(s), "-o", str(o)], check=True)
            subprocess.run(["ld.lld-22", "-shared", str(o), "-o", str(co)], check=True)
        out.append(co)
    return out


def main() -> int:
    for src in sorted(HERE.glob("*.s")):
        for co in build(src):
            print(co.relative_to(HERE.parent.parent))
    return 0


if __name__ == "__main__":
    sys.exit(main())
