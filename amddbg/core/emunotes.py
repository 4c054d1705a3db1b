"""The emulator's own core note: what `amddbg run` saw that the hardware state does not record.

Why a note of our own: a core the emulator writes (`amddbg run --core`) is read by `amddbg info`, the debugger and
`explain` like any ROCm core, but some findings of the run leave no trace in registers or memory: an LDS access
past the workgroup's allocation reads 0 or is dropped (amddbg/emu/ldsbounds.py) and the kernel goes on. The note
keeps them with the core: ELF note name "AMDDBG", type NT_AMDDBG_EMULATOR_NOTES, a UTF-8 JSON object
`{"version": 1, "notes": [{"kind", "workgroup", "wave_in_group", "pc", "instruction", "source", "lanes",
"addresses", "requested", "allocated", "effect"}, ...]}`. Other tools ignore an unknown note; a core without it
simply has no emulator notes. Reading never trusts the payload: size-bounded, JSON only, each record checked.
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
        if isinstance(rec, dict) and all(isinstance(rec.get(k), t) for k, t in _KEYS.items()):
            out.append(rec)
        else:
            bad += 1
    return out, [f"{where}: {bad} malformed emulator note record(s) ignored"] if bad else []


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
