"""The host (x86-64) side of a core: threads from NT_PRSTATUS, file mappings from NT_FILE, the auxv,
and host PCs disassembled with capstone and symbolised from the mapped ELF files when they exist.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field

from amddbg.core.layouts import PRSTATUS, X86_64_GREGS

NT_PRSTATUS = 1
NT_PRPSINFO = 3
NT_AUXV = 6
NT_SIGINFO = 0x53494749
NT_FILE = 0x46494C45

AUXV_NAMES = {
    0: "AT_NULL",
    3: "AT_PHDR",
    4: "AT_PHENT",
    5: "AT_PHNUM",
    6: "AT_PAGESZ",
    7: "AT_BASE",
    9: "AT_ENTRY",
    11: "AT_UID",
    16: "AT_HWCAP",
    25: "AT_RANDOM",
    31: "AT_EXECFN",
    33: "AT_SYSINFO_EHDR",
}


@dataclass
class HostThread:
    tid: int
    signal: int
    registers: dict[str, int]

    @property
    def pc(self) -> int:
        return self.registers["rip"]


@dataclass(frozen=True)
class Mapping:
    start: int
    end: int
    file_offset: int  # bytes
    path: str


@dataclass
class Host:
    threads: list[HostThread] = field(default_factory=list)
    mappings: list[Mapping] = field(default_factory=list)
    auxv: list[tuple[int, int]] = field(default_factory=list)
    page_size: int = 4096
    process: dict | None = None  # NT_PRPSINFO: pid, ppid, uid, gid, fname, psargs
    _symtabs: dict = field(default_factory=dict, repr=False)

    def mapping_for(self, address: int) -> Mapping | None:
        for m in self.mappings:
            if m.start <= address < m.end:
                return m
        return None

    def symbolize(self, address: int) -> str | None:
        """`name+0xoff` from the mapped file's symbol table when the file exists on this machine."""
        m = self.mapping_for(address)
        if m is None or not os.path.isfile(m.path):
            return None
        table = self._symtabs.get(m.path)
        if table is None:
            table = self._symtabs[m.path] = _load_symbols(m.path)
        syms, first_vaddr, is_dyn = table
        base = min((x.start - x.file_offset for x in self.mappings if x.path == m.path), default=m.start)
        bias = base - (first_vaddr & ~0xFFF) if is_dyn else 0
        rel = address - bias
        best = None
        for value, size, name in syms:
            if value <= rel < value + max(size, 1):
                best = (name, rel - value)
                break
        if best is None:
            return None
        return best[0] if best[1] == 0 else f"{best[0]}+{best[1]:#x}"

    def disassemble(self, memory, address: int, count: int = 8) -> list[tuple[int, str, str]]:
        """[(address, mnemonic, operands)] of up to `count` x86-64 instructions read from `memory`."""
        import capstone

        md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
        size = 15 * count
        data = b""
        while size > 0 and not data:
            try:
                data = memory.read("global", address, size)
            except Exception:  # noqa: BLE001 - shrink to what the core holds
                size //= 2
        return [(i.address, i.mnemonic, i.op_str) for i in md.disasm(data, address, count)]


def _load_symbols(path: str):
    from elftools.elf.elffile import ELFFile

    try:
        with open(path, "rb") as f:
            elf = ELFFile(f)
            loads = [s["p_vaddr"] for s in elf.iter_segments() if s["p_type"] == "PT_LOAD"]
            syms = []
            for name in (".symtab", ".dynsym"):
                sec = elf.get_section_by_name(name)
                if sec is None:
                    continue
                for s in sec.iter_symbols():
                    if s["st_info"]["type"] in ("STT_FUNC", "STT_OBJECT") and s["st_value"]:
                        syms.append((s["st_value"], s["st_size"], s.name))
            return sorted(set(syms)), (min(loads) if loads else 0), elf["e_type"] == "ET_DYN"
    except Exception:  # noqa: BLE001 - a foreign or corrupt file simply gives no symbols
        return [], 0, False


def parse_host_notes(notes) -> Host:
    host = Host()
    for note in notes:
        d = bytes(note.desc)
        if note.type == NT_PRSTATUS and note.name == "CORE" and len(d) >= PRSTATUS.size:
            f = PRSTATUS.unpack(d)
            regs = dict(zip(X86_64_GREGS, struct.unpack(f"<{len(X86_64_GREGS)}Q", f["pr_reg"]), strict=True))
            host.threads.append(HostThread(f["pr_pid"], f["pr_cursig"], regs))
        elif note.type == NT_PRPSINFO and note.name == "CORE":
            host.process = parse_prpsinfo(d)
        elif note.type == NT_AUXV and note.name == "CORE":
            n = len(d) // 16
            for i in range(n):
                k, v = struct.unpack_from("<QQ", d, 16 * i)
                host.auxv.append((k, v))
                if k == 0:
                    break
                if k == 6:
                    host.page_size = v
        elif note.type == NT_FILE and note.name == "CORE" and len(d) >= 16:
            count, page = struct.unpack_from("<QQ", d, 0)
            if 16 + 24 * count > len(d):
                continue
            names = d[16 + 24 * count :].split(b"\0")
            for i in range(count):
                start, end, pgoff = struct.unpack_from("<QQQ", d, 16 + 24 * i)
                name = names[i].decode("utf-8", "replace") if i < len(names) else ""
                host.mappings.append(Mapping(start, end, pgoff * page, name))
    return host


def build_prstatus(tid: int, registers: dict[str, int], signal: int = 0) -> bytes:
    regs = struct.pack(f"<{len(X86_64_GREGS)}Q", *(registers.get(r, 0) for r in X86_64_GREGS))
    return PRSTATUS.pack({"pr_info.si_signo": signal, "pr_cursig": signal, "pr_pid": tid, "pr_reg": regs})


# struct elf_prpsinfo on x86-64 (136 bytes): state, sname, zomb, nice, pad, pr_flag u64, uid, gid,
# pid, ppid, pgrp, sid, pr_fname[16], pr_psargs[80]. gdb takes the process id from here.
_PRPSINFO = struct.Struct("<bbbb4xQIIiiii16s80s")


def build_prpsinfo(pid: int, fname: str = "a.out", args: str | None = None, *, uid: int = 1000,
                   gid: int = 1000, state: str = "R") -> bytes:
    """NT_PRPSINFO as the Linux kernel writes it (fill_psinfo): a core without it makes gdb-based
    readers guess pid 1 and lose the threads' process."""
    args = fname if args is None else args
    state = state[:1] if state[:1] and state[:1] in "RSDTZW" else "R"
    return _PRPSINFO.pack("RSDTZW".index(state), ord(state), 0, 0, 0x400000, uid, gid, pid, max(1, pid - 1),
                          pid, pid, fname.encode()[:15], args.encode()[:79])


def parse_prpsinfo(desc: bytes) -> dict | None:
    """pid, ppid, uid, gid, fname and psargs of an NT_PRPSINFO note (None if too short)."""
    if len(desc) < _PRPSINFO.size:
        return None
    f = _PRPSINFO.unpack_from(desc)
    return {"pid": f[7], "ppid": f[8], "uid": f[5], "gid": f[6],
            "fname": f[11].split(b"\0", 1)[0].decode("utf-8", "replace"),
            "psargs": f[12].split(b"\0", 1)[0].decode("utf-8", "replace")}


def build_nt_file(mappings: list[Mapping], page_size: int = 4096) -> bytes:
    head = struct.pack("<QQ", len(mappings), page_size)
    body = b"".join(struct.pack("<QQQ", m.start, m.end, m.file_offset // page_size) for m in mappings)
    names = b"".join(m.path.encode() + b"\0" for m in mappings)
    return head + body + names


def build_auxv(auxv: list[tuple[int, int]]) -> bytes:
    items = list(auxv)
    if not items or items[-1][0] != 0:
        items.append((0, 0))
    return b"".join(struct.pack("<QQ", k, v) for k, v in items)
