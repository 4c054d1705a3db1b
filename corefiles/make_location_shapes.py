#!/usr/bin/env python3
"""Write corefiles/location-shapes.json: the census of every DWARF location-expression shape in every code
object under corefiles/ (all corpora), with counts and one example per wave size.

A shape is the expression with register numbers, offsets and constants normalised
(`amddbg.dwarf.expr.shapes.shape_of`). tests/dwarf/expr/test_location_shapes.py recomputes the census
(a new object or compiler that brings a new shape fails until its shape is added here and checked) and
evaluates one example of every shape against a core.

Run from the repository root: python corefiles/make_location_shapes.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "corefiles" / "location-shapes.json"


def wave_size(path: Path) -> int:
    """The code object's wavefront size (its kernel descriptors), 64 when it has no kernel."""
    from amddbg.codeobj import CodeObject

    co = CodeObject.from_path(path)
    sizes = {k.descriptor.wavefront_size for k in co.kernels if getattr(k, "descriptor", None) is not None}
    return 32 if sizes == {32} else 64


def census(root: Path = ROOT) -> dict[str, dict]:
    from amddbg.dwarf.context import DwarfInfo
    from amddbg.dwarf.expr import decode, encoding_for
    from amddbg.dwarf.expr.shapes import shape_of
    from amddbg.dwarf.scopes import location_expressions

    shapes: dict[str, dict] = {}
    for path in sorted((root / "corefiles").rglob("*.co")):
        dwarf = DwarfInfo.from_path(path)
        if not dwarf.has_info:
            continue
        wave = None
        for e in location_expressions(dwarf):
            info = dwarf.producer_info(e["unit"])
            ops = decode(e["expr"], encoding=encoding_for(info.producer, info.augmentation),
                         address_size=e["unit"].addr_size, offset_size=e["unit"].offset_size)
            key = f"{e['attr']}: {shape_of(ops)}"
            entry = shapes.setdefault(key, {"count": 0, "objects": [], "producers": [], "examples": {}})
            entry["count"] += 1
            rel = str(path.relative_to(root))
            if rel not in entry["objects"]:
                entry["objects"].append(rel)
            family = (info.producer or "?").split(" (")[0]
            if family not in entry["producers"]:
                entry["producers"].append(family)
            if wave is None:
                wave = wave_size(path)
            old = entry["examples"].get(str(wave))
            # one example per wave size, from a compiler-built object when the shape has one
            if old is None or ("handmade" in old["object"] and "handmade" not in rel):
                entry["examples"][str(wave)] = {
                    "object": rel, "die": e["die"].offset, "name": e["name"], "lo": e["lo"], "hi": e["hi"],
                    "expr": e["expr"].hex(), "producer": info.producer,
                }
    for entry in shapes.values():
        entry["objects"] = len(entry["objects"])
    return dict(sorted(shapes.items()))


def main() -> int:
    sys.path.insert(0, str(ROOT))
    data = census()
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"{OUT}: {len(data)} shapes, {sum(e['count'] for e in data.values())} expressions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
