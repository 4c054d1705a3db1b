"""Rich rendering of `amddbg info` documents (the JSON form is the model; this is only a view).

Two rules hold for every table here (issue 14):

* input-derived text (names, URIs, paths) goes to rich as `Text` through `amddbg.textsafe.rich_text`,
  never as markup, with control characters escaped; only our own constant labels carry styles;
* identifiers are never wrapped mid-name: every column is `no_wrap`; piped output is as wide as its
  rows (grep finds whole names) and a narrow terminal gets a compact borderless layout whose free-text
  columns are cut with an ellipsis rather than folded.
"""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from amddbg.textsafe import rich_text

# Piped output has no width: rows are printed whole (rich needs a number; no row comes near this).
PIPE_WIDTH = 4096
# Below this many columns tables drop their borders and padding.
WIDE = 120

_FEATURE_TEXT = {"on": "+", "off": "-", "any": "any", "unsupported": "unsupported"}


class _Console(Console):
    def on_broken_pipe(self) -> None:
        """Output piped into `head` and closed: stop quietly (rich's default exits with status 1)."""
        self.quiet = True
        raise BrokenPipeError


def make_console(file=None) -> Console:
    """The console for stdout: terminal width on a TTY, unbounded rows when piped."""
    out = file or sys.stdout
    width = None if out.isatty() else PIPE_WIDTH
    return _Console(file=out, highlight=False, soft_wrap=False, width=width)


class _Table(Table):
    """A Table whose fixed (non-free) columns grow to their widest cell, so rich never cuts them."""

    free: frozenset[str] = frozenset()

    def add_row(self, *renderables, **kw) -> None:
        super().add_row(*renderables, **kw)
        for col, cell in zip(self.columns, renderables, strict=False):
            if col.header not in self.free and isinstance(cell, Text | str):
                width = cell.cell_len if isinstance(cell, Text) else len(cell)
                col.min_width = max(col.min_width or 0, width, len(str(col.header)))


def table(console: Console, title: str | Text | None = None, columns: list[str] = (),
          right: tuple[str, ...] = (), free: tuple[str, ...] = ()) -> Table:
    """A table that never wraps inside a cell.

    `right` columns are right-justified; `free` columns hold free text (names, URIs) that may be cut
    with an ellipsis on a narrow terminal; every other column keeps its widest cell whole.
    """
    from rich import box

    narrow = console.width < WIDE
    t = _Table(title=title, title_justify="left", box=None if narrow else box.HEAVY_HEAD,
               pad_edge=not narrow, collapse_padding=narrow, show_edge=not narrow, header_style="bold")
    t.free = frozenset(free)
    for c in columns:
        # free columns may shrink (rich only collapses wrappable columns); "ellipsis" cuts a long name
        # instead of folding it, and a multi-word cell breaks only between words
        t.add_column(c, justify="right" if c in right else "left", no_wrap=c not in free, overflow="ellipsis")
    return t


def cells(*values: object) -> list[Text]:
    """Row cells from plain values, each safe (escaped, never markup)."""
    return [v if isinstance(v, Text) else rich_text(v) for v in values]


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
    head.add_column(style="bold", no_wrap=True)
    head.add_column(overflow="ellipsis")  # a long path is cut, not folded mid-name
    head.add_row(*cells("file", str(doc.get("file"))))
    head.add_row(*cells("processor", f"{doc['processor']} ({doc.get('family') or 'unknown family'})"))
    head.add_row(*cells("target id", doc["target_id"]))
    feats = ", ".join(f"{k} {_FEATURE_TEXT.get(v, v)}" for k, v in doc["features"].items())
    head.add_row(*cells("features", feats))
    head.add_row(*cells("code object", f"v{doc['code_object_version']} ({doc['os_abi']}, ELF {doc['elf_type']}, "
                                       f"e_flags {doc['e_flags']:#x})"))
    if doc.get("generic_version"):
        head.add_row(*cells("generic version", str(doc["generic_version"])))
    if doc.get("metadata_version"):
        head.add_row(*cells("metadata", f"amdhsa.version {'.'.join(map(str, doc['metadata_version']))}, "
                                        f"target {doc.get('metadata_target')}"))
    console.print(head)

    cols = ["kernel", "entry", "wave", "sgpr", "vgpr", "agpr", "lds", "scratch", "kernarg", "max wg", "dyn"]
    kernels = table(console, f"{len(doc['kernels'])} kernel(s)", cols, right=tuple(cols[1:]), free=("kernel",))
    for k in doc["kernels"]:
        kernels.add_row(*cells(
            k["name"], f"{k['entry_address']:#x}" if k.get("entry_address") is not None else "-",
            _fmt_size(k.get("wavefront_size")), _fmt_size(k.get("sgpr_count")), _fmt_size(k.get("vgpr_count")),
            _fmt_size(k.get("agpr_count")), _fmt_size(k.get("group_segment_fixed_size")),
            _fmt_size(k.get("private_segment_fixed_size")), _fmt_size(k.get("kernarg_segment_size")),
            _fmt_size(k.get("max_flat_workgroup_size")),
            "-" if k.get("uses_dynamic_stack") is None else ("yes" if k["uses_dynamic_stack"] else "no")))
    console.print(kernels)

    if show_args:
        for k in doc["kernels"]:
            _render_kernel_details(k, console)

    funcs = [f for f in doc["functions"] if f["kind"] == "function"]
    if funcs:
        t = table(console, f"{len(funcs)} device function(s)", ["function", "address", "size"],
                  right=("address", "size"), free=("function",))
        for f in funcs:
            t.add_row(*cells(f["name"], f"{f['address']:#x}", str(f["size"])))
        console.print(t)
    if doc.get("lds_symbols"):
        t = table(console, "LDS symbols", ["symbol", "size", "alignment"], right=("size", "alignment"),
                  free=("symbol",))
        for s in doc["lds_symbols"]:
            t.add_row(*cells(s["name"], str(s["size"]), str(s["alignment"])))
        console.print(t)


def _render_kernel_details(k: dict[str, Any], console: Console) -> None:
    t = table(console, rich_text(f"{k['name']}: arguments"),
              ["#", "offset", "size", "kind", "address space", "type", "name"], free=("type", "name"))
    for i, a in enumerate(k.get("args", []) or []):
        t.add_row(*cells(str(i), str(a.get("offset", "-")), str(a.get("size", "-")), str(a.get("value_kind", "-")),
                         str(a.get("address_space", "")), str(a.get("type_name", "")), str(a.get("name", ""))))
    console.print(t)
    d = k.get("descriptor")
    if not d:
        return
    t = table(console, rich_text(f"{k['name']}: kernel descriptor at {d['address']:#x}"), ["field", "value"],
              right=("value",))
    for key in ("group_segment_fixed_size", "private_segment_fixed_size", "kernarg_size",
                "kernel_code_entry_byte_offset", "wavefront_size"):
        t.add_row(*cells(key, str(d[key])))
    for reg in ("compute_pgm_rsrc1", "compute_pgm_rsrc2", "compute_pgm_rsrc3", "kernel_code_properties",
                "kernarg_preload"):
        fields = d[reg]
        t.add_row(Text(reg, style="bold"), rich_text(f"{fields['raw']:#x}"))
        for name, value in fields.items():
            if name != "raw":
                t.add_row(*cells(f"  {name}", str(value)))
    console.print(t)


def _render_container(doc: dict[str, Any], console: Console, show_args: bool) -> None:
    entries = doc["code_objects"]
    t = table(console, rich_text(f"{doc['file']}: {doc['container']} with {len(entries)} embedded entries"),
              ["#", "bundle", "entry id", "offset", "size", "target", "cov", "kernels"],
              right=("#", "offset", "size", "kernels", "bundle"), free=("entry id",))
    for e in entries:
        t.add_row(*cells(str(e["index"]), str(e.get("bundle_index", "")), str(e.get("bundle_entry_id") or "(raw ELF)"),
                         f"{e['offset']:#x}", str(e["size"]),
                         str(e.get("target_id", "-")).partition("--")[2] or "-",
                         str(e.get("code_object_version", "-")),
                         str(e.get("kernel_count", len(e.get("kernels", [])) if "kernels" in e else "-"))))
    console.print(t)
    for e in entries:
        if "kernels" in e:
            _render_code_object(e, console, show_args)
