"""The emulator's own core note: what `amddbg run` saw that the hardware state does not record.

Why a note of our own: a core the emulator writes (`amddbg run --core`) is read by `amddbg info`, the debugger and
`explain` like any ROCm core, but some findings of the run leave no trace in registers or memory: an LDS access
past the workgroup's allocation reads 0 or is dropped (amddbg/emu/ldsbounds.py) and the kernel goes on. The note
keeps them with the core: ELF note name "AMDDBG", type NT_AMDDBG_EMULATOR_NOTES, a UTF-8 JSON object
`{"version": 1, "notes": [{"kind", "workgroup", "wave_in_group", "pc", "instruction", "source", "lanes",
"addresses", "requested", "allocated", "effect"}, ...]}`, and on GFX12.5 one `barrier_state` record (the named
and cluster barrier objects, which no saved register holds; `_barrier_state_ok`). Other tools ignore an
unknown note; a core without it simply has no emulator notes. Reading never trusts the payload: size-bounded,
JSON only, each record checked.
"""

from __future__ import annotations

import json

NOTE_NAME = "AMDDBG"
NT_AMDDBG_EMULATOR_NOTES = 0x41444201  # "AMD" "B" 1 (no other producer uses the "AMDDBG" name)
MAX_BYTES = 4 << 20
_KEYS = {"kind": str, "pc": str, "lanes": list, "addresses": list}


def build(notes: list[dict]) -> bytes:
    return json.dumps({"version": 1, "notes": notes}, sort_keys=True).encode()


def parse(desc: bytes, where: str) -> tuple[list[dict], list[str]]:
    """(the note records, warnings about what could not be read)."""
    if len(desc) > MAX_BYTES:
        return [], [f"{where}: emulator note of {len(desc)} bytes ignored (over {MAX_BYTES >> 20} MiB)"]
    try:
        doc = json.loads(bytes(desc).decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return [], [f"{where}: emulator note is not JSON ({exc.__class__.__name__}); ignored"]
    if not isinstance(doc, dict) or doc.get("version") != 1 or not isinstance(doc.get("notes"), list):
        return [], [f"{where}: emulator note of an unknown layout; ignored"]
    out, bad = [], 0
    for rec in doc["notes"]:
        if isinstance(rec, dict) and (_barrier_state_ok(rec) if rec.get("kind") == "barrier_state" else
                                      all(isinstance(rec.get(k), t) for k, t in _KEYS.items())):
            out.append(rec)
        else:
            bad += 1
    return out, [f"{where}: {bad} malformed emulator note record(s) ignored"] if bad else []


def _ints(x, n: int | None = None) -> bool:
    return isinstance(x, list) and (n is None or len(x) == n) and all(isinstance(v, int) for v in x)


def _barrier_state_ok(rec: dict) -> bool:
    """A `barrier_state` record (GFX12.5, emu/coredump.py): the named and cluster barrier objects the hardware state
    does not save, `{"kind": "barrier_state", "workgroups": [{"workgroup": [x, y, z], "named": [{"id", "expected",
    "initialized", "arrivals", "members"}], "joined": [[wave, id]], "waiting": [[wave, id]]}], "clusters":
    [{"cluster": [x, y, z], "shape": [x, y, z], "expected", "arrivals": [[x, y, z]], "dropped": [[x, y, z]]}]}`."""
    wgs, cls = rec.get("workgroups"), rec.get("clusters")
    if not isinstance(wgs, list) or not isinstance(cls, list):
        return False
    for g in wgs:
        if not (isinstance(g, dict) and _ints(g.get("workgroup"), 3) and isinstance(g.get("named"), list)
                and all(isinstance(p, list) and _ints(p, 2) for k in ("joined", "waiting") for p in g.get(k, [None]))):
            return False
        for b in g["named"]:
            if not (isinstance(b, dict) and isinstance(b.get("id"), int) and 0 < b["id"] <= 16
                    and isinstance(b.get("expected"), int) and isinstance(b.get("initialized"), bool)
                    and _ints(b.get("arrivals")) and _ints(b.get("members"))):
                return False
    for c in cls:
        if not (isinstance(c, dict) and _ints(c.get("cluster"), 3) and _ints(c.get("shape"), 3)
                and isinstance(c.get("expected"), int) and all(_ints(a, 3) for k in ("arrivals", "dropped")
                                                                for a in c.get(k, [None]))):
            return False
    return True


def read(files) -> tuple[list[dict], list[str]]:
    """Every emulator note record of the core's ELF files (`ElfCore`s)."""
    notes, warnings = [], []
    for f in files:
        for n in f.notes:
            if n.name == NOTE_NAME and n.type == NT_AMDDBG_EMULATOR_NOTES:
                got, warn = parse(n.desc, f"{f.path} (note at offset {n.offset:#x})")
                notes += got
                warnings += warn
    return notes, warnings
