"""CFI parsing and row computation on hand-made ELF files, with llvm-dwarfdump-22 as the oracle.

corefiles/handmade/{cfi_aspace,cfi_noaspace,frame_raw,eh_frame}.co were assembled by llvm-mc-22 (directives,
`.cfi_escape` and raw `.byte` CIEs/FDEs) and linked by ld.lld-22; the stored `*.dwarfdump.txt` is what
llvm-dwarfdump-22 printed for them. Our text (same layout) must match line by line: instructions,
operands and every computed row.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from amddbg.dwarf.cfi import CFA_OPS, cie_instructions, compute_rows, fde_instructions, frame_sections
from amddbg.dwarf.cfi.dump import dump_section
from amddbg.errors import FormatError

ROOT = Path(__file__).resolve().parents[3]
HANDMADE = ROOT / "corefiles" / "handmade"
FILES = ["cfi_aspace", "cfi_noaspace", "frame_raw", "eh_frame"]


def oracle_lines(name: str) -> list[str]:
    out, keep = [], False
    for line in (HANDMADE / f"{name}.co.dwarfdump.txt").read_text().splitlines():
        if line.startswith((".debug_frame contents:", ".eh_frame contents:")):
            keep = True
        elif line.startswith(".debug_") and line.endswith("contents:"):
            keep = False
        if keep and line.strip() and not line.startswith("  Augmentation data:") and "ZERO terminator" not in line:
            out.append(line)
    return out


def our_lines(name: str) -> list[str]:
    out = []
    sections = {s.name: s for s in frame_sections(HANDMADE / f"{name}.co")}
    for sname in (".debug_frame", ".eh_frame"):
        out.append(f"{sname} contents:")
        if sname in sections:
            out += [line for line in dump_section(sections[sname]) if line.strip()]
    return out


@pytest.mark.parametrize("name", FILES)
def test_matches_llvm_dwarfdump(name):
    assert our_lines(name) == oracle_lines(name)


def test_every_cfa_instruction_is_exercised():
    """Acceptance: every CFI form (DWARF 5 + the AMDGPU extension's 0x30/0x31) appears in a real ELF file."""
    seen = set()
    for name in FILES:
        for sec in frame_sections(HANDMADE / f"{name}.co"):
            for cie in sec.cies.values():
                seen |= {i.name for i in cie_instructions(sec, cie)}
            for fde in sec.fdes:
                seen |= {i.name for i in fde_instructions(sec, fde)}
    wanted = {name for name, _ in CFA_OPS.values() if "GNU" not in name}
    wanted |= {"DW_CFA_advance_loc", "DW_CFA_offset", "DW_CFA_restore"}
    assert wanted - seen == set()


def _rows(name: str, pc: int):
    for sec in frame_sections(HANDMADE / f"{name}.co"):
        fde = sec.fde_for(pc)
        if fde:
            return sec, fde, [r for r in compute_rows(sec, fde) if r.address <= pc < r.end][0]
    raise AssertionError(pc)


def test_def_aspace_cfa_and_address_space_inheritance():
    """EXT A.6.4.2.2: DW_CFA_LLVM_def_aspace_cfa "takes three unsigned LEB128 operands representing a register
    number R, a (non-factored) byte displacement B, and a target architecture specific address space
    identifier AS"; DW_CFA_def_cfa_register / DW_CFA_def_cfa_offset keep "the current address space"."""
    sec, fde, row = _rows("cfi_aspace", 0x1300)
    assert (row.cfa.register, row.cfa.offset, row.cfa.aspace) == (64, 0, 6)
    _, _, row = _rows("cfi_aspace", 0x1308)  # after .cfi_def_cfa_register 65
    assert (row.cfa.register, row.cfa.offset, row.cfa.aspace) == (65, 0, 6)
    _, _, row = _rows("cfi_aspace", 0x1314)  # after .cfi_def_cfa_offset 16
    assert (row.cfa.register, row.cfa.offset, row.cfa.aspace) == (65, 16, 6)


def test_def_aspace_cfa_sf_is_factored_and_def_cfa_sf_resets_the_space():
    """EXT: DW_CFA_LLVM_def_aspace_cfa_sf "is identical to DW_CFA_LLVM_def_aspace_cfa except that the second
    operand is signed and factored" (B * data_alignment_factor); DW_CFA_def_cfa_sf uses the default space."""
    _, fde, row = _rows("frame_raw", fde_pc := 0x12ac)
    assert fde.low_pc == fde_pc and fde.cie.augmentation == "[llvm:v0.0]"
    assert (row.cfa.register, row.cfa.offset, row.cfa.aspace) == (65, 8, 6)
    _, _, row = _rows("frame_raw", 0x12b0)  # def_cfa_offset_sf -2 keeps space 6
    assert (row.cfa.offset, row.cfa.aspace) == (-8, 6)
    _, fde, row = _rows("frame_raw", 0x12bc)  # CIE "[amd:v0.0]" + DW_CFA_def_cfa_sf
    assert fde.cie.augmentation == "[amd:v0.0]"
    assert (row.cfa.register, row.cfa.offset, row.cfa.aspace) == (65, -8, 0)


def test_cie_versions_augmentations_and_dwarf64():
    """USAGE: the CIE augmentation is "[amd:v0.0]"; LLVM emits "" and the older fork "[llvm:v0.0]"; the
    return address register is PC_64 (16); code and data alignment factors are 4."""
    cies = [c for sec in frame_sections(HANDMADE / "frame_raw.co") for c in sec.cies.values()]
    assert [(c.version, c.augmentation, c.dwarf64) for c in cies] == [
        (4, "[llvm:v0.0]", False), (4, "[amd:v0.0]", False), (1, "", False), (3, "", True)]
    assert {(c.return_address_register, c.code_alignment, c.data_alignment) for c in cies} == {(16, 4, 4)}
    eh = frame_sections(HANDMADE / "eh_frame.co")[0]
    assert eh.is_eh and [c.augmentation for c in eh.cies.values()] == ["zR"] and eh.fdes[0].low_pc == 0x126C


def test_default_rule_is_same_value_and_restore_goes_back_to_the_cie():
    """USAGE CIE initial_instructions: "the default rule for all columns is same value"; DWARF5
    DW_CFA_restore_extended restores the CIE's rule (EXEC same_value in CIE A)."""
    _, _, row = _rows("frame_raw", 0x12b4)
    assert row.rule(2600).kind == "same_value" and row.rule(17).kind == "same_value"


def test_remember_restore_state():
    _, _, row = _rows("cfi_aspace", 0x131C)
    assert row.rule(65).kind == "offset" and row.rule(66).kind == "val_offset"  # restored by restore_state


def test_empty_fdes_of_real_compilers(corpus):
    """Every upstream FDE has zero instructions (reference: toolchain.md "Every FDE has zero instructions"),
    so the rows carry no rules: unwinding must fall back to the ABI."""
    for path in corpus[:6]:
        for sec in frame_sections(path):
            assert [c.augmentation for c in sec.cies.values()] == [""]
            for fde in sec.fdes:
                rows = compute_rows(sec, fde)
                assert len(rows) == 1 and not rows[0].rules and rows[0].cfa.register is None


def test_truncated_section_is_a_format_error(tmp_path):
    data = bytearray((HANDMADE / "frame_raw.co").read_bytes())
    sec = frame_sections(bytes(data))[0]
    data[sec.file_offset:sec.file_offset + 4] = (0x7FFF).to_bytes(4, "little")  # CIE length past the end
    bad = tmp_path / "bad.co"
    bad.write_bytes(bytes(data))
    with pytest.raises(FormatError) as info:
        frame_sections(bad)
    assert info.value.file == str(bad) and info.value.offset == sec.file_offset


def test_cli_dump_and_row(capsys):
    from amddbg.cli.main import main

    assert main(["dwarf", "cfi", str(HANDMADE / "cfi_aspace.co")]) == 0
    text = capsys.readouterr().out
    assert [line for line in text.splitlines() if line.strip()] == our_lines("cfi_aspace")[:-1]
    assert main(["dwarf", "cfi", str(HANDMADE / "cfi_aspace.co"), "--pc", "0x1400"]) == 0
    assert "CFA=DW_OP_lit0, DW_OP_lit6, DW_OP_LLVM_user DW_OP_LLVM_form_aspace_address: PC_REG=undefined" in (
        capsys.readouterr().out)


def test_cli_bad_file_is_one_line_error(tmp_path):
    bad = tmp_path / "x.co"
    bad.write_bytes(b"not an elf")
    r = subprocess.run([sys.executable, "-m", "amddbg", "dwarf", "cfi", str(bad)], capture_output=True, text=True,
                       cwd=ROOT)
    assert r.returncode == 2 and r.stderr.startswith("amddbg: error:") and "Traceback" not in r.stderr


def test_every_corpus_object_matches_llvm_dwarfdump(corpus):
    """The stored `llvm-dwarfdump-22 --debug-frame` output (`X.co.frame.txt`, REFERENCE_DUMPS in
    corefiles/build.py) of every compiler-built object equals our dump."""
    checked = 0
    for path in corpus:
        ref = Path(f"{path}.frame.txt")
        if not ref.exists():
            continue
        want, keep = [], False
        for line in ref.read_text().splitlines():
            if line.startswith((".debug_frame contents:", ".eh_frame contents:")):
                keep = True
            if keep and line.strip():
                want.append(line)
        got = []
        for sec in frame_sections(path):
            got.append(f"{sec.name} contents:")
            got += [line for line in dump_section(sec) if line.strip()]
        got += [".eh_frame contents:"] if ".eh_frame contents:" in want and ".eh_frame contents:" not in got else []
        assert got == want, path.name
        checked += 1
    assert checked >= 80
