"""Parse the stored `llvm-readelf -h --notes` reference dumps (the oracle for code-object decoding)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml


@dataclass
class ReadelfReference:
    abi_version: int
    os_abi: str
    flags_value: int
    flags_names: list[str]  # e.g. ["gfx90a", "xnack", "sramecc-"]
    metadata: dict[str, Any] | None


def load(path: Path) -> ReadelfReference:
    text = path.read_text()
    abi = int(re.search(r"ABI Version:\s+(\d+)", text).group(1))
    os_abi = re.search(r"OS/ABI:\s+(.*)", text).group(1).strip()
    flags = re.search(r"Flags:\s+(0x[0-9a-f]+)(.*)", text)
    names = [n.strip() for n in flags.group(2).split(",") if n.strip()]
    md = None
    m = re.search(r"AMDGPU Metadata:\n\s*---\n(.*?\n)\.\.\.", text, re.S)
    if m:
        md = yaml.safe_load(m.group(1))
    return ReadelfReference(abi, os_abi, int(flags.group(1), 16), names, md)
