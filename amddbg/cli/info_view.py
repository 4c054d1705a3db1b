"""Rich rendering of `amddbg info` documents (the JSON form is the model; this is only a view)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

_FEATURE_TEXT = {"on": "+", "off": "-", "any": "any", "unsupported": "unsupported"}


class _Console(Console):
    def on_broken_pipe(self) -> None:
        """Output piped into `head` and closed: stop quietly (rich's default exits with status 1)."""
        self.quiet = True
        raise BrokenPipeError


def make_console() -> Console:
    import sys

    # Piped output is read by people with wide terminals and by grep: do not squeeze names to 80 columns.
    width = None if sys.stdout.isatty() else 160
    return _Console(highlight=False, soft_wrap=False, width=width)


def _fmt_size(n: int | None) -> str:
    return "-" if n is None else str(n)


def render(doc: dict[str, Any], *, show_args: bool = False, console: Console | None = None) -> None:
    console = console or make_console()
    if "container" in doc:
        _render_container(doc, console, show_args)
    else:
        _render_code_object(doc, console, show_args)


def _render_code_object(doc: dict[str, Any], console: Console, show_args: bool) -> None:
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column()
    head.add_row("file", str(doc.get("file")))
    head.add_row("processor", f"{doc['processor']} ({doc.get('family') or 'unknown family'})")
    head.add_row("target id", doc["target_id"])
    feats = ", ".join(f"{k} {_FEATURE_TEXT.get(v, v)}" for k, v in doc["features"].items())
    head.add_row("features", feats)
    head.add_row("code object", f"v{doc['code_object_version']} ({doc['os_abi']}, ELF {doc['elf_type']}, "
                                f"e_flags {doc['e_flags']:#x})")
    if doc.get("generic_version"):
        head.add_row("generic version", str(doc["generic_version"]))
    if doc.get("metadata_version"):
        head.add_row("metadata", f"amdhsa.version {'.'.join(map(str, doc['metadata_version']))}, "
                                 f"target {doc.get('metadata_target')}")
    console.print(head)

    kernels = Table(title=f"{len(doc['kernels'])} kernel(s)", title_justify="left")
    kernels.add_column("kernel", overflow="fold", min_width=12)
    for col in ("entry", "wave", "sgpr", "vgpr", "agpr", "lds", "scratch", "kernarg", "max wg", "dyn stack"):
        kernels.add_column(col, justify="right", no_wrap=True)
    for k in doc["kernels"]:
        kernels.add_row(
            k["name"], f"{k['entry_address']:#x}" if k.get("entry_address") is not None else "-",
            _fmt_size(k.get("wavefront_size")), _fmt_size(k.get("sgpr_count")), _fmt_size(k.get("vgpr_count")),
            _fmt_size(k.get("agpr_count")), _fmt_size(k.get("group_segment_fixed_size")),
            _fmt_size(k.get("private_segment_fixed_size")), _fmt_size(k.get("kernarg_segment_size")),
            _fmt_size(k.get("max_flat_workgroup_size")),
            "-" if k.get("uses_dynamic_stack") is None else ("yes" if k["uses_dynamic_stack"] else "no"))
    console.print(kernels)

    if show_args:
        for k in doc["kernels"]:
            _render_kernel_details(k, console)

    funcs = [f for f in doc["functions"] if f["kind"] == "function"]
    if funcs:
        t = Table(title=f"{len(funcs)} device function(s)", title_justify="left")
        t.add_column("function")
        t.add_column("address", justify="right")
        t.add_column("size", justify="right")
        for f in funcs:
            t.add_row(f["name"], f"{f['address']:#x}", str(f["size"]))
        console.print(t)
    if doc.get("lds_symbols"):
        t = Table(title="LDS symbols", title_justify="left")
        t.add_column("symbol")
        t.add_column("size", justify="right")
        t.add_column("alignment", justify="right")
        for s in doc["lds_symbols"]:
            t.add_row(s["name"], str(s["size"]), str(s["alignment"]))
        console.print(t)


def _render_kernel_details(k: dict[str, Any], console: Console) -> None:
    t = Table(title=f"{k['name']}: arguments", title_justify="left")
    for col in ("#", "offset", "size", "kind", "address space", "type", "name"):
        t.add_column(col)
    for i, a in enumerate(k.get("args", []) or []):
        t.add_row(str(i), str(a.get("offset", "-")), str(a.get("size", "-")), str(a.get("value_kind", "-")),
                  str(a.get("address_space", "")), str(a.get("type_name", "")), str(a.get("name", "")))
    console.print(t)
    d = k.get("descriptor")
    if not d:
        return
    t = Table(title=f"{k['name']}: kernel descriptor at {d['address']:#x}", title_justify="left")
    t.add_column("field")
    t.add_column("value", justify="right")
    for key in ("group_segment_fixed_size", "private_segment_fixed_size", "kernarg_size",
                "kernel_code_entry_byte_offset", "wavefront_size"):
        t.add_row(key, str(d[key]))
    for reg in ("compute_pgm_rsrc1", "compute_pgm_rsrc2", "compute_pgm_rsrc3", "kernel_code_properties",
                "kernarg_preload"):
        fields = d[reg]
        t.add_row(f"[bold]{reg}[/bold]", f"{fields['raw']:#x}")
        for name, value in fields.items():
            if name != "raw":
                t.add_row(f"  {name}", str(value))
    console.print(t)


def _render_container(doc: dict[str, Any], console: Console, show_args: bool) -> None:
    entries = doc["code_objects"]
    t = Table(title=f"{doc['file']}: {doc['container']} with {len(entries)} embedded entries", title_justify="left")
    for col in ("#", "bundle", "entry id", "offset", "size", "target", "cov", "kernels"):
        t.add_column(col, justify="right" if col in ("#", "offset", "size", "kernels", "bundle") else "left")
    for e in entries:
        t.add_row(str(e["index"]), str(e.get("bundle_index", "")), str(e.get("bundle_entry_id") or "(raw ELF)"),
                  f"{e['offset']:#x}", str(e["size"]), str(e.get("target_id", "-")).partition("--")[2] or "-",
                  str(e.get("code_object_version", "-")),
                  str(e.get("kernel_count", len(e.get("kernels", [])) if "kernels" in e else "-")))
    console.print(t)
    for e in entries:
        if "kernels" in e:
            _render_code_object(e, console, show_args)
