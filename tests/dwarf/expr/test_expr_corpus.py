"""The expressions real compilers emit (corpus: clang 19 / 22, HIP and OpenCL, wave32 and wave64).

Every DW_AT_location / DW_AT_frame_base expression and location-list entry of a sample of corpus objects
is decoded by us and by pyelftools (an independent parser; the corpus has no vendor ops, so pyelftools can
read it), and evaluated over a synthetic register/memory context.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from amddbg.amdgpu import AddressSpace
from amddbg.dwarf.expr import (
    Evaluator,
    Location,
    StaticContext,
    decode,
    read_bits,
    xderef_map,
)
from amddbg.dwarf.expr.location import Composite, Register
from amddbg.errors import AmddbgError, NotSupported
from tests import bounded

CORPUS = Path(__file__).resolve().parents[3] / "corefiles" / "co"
SAMPLE = ["llvm19-gfx90a-w64-O0-cl.co", "llvm22-gfx90a-w64-O0-hip.co", "llvm22-gfx1100-w32-O2-hip.co",
          "llvm19-gfx1030-w32-O0-hip.co", "llvm22-gfx942-w64-O2-cl.co", "llvm19-gfx90a-w64-O2-hip.co",
          "llvm22-gfx90a-w64-O2-hip.co"]


class SyntheticContext(StaticContext):
    """Every register and every byte exists: registers hold their number, memory bytes their address."""

    def read_register(self, number, *, lane=None):
        return (number * 0x100 + (lane or 0)) & 0xFFFFFFFF

    def read_memory(self, space, address, size, *, lane=None):
        return bytes((address + i) & 0xFF for i in range(size))


def corpus_expressions(path: Path):
    """(producer, attribute, bytes) for every location expression of the object, via pyelftools."""
    from elftools.dwarf.locationlists import LocationParser
    from elftools.elf.elffile import ELFFile

    with open(path, "rb") as f:
        dwarf = ELFFile(f).get_dwarf_info()
        lists = dwarf.location_lists()
        parser = LocationParser(lists)
        for cu in dwarf.iter_CUs():
            producer = cu.get_top_DIE().attributes["DW_AT_producer"].value.decode()
            for die in cu.iter_DIEs():
                for name in ("DW_AT_location", "DW_AT_frame_base"):
                    attr = die.attributes.get(name)
                    if attr is None:
                        continue
                    if attr.form == "DW_FORM_exprloc":
                        yield producer, name, bytes(attr.value)
                    elif LocationParser.attribute_has_location(attr, cu["version"]):
                        loc = parser.parse_from_attribute(attr, cu["version"], die)
                        for entry in getattr(loc, "__iter__", lambda: iter(()))():
                            if hasattr(entry, "loc_expr"):
                                yield producer, name, bytes(entry.loc_expr)


@pytest.mark.parametrize("name", SAMPLE)
def test_decoding_agrees_with_pyelftools(name):
    from elftools.dwarf.dwarf_expr import DWARFExprParser
    from elftools.elf.elffile import ELFFile

    with open(CORPUS / name, "rb") as f:
        structs = next(ELFFile(f).get_dwarf_info().iter_CUs()).structs
    theirs = DWARFExprParser(structs)
    count = 0
    for _producer, _attr, data in corpus_expressions(CORPUS / name):
        ours = decode(data)
        ref = theirs.parse_expr(list(data))
        assert [o.name for o in ours] == [r.op_name for r in ref], data.hex()
        for o, r in zip(ours, ref, strict=True):
            if o.name != "DW_OP_implicit_value":
                assert list(o.operands) == [a if not isinstance(a, list) else bytes(a) for a in r.args]
        count += 1
    assert count > 10


@pytest.mark.parametrize("name", SAMPLE)
def test_corpus_expressions_evaluate(name):
    wave = 32 if "-w32-" in name else 64
    ok = failed = 0
    for producer, attr, data in corpus_expressions(CORPUS / name):
        fb = Location.memory(AddressSpace.PRIVATE_LANE, 0x100, lane=1)
        ctx = SyntheticContext(wave_size=wave, frame_base=fb, addresses=[0x40] * 8)
        ev = Evaluator(ctx, lane=1, lane_slice_vector_registers=True, xderef_spaces=xderef_map(producer))
        try:
            loc = ev.run(data).result()
            if attr == "DW_AT_location":
                try:
                    read_bits(ctx, loc, 32, lane=1)
                except AmddbgError:
                    pass  # e.g. reading 32 bits of a 16-bit piece
            ok += 1
        except NotSupported:
            failed += 1
    assert ok > 10 and failed == 0


def test_whole_vgpr_regx_in_wave64_and_wave32():
    """Upstream clang: "DW_OP_regx <vgpr number> for the whole vector register (wave64 2560+n, wave32
    1536+n)". A lane's view is its dword (bit offset 32 * lane)."""
    seen = {}
    for name in ("llvm19-gfx90a-w64-O2-hip.co", "llvm19-gfx1100-w32-O2-hip.co"):
        for _p, _a, data in corpus_expressions(CORPUS / name):
            ops = decode(data)
            if ops and ops[0].name == "DW_OP_regx" and ops[0].operands[0] >= 1536:
                seen[name] = data
                break
    assert set(seen) == {"llvm19-gfx90a-w64-O2-hip.co", "llvm19-gfx1100-w32-O2-hip.co"}
    w64 = decode(seen["llvm19-gfx90a-w64-O2-hip.co"])[0].operands[0]
    w32 = decode(seen["llvm19-gfx1100-w32-O2-hip.co"])[0].operands[0]
    assert 2560 <= w64 < 2816 and 1536 <= w32 < 2048
    ctx = SyntheticContext(wave_size=64)
    loc = Evaluator(ctx, lane=5, lane_slice_vector_registers=True).run(seen["llvm19-gfx90a-w64-O2-hip.co"]).result()
    first = loc.single.storage.parts[0].location if isinstance(loc.single.storage, Composite) else loc
    assert first.single.storage == Register(w64) and first.single.bit_offset == 32 * 5


@pytest.mark.slow
def test_every_corpus_expression_decodes():
    objs = sorted(CORPUS.glob("*.co"))
    objs = objs[:bounded.count(12, len(objs))]  # AMDDBG_SLOW_LIMIT=0: every object
    total = 0
    for path in objs:
        for _p, _a, data in corpus_expressions(path):
            decode(data)
            total += 1
    assert total > 0


def test_upstream_xderef_is_an_address_space_annotation():
    """LLVM 22 HIP -O2 describes a pointer variable as `DW_OP_bregx VGPR0+0, DW_OP_bregx VGPR1+0, DW_OP_plus,
    DW_OP_lit1, DW_OP_swap, DW_OP_xderef, DW_OP_stack_value` (stored llvm-dwarfdump output). Read as LLVM's
    address-space idiom (reference: "Address spaces are encoded as <addr>, DW_OP_litN, DW_OP_swap,
    DW_OP_xderef"), the pointer's value is the address itself, per lane."""
    from amddbg.dwarf.expr import encode, evaluate_lanes, producer_options

    name = "llvm22-gfx90a-w64-O2-hip.co"
    wanted = encode([("DW_OP_bregx", 2560, 0), ("DW_OP_bregx", 2561, 0), ("DW_OP_plus",), ("DW_OP_lit1",),
                     ("DW_OP_swap",), ("DW_OP_xderef",), ("DW_OP_stack_value",)])
    producers = {data: p for p, _a, data in corpus_expressions(CORPUS / name)}
    assert wanted in producers
    ctx = SyntheticContext(wave_size=64)
    res = evaluate_lanes(wanted, ctx, range(4), **producer_options(producers[wanted]))
    for lane in range(4):
        expected = ctx.read_register(2560, lane=lane) + ctx.read_register(2561, lane=lane)
        assert read_bits(ctx, res.locations[lane], 64) == expected
