"""Offload bundles: the host objects clang builds (plain and zstd-compressed), and librocsparse when present."""

from __future__ import annotations

import collections
import hashlib
import shutil
import subprocess
import zlib
from pathlib import Path

import pytest

from amddbg.codeobj import CodeObject, embedded_code_objects, iter_bundle_entries
from amddbg.codeobj.bundle import BUNDLE_MAGIC
from amddbg.errors import FormatError
from tests.conftest import CORPUS, host_objects

ROCSPARSE = Path("/usr/lib/x86_64-linux-gnu/librocsparse.so.0.1")


@pytest.mark.parametrize("path", host_objects(), ids=lambda p: p.name)
def test_host_object_embeds_both_targets(path):
    objs = embedded_code_objects(path)
    ids = [o.bundle_entry_id for o in objs]
    assert ids[0].startswith("host-x86_64")
    devices = {o.code_object.processor: o for o in objs if o.code_object}
    assert set(devices) == {"gfx90a", "gfx1100"}
    # The device-only build of the same source (corpus) has the same kernels as the embedded one.
    for proc, wave in (("gfx90a", 64), ("gfx1100", 32)):
        co = devices[proc].code_object
        names = sorted(k.name for k in co.kernels)
        ref = CodeObject.from_path(CORPUS / f"llvm22-{proc}-w{wave}-O2-hip.co")
        assert names == sorted(k.name for k in ref.kernels)
        assert all(k.descriptor.wavefront_size == wave for k in co.kernels)


def test_plain_entries_are_byte_ranges_of_the_file():
    path = next(p for p in host_objects() if "compressed" not in p.name)
    data = path.read_bytes()
    for o in embedded_code_objects(path):
        if o.code_object:
            assert data[o.container_offset : o.container_offset + o.size][:4] == b"\x7fELF"
            assert o.compressed_bundle_offset is None


def test_compressed_and_plain_bundles_hold_identical_code_objects():
    plain, compressed = sorted(host_objects(), key=lambda p: "compressed" in p.name)
    a = {o.bundle_entry_id: bytes(o.code_object.data) for o in embedded_code_objects(plain) if o.code_object}
    b = {o.bundle_entry_id: bytes(o.code_object.data) for o in embedded_code_objects(compressed) if o.code_object}
    assert a == b and len(a) == 2
    assert all(o.compressed_bundle_offset is not None for o in embedded_code_objects(compressed))


def _bundle(entries: list[tuple[str, bytes]]) -> bytes:
    """A bundle in clang-offload-bundler's layout (used to test concatenation and the zlib path)."""
    header = bytearray(BUNDLE_MAGIC + len(entries).to_bytes(8, "little"))
    table_size = sum(24 + len(t) for t, _ in entries)
    offset = len(header) + table_size
    body = b""
    for triple, data in entries:
        header += offset.to_bytes(8, "little") + len(data).to_bytes(8, "little")
        header += len(triple).to_bytes(8, "little") + triple.encode()
        offset += len(data)
        body += data
    return bytes(header) + body


def test_concatenated_bundles_with_padding_and_zlib():
    co = (CORPUS / "llvm22-gfx942-w64-O2-cl.co").read_bytes()
    one = _bundle([("host-x86_64-unknown-linux-gnu", b""), ("hipv4-amdgcn-amd-amdhsa--gfx942", co)])
    padded = one + b"\0" * (-len(one) % 4096)
    inner = _bundle([("hipv4-amdgcn-amd-amdhsa--gfx942", co)])
    packed = zlib.compress(inner)
    ccob = (b"CCOB" + (2).to_bytes(2, "little") + (0).to_bytes(2, "little")
            + (24 + len(packed)).to_bytes(4, "little") + len(inner).to_bytes(4, "little") + b"\0" * 8 + packed)
    entries = list(iter_bundle_entries(padded + padded + ccob))
    assert [e.bundle_index for e in entries] == [0, 0, 1, 1, 2]
    assert [e.compressed for e in entries] == [False, False, False, False, True]
    assert all(bytes(e.data) == co for e in entries if e.size)


def test_truncated_bundle_is_a_format_error():
    co = (CORPUS / "llvm22-gfx942-w64-O2-cl.co").read_bytes()
    data = _bundle([("hipv4-amdgcn-amd-amdhsa--gfx942", co)])
    for cut in (10, 30, 60, len(data) - 5):
        with pytest.raises(FormatError):
            list(iter_bundle_entries(data[:cut]))


@pytest.mark.skipif(shutil.which("clang-offload-bundler-22") is None,
                    reason="clang-offload-bundler-22 not installed (apt-get install clang-22)")
def test_unbundled_by_clang_equals_ours(tmp_path):
    path = next(p for p in host_objects() if "compressed" not in p.name)
    fatbin = tmp_path / "fatbin"
    subprocess.run(["llvm-objcopy-22", f"--dump-section=.hip_fatbin={fatbin}", str(path), str(tmp_path / "x")],
                   check=True)
    ours = {o.bundle_entry_id: o for o in embedded_code_objects(path) if o.code_object}
    for entry_id, o in ours.items():
        out = tmp_path / "u.co"
        subprocess.run(["clang-offload-bundler-22", "--type=o", "--unbundle", f"--input={fatbin}",
                        f"--targets={entry_id}", f"--output={out}"], check=True)
        assert hashlib.sha256(out.read_bytes()).digest() == hashlib.sha256(bytes(o.code_object.data)).digest()


@pytest.mark.skipif(not ROCSPARSE.exists(), reason="librocsparse0 not installed (apt-get install librocsparse0)")
def test_librocsparse_has_111_bundles_of_7_targets():
    objs = embedded_code_objects(ROCSPARSE)
    assert len({o.bundle_index for o in objs}) == 111
    targets = collections.Counter(o.code_object.target_id for o in objs if o.code_object)
    assert len(targets) == 7 and set(targets.values()) == {111}
    assert "amdgcn-amd-amdhsa--gfx90a:xnack+" in targets and "amdgcn-amd-amdhsa--gfx803" in targets
    assert all(o.code_object.code_object_version == 4 for o in objs if o.code_object)
