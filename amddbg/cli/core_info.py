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
        frame = sym.frames(pc - ref.load_address)[0]
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


def run(args: argparse.Namespace) -> int:
    core = open_core(
        args.files,
        sysroot=getattr(args, "sysroot", None),
        solib_search_path=getattr(args, "solib_search_path", None),
    )
    registers = bool(getattr(args, "registers", False))
    if getattr(args, "json", False):
        json.dump(core_document(core, registers=registers), sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    render(core, registers=registers)
    return 0


def _hex(v) -> str:
    return "<unavailable>" if v is None else f"{v:#x}"


def render(core: Core, *, registers: bool = False, console=None) -> None:
    from rich.table import Table

    from amddbg.cli.info_view import make_console

    con = console or make_console()
    rs = core.runtime_info.get("runtime_state")
    con.print(
        f"[bold]{', '.join(f.path for f in core.files)}[/]: {core.layout} AMDGPU core, KFD "
        f"{core.kfd_version[0]}.{core.kfd_version[1]}, runtime {RUNTIME_STATES.get(rs, rs)}, "
        f"r_debug {_hex(core.runtime_info.get('r_debug'))}"
        + (f" (r_version {core.r_debug['r_version']})" if core.r_debug else "")
    )
    t = Table(title="Agents")
    for c in ("gpu_id", "target", "XCCs", "exceptions"):
        t.add_column(c)
    for a in core.agents:
        t.add_row(str(a.gpu_id), a.processor, str(a.num_xcc), ", ".join(a.exceptions) or "-")
    con.print(t)
    waves = core.waves  # decodes queues (fills read/write ids) before the queue table
    t = Table(title="Queues")
    for c in (
        "queue_id",
        "gpu_id",
        "type",
        "ring",
        "ring size",
        "ctx save area",
        "read/write id",
        "exceptions",
    ):
        t.add_column(c)
    for q in core.queues:
        ids = "-" if q.read_dispatch_id is None else f"{q.read_dispatch_id}/{q.write_dispatch_id}"
        t.add_row(
            str(q.queue_id),
            str(q.gpu_id),
            q.queue_type,
            _hex(q.ring_base_address),
            str(q.ring_size),
            _hex(q.ctx_save_restore_address),
            ids,
            ", ".join(q.exceptions) or "-",
        )
    con.print(t)
    t = Table(title="Dispatches")
    for c in ("queue", "dispatch_id", "grid", "workgroup", "kernel object", "entry", "kernel"):
        t.add_column(c)
    for d in core.dispatches:
        kd = d.kernel_descriptor
        t.add_row(
            str(d.queue_id),
            str(d.dispatch_id),
            "x".join(map(str, d.grid_size or ())) or "?",
            "x".join(map(str, d.workgroup_size or ())) or "?",
            _hex(d.kernel_object),
            _hex(kd.entry_address if kd else None),
            core.kernel_name(d) or d.error or "?",
        )
    con.print(t)
    t = Table(title="Code objects")
    t.add_column("load address")
    t.add_column("uri")
    for c in core.code_objects:
        t.add_row(_hex(c.load_address), c.uri)
    con.print(t)
    t = Table(title=f"Waves ({len(waves)})")
    for c in (
        "queue",
        "dispatch",
        "workgroup",
        "wave",
        "pc",
        "function",
        "source",
        "exec",
        "status",
        "trapsts",
        "stop reason",
    ):
        t.add_column(c)
    symbolizers: dict = {}
    for w in waves:
        sym = core.symbolize(w.pc) if core.code_objects else None
        src = wave_source(core, w.pc, symbolizers)
        t.add_row(
            str(w.queue_id),
            "?" if w.dispatch_id is None else str(w.dispatch_id),
            "?" if w.workgroup is None else "({},{},{})".format(*w.workgroup),
            "?" if w.wave_in_group is None else str(w.wave_in_group),
            _hex(w.pc),
            f"{sym[1]}+{sym[2]:#x}" if sym else "",
            f"{os.path.basename(src['file'])}:{src['line']}" if src else "",
            f"{w.exec:#x}",
            f"{w.status:#x}",
            "-" if w.trapsts is None else f"{w.trapsts:#x}",
            ", ".join(w.stop_reason) or "-",
        )
    con.print(t)
    if registers:
        for i, w in enumerate(waves):
            con.print(f"[bold]wave {i}[/] (queue {w.queue_id}, {w.processor}, wave{w.wave_size})")
            try:
                s = w.sgprs
                for j in range(0, len(s), 8):
                    con.print(f"  s{j:<4}" + " ".join(f"{v:08x}" for v in s[j : j + 8]), highlight=False)
            except Unavailable as exc:
                con.print(f"  sgprs <unavailable> ({exc.why})")
            try:
                for j, row in enumerate(w.vgprs):
                    for k in range(0, len(row), 8):
                        label = f"v{j}" if k == 0 else ""
                        con.print(
                            f"  {label:<5}" + " ".join(f"{v:08x}" for v in row[k : k + 8]) + f"  lanes {k}-{k + 7}",
                            highlight=False,
                        )
            except Unavailable as exc:
                con.print(f"  vgprs <unavailable> ({exc.why})")
    host = core.host
    if host.threads:
        t = Table(title="Host threads")
        for c in ("tid", "signal", "rip", "symbol", "instruction"):
            t.add_column(c)
        for th in host.threads:
            try:
                ins = host.disassemble(core.memory, th.pc, 1)
                text = f"{ins[0][1]} {ins[0][2]}" if ins else "<unavailable>"
            except AmddbgError:
                text = "<unavailable>"
            t.add_row(str(th.tid), str(th.signal), _hex(th.pc), host.symbolize(th.pc) or "", text)
        con.print(t)
    for w in core.warnings:
        con.print(f"[yellow]warning:[/] {w}", highlight=False)
