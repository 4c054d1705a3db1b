"""Bit layouts of the GFX10.3 / GFX11 / GFX12 / GFX12.5 instruction encodings.

Facts from the AMD ISA manuals and LLVM's encoding definitions, checked by assembling instructions
with `llvm-mc -show-encoding`.  A field is (dword index, low bit, width).  `MATCH` lists, per
generation, (mask, value, encoding name, base size in bytes) in the order the decoder tests them
on the first dword: the more specific patterns first.
"""

from __future__ import annotations

Field = tuple[int, int, int]

GENERATIONS = ("gfx10", "gfx11", "gfx12", "gfx1250")

_SOP = {
    "SOP1": {"op": (0, 8, 8), "sdst": (0, 16, 7), "ssrc0": (0, 0, 8)},
    "SOPC": {"op": (0, 16, 7), "ssrc1": (0, 8, 8), "ssrc0": (0, 0, 8)},
    "SOPP": {"op": (0, 16, 7), "simm16": (0, 0, 16)},
    "SOPK": {"op": (0, 23, 5), "sdst": (0, 16, 7), "simm16": (0, 0, 16)},
    "SOP2": {"op": (0, 23, 7), "sdst": (0, 16, 7), "ssrc1": (0, 8, 8), "ssrc0": (0, 0, 8)},
}
_VOP = {
    "VOP1": {"op": (0, 9, 8), "vdst": (0, 17, 8), "src0": (0, 0, 9)},
    "VOPC": {"op": (0, 17, 8), "vsrc1": (0, 9, 8), "src0": (0, 0, 9)},
    "VOP2": {"op": (0, 25, 6), "vdst": (0, 17, 8), "vsrc1": (0, 9, 8), "src0": (0, 0, 9)},
    "VOP3": {
        "op": (0, 16, 10), "clamp": (0, 15, 1), "opsel": (0, 11, 4), "abs": (0, 8, 3), "sdst": (0, 8, 7),
        "vdst": (0, 0, 8), "neg": (1, 29, 3), "omod": (1, 27, 2), "src2": (1, 18, 9), "src1": (1, 9, 9),
        "src0": (1, 0, 9),
    },
    "VOP3P": {
        "op": (0, 16, 7), "clamp": (0, 15, 1), "opsel_hi2": (0, 14, 1), "opsel": (0, 11, 3),
        "neg_hi": (0, 8, 3), "vdst": (0, 0, 8), "neg": (1, 29, 3), "opsel_hi": (1, 27, 2),
        "src2": (1, 18, 9), "src1": (1, 9, 9), "src0": (1, 0, 9),
    },
    "VOPD": {
        "opx": (0, 22, 4), "opy": (0, 17, 5), "vsrcx1": (0, 9, 8), "srcx0": (0, 0, 9),
        "vdstx": (1, 24, 8), "vdsty": (1, 17, 7), "vsrcy1": (1, 9, 8), "srcy0": (1, 0, 9),
    },
    "DS": {
        "op": (0, 18, 8), "gds": (0, 17, 1), "offset1": (0, 8, 8), "offset0": (0, 0, 8),
        "vdst": (1, 24, 8), "data1": (1, 16, 8), "data0": (1, 8, 8), "addr": (1, 0, 8),
    },
}

FIELDS: dict[str, dict[str, dict[str, Field]]] = {}
for _g in GENERATIONS:
    FIELDS[_g] = {**_SOP, **_VOP}

FIELDS["gfx10"]["SMEM"] = {
    "op": (0, 18, 8), "glc": (0, 16, 1), "dlc": (0, 14, 1), "sdata": (0, 6, 7), "sbase": (0, 0, 6),
    "soffset": (1, 25, 7), "offset": (1, 0, 21),
}
FIELDS["gfx11"]["SMEM"] = {
    "op": (0, 18, 8), "glc": (0, 14, 1), "dlc": (0, 13, 1), "sdata": (0, 6, 7), "sbase": (0, 0, 6),
    "soffset": (1, 25, 7), "offset": (1, 0, 21),
}
for _g in ("gfx12", "gfx1250"):
    FIELDS[_g]["SMEM"] = {
        "op": (0, 13, 8), "th": (0, 23, 2), "scope": (0, 21, 2), "sdata": (0, 6, 7), "sbase": (0, 0, 6),
        "soffset": (1, 25, 7), "offset": (1, 0, 24),
    }
FIELDS["gfx10"]["FLAT"] = {
    "op": (0, 18, 7), "slc": (0, 17, 1), "glc": (0, 16, 1), "seg": (0, 14, 2), "lds": (0, 13, 1),
    "dlc": (0, 12, 1), "offset": (0, 0, 12), "vdst": (1, 24, 8), "saddr": (1, 16, 7), "data": (1, 8, 8),
    "addr": (1, 0, 8),
}
FIELDS["gfx11"]["FLAT"] = {
    "op": (0, 18, 7), "seg": (0, 16, 2), "slc": (0, 15, 1), "glc": (0, 14, 1), "dlc": (0, 13, 1),
    "offset": (0, 0, 13), "vdst": (1, 24, 8), "sve": (1, 23, 1), "saddr": (1, 16, 7), "data": (1, 8, 8),
    "addr": (1, 0, 8),
}
for _g in ("gfx12", "gfx1250"):
    FIELDS[_g]["FLAT"] = {
        "seg": (0, 24, 2), "op": (0, 14, 8), "saddr": (0, 0, 7), "data": (1, 23, 8), "th": (1, 20, 3),
        "scope": (1, 18, 2), "sve": (1, 17, 1), "vdst": (1, 0, 8), "offset": (2, 8, 24), "addr": (2, 0, 8),
    }
FIELDS["gfx10"]["MUBUF"] = {
    "op": (0, 18, 8), "lds": (0, 16, 1), "dlc": (0, 15, 1), "glc": (0, 14, 1), "idxen": (0, 13, 1),
    "offen": (0, 12, 1), "offset": (0, 0, 12), "soffset": (1, 24, 8), "tfe": (1, 23, 1), "slc": (1, 22, 1),
    "srsrc": (1, 16, 5), "vdata": (1, 8, 8), "vaddr": (1, 0, 8),
}
FIELDS["gfx11"]["MUBUF"] = {
    "op": (0, 18, 8), "glc": (0, 14, 1), "dlc": (0, 13, 1), "slc": (0, 12, 1), "offset": (0, 0, 12),
    "soffset": (1, 24, 8), "idxen": (1, 23, 1), "offen": (1, 22, 1), "tfe": (1, 21, 1), "srsrc": (1, 16, 5),
    "vdata": (1, 8, 8), "vaddr": (1, 0, 8),
}
for _g in ("gfx12", "gfx1250"):
    FIELDS[_g]["MUBUF"] = {
        "tfe": (0, 22, 1), "op": (0, 14, 8), "soffset": (0, 0, 7), "idxen": (1, 31, 1), "offen": (1, 30, 1),
        "format": (1, 23, 7), "th": (1, 20, 3), "scope": (1, 18, 2), "srsrc": (1, 9, 7), "vdata": (1, 0, 8),
        "offset": (2, 8, 24), "vaddr": (2, 0, 8),
    }

FIELDS["gfx10"]["MTBUF"] = {
    "op": (0, 16, 3), "op3": (1, 21, 1), "format": (0, 19, 7), "dlc": (0, 15, 1), "glc": (0, 14, 1),
    "idxen": (0, 13, 1), "offen": (0, 12, 1), "offset": (0, 0, 12), "soffset": (1, 24, 8), "tfe": (1, 23, 1),
    "slc": (1, 22, 1), "srsrc": (1, 16, 5), "vdata": (1, 8, 8), "vaddr": (1, 0, 8),
}
FIELDS["gfx11"]["MTBUF"] = {
    "op": (0, 15, 4), "format": (0, 19, 7), "glc": (0, 14, 1), "dlc": (0, 13, 1), "slc": (0, 12, 1),
    "offset": (0, 0, 12), "soffset": (1, 24, 8), "idxen": (1, 23, 1), "offen": (1, 22, 1), "tfe": (1, 21, 1),
    "srsrc": (1, 16, 5), "vdata": (1, 8, 8), "vaddr": (1, 0, 8),
}

# GFX12.5 VOPD3: 96-bit dual issue with a third source per half (and bitop3 for v_dual_bitop2_b32).
FIELDS["gfx1250"]["VOPD3"] = {
    "opx": (0, 17, 7), "opy": (0, 12, 5), "srcx0": (0, 0, 9), "srcy0": (1, 0, 9), "vsrcx1": (1, 16, 8),
    "srcx2": (1, 24, 8), "vdstx": (2, 0, 8), "vsrcy1": (2, 8, 8), "srcy2": (2, 16, 8), "vdsty": (2, 24, 8),
}

# (mask, value, encoding, size) tested in order on dword 0.
_COMMON_MATCH = [
    (0xFF800000, 0xBE800000, "SOP1", 4),
    (0xFF800000, 0xBF000000, "SOPC", 4),
    (0xFF800000, 0xBF800000, "SOPP", 4),
    (0xF0000000, 0xB0000000, "SOPK", 4),
    (0xC0000000, 0x80000000, "SOP2", 4),
    (0xFE000000, 0x7E000000, "VOP1", 4),
    (0xFE000000, 0x7C000000, "VOPC", 4),
    (0x80000000, 0x00000000, "VOP2", 4),
    (0xFC000000, 0xD4000000, "VOP3", 8),
    (0xFF000000, 0xCC000000, "VOP3P", 8),
    (0xFC000000, 0xD8000000, "DS", 8),
    (0xFC000000, 0xF4000000, "SMEM", 8),
]
MATCH: dict[str, list[tuple[int, int, str, int]]] = {
    "gfx10": _COMMON_MATCH + [(0xFC000000, 0xDC000000, "FLAT", 8), (0xFC000000, 0xE0000000, "MUBUF", 8),
                              (0xFC000000, 0xE8000000, "MTBUF", 8)],
    "gfx11": _COMMON_MATCH + [
        (0xFC000000, 0xDC000000, "FLAT", 8),
        (0xFC000000, 0xE0000000, "MUBUF", 8),
        (0xFC000000, 0xE8000000, "MTBUF", 8),
        (0xFC000000, 0xC8000000, "VOPD", 8),
    ],
}
MATCH["gfx1250"] = [(0xFF000000, 0xCF000000, "VOPD3", 12)]
for _g in ("gfx12", "gfx1250"):
    MATCH[_g] = MATCH.get(_g, []) + _COMMON_MATCH + [
        (0xFC000000, 0xEC000000, "FLAT", 12),
        (0xFC000000, 0xC4000000, "MUBUF", 12),
        (0xFC000000, 0xC8000000, "VOPD", 8),
    ]


# Encodings recognised but not decoded (graphics-only or not emitted by compute compilers): bytes
# matching them become `.long` with a reason naming the encoding.
UNSUPPORTED: dict[str, list[tuple[int, int, str, int]]] = {
    "gfx10": [(0xFC000000, 0xF0000000, "MIMG", 8),
              (0xFC000000, 0xF8000000, "EXP", 8), (0xFC000000, 0xC8000000, "VINTRP", 4)],
    "gfx11": [(0xFC000000, 0xF0000000, "MIMG", 8),
              (0xFC000000, 0xF8000000, "EXP", 8), (0xFF000000, 0xCD000000, "VINTERP", 8),
              (0xFF000000, 0xCE000000, "LDSDIR", 4)],
    "gfx12": [(0xFC000000, 0xD0000000, "VIMAGE", 12), (0xFC000000, 0xE4000000, "VSAMPLE", 12),
              (0xFC000000, 0xF8000000, "VEXPORT", 8), (0xFF000000, 0xCD000000, "VINTERP", 8),
              (0xFF000000, 0xCE000000, "VDSDIR", 4)],
}
UNSUPPORTED["gfx1250"] = UNSUPPORTED["gfx12"]


def table_name(processor: str) -> str:
    """The opcode table set for a processor: gfx10 (GFX10.3), gfx11, gfx115 (GFX11.5), gfx12 or gfx1250."""
    name = processor.split(":")[0]
    if name.startswith("gfx10"):
        return "gfx10"
    if name.startswith("gfx115"):
        return "gfx115"
    if name.startswith("gfx11"):
        return "gfx11"
    if name.startswith("gfx125"):
        return "gfx1250"
    if name.startswith("gfx12"):
        return "gfx12"
    raise ValueError(processor)


def encoding_generation(table: str) -> str:
    """The bit-layout generation of a table set (GFX11.5 shares GFX11's encodings)."""
    return "gfx11" if table == "gfx115" else table


def generation(processor: str) -> str:
    return encoding_generation(table_name(processor))


def pre12(gen: str) -> bool:
    """GFX10/GFX11 encodings (glc/slc/dlc cache bits, 8-byte FLAT/MUBUF) as opposed to GFX12+."""
    return gen in ("gfx10", "gfx11", "gfx115")


# A representative processor per table set, used to probe LLVM when building tables.
PROBE_CPU = {"gfx10": "gfx1030", "gfx11": "gfx1100", "gfx115": "gfx1151", "gfx12": "gfx1200",
             "gfx1250": "gfx1250"}
FIELDS["gfx115"] = FIELDS["gfx11"]
MATCH["gfx115"] = MATCH["gfx11"]
