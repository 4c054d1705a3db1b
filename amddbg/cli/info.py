"""`amddbg info FILE...`: what a code object, bundle, host binary or core contains.

Human output is rich tables; `--json` prints one JSON document for scripts (schema in docs/info.md).
Cores are handed to `amddbg.cli.core_info` (the core layer's view).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from typing import Any

from amddbg.codeobj import CodeObject, classify, embedded_code_objects
from amddbg.dwarf.demangle import name_matches
from amddbg.errors import AmddbgError, FormatError, NotSupported, UsageError
from amddbg.textsafe import safe


def add_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="code object, offload bundle, host binary with device code, or core file(s)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument("--registers", action="store_true", help="cores: include wave registers")
    p.add_argument("--kernel", metavar="NAME", help="show only this kernel (name or symbol)")
    p.add_argument("--args", action="store_true", help="show kernel arguments and descriptor fields")
    p.add_argument("--index", type=int, metavar="N",
                   help="bundles/host binaries: show code object N of the container in full")
    p.add_argument("--sysroot", metavar="DIR", help="cores: prefix for file:// code object paths")
    p.add_argument("--solib-search-path", metavar="PATH",
                   help="cores: directories searched for file:// code objects (':'-separated)")


def run(args: argparse.Namespace) -> int:
    """Every readable file is shown; a file that cannot be read is the one-line error (exit 2) after the
    others' output, not the end of the run before it (`info A B` with B bad still shows A)."""
    bad: list[AmddbgError] = []
    good, kinds = [], []
    for f in args.files:
        try:
            kinds.append(classify(f))
            good.append(f)
        except AmddbgError as exc:
            bad.append(exc)
    if not good:
        raise bad[0]
    args = argparse.Namespace(**{**vars(args), "files": good})
    rc = _run(args, kinds, bad)
    if bad:
        more = f" ({len(bad) - 1} more file(s) could not be read)" if len(bad) > 1 else ""
        raise AmddbgError(bad[0].user_message() + more) if more else bad[0]
    return rc


def _run(args: argparse.Namespace, kinds: list[str], bad: list) -> int:
    if "core" in kinds:
        try:
            core_info = importlib.import_module("amddbg.cli.core_info")
        except ModuleNotFoundError:
            raise NotSupported("reading core files") from None
        others = [f for f, k in zip(args.files, kinds, strict=True) if k != "core"]
        if not others:
            return int(core_info.run(args) or 0)
        if args.json:
            raise UsageError("--json describes either cores or code objects in one run, not both "
                             f"(first non-core: {safe(others[0])})")
        # cores and code objects together: the cores first, then the rest as usual
        cores = [f for f, k in zip(args.files, kinds, strict=True) if k == "core"]
        core_info.run(argparse.Namespace(**{**vars(args), "files": cores}))
        args = argparse.Namespace(**{**vars(args), "files": others})
        kinds = [k for k in kinds if k != "core"]
    docs = []
    for path, kind in zip(args.files, kinds, strict=True):
        try:
            if kind == "code_object":
                docs.append(_code_object_doc(CodeObject.from_path(path), args))
            else:
                docs.append(_container_doc(path, args))
        except AmddbgError as exc:
            if len(args.files) == 1:
                raise
            bad.append(exc)
    if not docs:
        return 0
    if args.json:
        doc: Any = docs[0] if len(docs) == 1 else {"files": docs}
        json.dump(doc, sys.stdout, indent=1, default=_json_default)
        sys.stdout.write("\n")
    else:
        from amddbg.cli import info_view

        for d in docs:
            info_view.render(d, show_args=args.args)
    # What could not be read was left out above; say so once, as the one-line error, and exit 2.
    errors = [e for d in docs for e in _errors(d)]
    if errors:
        more = f" ({len(errors) - 1} more problem(s) in the output's \"errors\")" if len(errors) > 1 else ""
        raise FormatError(f"partial result: {errors[0]}{more}")
    return 0


def _errors(doc: dict[str, Any]) -> list[str]:
    out = list(doc.get("errors", []))
    for entry in doc.get("code_objects", []):
        out.extend(entry.get("errors", []))
    return out


def _json_default(value: Any) -> Any:
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _filter_kernel(doc: dict[str, Any], name: str | None, where: str, required: bool = True) -> dict[str, Any]:
    if name is None:
        return doc
    kernels = [k for k in doc["kernels"] if name_matches(name, k.get("name")) or name_matches(name, k.get("symbol"))]
    if not kernels and required:
        funcs = [f["name"] for f in doc.get("functions", [])
                 if f.get("kind") == "function" and name_matches(name, f["name"])]
        if funcs:
            raise UsageError(f"{safe(name)} is a device function ({safe(funcs[0])}), not a kernel, in {safe(where)}; "
                             "use `amddbg disasm --function` or addr2line for it")
        have = ", ".join(safe(k.get("name")) for k in doc["kernels"][:8])
        raise UsageError(f"no kernel named {safe(name)!r} in {safe(where)} (kernels: {have or 'none'})")
    return dict(doc, kernels=kernels)


def _code_object_doc(co: CodeObject, args: argparse.Namespace) -> dict[str, Any]:
    return _filter_kernel(co.to_json(), args.kernel, co.path or co.name)


def _container_doc(path: str, args: argparse.Namespace) -> dict[str, Any]:
    entries = embedded_code_objects(path)
    out = []
    for i, e in enumerate(entries):
        record: dict[str, Any] = {"index": i, "bundle_entry_id": e.bundle_entry_id, "bundle_index": e.bundle_index,
                                  "offset": e.container_offset, "size": e.size,
                                  "compressed_bundle_offset": e.compressed_bundle_offset}
        if e.code_object is not None:
            full = args.json or args.index == i
            if full:
                record.update(_filter_kernel(e.code_object.to_json(), args.kernel, f"{path}[{i}]", required=False))
                record["file"] = path
            else:
                co = e.code_object
                record.update({"processor": co.processor, "target_id": co.target_id,
                               "code_object_version": co.code_object_version, "kernel_count": len(co.kernels)})
        out.append(record)
    if args.index is not None and not 0 <= args.index < len(entries):
        raise UsageError(f"--index {args.index} is out of range: {path} holds {len(entries)} entries")
    return {"file": path, "container": classify(path), "code_objects": out}
