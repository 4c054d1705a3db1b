"""Every corpus code object decoded by amddbg agrees with llvm-readelf-22 (stored reference dumps)."""

from __future__ import annotations

import pytest

from amddbg.codeobj import CodeObject
from amddbg.codeobj.notes import strip_dots
from tests.codeobj import readelf_ref
from tests.conftest import corpus_objects

OBJECTS = corpus_objects()

# llvm-readelf prints xnack/sramecc as "xnack" (any), "xnack-" (off), "xnack+" (on); nothing if unsupported.
_READELF_SETTING = {"any": "", "off": "-", "on": "+"}


@pytest.mark.parametrize("path", OBJECTS, ids=[p.name for p in OBJECTS])
def test_header_and_metadata_match_readelf(path):
    ref = readelf_ref.load(path.with_name(path.name + ".readelf.txt"))
    co = CodeObject.from_path(path)
    assert ref.os_abi == "AMDGPU - HSA" and co.target.os_abi == "amdhsa"
    assert co.code_object_version == ref.abi_version + 2
    assert co.reader.flags == ref.flags_value
    assert co.processor == ref.flags_names[0]
    expected_features = set(ref.flags_names[1:])
    ours = {f"{name}{_READELF_SETTING[s]}" for name, s in co.target.features.items() if s != "unsupported"}
    assert ours == expected_features
    # The metadata's own target string is the canonical target ID.
    assert co.target_id == ref.metadata["amdhsa.target"]
    ref_kernels = ref.metadata["amdhsa.kernels"]
    assert [k.name for k in co.kernel_metadata] == [k[".name"] for k in ref_kernels]
    for ours_k, ref_k in zip(co.kernel_metadata, ref_kernels, strict=True):
        assert ours_k.fields == strip_dots(ref_k)
    assert co.metadata["amdhsa.version"] == ref.metadata["amdhsa.version"]


@pytest.mark.parametrize("path", OBJECTS, ids=[p.name for p in OBJECTS])
def test_kernel_descriptors_agree_with_metadata(path):
    """Two independent encodings of the same facts: the .kd bytes and the msgpack note."""
    co = CodeObject.from_path(path)
    assert co.kernels
    for k in co.kernels:
        d = k.descriptor
        md = k.metadata
        assert d is not None and md is not None
        assert d.group_segment_fixed_size == md.group_segment_fixed_size
        assert d.private_segment_fixed_size == md.private_segment_fixed_size
        assert d.kernarg_size == md.kernarg_segment_size
        assert d.wavefront_size == md.wavefront_size
        assert bool(d.kernel_code_properties["uses_dynamic_stack"]) == md.uses_dynamic_stack
        # The descriptor's entry offset lands on the kernel's entry symbol.
        assert k.entry is not None and d.entry_address == k.entry.address
        assert co.symbol_at(d.entry_address).name == k.name
