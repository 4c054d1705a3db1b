"""GFX10+ decoder speed paths must not change what it decodes: the memoised records (read through a
shared memo entry), the text-only `iter_text` listing and one-at-a-time `decode` agree with each other
and with plain `Instruction` records, on the real corpus objects and on damaged bytes."""

from __future__ import annotations

import copy
import dataclasses
import random
from pathlib import Path

import pytest

from amddbg.cli.disasm import chunks
from amddbg.codeobj import CodeObject
from amddbg.isa.gfx10 import decoder as decoder_module
from amddbg.isa.gfx10.decoder import Decoder
from amddbg.isa.model import Instruction

ROOT = Path(__file__).resolve().parents[2]
FAMILY = sorted(p for p in (ROOT / "corefiles" / "co").glob("*.co")
                if any(f"-gfx{g}" in p.name for g in ("1030", "1100", "12")))
FIELDS = [f.name for f in dataclasses.fields(Instruction)]


def _plain(ins: Instruction) -> Instruction:
    return Instruction(**{n: getattr(ins, n) for n in FIELDS})


def _parts(path: Path) -> tuple[str, list[tuple[bytes, int]]]:
    co = CodeObject.from_path(str(path))
    return co.processor, [(c.data, c.start) for c in chunks(co)]


@pytest.mark.parametrize("path", FAMILY, ids=[p.name for p in FAMILY])
def test_listing_records_and_single_decodes_agree(path):
    proc, parts = _parts(path)
    for text_first in (True, False):
        decoder_module._SHARED.clear()  # cold memo: the first pass fills it, the second reads it
        d = Decoder(proc)
        for data, start in parts:
            if text_first:
                rows = list(d.iter_text(data, start))
                records = d.decode_all(data, start)
            else:
                records = d.decode_all(data, start)
                rows = list(d.iter_text(data, start))
            assert rows == [(i.address, i.size, i.text) for i in records]
            for ins in records:
                plain = _plain(ins)
                assert ins == plain and plain == ins
                assert repr(ins) == repr(plain)
                if ins.memory is None and ins.waitcnt is None:
                    assert hash(ins) == hash(plain)
                assert d.decode(data, ins.address - start, ins.address) == plain
    assert rows, f"{path.name}: no code decoded"


def test_records_replace_to_plain_records():
    path = FAMILY[0]
    proc, parts = _parts(path)
    ins = next(i for i in Decoder(proc).decode_all(*parts[0]) if i.branch_target is None)
    moved = dataclasses.replace(ins, address=ins.address + 4)
    assert type(moved) is Instruction
    assert moved.address == ins.address + 4 and moved.text == ins.text and moved.operands == ins.operands
    for dup in (copy.copy(ins), copy.deepcopy(ins)):
        assert type(dup) is Instruction and dup == ins and repr(dup) == repr(ins)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ins.text = "changed"  # type: ignore[misc]


@pytest.mark.parametrize("proc", ["gfx1030", "gfx1100", "gfx1200", "gfx1201", "gfx1250"])
def test_damaged_bytes_decode_the_same_every_way(proc):
    real = b"".join(data for p in FAMILY[:4] for data, _a in _parts(p)[1])
    rng = random.Random(proc)
    for trial in range(150):
        if trial % 3 == 0:
            data = rng.randbytes(rng.randrange(1, 48))
        else:
            st = rng.randrange(0, len(real) - 64) & ~3
            buf = bytearray(real[st : st + rng.choice([4, 8, 12, 30, 64])])
            for _ in range(rng.randrange(1, 6)):
                i = rng.randrange(len(buf))
                buf[i] ^= 1 << rng.randrange(8)
            data = bytes(buf)
        if trial % 50 == 0:
            decoder_module._SHARED.clear()
        d = Decoder(proc)
        records = d.decode_all(data, 0x1000)
        assert sum(i.size or 4 for i in records) >= len(data)
        assert list(d.iter_text(data, 0x1000)) == [(i.address, i.size, i.text) for i in records]
        for ins in records:
            assert d.decode(data, ins.address - 0x1000, ins.address) == _plain(ins)
