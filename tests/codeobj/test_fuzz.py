"""Truncated and corrupted code objects and bundles: a clear one-line error (exit 2) or a correct
partial answer, never a traceback or an 'internal error', and the input file is never modified."""

from __future__ import annotations

import hashlib
import json
import os

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from amddbg.cli.main import main
from tests.conftest import CORPUS, host_objects

SEED = (CORPUS / "llvm22-gfx90a-w64-O2-cl.co").read_bytes()
HOST = next(p for p in host_objects() if "compressed" not in p.name).read_bytes()
MAX_EXAMPLES = int(os.environ.get("AMDDBG_FUZZ_EXAMPLES", "150"))


def _check(tmp_path, data: bytes, capsys, *extra: str) -> None:
    path = tmp_path / "input.bin"
    path.write_bytes(data)
    before = hashlib.sha256(data).hexdigest()
    for argv in (["info", "--json", str(path), *extra], ["info", str(path), *extra]):
        rc = main(argv)
        out, err = capsys.readouterr()
        assert rc in (0, 2), (rc, err)
        if rc == 2:
            lines = err.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("amddbg: error: "), err
            assert "internal error" not in err, err
            assert "Traceback" not in err
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


settings_ = settings(max_examples=MAX_EXAMPLES, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@settings_
@given(cut=st.integers(min_value=0, max_value=len(SEED)))
def test_truncated_code_object(tmp_path, capsys, cut):
    _check(tmp_path, SEED[:cut], capsys)


@settings_
@given(edits=st.lists(st.tuples(st.integers(0, len(SEED) - 1), st.integers(0, 255)), min_size=1, max_size=8),
       focus=st.sampled_from(["header", "anywhere", "tail"]))
@example(edits=[(565, 214)], focus="anywhere")  # (found by CI: a metadata map key decoded as a msgpack ExtType)
def test_corrupted_code_object(tmp_path, capsys, edits, focus):
    data = bytearray(SEED)
    for pos, value in edits:
        if focus == "header":
            pos %= 64
        elif focus == "tail":  # section headers, symbol and string tables sit at the end
            pos = len(data) - 1 - pos % 2048
        data[pos] = value
    _check(tmp_path, bytes(data), capsys)


@settings_
@given(cut=st.integers(min_value=0, max_value=len(HOST)),
       edits=st.lists(st.tuples(st.integers(0, len(HOST) - 1), st.integers(0, 255)), max_size=4))
def test_corrupted_host_bundle(tmp_path, capsys, cut, edits):
    data = bytearray(HOST)
    for pos, value in edits:
        data[pos] = value
    _check(tmp_path, bytes(data[:cut]), capsys)


def test_metadata_that_decodes_to_what_no_code_object_holds(tmp_path, capsys):
    """A corrupted byte in the metadata note that msgpack still decodes, to a map key no JSON can hold: the rest
    of the object is shown, the note's problem is said once with its offset, exit 2."""
    data = bytearray(SEED)
    data[565] = 214
    path = tmp_path / "input.bin"
    path.write_bytes(bytes(data))
    assert main(["info", "--json", str(path)]) == 2
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert doc["errors"] == [f"{path}: malformed msgpack in NT_AMDGPU_METADATA note (a map key of type ExtType) "
                             "at offset 0x200"]
    assert {f["name"] for f in doc["functions"]} >= {"probe", "reduce"}
    assert err.strip() == f"amddbg: error: partial result: {doc['errors'][0]}"
