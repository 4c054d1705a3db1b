"""The EF_AMDGPU_MACH table against LLVM's own (ELF.h when installed; llvm-readelf on patched headers)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from amddbg.codeobj import CodeObject
from amddbg.codeobj.processors import BY_MACH, BY_NAME, PROCESSORS
from amddbg.codeobj.target import decode_target
from tests.conftest import CORPUS

ELF_H = Path("/usr/lib/llvm-22/include/llvm/BinaryFormat/ELF.h")


def test_table_is_consistent():
    assert len(BY_MACH) == len(PROCESSORS) == len(BY_NAME)
    assert BY_NAME["gfx90a"].mach == 0x3F and BY_NAME["gfx1250"].mach == 0x49
    assert BY_NAME["gfx90a"].gfx_version == (9, 0, 10)
    assert BY_NAME["gfx1100"].gfx_version == (11, 0, 0)


@pytest.mark.skipif(not ELF_H.exists(), reason="LLVM 22 headers not installed (apt-get install llvm-22-dev)")
def test_every_llvm22_amdgcn_mach_is_known():
    text = ELF_H.read_text()
    pairs = re.findall(r"EF_AMDGPU_MACH_AMDGCN_(GFX\w+?)\s*=\s*(0x[0-9a-fA-F]+)", text)
    assert len(pairs) > 50
    for name, value in pairs:
        proc = BY_MACH.get(int(value, 16))
        expected = "gfx" + name[3:].lower().replace("_generic", "-generic").replace("_", "-")
        assert proc is not None and proc.name == expected, (name, value)


@pytest.mark.skipif(shutil.which("llvm-readelf-22") is None, reason="llvm-readelf-22 not installed")
def test_readelf_names_every_mach_and_feature_setting_like_us(tmp_path):
    base = bytearray((CORPUS / "llvm22-gfx942-w64-O2-cl.co").read_bytes())
    for proc in PROCESSORS:
        if proc.family == "R600" or proc.name in ("gfx940", "gfx941"):  # LLVM 22 dropped these two
            continue
        for xnack in (0, 1, 2, 3):
            flags = proc.mach | (xnack << 8) | (3 << 10) | ((2 << 24) if proc.generic else 0)
            base[48:52] = flags.to_bytes(4, "little")
            path = tmp_path / "h.co"
            path.write_bytes(bytes(base))
            out = subprocess.run(["llvm-readelf-22", "-h", str(path)], capture_output=True, text=True).stdout
            names = [n.strip() for n in re.search(r"Flags:\s+0x[0-9a-f]+(.*)", out).group(1).split(",") if n.strip()]
            t = decode_target(64, 4, flags)
            assert names[0] == proc.name
            setting = {"any": "xnack", "off": "xnack-", "on": "xnack+"}.get(t.xnack)
            assert (setting in names) if setting else not any(n.startswith("xnack") for n in names)
            assert "sramecc+" in names
            if proc.generic:
                assert t.generic_version == 2


def test_v3_and_v4_feature_encodings():
    t3 = decode_target(64, 1, 0x3F | 0x100)  # V3: xnack bit on, sramecc bit off
    assert t3.code_object_version == 3 and t3.xnack == "on" and t3.sramecc == "off"
    assert t3.target_id == "amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+"
    t4 = decode_target(64, 2, 0x3F | 0x300 | 0x800)
    assert t4.target_id == "amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+"
    t6 = decode_target(64, 4, 0x51 | (1 << 24))
    assert t6.processor_name == "gfx9-generic" and t6.generic_version == 1
    assert decode_target(64, 4, 0x7E).processor_name == "<unknown mach 0x7e>"


def test_corpus_v6_generic_flags_roundtrip(tmp_path):
    co = CodeObject.from_path(CORPUS / "llvm22-gfx1100-w32-O2-cl.co")
    assert co.target.generic_version is None and co.code_object_version == 6
