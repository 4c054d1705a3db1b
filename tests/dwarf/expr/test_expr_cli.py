"""`amddbg dwarf expr`: decoding and printing both encodings from the command line."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT, handmade_oracle

from amddbg.cli.main import main


def test_expr_one_line_matches_llvm_dwarfdump(capsys, user_exprs):
    data = user_exprs["fork_vgpr_pair_deref"]
    assert main(["dwarf", "expr", "--one-line", data.hex()]) == 0
    assert capsys.readouterr().out.strip() == handmade_oracle("ops_user")["fork_vgpr_pair_deref"]


def test_expr_draft_encoding_by_flag_and_by_augmentation(capsys, draft_exprs):
    data = draft_exprs["select_bit_piece"].hex(" ")
    assert main(["dwarf", "expr", "--encoding", "amd-draft", "--style", "amddbg", data]) == 0
    by_flag = capsys.readouterr().out
    assert "# encoding: amd-draft" in by_flag and "DW_OP_LLVM_select_bit_piece 0x40 0x4" in by_flag
    assert "DW_OP_regx pc" in by_flag
    assert main(["dwarf", "expr", "--augmentation", "[llvm:v0.0]", "--style", "amddbg", data]) == 0
    assert capsys.readouterr().out == by_flag


def test_expr_listing_shows_offsets_and_bytes(capsys):
    assert main(["dwarf", "expr", "0x90", "0x80", "0x14", "e9,03"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].split()[:4] == ["0x0000", "90", "80", "14"] and out[1].endswith("DW_OP_regx VGPR0")
    assert out[2].endswith("DW_OP_LLVM_user DW_OP_LLVM_push_lane")


def test_bad_expression_is_a_one_line_error():
    for args in (["e9", "0e"], ["zz"], ["92"]):
        r = subprocess.run([sys.executable, "-m", "amddbg", "dwarf", "expr", *args], capture_output=True,
                           text=True, cwd=ROOT)
        assert r.returncode == 2 and r.stderr.startswith("amddbg: error:") and "Traceback" not in r.stderr
