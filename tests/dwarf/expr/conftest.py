"""Fixtures over the hand-made objects in corefiles/handmade (built by its build.py with llvm-mc-22).

`exprs(name)` gives {variable name: DW_AT_location bytes} read with pyelftools (which keeps exprloc bytes
raw, so it is independent of our decoder); `oracle(name)` gives {variable name: llvm-dwarfdump-22 text}
from the stored reference dump.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
HANDMADE = ROOT / "corefiles" / "handmade"


@cache
def handmade_dies(name: str) -> dict[str, dict]:
    from elftools.elf.elffile import ELFFile

    out: dict[str, dict] = {}
    with open(HANDMADE / f"{name}.co", "rb") as f:
        elf = ELFFile(f)
        dwarf = elf.get_dwarf_info()
        for cu in dwarf.iter_CUs():
            top = cu.get_top_DIE()
            out["<cu>"] = {k: a.value for k, a in top.attributes.items()}
            for die in cu.iter_DIEs():
                if "DW_AT_name" in die.attributes and die is not top:
                    attrs = {}
                    for k, a in die.attributes.items():
                        attrs[k] = bytes(a.value) if a.form == "DW_FORM_exprloc" else a.value
                    attrs["<offset>"] = die.offset - cu.cu_offset
                    out[die.attributes["DW_AT_name"].value.decode()] = attrs
    return out


@cache
def handmade_oracle(name: str) -> dict[str, str]:
    """variable name -> the text inside DW_AT_location(...) as llvm-dwarfdump-22 printed it."""
    text = (HANDMADE / f"{name}.co.dwarfdump.txt").read_text()
    out: dict[str, str] = {}
    current = None
    for line in text.splitlines():
        m = re.match(r'\s+DW_AT_name\s+\("(.*)"\)', line)
        if m:
            current = m.group(1)
            continue
        m = re.match(r"\s+DW_AT_(location|LLVM_lane_pc)\s+\((.*)\)$", line)
        if m and current:
            key = current if m.group(1) == "location" else current + ":lane_pc"
            out[key] = m.group(2)
    return out


@pytest.fixture(scope="session")
def user_exprs() -> dict[str, bytes]:
    return {k: v["DW_AT_location"] for k, v in handmade_dies("ops_user").items()
            if isinstance(v.get("DW_AT_location"), bytes)}


@pytest.fixture(scope="session")
def draft_exprs() -> dict[str, bytes]:
    return {k: v["DW_AT_location"] for k, v in handmade_dies("ops_draft").items()
            if isinstance(v.get("DW_AT_location"), bytes)}


@pytest.fixture(scope="session")
def user_oracle() -> dict[str, str]:
    return handmade_oracle("ops_user")
