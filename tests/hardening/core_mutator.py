"""Mutations of real cores for the command-level fuzzer (issue 23 section 3): bit flips, truncations,
note-length edits and p_memsz/p_filesz edits of the core's PT_LOADs and of the embedded code objects'.

Deterministic: a mutant is a function of (seed core, kind, random seed). Run as a script to explore
more mutants than CI does: `python tests/hardening/core_mutator.py N [SEED]` prints any failure.
"""

from __future__ import annotations

import random
import struct

KINDS = ("flip", "truncate", "note_length", "core_sizes", "codeobject_sizes")
HUGE = (1 << 40, 1 << 63, (1 << 64) - 1, 1 << 32, 0x7FFF_FFFF)


def _phdrs(d: bytes | bytearray, base: int = 0) -> list[int]:
    """File offsets of the program headers of the ELF at `base`."""
    try:
        phoff = struct.unpack_from("<Q", d, base + 32)[0]
        phentsize, phnum = struct.unpack_from("<HH", d, base + 54)
    except struct.error:
        return []
    out = []
    for i in range(min(phnum, 4096)):
        off = base + phoff + i * phentsize
        if phentsize < 56 or off + 56 > len(d):
            break
        out.append(off)
    return out


def _embedded_elfs(d: bytes | bytearray) -> list[int]:
    out, i = [], d.find(b"\x7fELF", 1)
    while i >= 0:
        if i + 64 <= len(d) and struct.unpack_from("<H", d, i + 18)[0] == 0xE0:
            out.append(i)
        i = d.find(b"\x7fELF", i + 1)
    return out


def _size(rng: random.Random, file_size: int) -> int:
    return rng.choice([*HUGE, file_size + 1, file_size * 2, 0, rng.randrange(1 << 48)])


def mutate(data: bytes, kind: str, seed: int) -> bytes:
    rng = random.Random(f"{kind}:{seed}")
    d = bytearray(data)
    if kind == "flip":
        for _ in range(rng.choice([1, 4, 32])):
            i = rng.randrange(len(d) * 8)
            d[i // 8] ^= 1 << (i % 8)
    elif kind == "truncate":
        return bytes(d[: rng.randrange(64, len(d))])
    elif kind == "note_length":
        notes = [o for o in _phdrs(d) if struct.unpack_from("<I", d, o)[0] == 4]
        if notes:
            o = rng.choice(notes)
            start = struct.unpack_from("<Q", d, o + 8)[0]
            pos = start
            heads = []
            while pos + 12 <= len(d) and len(heads) < 64:
                namesz, descsz, _t = struct.unpack_from("<III", d, pos)
                heads.append(pos)
                nxt = pos + 12 + ((namesz + 3) & ~3) + ((descsz + 3) & ~3)
                if nxt <= pos or nxt > start + struct.unpack_from("<Q", d, o + 32)[0]:
                    break
                pos = nxt
            if heads:
                h = rng.choice(heads)
                field = rng.choice([0, 4])
                struct.pack_into("<I", d, h + field, rng.choice([0, 1, 3, 0xFFFFFFFF, 0x7FFFFFF0,
                                                                   struct.unpack_from("<I", d, h + field)[0] + 4]))
            if rng.random() < 0.3:  # the segment's own p_filesz too
                struct.pack_into("<Q", d, o + 32, _size(rng, len(d)))
    elif kind in ("core_sizes", "codeobject_sizes"):
        bases = [0] if kind == "core_sizes" else _embedded_elfs(d)
        loads = [o for b in bases for o in _phdrs(d, b) if struct.unpack_from("<I", d, o)[0] in (1, 4)]
        for o in rng.sample(loads, min(len(loads), rng.choice([1, 2]))) if loads else []:
            field = rng.choice([32, 40, 8])  # p_filesz, p_memsz, p_offset
            struct.pack_into("<Q", d, o + field, _size(rng, len(d)))
    else:
        raise ValueError(kind)
    return bytes(d)


if __name__ == "__main__":  # pragma: no cover - exploration by hand
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from test_mutation_fuzz import SEED_CORES, check_mutant

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    start = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for s in range(start, start + n):
            for core in SEED_CORES:
                for kind in KINDS:
                    problem = check_mutant(Path(tmp), core, kind, s)
                    if problem:
                        print(f"{core.name} {kind} {s}: {problem}", flush=True)
