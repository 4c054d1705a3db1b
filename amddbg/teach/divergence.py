"""Lane divergence of a real kernel, measured by running it in the emulator.

Every executed instruction of every wave is recorded with the EXEC mask it ran under. Vector instructions
(VALU, vector memory, LDS) are folded onto their source lines: how many times each line's instructions
were issued, how many lane-slots they used (active lanes) out of the slots issued (the wave's width), the
SIMD efficiency (active / issued) and the lane-slots lost to divergence. Scalar instructions run once per
wave whatever EXEC says, so they are not part of the efficiency. Points where EXEC narrows are divergence
points (which lanes went on); where it widens again, the lanes reconverge.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from amddbg.dwarf.values import lane_ranges

VECTOR_SPACES = ("global", "flat", "scratch", "buffer", "lds", "gds")


def is_vector(insn) -> bool:
    if insn.mnemonic.startswith("v_"):
        return True
    mem = insn.memory
    return mem is not None and mem.space.value in VECTOR_SPACES


@dataclass
class LineStats:
    file: str
    line: int
    function: str
    issued: int = 0  # vector instructions issued (wave-instructions)
    slots: int = 0  # lane-slots issued (issued x wave width)
    active: int = 0  # lane-slots that did work
    masks: Counter = field(default_factory=Counter)  # EXEC masks this line ran under

    @property
    def efficiency(self) -> float:
        return self.active / self.slots if self.slots else 1.0

    @property
    def lost(self) -> int:
        return self.slots - self.active


@dataclass
class Event:
    wave: int
    seq: int
    pc: int
    line_key: tuple | None
    active: int
    lanes: int
    vector: bool
    exec_mask: int


@dataclass
class DivergenceReport:
    kernel: str
    lanes: int
    status: str
    reason: str
    lines: dict = field(default_factory=dict)  # (file, line) -> LineStats
    functions: dict = field(default_factory=dict)  # function -> [active, slots]
    waves: dict = field(default_factory=dict)  # wave index -> [active, slots, label]
    events: list = field(default_factory=list)
    divergences: list = field(default_factory=list)  # {"wave", "seq", "pc", "file", "line", "before", "after"}
    reconvergences: list = field(default_factory=list)
    sources: dict = field(default_factory=dict)  # (file, line) -> source text, where the file was found

    @property
    def active(self) -> int:
        return sum(s.active for s in self.lines.values())

    @property
    def slots(self) -> int:
        return sum(s.slots for s in self.lines.values())

    @property
    def efficiency(self) -> float:
        return self.active / self.slots if self.slots else 1.0

    def to_json(self) -> dict:
        def line_doc(s: LineStats) -> dict:
            return {"file": s.file, "line": s.line, "function": s.function, "issued": s.issued, "slots": s.slots,
                    "active": s.active, "efficiency": round(s.efficiency, 6), "lost": s.lost,
                    "lanes": [{"mask": lane_ranges(m, self.lanes), "count": n} for m, n in s.masks.most_common()]}

        return {
            "version": 1, "kernel": self.kernel, "lanes": self.lanes, "status": self.status, "reason": self.reason,
            "efficiency": round(self.efficiency, 6), "active": self.active, "slots": self.slots,
            "lost": self.slots - self.active,
            "lines": [line_doc(s) for s in sorted(self.lines.values(), key=lambda s: (s.file, s.line))],
            "functions": [{"function": f, "active": a, "slots": sl, "efficiency": round(a / sl, 6) if sl else 1.0}
                          for f, (a, sl) in sorted(self.functions.items())],
            "waves": [{"wave": i, "label": lab, "active": a, "slots": sl,
                       "efficiency": round(a / sl, 6) if sl else 1.0}
                      for i, (a, sl, lab) in sorted(self.waves.items())],
            "divergences": self.divergences, "reconvergences": self.reconvergences,
        }


def record(machine, *, max_instructions: int | None = 2_000_000) -> DivergenceReport:
    """Run the dispatched machine to the end, recording EXEC per executed instruction."""
    from amddbg.dwarf.demangle import demangle

    src_cache: dict[int, tuple | None] = {}
    lines: dict[tuple, LineStats] = {}
    funcs: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    waves: dict[int, list] = {}
    events: list[Event] = []
    divs: list[dict] = []
    recs: list[dict] = []
    seq: Counter = Counter()
    diverged: set[int] = set()  # waves whose lanes are narrower than at launch
    launch_exec: dict[int, int] = {}  # each wave's EXEC at its first instruction
    pending: dict[int, dict] = {}  # wave -> a widening not yet known to be a reconvergence

    def source(pc: int):
        if pc not in src_cache:
            src = machine.wave_source_pc(pc)
            src_cache[pc] = None if src is None else (src["file"], src["line"], src["function"])
        return src_cache[pc]

    def hook(ev) -> None:
        w = ev.wave
        insn = ev.instruction
        s = source(ev.pc)
        key = (s[0], s[1]) if s else None
        active = bin(ev.exec_before).count("1")
        vec = is_vector(insn)
        launch_exec.setdefault(w.index, ev.exec_before)
        entry = waves.setdefault(w.index, [0, 0, f"wg({w.workgroup[0]},{w.workgroup[1]},{w.workgroup[2]})"
                                                  f"/{w.wave_in_group}"])
        if vec and key is not None:
            st = lines.get(key)
            if st is None:
                st = lines[key] = LineStats(s[0], s[1], demangle(s[2]) or s[2])
            st.issued += 1
            st.slots += w.lanes
            st.active += active
            st.masks[ev.exec_before] += 1
            fn = funcs[st.function]
            fn[0] += active
            fn[1] += w.lanes
            entry[0] += active
            entry[1] += w.lanes
        if w.exec != ev.exec_before:
            after = w.exec
            info = {"wave": w.index, "seq": seq[w.index], "event": len(events), "pc": f"{ev.pc:#x}",
                    "file": s[0] if s else None, "line": s[1] if s else None,
                    "before": lane_ranges(ev.exec_before, w.lanes),
                    "after": lane_ranges(after, w.lanes)}
            before = ev.exec_before
            # Teaching events, not every EXEC write: an empty EXEC is code the wave skips (s_cbranch_execz), so
            # moves to or from it are no event; a divergence narrows the lanes (after is a subset of before); a
            # reconvergence widens them back, and only in a wave that diverged (a wave that never diverged never
            # reconverges); if -> else flips between disjoint halves of one divergence.
            # A widening is held until the next change: -O0 code widens EXEC to the whole wave around a spill or
            # reload and narrows it straight back to the same lanes, which is neither a reconvergence nor a new
            # divergence (both are dropped).
            if before and after and after != before:
                held = pending.pop(w.index, None)
                if held is not None and after == held["before_mask"]:
                    pass  # a whole-wave excursion: back to the lanes it left
                else:
                    if held is not None:
                        recs.append(held["info"])
                        if held["after_mask"] == launch_exec.get(w.index):
                            diverged.discard(w.index)
                    if after & before == after:
                        divs.append(info)
                        diverged.add(w.index)
                    elif after & before == before and w.index in diverged:
                        pending[w.index] = {"info": info, "before_mask": before, "after_mask": after}
        events.append(Event(w.index, seq[w.index], ev.pc, key, active, w.lanes, vec, ev.exec_before))
        seq[w.index] += 1

    result = machine.run(max_instructions=max_instructions, hook=hook)
    recs.extend(held["info"] for held in pending.values())
    recs.sort(key=lambda d: d["event"])  # in the order they happened (a widening is kept until the next change)
    from amddbg.dwarf.demangle import plain_name

    kname = machine.dispatch_info.get("kernel", "?")
    rep = DivergenceReport(plain_name(demangle(kname) or kname), machine.lanes, result.status, result.reason,
                           lines, dict(funcs), waves, events, divs, recs)
    rep.sources = source_texts(lines, getattr(machine.co, "path", None))
    return rep


def add_picture_arguments(p) -> None:
    """--svg and --html, for `amddbg divergence` and the REPL's `divergence`."""
    p.add_argument("--svg", metavar="FILE", help="write the timeline as SVG (for slides)")
    p.add_argument("--html", metavar="FILE", help="write one self-contained HTML page")


def source_texts(lines: dict, near: str | None) -> dict:
    """(file, line) -> the line's text, for the files found (DWARF names them as the compiler saw them: the
    compilation directory is mapped onto directories near the code object, as `list` and `disasm -S` do)."""
    from amddbg.dwarf.source import SourcePaths

    paths = SourcePaths(near=near)
    out = {}
    for key in lines:
        file, line = key
        parts = file.split("/")
        for cut in range(2, len(parts)):  # each ancestor directory may be the compilation directory
            text = paths.line_text(file, line, "/".join(parts[:cut]))
            if text is not None:
                out[key] = text
                break
    return out
