"""Code object V2 notes (owner "AMD"): identified by name; the ISA version note gives the processor."""

import struct

from amddbg.codeobj.notes import decode_isa_version, note_type_name
from amddbg.codeobj.processors import by_gfx_version
from amddbg.codeobj.target import decode_target


def test_v2_note_names():
    assert note_type_name("AMD", 1) == "NT_AMD_HSA_CODE_OBJECT_VERSION"
    assert note_type_name("AMD", 3) == "NT_AMD_HSA_ISA_VERSION"
    assert note_type_name("AMD", 10) == "NT_AMD_HSA_METADATA"
    assert note_type_name("AMD", 11) == "NT_AMD_HSA_ISA_NAME"
    assert note_type_name("AMDGPU", 32) == "NT_AMDGPU_METADATA"
    assert note_type_name("AMDGPU", 99).startswith("unknown")


def test_v2_isa_version_note_and_target():
    desc = struct.pack("<HHIII", 4, 7, 8, 0, 3) + b"AMD\0AMDGPU\0"
    isa = decode_isa_version(desc, file="x", offset=0)
    assert (isa.vendor, isa.architecture, isa.major, isa.minor, isa.stepping) == ("AMD", "AMDGPU", 8, 0, 3)
    proc = by_gfx_version(isa.major, isa.minor, isa.stepping)
    t = decode_target(64, 0, 0x2, v2_processor=proc)  # EF_AMDGPU_FEATURE_TRAP_HANDLER_V2
    assert t.code_object_version == 2 and t.processor_name == "gfx803" and t.trap_handler
    assert t.target_id == "amdgcn-amd-amdhsa--gfx803"
    t = decode_target(64, 0, 0x1, v2_processor=by_gfx_version(9, 0, 0))
    assert t.xnack == "on" and t.target_id == "amdgcn-amd-amdhsa--gfx900:xnack+"
