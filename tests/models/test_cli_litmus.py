"""The `amddbg litmus` command: JSON Lines, human explanations, one-line errors."""

from __future__ import annotations

import json

from amddbg.cli.main import main

from .test_litmus_corpus import LITMUS


def test_json_lines(capsys) -> None:
    files = [str(LITMUS / "dat3m/Barrier/quorum1-hang.litmus"), str(LITMUS / "khronos/mp.test")]
    assert main(["litmus", "--json", *files]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert rows[0] == {"file": files[0], "name": "test1-hang", "condition_holds": False, "data_race": False,
                       "terminates": False}
    assert rows[1]["file"] == files[1] and rows[1]["data_race"] is False and rows[1]["condition_holds"]


def test_nochains_flag_changes_verdict(capsys) -> None:
    f = str(LITMUS / "khronos/mp3transitive.test")
    main(["litmus", "--json", f])
    main(["litmus", "--json", "--nochains", f])
    a, b = (json.loads(x) for x in capsys.readouterr().out.splitlines())
    assert a["data_race"] is False and b["data_race"] is True


def test_human_output_explains(capsys) -> None:
    main(["litmus", str(LITMUS / "dat3m/Barrier/quorum1-hang.litmus"), str(LITMUS / "dat3m/Manual/MP-no-avvis.litmus"),
          str(LITMUS / "khronos/privmp.test")])
    out = capsys.readouterr().out
    assert "never completes" in out and "1 arrival(s) missing" in out
    assert "reads 0 from the initial value" in out
    assert "data race" in out and "private" in out


def test_bad_input_one_line_error(tmp_path, capsys) -> None:
    p = tmp_path / "bad.litmus"
    p.write_text("VULKAN bad\n{ x=0; }\n P0@sg 0, wg 0, qf 0 ;\n ld.frob.sc0 r0, x ;\nexists (P0:r0 == 1)\n")
    assert main(["litmus", str(p)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith(f"amddbg: error: {p}: line 4: unsupported token 'frob'")
    q = tmp_path / "bad.test"
    q.write_text("NEWWG\nNEWSG\nNEWTHREAD\nst.frob.sc0 x = 1\n")
    assert main(["litmus", str(q)]) == 2
    assert "unsupported token 'frob'" in capsys.readouterr().err
    assert main(["litmus", str(tmp_path / "missing.litmus")]) == 2
