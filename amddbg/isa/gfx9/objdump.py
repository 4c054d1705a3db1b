"""Reading `llvm-objdump -d` listings (the external oracle for accuracy checks) and locating the
GFX9-family objects of the corpus with their stored listings, so tests run without LLVM."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[3] / "corefiles" / "co"
GFX9_PROCESSORS = ("gfx803", "gfx900", "gfx906", "gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx950")
_LINE = re.compile(r"^\s+(.*?)\s*//\s*([0-9A-Fa-f]+):((?:\s[0-9A-F]{8})+)(?:\s*<(.+)>)?\s*$")
_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class RefLine:
    address: int
    text: str  # whitespace normalised, comment dropped
    raw: bytes  # file order
    label: str | None  # objdump's `<sym+0xoff>` branch annotation


def gfx9_objects() -> list[Path]:
    out = []
    for p in sorted(CORPUS.glob("*.co")):
        if any(f"-{proc}-" in p.name for proc in GFX9_PROCESSORS) and p.with_name(p.name + ".objdump.txt").exists():
            out.append(p)
    return out


def processor_of(path: Path) -> str:
    return next(proc for proc in GFX9_PROCESSORS if f"-{proc}-" in path.name)


def reference(path: Path) -> list[RefLine]:
    """Instructions of the stored objdump listing of `path`."""
    return parse_listing(path.with_name(path.name + ".objdump.txt").read_text())


def parse_listing(text: str) -> list[RefLine]:
    """Instructions of an `llvm-objdump -d` listing (address, normalised text, bytes, label)."""
    out = []
    for line in text.splitlines():
        if not line.startswith("\t"):
            continue
        m = _LINE.match(line)
        if not m:
            continue
        raw = b"".join(int(w, 16).to_bytes(4, "little") for w in m.group(3).split())
        out.append(RefLine(int(m.group(2), 16), _WS.sub(" ", m.group(1)).strip(), raw, m.group(4)))
    return out
