"""GFX10.3 / GFX11 / GFX12 / GFX12.5 decoder: corpus accuracy against stored llvm-objdump-22 output,
structured flags, and never-raise behaviour on bad bytes."""

from __future__ import annotations

import shutil
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest

from amddbg.isa import decoder_for
from amddbg.isa.gfx10 import Decoder
from amddbg.isa.gfx10.accuracy import compare
from amddbg.isa.model import MemorySpace

ROOT = Path(__file__).resolve().parents[2]
CO = ROOT / "corefiles" / "co"
FAMILY = sorted(p for p in CO.glob("*.co") if any(f"-gfx{g}" in p.name for g in ("1030", "1100", "12")))


def _w(*words: int) -> bytes:
    return b"".join(w.to_bytes(4, "little") for w in words)


@pytest.fixture(scope="module")
def accuracy() -> dict[str, list[int]]:
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for p in FAMILY:
        if not Path(str(p) + ".objdump.txt").exists():
            continue
        proc, ok, total, _bad = compare(p)
        wave = "w64" if "-w64-" in p.name else "w32"
        for key in (proc, f"{proc}-{wave}"):
            per[key][0] += ok
            per[key][1] += total
    return per


@pytest.mark.parametrize("key", ["gfx1030-w32", "gfx1030-w64", "gfx1100-w32", "gfx1100-w64", "gfx1200-w32",
                                 "gfx1200-w64", "gfx1201-w32", "gfx1250-w32"])
def test_corpus_accuracy(accuracy, key):
    if key not in accuracy:
        pytest.skip(f"no corpus objects for {key}")
    ok, total = accuracy[key]
    assert total > 1000
    assert ok / total >= 0.995, f"{key}: {ok}/{total}"


def test_family_dispatch():
    assert isinstance(decoder_for("gfx1100"), Decoder)
    assert decoder_for("gfx1250").gen == "gfx1250"
    assert decoder_for("gfx11-generic").gen == "gfx11"
    assert decoder_for("gfx1036").gen == "gfx10"


def test_branch_target_and_flags():
    d = Decoder("gfx1100")
    # s_cbranch_execz 18 at 0x2014 -> 0x2014 + 4 + 18*4
    ins = d.decode(_w(0xBFA50012), 0, 0x2014)
    assert ins.text == "s_cbranch_execz 18"
    assert ins.is_branch and ins.is_conditional and ins.branch_target == 0x2060
    back = d.decode(_w(0xBFA6FFF2), 0, 0x2058)
    assert back.branch_target == 0x2058 + 4 - 14 * 4
    call = d.decode(_w(0xBE9E4900), 0, 0)
    assert call.text == "s_swappc_b64 s[30:31], s[0:1]" and call.is_call
    ret = d.decode(_w(0xBE80481E), 0, 0)
    assert ret.is_return and ret.is_branch


def test_waitcnt_fields_per_generation():
    w = Decoder("gfx1100").decode(_w(0xBF89FC07), 0, 0)
    assert w.text == "s_waitcnt lgkmcnt(0)"
    assert w.is_waitcnt and w.waitcnt == {"vmcnt": 63, "expcnt": 7, "lgkmcnt": 0}
    g10 = Decoder("gfx1030").decode(_w(0xBF8C3F70), 0, 0)
    assert g10.text == "s_waitcnt vmcnt(0)" and g10.waitcnt["vmcnt"] == 0
    vs = Decoder("gfx1030").decode(_w(0xBBFD0000), 0, 0)
    assert vs.text == "s_waitcnt_vscnt null, 0x0" and vs.waitcnt == {"vscnt": 0}


def test_memory_info_and_exec():
    d = Decoder("gfx1100")
    st = d.decode(_w(0xDC680000, 0x007C0501), 0, 0)
    assert st.text == "flat_store_b32 v[1:2], v5"
    assert st.memory.space is MemorySpace.FLAT and st.memory.is_store and not st.memory.is_load
    assert st.reads_exec
    sv = d.decode(_w(0xBE8024C1), 0, 0)
    assert sv.text == "s_xor_saveexec_b32 s0, -1" and sv.writes_exec
    mov = d.decode(_w(0xBEFE0000), 0, 0)
    assert mov.text == "s_mov_b32 exec_lo, s0" and mov.writes_exec


def test_literals_and_vopd():
    d = Decoder("gfx1100")
    a = d.decode(_w(0x8201FF01, 0xFFFFFFFF), 0, 0)
    assert a.text == "s_addc_u32 s1, s1, lit(0xffffffff)" and a.size == 8
    b = d.decode(_w(0x8000FF00, 0xFFFFFFC4), 0, 0)
    assert b.text == "s_add_u32 s0, s0, 0xffffffc4"
    v = d.decode(_w(0xCA100080, 0x00040104), 0, 0)
    assert v.text == "v_dual_mov_b32 v0, 0 :: v_dual_mov_b32 v5, v4"


def test_unknown_and_truncated_never_raise():
    for proc in ("gfx1030", "gfx1100", "gfx1200", "gfx1250"):
        d = Decoder(proc)
        t = d.decode(b"\x01\x02", 0, 0x100)
        assert t.text.startswith(".long") and t.unknown_reason and t.size == 2
        # a VOP3 first dword at the very end of the section
        e = d.decode(_w(0xD7000001), 0, 0)
        assert e.is_unknown and e.size == 4
        # s_mov_b32 s0, <literal> with the literal missing
        m = d.decode(_w(0xBE8000FF), 0, 0)
        assert m.is_unknown
        import random

        rnd = random.Random(1234)
        blob = bytes(rnd.randrange(256) for _ in range(4096))
        out = d.decode_all(blob, 0)
        assert sum(i.size for i in out) == len(blob)
        assert all(i.text for i in out)


@pytest.mark.skipif(shutil.which("llvm-mc-22") is None, reason="llvm-mc-22 not installed")
def test_against_llvm_mc_roundtrip(tmp_path):
    """Assemble a handful of instructions with llvm-mc and check our text matches its disassembly."""
    src = "\n".join([
        "v_fma_f32 v5, -v1, |v2|, s3 clamp",
        "v_pk_fma_f16 v5, v1, v2, v3 op_sel:[1,0,0] neg_lo:[0,1,0]",
        "global_load_b32 v5, v[2:3], off offset:-16 glc slc dlc",
        "ds_load_b32 v5, v2 offset:16",
        "buffer_load_b32 v5, v2, s[8:11], s3 offen offset:16",
        "v_mov_b32_dpp v1, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf",
        "s_delay_alu instid0(VALU_DEP_1) | instskip(NEXT) | instid1(VALU_DEP_1)",
    ])
    out = subprocess.run(["llvm-mc-22", "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx1100", "-show-encoding"],
                         input=src, capture_output=True, text=True, check=True).stdout
    d = Decoder("gfx1100")
    n = 0
    for line in out.splitlines():
        if "encoding:" not in line:
            continue
        text, enc = line.split(";", 1)
        raw = bytes(int(x, 16) for x in enc.split("[")[1].rstrip("]").split(","))
        ins = d.decode(raw, 0, 0)
        assert " ".join(ins.text.split()) == " ".join(text.split()), raw.hex()
        n += 1
    assert n == 7


def test_gfx1250_vopd3_and_64bit_literal():
    d = Decoder("gfx1250")
    v = d.decode(_w(0xCF410084, 0x00010105, 0x05000001), 0, 0)
    assert v.text == "v_dual_add_nc_u32 v1, 4, v1 :: v_dual_add_nc_u32 v5, v5, v0" and v.size == 12
    b = d.decode(_w(0xCF4120C2, 0x00080002, 0x09140B08), 0, 0)
    assert b.text == "v_dual_add_nc_u32 v8, -2, v8 :: v_dual_bitop2_b32 v9, s2, v11 bitop3:0x14"
    lit = d.decode(_w(0xA980FE00, 0xFFFFFD68, 0xFFFFFFFF), 0, 0)
    assert lit.text == "s_add_nc_u64 s[0:1], s[0:1], 0xfffffffffffffd68" and lit.size == 12


def test_memory_offsets_are_operands():
    d = Decoder("gfx1100")
    g = d.decode(_w(0xDC521FF0, 0x057C0002), 0, 0)
    assert g.text == "global_load_b32 v5, v[2:3], off offset:-16"
    offs = [o for o in g.operands if o.kind.value == "offset"]
    assert offs and offs[0].value == -16
    assert g.memory.is_load and g.memory.space is MemorySpace.GLOBAL


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("llvm-objdump-22") is None or shutil.which("llvm-mc-22") is None,
                    reason="llvm-mc-22 / llvm-objdump-22 not installed")
def test_random_encodings_against_llvm(monkeypatch):
    """Random field values for known opcodes, compared with llvm-objdump (bounded by AMDDBG_SLOW_LIMIT)."""
    import random

    from amddbg.isa.gfx10 import _fuzz
    from amddbg.isa.gfx10._gen import encode
    from amddbg.isa.gfx10._probe import probe
    from amddbg.isa.gfx10.decoder import load_tables
    from amddbg.isa.gfx10.encodings import PROBE_CPU
    from tests import bounded

    n = bounded.count(20)  # examples per encoding: a fuzzer has no "everything", so 0 keeps 20
    rnd = random.Random(7)
    for gen in ("gfx10", "gfx11", "gfx12"):
        t = load_tables(gen)
        probes = []
        for enc in ("SOP1", "SOP2", "SOPC", "VOP1", "VOP2", "VOPC", "VOP3", "DS"):
            size = 4 if enc.startswith("SOP") or enc in ("VOP1", "VOP2", "VOPC") else 8
            for _ in range(n):
                vals = _fuzz.gen_values(rnd, gen, enc, int(rnd.choice(list(t[enc]))))
                raw = bytearray(encode(gen, enc, vals, size))
                raw[size:] = rnd.randbytes(len(raw) - size)
                probes.append(bytes(raw))
        d = Decoder(PROBE_CPU[gen])
        ok = total = 0
        for raw, (want, size) in zip(probes, probe(PROBE_CPU[gen], probes), strict=True):
            if want is None or "/*" in want:
                continue
            total += 1
            ins = d.decode(raw, 0, 0)
            ok += " ".join(ins.text.split()) == want and ins.size == size
        assert total and ok / total >= 0.9, (gen, ok, total)


def test_mtbuf_and_gfx115_tables():
    # encodings and texts from `llvm-mc-22 -show-encoding` (tbuffer_load_format_x ...)
    t10 = Decoder("gfx1030").decode(_w(0xE8B0E010, 0x03410102), 0, 0)
    assert t10.text == "tbuffer_load_format_x v1, v2, s[4:7], s3 format:[BUF_FMT_32_FLOAT] idxen offset:16 glc slc dlc"
    assert t10.memory.space is MemorySpace.BUFFER and t10.memory.is_load
    t11 = Decoder("gfx1100").decode(_w(0xE8778004, 0x03010100), 0, 0)
    assert t11.text == "tbuffer_store_d16_format_xyzw v[1:2], off, s[4:7], s3 format:[BUF_FMT_8_8_UNORM] offset:4"
    d115 = Decoder("gfx1151")
    assert d115.tname == "gfx115" and d115.gen == "gfx11"
    # GFX11.5 has SALU float ops that GFX11.0 lacks: s_cvt_f32_u32 s2, s3
    assert d115.decode(_w(0xBE826503), 0, 0).text == "s_cvt_f32_u32 s2, s3"
    assert Decoder("gfx1100").decode(_w(0xBE826503), 0, 0).is_unknown


def test_unsupported_encoding_reason():
    img = Decoder("gfx1100").decode(_w(0xF0000000, 0), 0, 0)
    assert img.is_unknown and "MIMG" in img.unknown_reason and img.text == ".long 0xf0000000"


@pytest.mark.parametrize("words,text", [
    # llvm-objdump-22 on clang-22 -O3 gfx1250 code (held-out kernels, not in the corpus)
    ((0x48080902, 0x00000000, 0x3FD00000), "v_fmaak_f64 v[4:5], v[2:3], v[4:5], 0x3fd00000"),
    ((0x48080902, 0x55555555, 0x3FD55555), "v_fmaak_f64 v[4:5], v[2:3], v[4:5], 0x3fd5555555555555"),
    ((0xCF213005, 0x0000110C, 0x140B0D08), "v_dual_mov_b32 v8, s5 :: v_dual_fma_f32 v20, -v12, v13, v11"),
    ((0xCF4D6102, 0x0603089F, 0x02000129), "v_dual_fma_f32 v41, v2, v3, -v6 :: v_dual_ashrrev_i32 v2, 31, v1"),
    # llvm-mc-22 -show-encoding
    ((0xCF103102, 0x0003230C, 0x14000D29), "v_dual_add_f32 v41, -v2, v3 :: v_dual_mul_f32 v20, v12, -v13"),
])
def test_gfx1250_fp64_literals_and_vopd3_negation(words, text):
    data = b"".join(w.to_bytes(4, "little") for w in words)
    assert decoder_for("gfx1250").decode(data, 0, 0).text == text
