"""Is a host core the other half of the GPU core it was given with?

ROCr writes a split GPU core (`gpucore.<pid>`: the AMDGPU note and agent memory) and the kernel writes the host
core (the process's notes and host memory: the runtime's `_amdgpu_r_debug` link map, memory:// code objects, the
queues). Reading them together trusts that they are one process at one moment. Given the host core of another
process -- or of another run of the same program, which has the same pid when runs are reproduced (`amddbg run`
writes every core as process 4242) -- the host's link map names code objects the GPU's waves never ran: wrong
symbols, or `??` on every wave.

The evidence, each read from the files alone (nothing runs, nothing is guessed from file names):
- pids: the host core's NT_PRPSINFO (else its first thread) against the pids of the memory:// URIs in the GPU
  core's own link map, when the GPU core holds one (`amddbg run` split cores do);
- link maps: both files hold a link map at the runtime's r_debug address and they name different code objects;
- code: a code object of the link map in use is not what the GPU core holds at its load address (its ELF and
  program headers, and the first `COMPARED` bytes of each executable segment: a loader copies both unchanged and
  no kernel writes them, so a real pair always agrees).

What is used then: the GPU core's own link map when it has one (never the host's), and no code object the GPU
core's memory contradicts (its names would be wrong: `??` is the honest answer). One warning says so, with both
pids, and contains `NOT_A_PAIR` so every face (REPL, `info`, `explain`) can show it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from amddbg.core.memory import SegmentMap
from amddbg.core.model import CodeObjectRef
from amddbg.core.rdebug import parse_uri, walk_link_map
from amddbg.errors import AmddbgError

NOT_A_PAIR = "not a pair"
COMPARED = 4096  # bytes of each executable segment compared with the GPU core's memory
PF_X = 1
PT_LOAD = 1


@dataclass
class PairCheck:
    """A mismatch: the warning to show and the code objects to use instead of the merged link map's."""

    warning: str
    refs: list[CodeObjectRef]


def host_pid(host) -> int | None:
    """The host core's process id: NT_PRPSINFO's pid (gdb's source), else its first thread's."""
    pid = (host.process or {}).get("pid")
    if pid:
        return pid
    return host.threads[0].pid if host.threads else None


def _uri_pids(uris: list[str]) -> list[int]:
    out = set()
    for u in uris:
        if u.startswith("memory://"):
            try:
                out.add(parse_uri(u).pid)
            except AmddbgError:
                pass
    out.discard(None)
    return sorted(out)


def _compared_ranges(elf) -> list[tuple[int, int, int]]:
    """(vaddr, file offset, size) of the code object's bytes a loader copies unchanged and a kernel never writes:
    the ELF and program headers at the start of the first segment (the object's identity), and the first
    `COMPARED` bytes of each executable segment. Data segments are left out (globals change as kernels run)."""
    out = []
    for seg in elf.segments:
        if seg.type != PT_LOAD or not seg.filesz:
            continue
        if seg.flags & PF_X:
            out.append((seg.vaddr, seg.offset, min(seg.filesz, COMPARED)))
        elif seg.offset == 0:
            out.append((seg.vaddr, 0, min(seg.filesz, elf.phoff + elf.phnum * elf.phentsize)))
    return out


def contradicts(gpu_memory: SegmentMap, ref: CodeObjectRef) -> bool:
    """Does the GPU core hold other code than `ref`'s at its load address? False when either side is not there
    to compare (no evidence is no contradiction)."""
    from amddbg.codeobj.elf import ElfFile

    try:
        data = ref.data
        ranges = _compared_ranges(ElfFile(data, name=ref.uri))
    except AmddbgError:
        return False
    for vaddr, offset, n in ranges:
        try:
            held = gpu_memory.read(ref.load_address + vaddr, n)
        except AmddbgError:
            continue
        if bytes(held) != bytes(data[offset : offset + n]):
            return True
    return False


def check_pair(gpu, hosts: list, host, r_debug_address: int, refs: list[CodeObjectRef], loader) -> PairCheck | None:
    """None for a real pair; else the warning and the code objects to use. `gpu` is the split GPU core's ElfCore,
    `hosts` the other files, `host` their parsed notes, `refs` the code objects of the merged link map."""
    gpu_memory = SegmentMap([gpu])
    scratch: list[str] = []  # the merged walk already warned about what is unreadable
    own = walk_link_map(gpu_memory, r_debug_address, scratch)[1] if r_debug_address else []
    theirs = walk_link_map(SegmentMap(hosts), r_debug_address, scratch)[1] if r_debug_address else []
    own_uris = [u for _n, _a, u in own if u]
    their_uris = [u for _n, _a, u in theirs if u]
    hp = host_pid(host)
    gpu_pids = _uri_pids(own_uris)
    reasons = []
    if own_uris and their_uris and own_uris != their_uris:
        reasons.append("their link maps name different code objects")
    used = [CodeObjectRef(uri, l_addr, node, loader) for node, l_addr, uri in own if uri] if own_uris else refs
    foreign = [r for r in used if contradicts(gpu_memory, r)]
    gpu_name = os.path.basename(gpu.path)
    host_names = ", ".join(os.path.basename(f.path) for f in hosts)
    for r in foreign:
        reasons.append(f"{gpu_name} holds other code at {r.load_address:#x} than {r.uri} (not used: its names "
                       "would be wrong)")
    pid_differs = hp is not None and gpu_pids and hp not in gpu_pids
    if not reasons and not pid_differs:
        return None
    gp = ", ".join(map(str, gpu_pids)) or "unknown"
    if pid_differs:
        text = f"{host_names} is a core of process {hp}, but {gpu_name} is of process {gp}: {NOT_A_PAIR}"
    else:
        text = f"{host_names} (process {hp if hp is not None else 'unknown'}) and {gpu_name} (process {gp}) are " \
               f"{NOT_A_PAIR}: {reasons.pop(0)}"
    text += "".join(f"; {r}" for r in reasons)
    if own_uris:
        text += "; the GPU core's own code objects are used, the host core's memory only where the GPU core has none"
    else:
        text += "; the host core's memory (the runtime's link map and queues) is not this process's"
    return PairCheck(text, [r for r in used if r not in foreign])
