"""Format details: ELF header as ROCr writes it, holes and p_filesz < p_memsz, note entry sizes, KFD
exception names, gfx target names, code object URIs, coremerge, and the info CLI."""

from __future__ import annotations

import io
import json
import struct
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from core_scenarios import build

from amddbg.amdgpu import AddressSpace
from amddbg.cli.main import main
from amddbg.core import open_core
from amddbg.core.elffile import EM_AMDGPU, EM_X86_64, ElfCore
from amddbg.core.kfd import exception_names, gfx_target_version, processor_name
from amddbg.core.merge import merge_cores
from amddbg.core.rdebug import encode_file_uri, parse_uri
from amddbg.core.writer import CoreBuilder, HostImage
from amddbg.errors import FormatError, Unavailable, UsageError

ROOT = Path(__file__).resolve().parents[2]
CO = ROOT / "corefiles" / "co" / "llvm22-gfx90a-w64-O2-hip.co"


def test_split_header_is_rocr_style(tmp_path):
    p = tmp_path / "g.gpu"
    build("gfx90a", groups=1).builder.write_split(str(p))
    raw = p.read_bytes()
    assert raw[:4] == b"\x7fELF" and raw[4] == 2 and raw[5] == 1 and raw[7] == 0x40 and raw[8] == 0
    e_type, e_machine = struct.unpack_from("<HH", raw, 16)
    assert (e_type, e_machine) == (4, EM_AMDGPU)
    assert struct.unpack_from("<I", raw, 48)[0] == 0  # e_flags
    f = ElfCore(p)
    assert f.phdrs[0].p_type == 4 and f.phdrs[0].p_align == 2  # NOTE first, log2 alignment
    loads = f.phdrs[1:]
    assert all(ph.p_type == 1 and ph.p_align == 4 and ph.p_offset % 16 == 0 for ph in loads)
    assert all(ph.p_flags == 3 for ph in loads)  # SHF_ALLOC | SHF_WRITE
    [note] = [n for n in f.notes if n.type == 33]
    assert note.name == "AMDGPU" and struct.unpack_from("<Q", note.desc, 0)[0] == 1


def test_unified_header_is_host(tmp_path):
    p = tmp_path / "u.core"
    build("gfx1100", groups=1).builder.write_unified(str(p))
    f = ElfCore(p)
    assert f.e_machine == EM_X86_64 and f.osabi == 0
    assert [n.type for n in f.notes][-1] == 33 and open_core(p).layout == "unified"


def test_holes_and_short_segments_are_unavailable(tmp_path):
    b = CoreBuilder(arch="gfx90a")
    b.add_memory(0x10000, b"A" * 100)
    b.add_memory(0x10064, b"B" * 28)  # adjacent: reads may span both
    b.add_unavailable(0x20000, 0x1000)  # p_filesz 0
    p = tmp_path / "h.gpu"
    b.write_split(str(p))
    core = open_core(p)
    assert core.memory.read(AddressSpace.GLOBAL, 0x10060, 8) == b"AAAABBBB"
    with pytest.raises(Unavailable, match="not in any segment"):
        core.memory.read(AddressSpace.GLOBAL, 0x10080, 4)
    with pytest.raises(Unavailable, match="no data"):
        core.memory.read(AddressSpace.GLOBAL, 0x20010, 4)
    with pytest.raises(Unavailable):
        core.memory.read(AddressSpace.GLOBAL, 0x5000, 4)
    # truncate inside the first data segment: its bytes are unavailable, not zeros
    seg = next(s for s in core._segments.segments if s.vaddr == 0x10000)
    cut = tmp_path / "cut.gpu"
    cut.write_bytes(p.read_bytes()[: seg.offset + 50])
    core2 = open_core(cut)
    assert core2.memory.read(AddressSpace.GLOBAL, 0x10000, 50) == b"A" * 50
    with pytest.raises(Unavailable, match="truncated"):
        core2.memory.read(AddressSpace.GLOBAL, 0x10030, 4)


def test_generic_addresses_use_apertures(tmp_path):
    sc = build("gfx90a", groups=1)
    p = tmp_path / "g.gpu"
    sc.builder.write_split(str(p))
    core = open_core(p)
    w = next(w for w in core.waves if w.lds)
    assert w.memory.read(AddressSpace.GENERIC, (1 << 48) + 3, 2) == w.lds[3:5]


@pytest.mark.parametrize("agent_size,queue_size,runtime_size", [(120, 64, 16), (128, 72, 24), (112, 56, 16)])
def test_note_entry_sizes_from_the_note(tmp_path, agent_size, queue_size, runtime_size):
    """Newer (longer) and older (shorter) entries load; short entries read as zero-filled."""
    b = CoreBuilder(
        arch="gfx1100", agent_entry_size=agent_size, queue_entry_size=queue_size, runtime_info_size=runtime_size
    )
    b.add_agent(gpu_id=77)  # debug_prop (offset 116) is 0 anyway: the 112-byte entry drops it
    q = b.add_queue()
    d = b.add_dispatch(q, entry=0x9000)
    b.add_wave(d, pc=0x9010, vgprs=[5] * 8)
    p = tmp_path / "s.gpu"
    b.write_split(str(p))
    core = open_core(p)
    assert core.kfd.entry_sizes == {"runtime_info": runtime_size, "agent": agent_size, "queue": queue_size}
    assert core.agents[0].gpu_id == 77 and core.agents[0].processor == "gfx1100"
    if queue_size >= 64:
        assert core.waves[0].pc == 0x9010
    else:  # an older 56-byte queue entry has no ctx_save_restore_area_size (zero-filled): XCC 0 still decodes
        assert core.queues[0].ctx_save_restore_area_size == 0


def test_kfd_names():
    assert exception_names((1 << 1) | (1 << 32) | (1 << 47)) == [
        "EC_QUEUE_WAVE_TRAP",
        "EC_DEVICE_MEMORY_VIOLATION",
        "EC_PROCESS_RUNTIME",
    ]
    assert processor_name(90402) == "gfx942" and processor_name(90010) == "gfx90a"
    assert processor_name(110000) == "gfx1100" and gfx_target_version("gfx1201") == 120001


def test_uris():
    u = parse_uri("memory://1619652#offset=0x55556dcea250&size=37696")
    assert (u.scheme, u.pid, u.offset, u.size) == ("memory", 1619652, 0x55556DCEA250, 37696)
    u = parse_uri("file:///dir3/dir4/file2#offset=0x2000&size=3000")
    assert (u.path, u.offset, u.size) == ("/dir3/dir4/file2", 0x2000, 3000)
    u = parse_uri("file:///a/libtorch_hip.so#offset=406429696&size=242208")
    assert u.offset == 406429696
    assert parse_uri(encode_file_uri("/a b/c%d.co")).path == "/a b/c%d.co"
    assert encode_file_uri("/a b/c.co") == "file:///a%20b/c.co"
    with pytest.raises(FormatError):
        parse_uri("memory://12")
    with pytest.raises(FormatError):
        parse_uri("http://x")


def test_file_uri_resolution(tmp_path):
    data = CO.read_bytes()
    b = CoreBuilder(arch="gfx90a")
    b.add_code_object(data, uri=encode_file_uri("/opt/rocm/lib/" + CO.name), load_address=0x7000_0000_0000)
    b.add_code_object(data, uri=encode_file_uri("/nowhere/x.co", offset=16, size=100), load=False)
    p = tmp_path / "f.gpu"
    b.write_split(str(p))
    core = open_core(p, solib_search_path=str(CO.parent))
    assert core.code_objects[0].data == data
    assert core.code_objects[0].codeobj.processor == "gfx90a"
    with pytest.raises(Unavailable):
        core.code_objects[1].data  # noqa: B018
    # relative to the core: a copy next to it is found (the object sits at offset 16 of the file)
    (tmp_path / "x.co").write_bytes(bytes(16) + data)
    assert open_core(p).code_objects[1].data == data[:100]
    # sysroot
    (tmp_path / "root" / "opt" / "rocm" / "lib").mkdir(parents=True)
    (tmp_path / "root" / "opt" / "rocm" / "lib" / CO.name).write_bytes(data)
    assert open_core(p, sysroot=str(tmp_path / "root")).code_objects[0].data == data


def test_coremerge(tmp_path):
    sc = build("gfx942", groups=2, num_xcc=2, code_object=CO.read_bytes())
    g, h, u = tmp_path / "g.gpu", tmp_path / "h.core", tmp_path / "u.core"
    sc.builder.write_split(str(g), host_path=str(h), host=HostImage(threads=[(99, {"rip": 0x1234}, 11)]))
    # the host core alone is not a GPU core; the pair and the merged core agree
    with pytest.raises(FormatError, match="NT_AMDGPU_KFD_CORE_STATE"):
        open_core(h)
    pair = open_core([h, g])
    assert main(["coremerge", str(h), str(g), "-o", str(u)]) == 0
    merged = open_core(u)
    assert merged.layout == "unified" and pair.layout == "split"
    assert ElfCore(u).e_machine == EM_X86_64
    # every GPU segment of the host core was an empty stand-in: the merged core has the data
    assert all(ph.p_filesz == 0 for ph in ElfCore(h).phdrs if ph.p_type == 1 and ph.p_vaddr >= 0x7FEE_0000_0000)
    key = [(w.queue_id, w.dispatch_id, w.workgroup, w.wave_in_group, w.pc, w.sgprs, w.vgprs) for w in pair.waves]
    assert [
        (w.queue_id, w.dispatch_id, w.workgroup, w.wave_in_group, w.pc, w.sgprs, w.vgprs) for w in merged.waves
    ] == key
    assert merged.host.threads[0].tid == 99 and merged.code_objects[0].data == CO.read_bytes()
    with pytest.raises(UsageError):
        merge_cores(str(h), str(g), str(u))


def test_info_json_schema(tmp_path):
    sc = build("gfx90a", groups=1, code_object=CO.read_bytes())
    p = tmp_path / "g.gpu"
    sc.builder.write_split(str(p))
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["info", "--json", "--registers", str(p)]) == 0
    doc = json.loads(out.getvalue())
    assert doc["layout"] == "split" and doc["kfd_version"] == [1, 15]
    assert set(doc["agents"][0]) >= {"gpu_id", "target", "num_xcc", "exception_status"}
    assert doc["agents"][0]["target"] == "gfx90a"
    assert set(doc["queues"][0]) >= {"queue_id", "gpu_id", "ring_base_address", "ring_size", "ctx_save_restore_address"}
    assert doc["code_objects"][0]["uri"].startswith("memory://")
    w = doc["waves"][0]
    assert set(w) >= {
        "gpu_id",
        "queue_id",
        "dispatch_id",
        "workgroup",
        "wave_in_group",
        "pc",
        "exec",
        "status",
        "trapsts",
        "stop_reason",
        "sgprs",
        "vgprs",
    }
    e = sc.waves[0]
    assert w["sgprs"][: len(e.sgprs)] == e.sgprs and w["vgprs"] == e.vgprs and w["pc"] == e.pc
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["info", str(p)]) == 0
    assert "gfx90a" in out.getvalue() and "Waves" in out.getvalue()


def test_released_vgprs_are_unavailable(tmp_path):
    """gfx11+: after s_sendmsg dealloc_vgprs (STATUS.no_vgprs) the VGPRs are not reported."""
    b = CoreBuilder(arch="gfx1100")
    d = b.add_dispatch(entry=0x9000)
    b.add_wave(d, pc=0x9000, status=1 << 24, vgprs=[1] * 8, sgprs=[7])
    p = tmp_path / "v.gpu"
    b.write_split(str(p))
    [w] = open_core(p).waves
    assert w.sgprs[0] == 7
    with pytest.raises(Unavailable, match="released"):
        w.vgprs  # noqa: B018


def test_parked_pc_and_unset_ttmps(tmp_path):
    """A stopped gfx90a wave is parked: hwreg PC is the park address, the reported PC the saved one.
    A wave whose SPI TTMPs are not set up has no workgroup, position or dispatch."""
    b = CoreBuilder(arch="gfx90a", park_address=0x7FEF_0000_0100)
    d = b.add_dispatch(entry=0x7000_0000_9000)
    b.add_wave(d, pc=0x7000_0000_9010, trap_id=1)
    b.add_wave(d, pc=0x7000_0000_9020, workgroup=(1, 0, 0), stopped=False, ttmps_valid=False)
    p = tmp_path / "p.gpu"
    b.write_split(str(p))
    w0, w1 = open_core(p).waves
    assert w0.parked and w0.hw_pc == 0x7FEF_0000_0100 and w0.pc == 0x7000_0000_9010
    assert w0.stop_reason == ["breakpoint"] and w0.dispatch_id == 0
    assert (w1.workgroup, w1.wave_in_group, w1.dispatch) == (None, None, None) and w1.pc == 0x7000_0000_9020


def test_private_memory_from_scratch(tmp_path):
    """private_wave/private_lane reads go to the wave's scratch slot (dbgapi's gfx9 scratch formula)."""
    b = CoreBuilder(arch="gfx90a")
    agent = b.add_agent(array_count=8, simd_arrays_per_engine=1)  # 8 shader engines
    base = 0x7E00_0000_0000
    q = b.add_queue(
        agent,
        compute_tmpring_size=8 | 1 << 12,
        scratch_backing_memory_location=base,
        scratch_backing_memory_byte_size=1 << 20,
    )
    d = b.add_dispatch(q, entry=0x9000)
    b.add_wave(d, pc=0x9000, scratch_en=True, se_id=1, scoreboard_id=2)
    slot = base + (8 // 8 * 1 + 2) * 1024
    b.add_memory(slot, bytes(range(256)) * 4)
    p = tmp_path / "s.gpu"
    b.write_split(str(p))
    [w] = open_core(p).waves
    assert w.memory.scratch() == (slot, 1024)
    assert w.memory.read(AddressSpace.PRIVATE_WAVE, 16, 4) == bytes([16, 17, 18, 19])
    # lane 3's dword 1 is at wave offset 1*64*4 + 3*4
    assert w.memory.read(AddressSpace.PRIVATE_LANE, 4, 4, lane=3) == bytes(range(256))[268 - 256 : 272 - 256]
    with pytest.raises(Unavailable):
        w.memory.read(AddressSpace.PRIVATE_WAVE, 1020, 8)


def test_gfx10_shared_vgprs_wave64(tmp_path):
    """gfx10 wave64: private VGPRs (64 lanes) below 32-lane shared VGPRs, both given back."""
    b = CoreBuilder(arch="gfx1030")
    d = b.add_dispatch(entry=0x9000)
    priv = [[r * 1000 + lane for lane in range(64)] for r in range(4)]
    shared = [[0xAB000000 + r * 100 + lane for lane in range(32)] for r in range(8)]
    b.add_wave(d, pc=0x9000, wave_size=64, vgprs=priv, shared_vgprs=shared, lds=b"\x11" * 512)
    b.add_wave(d, pc=0x9004, wave_size=64, wave_in_group=1, vgprs=priv[:1])
    p = tmp_path / "s.gpu"
    b.write_split(str(p))
    w0, w1 = open_core(p).waves
    assert (w0.vgprs, w0.shared_vgprs, w0.wave_size) == (priv, shared, 64)
    assert w1.vgprs == priv[:1] + [[0] * 64] * 3 and w1.shared_vgprs == [] and w1.lds == b"\x11" * 512


def test_builder_layout_is_stable_across_writes(tmp_path):
    sc = build("gfx1100", groups=1)
    sc.builder.write_split(str(tmp_path / "a.gpu"))
    sc.builder.write_unified(str(tmp_path / "b.core"))
    a, b = open_core(tmp_path / "a.gpu"), open_core(tmp_path / "b.core")
    assert [q.ctx_save_restore_address for q in a.queues] == [q.ctx_save_restore_address for q in b.queues]
    assert [(w.context_save_address, w.pc) for w in a.waves] == [(w.context_save_address, w.pc) for w in b.waves]


def test_host_symbols_from_mapped_files(tmp_path):
    """Host PCs are symbolised from the mapped ELF file when it exists (here: the system's libc)."""
    from elftools.elf.elffile import ELFFile

    libc = next(
        (p for p in ("/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6") if Path(p).exists()),
        None,
    )
    if libc is None:
        pytest.skip("no x86-64 libc.so.6 to map")
    with open(libc, "rb") as f:
        sym = next(
            s
            for s in ELFFile(f).get_section_by_name(".dynsym").iter_symbols()
            if s.name == "abort" and s["st_size"] > 8
        )
        value = sym["st_value"]
    from amddbg.core.host import Mapping

    base = 0x7F00_0000_0000
    b = CoreBuilder(arch="gfx90a")
    b.add_dispatch(entry=0x9000)
    b.write_unified(
        str(tmp_path / "u.core"),
        host=HostImage(
            threads=[(1, {"rip": base + value + 4}, 6)],
            mappings=[Mapping(base, base + (64 << 20), 0, libc)],
        ),
    )
    core = open_core(tmp_path / "u.core")
    assert core.host.mappings[0].path == libc
    assert core.host.symbolize(core.host.threads[0].pc) == "abort+0x4"


def test_builder_rejects_overlapping_memory(tmp_path):
    b = CoreBuilder(arch="gfx90a")
    b.add_memory(0x1000, b"x" * 100)
    b.add_sparse(0x1010, 1 << 20)
    with pytest.raises(ValueError, match="overlap"):
        b.write_split(str(tmp_path / "o.gpu"))
