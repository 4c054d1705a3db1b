"""`amddbg info [--json] [--registers] CORE...`: what a GPU core holds (the core layer's view).

`amddbg/cli/info.py` hands cores here. `core_document` builds the JSON document (schema in issue 6 and
docs/cores.md); the human view renders the same data as rich tables.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from amddbg.core import Core, open_core
from amddbg.core.kfd import RUNTIME_STATES
from amddbg.errors import AmddbgError, Unavailable
from amddbg.textsafe import safe


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="CORE", help="a GPU or unified core, or a host core + GPU core")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument("--registers", action="store_true", help="include each wave's SGPRs and VGPRs")
    add_core_options(p)


def add_core_options(p: argparse.ArgumentParser) -> None:
    """The options only cores need (for `amddbg info`'s parser to add next to its own)."""
    p.add_argument("--sysroot", metavar="DIR", help="prefix for file:// code object paths")
    p.add_argument("--solib-search-path", metavar="PATH", help="directories searched for file:// code objects")


def wave_source(core: Core, pc: int, symbolizers: dict) -> dict | None:
    """Innermost source frame of a GPU PC from its code object's DWARF: {"function", "file", "line"}.

    None when the PC is in no loaded code object or the object has no line information; a damaged
    DWARF section only costs this column, never the core listing.
    """
    hit = core.symbolize(pc) if core.code_objects else None
    if hit is None:
        return None
    ref = hit[0]
    sym = symbolizers.get(ref.load_address)
    if sym is None:
        from amddbg.dwarf.symbolize import Symbolizer

        try:
            sym = Symbolizer.from_code_object(ref.codeobj, use_cache=False)
        except AmddbgError:
            sym = False
        symbolizers[ref.load_address] = sym
    if not sym:
        return None
    try:
        from amddbg.dwarf.attribution import user_frames

        frame = user_frames(sym, pc - ref.load_address)[0]  # gdb's line for a line-0 row, as bt shows
    except (AmddbgError, IndexError):
        return None
    if not frame.file:
        return None
    return {"function": frame.function, "file": frame.file, "line": frame.line}


def wave_document(core: Core, w, registers: bool, symbolizers: dict | None = None) -> dict:
    d = {
        "gpu_id": w.gpu_id,
        "queue_id": w.queue_id,
        "dispatch_id": w.dispatch_id,
        "workgroup": list(w.workgroup) if w.workgroup is not None else None,
        "wave_in_group": w.wave_in_group,
        "pc": w.pc,
        "exec": w.exec,
        "status": w.status,
        "trapsts": w.trapsts,
        "stop_reason": w.stop_reason,
        "source": wave_source(core, w.pc, symbolizers if symbolizers is not None else {}),
    }
    if registers:
        # the scalar registers dbgapi shows besides the files: m0, MODE, and gfx12's exception and
        # trap-control registers (EXCP_FLAG_PRIV/USER, TRAP_CTRL replace TRAPSTS there)
        d["m0"] = w.m0
        d["mode"] = w.mode
        for name in ("excp_flag_priv", "excp_flag_user", "trap_ctrl"):
            if name in w.family.hwreg_slots:
                d[name] = w.hwreg(name)
        try:
            d["sgprs"] = w.sgprs
        except Unavailable:
            d["sgprs"] = None
        try:
            d["vgprs"] = w.vgprs
        except Unavailable:
            d["vgprs"] = None
        if w.sizes.accvgprs:
            try:
                d["accvgprs"] = w.accvgprs
            except Unavailable:
                d["accvgprs"] = None
    return d


def core_document(core: Core, *, registers: bool = False) -> dict:
    """The `amddbg info --json` document for an opened core."""
    waves = core.waves
    symbolizers: dict = {}  # one DWARF index per loaded code object, shared by all waves
    return {
        "layout": core.layout,
        "kfd_version": list(core.kfd_version),
        "agents": [
            {
                "gpu_id": a.gpu_id,
                "target": a.processor,
                "num_xcc": a.num_xcc,
                "exception_status": a.exceptions,
                # what dbgapi checks before debugging the agent (docs/hardening.md)
                **{k: a.entry.get(k, 0) for k in ("device_id", "location_id", "fw_version", "capability",
                                                  "debug_prop", "simd_count", "max_waves_per_simd")},
            }
            for a in core.agents
        ],
        "queues": [
            {
                "queue_id": q.queue_id,
                "gpu_id": q.gpu_id,
                "ring_base_address": q.ring_base_address,
                "ring_size": q.ring_size,
                "ctx_save_restore_address": q.ctx_save_restore_address,
            }
            for q in core.queues
        ],
        "code_objects": [{"uri": c.uri, "load_address": c.load_address} for c in core.code_objects],
        "waves": [wave_document(core, w, registers, symbolizers) for w in waves],
        "warnings": list(core.warnings),
    }


def group_core_files(paths: list[str]) -> list[list[str]]:
    """Which files make one core: each GPU or unified core alone, a host core with the split GPU core
    next to it. `amddbg info A.core B.core` then shows both cores, not A's GPU state only."""
    from amddbg.core.elffile import ElfCore
    from amddbg.core.kfd import NOTE_NAME, NT_AMDGPU_KFD_CORE_STATE

    kinds = []
    for p in paths:
        try:
            f = ElfCore(p)
        except AmddbgError:
            kinds.append("bad")  # stands alone; opening it reports the error after the others are shown
            continue
        try:
            has_note = any(n.name == NOTE_NAME and n.type == NT_AMDGPU_KFD_CORE_STATE for n in f.notes)
            kinds.append("split" if f.is_gpu_core else "unified" if has_note else "host")
        finally:
            f.close()
    # A host core pairs with the split GPU core next to it on the command line (as `HOST GPU` or
    # `GPU HOST`); every other core stands alone.
    partner: dict[int, int] = {}
    for i, k in enumerate(kinds):
        if k != "host":
            continue
        for j in (i + 1, i - 1):
            if 0 <= j < len(kinds) and kinds[j] == "split" and j not in partner:
                partner[j] = i
                partner[i] = j
                break
    groups: list[list[str]] = []
    for i, (p, k) in enumerate(zip(paths, kinds, strict=True)):
        if k == "host" and i in partner:
            continue
        groups.append([paths[partner[i]], p] if k == "split" and i in partner else [p])
    return groups


def run(args: argparse.Namespace) -> int:
    groups = group_core_files(list(args.files))
    registers = bool(getattr(args, "registers", False))
    cores, bad = [], []
    for g in groups:  # a core that cannot be opened is reported after the others are shown
        try:
            cores.append(open_core(g, sysroot=getattr(args, "sysroot", None),
                                   solib_search_path=getattr(args, "solib_search_path", None)))
        except AmddbgError as exc:
            if len(groups) == 1:
                raise
            bad.append(exc)
    if not cores:
        raise bad[0]
    rc = _show(cores, args, registers)
    if bad:
        raise bad[0]
    return rc


def _show(cores: list, args: argparse.Namespace, registers: bool) -> int:
    if getattr(args, "json", False):
        docs = []
        for core in cores:
            d = core_document(core, registers=registers)
            d["files"] = [f.path for f in core.files]
            docs.append(d)
        json.dump(docs[0] if len(docs) == 1 else {"cores": docs}, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    kernel = getattr(args, "kernel", None)
    for core in cores:
        render(core, registers=registers, kernel=kernel)
        # Warnings are diagnostics, not output: stderr, escaped, after the core's tables.
        for w in core.warnings:
            print(f"amddbg: warning: {safe(w)}", file=sys.stderr)
    return 0


def _hex(v) -> str:
    return "<unavailable>" if v is None else f"{v:#x}"


def _sgpr_rows(w) -> list[int]:
    return w.sgprs


def render(core: Core, *, registers: bool = False, console=None, kernel: str | None = None) -> None:
    """Rich tables of one core. Input-derived text goes in as escaped `Text` (never markup)."""
    from rich.text import Text

    from amddbg.cli.info_view import WIDE, cells, make_console, table

    con = console or make_console()
    narrow = con.width < WIDE
    rs = core.runtime_info.get("runtime_state")
    head = Text()
    head.append(safe(", ".join(f.path for f in core.files)), style="bold")
    head.append(
        f": {core.layout} AMDGPU core, KFD "
        f"{core.kfd_version[0]}.{core.kfd_version[1]}, runtime {RUNTIME_STATES.get(rs, rs)}, "
        f"r_debug {_hex(core.runtime_info.get('r_debug'))}"
        + (f" (r_version {core.r_debug['r_version']})" if core.r_debug else "")
    )
    con.print(head)
    t = table(con, "Agents", ["gpu_id", "target", "XCCs", "firmware", "device", "exceptions"],
              free=("exceptions",))
    for a in core.agents:
        e = a.entry
        t.add_row(*cells(a.gpu_id, a.processor, a.num_xcc, e.get("fw_version", 0),
                         f"{e.get('device_id', 0):#06x}", ", ".join(a.exceptions) or "-"))
    con.print(t)
    waves = core.waves  # decodes queues (fills read/write ids) before the queue table
    t = table(con, "Queues", ["queue", "gpu_id", "type", "ring", "size", "ctx save area", "r/w id", "exceptions"],
              right=("size",), free=("exceptions",))
    for q in core.queues:
        ids = "-" if q.read_dispatch_id is None else f"{q.read_dispatch_id}/{q.write_dispatch_id}"
        t.add_row(*cells(q.queue_id, q.gpu_id, q.queue_type, _hex(q.ring_base_address), q.ring_size,
                         _hex(q.ctx_save_restore_address), ids, ", ".join(q.exceptions) or "-"))
    con.print(t)
    # "pkid": the AQL packet id, as ROCgdb labels it (PKID); "dispatch" is ROCgdb's 1-based handle in the REPL
    head = ["queue", "pkid", "grid", "workgroup", "kernel object", "entry"]
    rows = []
    for d in core.dispatches:
        kd = d.kernel_descriptor
        rows.append(([str(d.queue_id), str(d.dispatch_id), "x".join(map(str, d.grid_size or ())) or "?",
                      "x".join(map(str, d.workgroup_size or ())) or "?", _hex(d.kernel_object),
                      _hex(kd.entry_address if kd else None)], core.kernel_name(d) or d.error or "?"))
    if narrow:  # the kernel name on its own line, never cut
        _listing(con, "Dispatches", head, [(r, f"kernel {k}") for r, k in rows])
    else:
        t = table(con, "Dispatches", [*head, "kernel"], free=("kernel",))
        for r, k in rows:
            t.add_row(*cells(*r, k))
        con.print(t)
    t = table(con, "Code objects", ["load address", "uri"], free=("uri",))
    for c in core.code_objects:
        t.add_row(*cells(_hex(c.load_address), c.uri))
    con.print(t)
    if kernel is not None:
        from amddbg.dwarf.demangle import name_matches as matches
        from amddbg.errors import UsageError

        names = {core.kernel_name(d) for d in core.dispatches} - {None}
        if not any(matches(kernel, n) for n in names):
            raise UsageError(f"no dispatch of a kernel named {safe(kernel)!r} in this core "
                             f"(dispatched: {', '.join(sorted(safe(n) for n in names)) or 'none known'})")
        waves = [w for w in waves if matches(kernel, _wave_kernel(core, w))]
    symbolizers: dict = {}
    rows = []
    for w in waves:
        sym = core.symbolize(w.pc) if core.code_objects else None
        src = wave_source(core, w.pc, symbolizers)
        rows.append((w, f"{sym[1]}+{sym[2]:#x}" if sym else "",
                     f"{os.path.basename(src['file'])}:{src['line']}" if src else ""))
    where = [("?" if w.workgroup is None else "({},{},{})".format(*w.workgroup)) for w, _, _ in rows]
    if narrow:
        _narrow_waves(con, rows, where)
    else:
        t = table(con, f"Waves ({len(rows)})", ["queue", "pkid", "workgroup", "wave", "pc", "function",
                                                 "source", "exec", "status", "trapsts", "stop reason"],
                  free=("stop reason",))
        for (w, fn, src), wg in zip(rows, where, strict=True):
            t.add_row(*cells(w.queue_id, "?" if w.dispatch_id is None else w.dispatch_id, wg,
                             "?" if w.wave_in_group is None else w.wave_in_group, _hex(w.pc), fn, src,
                             f"{w.exec:#x}", f"{w.status:#x}", "-" if w.trapsts is None else f"{w.trapsts:#x}",
                             ", ".join(w.stop_reason) or "-"))
        con.print(t)
    if registers:
        for i, w in enumerate(waves):
            title = Text(f"wave {i}", style="bold")
            title.append(f" (queue {w.queue_id}, {safe(w.processor)}, wave{w.wave_size})")
            con.print(title)
            try:
                s = w.sgprs
                for j in range(0, len(s), 8):
                    con.print(Text(f"  s{j:<4}" + " ".join(f"{v:08x}" for v in s[j : j + 8])))
            except Unavailable as exc:
                con.print(Text(f"  sgprs <unavailable> ({safe(exc.why)})"))
            try:
                for j, row in enumerate(w.vgprs):
                    for k in range(0, len(row), 8):
                        label = f"v{j}" if k == 0 else ""
                        con.print(Text(f"  {label:<5}" + " ".join(f"{v:08x}" for v in row[k : k + 8])
                                       + f"  lanes {k}-{k + 7}"))
            except Unavailable as exc:
                con.print(Text(f"  vgprs <unavailable> ({safe(exc.why)})"))
    host = core.host
    if host.threads:
        t = table(con, "Host threads", ["tid", "signal", "rip", "symbol", "instruction"],
                  free=("symbol", "instruction"))
        for th in host.threads:
            try:
                ins = host.disassemble(core.memory, th.pc, 1)
                text = f"{ins[0][1]} {ins[0][2]}" if ins else "<unavailable>"
            except AmddbgError:
                text = "<unavailable>"
            t.add_row(*cells(th.tid, th.signal, _hex(th.pc), host.symbolize(th.pc) or "", text))
        con.print(t)


def _listing(con, title: str, head: list[str], rows: list[tuple[list[str], str]]) -> None:
    """A borderless listing for narrow terminals: fixed-width columns of short values, each row
    followed by its long text (names, sources) indented on a line of its own."""
    from rich.text import Text

    widths = [max([len(h)] + [len(r[c]) for r, _ in rows]) for c, h in enumerate(head)]
    con.print(Text(title, style="italic"))
    con.print(Text(" ".join(h.ljust(widths[c]) for c, h in enumerate(head)).rstrip(), style="bold"))
    for r, extra in rows:
        con.print(Text(safe(" ".join(v.ljust(widths[c]) for c, v in enumerate(r)).rstrip())))
        if extra:
            con.print(Text("    " + safe(extra)))


def _narrow_waves(con, rows, where) -> None:
    """The wave table for terminals under 120 columns: a line of numbers per wave (about 75 columns),
    then the wave's function and source line indented below it, never cut or folded mid-name."""
    head = ["#", "queue", "pkid", "workgroup", "wave", "pc", "exec", "status", "stop reason"]
    body = []
    for i, ((w, fn, src), wg) in enumerate(zip(rows, where, strict=True)):
        body.append(([str(i), str(w.queue_id), "?" if w.dispatch_id is None else str(w.dispatch_id), wg,
                      "?" if w.wave_in_group is None else str(w.wave_in_group), _hex(w.pc), f"{w.exec:#x}",
                      f"{w.status:#x}", ", ".join(w.stop_reason) or "-"],
                     (fn + (f"  at {src}" if src else "")) if (fn or src) else ""))
    _listing(con, f"Waves ({len(rows)})", head, body)


def _wave_kernel(core: Core, w) -> str | None:
    d = next((d for d in core.dispatches if d.queue_id == w.queue_id and d.dispatch_id == w.dispatch_id), None)
    return core.kernel_name(d) if d is not None else None
