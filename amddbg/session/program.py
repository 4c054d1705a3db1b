"""`Program`: the debugger's object model over a core (split, host + GPU pair, unified) or code objects.

drgn's shape: one object a script, a plugin, the REPL and batch mode all use. It owns nothing the lower
layers already model — it joins them: the core model (agents, queues, dispatches, waves, memory), the
loaded code objects (symbols, DWARF, instructions), the unwinder, and the focus (thread, lane, frame)
that commands change. Everything it computes per (code object, pc) is cached, because 10,000 waves
usually sit at a handful of PCs.
"""

from __future__ import annotations

import bisect
import builtins
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from amddbg.amdgpu import AddressSpace
from amddbg.errors import AmddbgError, FormatError, Unavailable, UsageError
from amddbg.session.frames import Frame, SourceFrame
from amddbg.session.threads import HostThread, Thread, WaveThread

SPACE_NAMES = {
    "global": AddressSpace.GLOBAL,
    "generic": AddressSpace.GENERIC,
    "local": AddressSpace.LOCAL,
    "private_lane": AddressSpace.PRIVATE_LANE,
    "private": AddressSpace.PRIVATE_LANE,
    "private_wave": AddressSpace.PRIVATE_WAVE,
    "region": AddressSpace.REGION,
    "constant": AddressSpace.CONSTANT,
}


def address_space(space) -> AddressSpace:
    if isinstance(space, AddressSpace):
        return space
    try:
        return SPACE_NAMES[str(space).lower()]
    except KeyError:
        raise UsageError(f"unknown address space {space!r} (have: {', '.join(SPACE_NAMES)})") from None


class LoadedCodeObject:
    """One code object as the program sees it: where it is loaded, its symbols, DWARF and instructions."""

    def __init__(self, codeobj, *, uri: str, load_address: int = 0) -> None:
        self.codeobj = codeobj
        self.uri = uri
        self.load_address = load_address
        self._source_cache: dict[int, list[SourceFrame]] = {}
        self._insn_cache: dict[int, object] = {}
        self._code_info: dict[int, object] = {}
        self._before_cache: dict[int, object] = {}

    def __repr__(self) -> str:
        return f"<LoadedCodeObject {self.uri} at {self.load_address:#x}>"

    @cached_property
    def processor(self) -> str:
        return self.codeobj.processor

    @cached_property
    def _text(self) -> list[tuple[int, int, bytes]]:
        out = []
        for sec in self.codeobj.code_sections():
            data = bytes(sec.data)
            out.append((sec.address + self.load_address, sec.address + self.load_address + len(data), data))
        return out

    @cached_property
    def _functions(self) -> list:
        syms = [s for s in self.codeobj.symbols() if s.kind in ("kernel", "function") and s.size]
        return sorted(syms, key=lambda s: s.address)

    @cached_property
    def _starts(self) -> list[int]:
        return [s.address + self.load_address for s in self._functions]

    def contains(self, address: int) -> bool:
        return any(lo <= address < hi for lo, hi, _ in self._text)

    def function_at(self, address: int):
        """The function symbol covering an absolute address (None outside functions)."""
        i = bisect.bisect_right(self._starts, address) - 1
        if i >= 0:
            s = self._functions[i]
            if address < s.address + self.load_address + s.size:
                return s
        return None

    def lookup_symbol(self, name: str) -> list:
        from amddbg.dwarf.demangle import demangle

        out = []
        for s in self.codeobj.symbols():
            if s.kind == "undefined":
                continue
            if name in (s.name, _plain(demangle(s.name) or s.name), demangle(s.name)):
                out.append(s)
        return out

    @cached_property
    def symbolizer(self):
        from amddbg.dwarf.symbolize import Symbolizer

        return Symbolizer.from_code_object(self.codeobj, use_cache=False)

    @cached_property
    def decoder(self):
        """The code's decoder; wave64 GFX10+ code names its lane masks as SGPR pairs (`s[0:1]`, `vcc`), as it
        uses them (llvm-objdump --mattr=+wavefrontsize64)."""
        from amddbg.isa import decoder_for

        return decoder_for(self.processor, wave64=getattr(self.codeobj, "wavefront_size", None) == 64)

    def read_code(self, address: int, size: int) -> bytes:
        for lo, hi, data in self._text:
            if lo <= address and address + size <= hi:
                return data[address - lo:address - lo + size]
        raise Unavailable("global", address, size, "not in the code object's text")

    @cached_property
    def _decoded(self) -> dict[int, list]:
        return {}

    def instructions(self, start: int, end: int) -> list:
        """Decoded instructions in [start, end) (absolute addresses), decoding whole functions once."""
        out = []
        addr = start
        while addr < end:
            f = self.function_at(addr)
            lo = (f.address + self.load_address) if f else addr
            hi = (lo + f.size) if f else min(end, addr + 256)
            insns = self._decoded.get(lo)
            if insns is None:
                try:
                    data = self.read_code(lo, hi - lo)
                except Unavailable:
                    break
                insns = self.decoder.decode_all(data, lo)
                self._decoded[lo] = insns
            if start <= lo and hi <= end:  # the whole function (disassemble(pc)'s case): no per-insn filter
                out.extend(insns)
            else:
                out.extend(i for i in insns if start <= i.address < end)
            addr = hi
        return out

    def instruction_at(self, address: int):
        if address in self._insn_cache:
            return self._insn_cache[address]
        f = self.function_at(address)
        insn = None
        if f is not None:
            for i in self.instructions(f.address + self.load_address, f.address + self.load_address + f.size):
                self._insn_cache.setdefault(i.address, i)
            insn = self._insn_cache.get(address)
        self._insn_cache[address] = insn
        return insn

    def instruction_before(self, address: int):
        """The instruction that ends at or before `address` in its function (cached: every wave's state
        asks it for its PC, and 10,000 waves share a handful of PCs)."""
        cache = self._before_cache
        if address in cache:
            return cache[address]
        f = self.function_at(address - 1)
        prev = None
        if f is not None:
            lo = f.address + self.load_address
            for i in self.instructions(lo, lo + f.size):
                if i.address >= address:
                    break
                prev = i
        cache[address] = prev
        return prev

    def source_frames(self, address: int) -> list[SourceFrame]:
        """Inlined source frames at an absolute address, innermost first (cached per address)."""
        hit = self._source_cache.get(address)
        if hit is not None:
            return hit
        from amddbg.dwarf.demangle import demangle

        rel = address - self.load_address
        out: list[SourceFrame] = []
        from amddbg.dwarf.attribution import user_frames

        try:
            frames = user_frames(self.symbolizer, rel)  # never line 0 where a line can be named (gdb's rule)
        except AmddbgError:
            frames = []
        for fr in frames:
            link = fr.function
            pretty = (demangle(link) or link) if link else None
            out.append(SourceFrame(pretty, link, fr.file, fr.line or 0, fr.column or 0, bool(fr.inlined), fr.how))
        if not out or out[0].function is None:
            sym = self.function_at(address)
            name = sym.name if sym else None
            pretty = (demangle(name) or name) if name else None
            out = [SourceFrame(pretty, name, None, 0, 0, False)] if not out else [
                SourceFrame(pretty, name, out[0].file, out[0].line, out[0].column, False, out[0].how)]
        self._source_cache[address] = out
        return out

    def is_statement_start(self, address: int) -> bool:
        """Is `address` where its source line starts (gdb's sal.pc: the first address of the run of line-table
        rows with the same file and line)? gdb prints no ``0xPC in`` for frame 0 then."""
        rel = address - self.load_address
        try:
            idx = self.symbolizer.index
            cu = idx.cu_for(rel)
            lt = idx.lines(cu) if cu is not None else None
            i = lt.row_index(rel) if lt is not None else None
        except AmddbgError:
            return False
        if i is None:
            return False
        f, ln = lt.files_col[i], lt.lines_col[i]
        if ln == 0:
            return False  # gdb drops line-0 rows: the PC continues the row before it (amddbg.dwarf.attribution)
        lo = next((s[2] for s in lt.sequences if s[2] <= i < s[3]), 0)
        while i > lo and lt.files_col[i - 1] == f and lt.lines_col[i - 1] == ln:
            i -= 1
        return lt.addrs[i] == rel

    def frame_scopes(self, address: int, inline_depth: int):
        """DWARF scopes (blocks) of the function at `inline_depth` of the inlined chain at `address`."""
        from amddbg.dwarf.scopes import scopes_at

        try:
            chain = scopes_at(self.symbolizer.dwarf, address - self.load_address)
        except AmddbgError:
            return []
        groups: list[list] = [[]]
        for sc in chain:  # innermost first: blocks accumulate until their function (inlined/subprogram)
            groups[-1].append(sc)
            if sc.kind in ("inlined", "subprogram"):
                groups.append([])
        groups = [g for g in groups if g]
        return groups[inline_depth] if inline_depth < len(groups) else []

    def code_info(self, wave_size: int):
        ci = self._code_info.get(wave_size)
        if ci is None:
            from amddbg.dwarf.unwind import CodeInfo

            ci = CodeInfo.from_code_object(self.codeobj, wave_size=wave_size).loaded_at(self.load_address)
            self._code_info[wave_size] = ci
        return ci


def _plain(demangled: str) -> str:
    """``probe<int>(int*, int*, int)`` -> ``probe<int>``; ``foo(int)`` -> ``foo``."""
    depth = 0
    for i, ch in enumerate(demangled):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0:
            return demangled[:i]
    return demangled


@dataclass
class Focus:
    thread: Thread | None = None
    lane: int = 0
    frame_level: int = 0


@dataclass
class Program:
    """A debugging session's model. Build with `amddbg.open`."""

    core: object | None = None
    static_code_objects: list[LoadedCodeObject] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    focus: Focus = field(default_factory=Focus)
    history: list = field(default_factory=list)
    convenience: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        threads = self.threads
        if threads:
            first = next((t for t in threads if t.is_wave), threads[0])
            self.focus.thread = first
            if first.is_wave:
                active = first.active_lanes
                self.focus.lane = active[0] if active else 0

    # -- what the core holds ------------------------------------------------------------------------
    @property
    def agents(self) -> list:
        return self.core.agents if self.core is not None else []

    @property
    def queues(self) -> list:
        return self.core.queues if self.core is not None else []

    @property
    def dispatches(self) -> list:
        return self.core.dispatches if self.core is not None else []

    @property
    def warnings(self) -> list[str]:
        """The core reader's warnings, including those about code objects (a file:// URI not found, a
        damaged symbol table), which are only known once the code objects have been parsed."""
        if self.core is None:
            return []
        self.code_objects  # noqa: B018 - parse them so that their warnings are listed too
        return list(self.core.warnings)

    @cached_property
    def pid(self) -> int | None:
        if self.core is None:
            return None
        try:
            proc = self.core.host.process
        except AmddbgError:
            return None
        return proc.get("pid") if proc else None

    @cached_property
    def code_objects(self) -> list[LoadedCodeObject]:
        out = list(self.static_code_objects)
        if self.core is not None:
            for ref, co in self.core._parsed_code_objects():
                out.append(LoadedCodeObject(co, uri=ref.uri, load_address=ref.load_address))
        return out

    def code_object_at(self, address: int) -> LoadedCodeObject | None:
        for lco in self.code_objects:
            if lco.contains(address):
                return lco
        return None

    def agent_index(self, gpu_id: int) -> int:
        for i, a in enumerate(self.agents):
            if a.gpu_id == gpu_id:
                return i + 1
        return 0

    @cached_property
    def threads(self) -> list[Thread]:
        """gdb numbering: the host process's threads first, then the waves (ordered by agent, queue,
        dispatch, workgroup, wave in group)."""
        out: list[Thread] = []
        n = 1
        if self.core is not None:
            try:
                host_threads = self.core.host.threads
            except AmddbgError:
                host_threads = []
            for h in host_threads:
                out.append(HostThread(n, self, host=h))
                n += 1
            # ROCgdb's target ids are amd-dbgapi object handles: per object kind, counters from 1 in discovery
            # order (agents, then each agent's queues, the dispatches in each queue's ring, the waves in each
            # queue's control stack) -- not the KFD queue id or the AQL packet id.
            handles = {id(w): n for n, w in enumerate(self.core.waves, 1)}
            waves = sorted(self.core.waves, key=_wave_order)
            for w in waves:
                out.append(WaveThread(n, self, wave=w, wave_id=handles[id(w)], agent_id=self.agent_index(w.gpu_id),
                                      queue_handle=self.queue_handle(w.gpu_id, w.queue_id),
                                      dispatch_handle=self.dispatch_handle(w.dispatch)))
                n += 1
        return out

    @cached_property
    def _queue_handles(self) -> dict:
        order = sorted(self.queues, key=lambda q: (self.agent_index(q.gpu_id), self.queues.index(q)))
        return {(q.gpu_id, q.queue_id): n for n, q in enumerate(order, 1)}

    def queue_handle(self, gpu_id: int, queue_id: int) -> int:
        """ROCgdb's queue id (amd-dbgapi handle): 1-based in discovery order."""
        return self._queue_handles.get((gpu_id, queue_id), 0)

    @cached_property
    def _dispatch_handles(self) -> dict:
        order = sorted(self.dispatches, key=lambda d: (self.queue_handle(d.gpu_id, d.queue_id), d.dispatch_id))
        return {(d.gpu_id, d.queue_id, d.dispatch_id): n for n, d in enumerate(order, 1)}

    def dispatch_handle(self, dispatch) -> int | None:
        """ROCgdb's dispatch id (amd-dbgapi handle): 1-based in discovery order; None without a dispatch."""
        if dispatch is None:
            return None
        return self._dispatch_handles.get((dispatch.gpu_id, dispatch.queue_id, dispatch.dispatch_id))

    @property
    def waves(self) -> list[WaveThread]:
        return [t for t in self.threads if t.is_wave]

    def thread(self, number: int) -> Thread:
        ts = self.threads
        if 1 <= number <= len(ts) and ts[number - 1].number == number:
            return ts[number - 1]
        for t in ts:
            if t.number == number:
                return t
        raise UsageError(f"Invalid thread ID: {number}")

    # -- focus ------------------------------------------------------------------------------------------
    @property
    def current_thread(self) -> Thread | None:
        return self.focus.thread

    @property
    def current_lane(self) -> int:
        return self.focus.lane

    @property
    def current_frame(self) -> Frame | None:
        t = self.focus.thread
        if t is None:
            return None
        frames = t.frames()
        return frames[min(self.focus.frame_level, len(frames) - 1)] if frames else None

    def select_thread(self, number: int) -> Thread:
        t = self.thread(number)
        self.focus.thread = t
        self.focus.frame_level = 0
        if t.is_wave:
            active = t.active_lanes
            if self.focus.lane >= t.lanes or (active and self.focus.lane not in active):
                self.focus.lane = active[0] if active else 0
        return t

    def select_lane(self, lane: int) -> int:
        t = self.focus.thread
        if t is None or not t.is_wave:
            raise UsageError("lane: the current thread is not a GPU wave")
        if not 0 <= lane < t.lanes:
            raise UsageError(f"Lane {lane} does not exist on this thread.")  # ROCgdb's words
        self.focus.lane = lane
        return lane

    def select_frame(self, level: int) -> Frame:
        t = self.focus.thread
        if t is None:
            raise UsageError("No stack.")
        frames = t.frames()
        if not 0 <= level < len(frames):
            raise UsageError(f"No frame at level {level}.")
        self.focus.frame_level = level
        return frames[level]

    # -- memory -------------------------------------------------------------------------------------------
    def read(self, space, address: int, size: int, *, lane: int | None = None, thread: Thread | None = None) -> bytes:
        """Bytes of an address space. Per-wave spaces (local, private_*) use the focused wave."""
        if size < 0 or size > 1 << 30:
            raise UsageError(f"cannot read {size} bytes")
        sp = address_space(space)
        if self.core is None:
            if sp in (AddressSpace.GLOBAL, AddressSpace.GENERIC, AddressSpace.CONSTANT):
                return self._static_read(address, size)
            raise Unavailable(str(sp), address, size, "no core is loaded (static session)")
        if sp is AddressSpace.REGION:
            raise Unavailable("region", address, size, "GDS (region) memory is not saved in AMDGPU cores")
        t = thread or self.focus.thread
        if sp in (AddressSpace.GLOBAL, AddressSpace.CONSTANT):
            return self.core.memory.read(sp, address, size)
        if t is None or not t.is_wave:
            if sp is AddressSpace.GENERIC:
                return self.core.memory.read(sp, address, size)
            raise Unavailable(str(sp), address, size, "needs a GPU wave in focus")
        if lane is None and sp in (AddressSpace.PRIVATE_LANE, AddressSpace.GENERIC):
            lane = self.focus.lane
        return t.wave.memory.read(sp, address, size, lane=lane)

    def _static_read(self, address: int, size: int) -> bytes:
        for lco in self.code_objects:
            try:
                return lco.read_code(address, size)
            except Unavailable:
                continue
        raise Unavailable("global", address, size, "not in any code object's text (static session)")

    # -- symbols, code ------------------------------------------------------------------------------------
    def kernel_name(self, dispatch) -> str | None:
        if self.core is None or dispatch is None:
            return None
        try:
            name = self.core.kernel_name(dispatch)
        except AmddbgError:
            return None
        return name

    def dispatch_kernel(self, dispatch, pc: int):
        """The code object's kernel (metadata and descriptor) a dispatch runs, looked up in the code object that
        holds `pc` (a wave's PC: the descriptor itself lives in .rodata, outside the text ranges); None if unknown."""
        lco = self.code_object_at(pc)
        if lco is None or dispatch is None or dispatch.kernel_object is None:
            return None
        for k in lco.codeobj.kernels:
            if k.descriptor is not None and lco.load_address + k.descriptor.address == dispatch.kernel_object:
                return k
        return None

    def symbolize(self, address: int) -> list[SourceFrame]:
        lco = self.code_object_at(address)
        return lco.source_frames(address) if lco is not None else []

    def symbol_at(self, address: int):
        """(LoadedCodeObject, Symbol, offset) of the function covering an absolute address, or None."""
        lco = self.code_object_at(address)
        if lco is None:
            return None
        s = lco.function_at(address)
        return None if s is None else (lco, s, address - lco.load_address - s.address)

    def lookup_function(self, name: str):
        """(LoadedCodeObject, Symbol) of functions/kernels named `name` (mangled, demangled or plain)."""
        out = []
        for lco in self.code_objects:
            for s in lco.lookup_symbol(name):
                if s.kind in ("kernel", "function"):
                    out.append((lco, s))
        return out

    def frames_at(self, address: int) -> list[Frame]:
        """Static frames at a code address, no core needed: the inlined chain DWARF describes there,
        innermost first (method "static", no thread). Their arguments()/locals() list the variables and
        `location_text()` says where each lives at that PC; values need registers and memory, so
        `value()` is ``<unavailable>`` — a static session shows locations, never invented values."""
        lco = self.code_object_at(address)
        if lco is None:
            raise Unavailable("global", address, 0, "not in any loaded code object")
        from amddbg.session.frames import _expand

        return _expand(None, lco, address, 0, "static", None)

    def instruction_at(self, address: int):
        lco = self.code_object_at(address)
        return lco.instruction_at(address) if lco is not None else None

    def instruction_before(self, address: int):
        lco = self.code_object_at(address - 1)
        return lco.instruction_before(address) if lco is not None else None

    def disassemble(self, start: int, end: int | None = None, *, function: str | None = None) -> list:
        if function is not None:
            hits = self.lookup_function(function)
            if not hits:
                raise UsageError(f'No symbol "{function}" in current context.')
            lco, s = hits[0]
            lo = s.address + lco.load_address
            return lco.instructions(lo, lo + s.size)
        lco = self.code_object_at(start)
        if lco is None:
            raise Unavailable("global", start, 0, "not in any loaded code object")
        if end is None:
            f = lco.function_at(start)
            if f is None:
                raise UsageError(f"No function contains specified address {start:#x}.")
            lo = f.address + lco.load_address
            return lco.instructions(lo, lo + f.size)
        return lco.instructions(start, end)

    def in_polling_loop(self, address: int, *, sleeps: bool = False) -> bool:
        """Is `address` inside a backward-branch loop whose body loads memory (a spin-wait)? With `sleeps`, the
        body must also contain an `s_sleep` (a spin-wait wherever in it the wave stopped).

        A wave still on its first poll counts too: -O2 rotates a `while (load(flag) == 0)` loop so that the
        first load and its test sit before the loop (a peeled first iteration). A PC after such a load, whose
        straight-line path reaches the loop with no store, barrier or call on the way, is in the poll (the
        state of a wave comes from the loop it is in, not from whether it has taken the back edge yet)."""
        lco = self.code_object_at(address)
        if lco is None:
            return False
        f = lco.function_at(address)
        if f is None:
            return False
        lo = f.address + lco.load_address
        insns = lco.instructions(lo, lo + f.size)
        for br in insns:
            t = br.branch_target
            if not (br.is_branch and t is not None and t <= br.address):
                continue
            body = [i for i in insns if t <= i.address <= br.address]
            if not any(i.memory is not None and i.memory.is_load for i in body):
                continue
            if sleeps and not any(i.mnemonic.startswith("s_sleep") for i in body):
                continue
            if t <= address <= br.address or _peeled_poll(insns, address, t, body):
                return True
        return False

    # -- expressions --------------------------------------------------------------------------------------
    def eval_scope(self, frame: Frame | None = None, lane: int | None = None):
        from amddbg.session.scope import ProgramScope

        return ProgramScope(self, frame if frame is not None else self.current_frame,
                            self.focus.lane if lane is None else lane)

    def evaluate(self, expression: str, *, lane: int | None = None, frame: Frame | None = None):
        from amddbg.session.expr import evaluate

        return evaluate(expression, self.eval_scope(frame, lane))

    def evaluate_lanes(self, expression: str, *, frame: Frame | None = None, lanes: Sequence[int] | None = None):
        from amddbg.session.expr import evaluate, parse_with
        from amddbg.session.values import LaneValues

        t = self.focus.thread
        if t is None or not t.is_wave:
            raise UsageError("print -lane all needs a GPU wave in focus")
        tree = parse_with(self.eval_scope(frame, self.focus.lane), expression)
        active = set(t.active_lanes)
        values = {}
        for ln in (lanes if lanes is not None else range(t.lanes)):
            try:
                v = evaluate(tree, self.eval_scope(frame, ln))
            except Unavailable as exc:
                from amddbg.session.values import Value

                v = Value.unavailable(exc.why)
            v.lane = ln
            v.pc_marked = ln not in active
            values[ln] = v
        return LaneValues(values)

    def record(self, value) -> int:
        """Append to the value history (`$N`) and return N."""
        self.history.append(value)
        return len(self.history)

    def close(self) -> None:
        if self.core is not None:
            self.core.close()


def _wave_order(w) -> tuple:
    wg = w.workgroup or (0, 0, 0)
    return (w.gpu_id, w.queue_id, w.dispatch_id if w.dispatch_id is not None else -1, wg[2], wg[1], wg[0],
            w.wave_in_group if w.wave_in_group is not None else w.index, w.xcc_id, w.index)


def _is_core(path: str) -> bool:
    """An ELF ET_CORE file (or anything that is not an AMDGPU code object: the core reader says why)."""
    try:
        with builtins.open(path, "rb") as f:
            head = f.read(18)
    except OSError as exc:
        raise FormatError(f"cannot open: {exc.strerror}", file=path) from None
    if len(head) < 18 or head[:4] != b"\x7fELF":
        return False
    return int.from_bytes(head[16:18], "little") == 4  # ET_CORE


def open(paths: str | os.PathLike | Sequence[str | os.PathLike], *, sysroot: str | None = None,  # noqa: A001
         solib_search_path=None) -> Program:
    """Open a core (split `core.gpu`, a host core + GPU core pair, a unified core), or code objects alone.

    Code objects given next to a core are added to those the core's link map names (useful when the
    core holds file:// URIs whose files moved).
    """
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    paths = [os.fspath(p) for p in paths]
    if not paths:
        raise UsageError("amddbg.open: no file given")
    from amddbg.textsafe import check_regular

    for p in paths:
        check_regular(p)
    cores = [p for p in paths if _is_core(p)]
    others = [p for p in paths if p not in cores]
    statics = []
    for p in others:
        from amddbg.codeobj import CodeObject

        co = CodeObject.from_path(p)
        statics.append(LoadedCodeObject(co, uri=f"file://{os.path.abspath(p)}", load_address=0))
    core = None
    if cores:
        from amddbg.core import open_core

        core = open_core(cores if len(cores) > 1 else cores[0], sysroot=sysroot,
                         solib_search_path=solib_search_path)
    return Program(core=core, static_code_objects=statics, paths=paths)


_ENDS_STRAIGHT_LINE = ("s_barrier", "s_endpgm", "s_setpc", "s_swappc", "s_call", "s_trap")


def _peeled_poll(insns: list, address: int, header: int, body: list) -> bool:
    """The loop's first iteration peeled before it: the straight-line code around `address` (back to the last
    branch, forward to the loop `header`) issues a load that the loop body repeats (same instruction text: same
    address operands), and from `address` the code reaches the header with no store, barrier, call or end on
    the way. The wave is then about to poll, polling, or testing its first poll: in the poll either way."""
    if address >= header:
        return False
    polls = {i.text for i in body if i.memory is not None and i.memory.is_load}
    k = next((n for n, i in enumerate(insns) if i.address == address), None)
    if k is None:
        return False
    seen = False
    for i in insns[k:]:
        if i.address >= header:
            break
        if i.mnemonic.startswith(_ENDS_STRAIGHT_LINE) or (i.memory is not None and i.memory.is_store):
            return False
        seen = seen or (i.memory is not None and i.memory.is_load and i.text in polls)
    for i in reversed(insns[:k]):
        if i.is_branch or i.mnemonic.startswith(_ENDS_STRAIGHT_LINE):
            break
        seen = seen or (i.memory is not None and i.memory.is_load and i.text in polls)
    return seen
