"""LDS bounds as the hardware has them: allocation granules, out-of-range reads of 0 and dropped writes, and a
record of every access past what the launch asked for.

Why not a fault: the SPI allocates a workgroup's LDS in granules of COMPUTE_PGM_RSRC2.LDS_SIZE (LLVM's AMDGPUUsage,
"LDS_SIZE ... Granularity is device specific": GFX7-GFX12 roundup(lds-size / (128 * 4)), i.e. 512 bytes; GFX950
1280 bytes; GFX12.5 2048 bytes), from the dispatch packet's group segment size (static plus dynamic LDS). A DS access
inside the allocation but past the kernel's arrays reads and writes that padding; one past the allocation is out of
range, which the hardware answers with 0 for a read and by dropping a write, not with a memory violation. So a
kernel that reads one element past its __shared__ array and never uses the value works on a GPU, and the emulator
must let it; but such an access is nearly always a bug, so each one is recorded (`LdsBounds.warnings`: wave, lanes,
addresses, instruction, source line) and shown by `amddbg run` (`--json` "warnings").
"""

from __future__ import annotations

LIMIT = 256  # distinct (wave, instruction, kind) records kept; later ones are counted in `more`


def granule(processor: str) -> int:
    """LDS allocation granule in bytes (AMDGPUUsage's COMPUTE_PGM_RSRC2.LDS_SIZE row)."""
    if processor.startswith("gfx950"):
        return 320 * 4
    if processor.startswith("gfx125"):
        return 512 * 4
    return 128 * 4


def allocation(processor: str, size: int) -> int:
    """Bytes the hardware allocates for a group segment of `size` bytes."""
    g = granule(processor)
    return (max(size, 0) + g - 1) // g * g


class LdsBounds:
    """Collects the accesses past the requested LDS size of every workgroup of one dispatch."""

    def __init__(self, machine) -> None:
        self.machine = machine
        self.records: dict[tuple, dict] = {}
        self.more = 0

    def note(self, kind: str, address: int, size: int, lane: int) -> None:
        m = self.machine
        w = m._ctx.wave  # LDS is touched only by the instruction of the wave being stepped (its PC not yet moved)
        key = (w.index, w.pc, kind)
        rec = self.records.get(key)
        if rec is None:
            if len(self.records) >= LIMIT:
                self.more += 1
                return
            lds = m.groups[w.group_key].lds
            insn = m.instructions.get(w.pc)
            rec = self.records[key] = {
                "kind": f"lds_{kind}_out_of_range", "workgroup": list(w.workgroup), "wave_in_group": w.wave_in_group,
                "pc": f"{w.pc:#x}", "instruction": insn.text if insn is not None else None,
                "source": m.wave_source_pc(w.pc), "requested": lds.size, "allocated": len(lds.data),
                "lanes": [], "addresses": [], "effect": ""}
        if lane not in rec["lanes"]:
            rec["lanes"].append(lane)
            rec["addresses"].append(f"{address:#x}")
        past = address + size > len(self.machine.groups[w.group_key].lds.data)
        effect = ("past the allocation: " + ("reads 0" if kind == "read" else "dropped")) if past else \
            "inside the allocation granule's padding"
        if effect not in rec["effect"]:
            rec["effect"] = effect if not rec["effect"] else rec["effect"] + "; " + effect

    def warnings(self) -> list[dict]:
        out = [dict(r, lanes=sorted(r["lanes"])) for r in self.records.values()]
        if self.more:
            out.append({"kind": "lds_out_of_range_more", "count": self.more})
        return out

    def describe(self, rec: dict) -> str:
        """One line for the text output."""
        src = rec.get("source")
        where = f"{src['file'].rsplit('/', 1)[-1]}:{src['line']}" if src else rec["pc"]
        verb = "read" if "read" in rec["kind"] else "write"
        return (f"LDS {verb} past the workgroup's {rec['requested']} bytes at {where} ({rec['instruction']}): "
                f"lanes {_ranges(rec['lanes'])}, address {rec['addresses'][0]}; {rec['effect']}")


def _ranges(lanes: list[int]) -> str:
    out, i = [], 0
    while i < len(lanes):
        j = i
        while j + 1 < len(lanes) and lanes[j + 1] == lanes[j] + 1:
            j += 1
        out.append(str(lanes[i]) if i == j else f"{lanes[i]}-{lanes[j]}")
        i = j + 1
    return ",".join(out)
