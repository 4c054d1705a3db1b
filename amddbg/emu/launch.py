"""A sequence of kernel launches sharing buffers and globals: `amddbg run --script FILE` and `run_script`.

Real programs rarely launch one kernel: a two-pass scan scans blocks, scans the block sums, then adds them back; a
solver sets a `__constant__` table once and launches many times. A script names the buffers the launches share
(`"@name"` in a launch's args or a struct's `ptr=@name` field), the globals to set first, and the launches in
order; all run on one machine, so memory (buffers, globals, anything a kernel wrote) carries from one launch to
the next as it does on a device, while each launch gets fresh waves, workgroups and LDS, and the CU caches start
empty (the AQL packet's system-scope acquire invalidates them).

    {"code_object": "scan.co",                     # optional: relative to the script; the command line's wins
     "buffers": {"in": "i32:1000:iota",            # TYPE:COUNT[:INIT] as --arg's buf: (the buf: prefix optional)
                 "sums": {"type": "i32", "count": 16},
                 "taps": {"type": "f32", "values": [0.5, 0.25]}},
     "globals": {"dsp::fir_taps": "f32:8:values=1,2,3,4,5,6,7,8"},   # as --global NAME=...
     "launches": [{"kernel": "scan_blocks", "grid": 1000, "block": 64, "dynamic_lds": 512,
                   "args": ["@in", "@out", "@sums", "u32:1000"]}, ...]}

A launch may also give "stack_size", "max_instructions" and "cluster" (workgroups per cluster, GFX12.5, as
--cluster). The launches stop at the first that does not complete
(a fault or a hang leaves the device state undefined for the next; a runtime would report the error there): its
state is the one `core=` writes, else the last launch's. YAML scripts (.yaml/.yml) need PyYAML.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from amddbg.emu.args import NP, TYPES, ArgSpec, buffer_initial, parse_arg, read_buffer
from amddbg.emu.errors import EmulatorError
from amddbg.emu.globalvars import GlobalSpec, parse_global, read_globals
from amddbg.emu.limits import check as check_budget

SCRIPT_KEYS = {"code_object", "buffers", "globals", "launches"}
LAUNCH_KEYS = {"kernel", "grid", "block", "args", "dynamic_lds", "stack_size", "max_instructions", "cluster"}
MAX_LAUNCHES = 10_000


@dataclass
class LaunchResult:
    index: int
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    dynamic_lds: int
    status: str
    reason: str
    wave_instructions: int
    seconds: float
    warnings: list = field(default_factory=list)
    buffers: list = field(default_factory=list)  # the launch's own (unnamed) buffers: {"arg", "type", "values"}

    def to_json(self) -> dict:
        return {"index": self.index, "kernel": self.kernel, "grid": list(self.grid), "block": list(self.block),
                "dynamic_lds": self.dynamic_lds, "status": self.status, "reason": self.reason,
                "wave_instructions": self.wave_instructions, "seconds": round(self.seconds, 4),
                "warnings": self.warnings, "buffers": self.buffers}


@dataclass
class ScriptResult:
    """What a script did: each launch that ran, the machine after the last (its memory holds the named buffers and
    the globals), the named buffers and placed globals, and where it stopped."""

    launches: list[LaunchResult]
    machine: object
    buffers: dict[str, dict]  # name -> {"type", "count", "address"}
    globals: list[dict]  # placed globals (globalvars.place_globals)
    planned: int  # launches in the script
    core: str | None = None

    @property
    def status(self) -> str:
        return self.launches[-1].status if self.launches else "completed"

    @property
    def stopped_at(self) -> int | None:
        """The index of the launch that did not complete (None when every launch completed)."""
        last = self.launches[-1] if self.launches else None
        return last.index if last is not None and last.status != "completed" else None

    def buffer(self, name: str) -> np.ndarray:
        """A named buffer's current contents."""
        b = self.buffers[name]
        dt = np.dtype(NP[b["type"]])
        return np.frombuffer(self.machine.memory.read(b["address"], b["count"] * dt.itemsize), dtype=dt).copy()

    def global_values(self) -> list[dict]:
        return read_globals(self.machine, self.globals)

    def to_json(self) -> dict:
        buffers = [{"name": n, "type": b["type"], "values": read_buffer(self.machine, b)} for n, b in
                   self.buffers.items()]
        m = self.machine
        waves = [{"workgroup": list(w.workgroup), "wave_in_group": w.wave_in_group, "pc": f"{w.pc:#x}",
                  "state": w.state, "source": m.wave_source(w)} for w in m.waves]
        return {"status": self.status, "stopped_at": self.stopped_at, "launches": [x.to_json() for x in self.launches],
                "planned_launches": self.planned, "buffers": buffers, "globals": self.global_values(), "waves": waves,
                "core": self.core}


# -- the launch options of one dispatch (`amddbg run`, `amddbg divergence`, the REPL's `divergence`) -----------
def launch_options(ns) -> dict:
    """The keyword arguments of `Machine.dispatch` that the launch options give besides grid, block and args:
    dynamic_lds, stack_size (checked here: a usage error names the option), globals (parsed)."""
    from amddbg.errors import UsageError

    out: dict = {}
    if getattr(ns, "dynamic_lds", 0):
        out["dynamic_lds"] = ns.dynamic_lds
    if getattr(ns, "stack_size", None) is not None:
        from amddbg.emu.machine import DYNAMIC_STACK_MAX

        if not 0 <= ns.stack_size <= DYNAMIC_STACK_MAX:
            raise UsageError(f"--stack-size {ns.stack_size}: expected 0..{DYNAMIC_STACK_MAX} bytes")
        out["stack_size"] = ns.stack_size
    if getattr(ns, "globals", None):
        out["globals"] = [parse_global(g) for g in ns.globals]
    if getattr(ns, "cluster", None):
        from amddbg.emu.args import parse_dims

        out["cluster"] = parse_dims(ns.cluster, "cluster")
    return out



# -- reading a script ------------------------------------------------------------------------------------------
def load_script(path: str | os.PathLike) -> dict:
    """The script at `path`: YAML when it ends in .yaml/.yml (PyYAML needed), JSON otherwise."""
    from amddbg.textsafe import check_regular

    path = str(path)
    check_regular(path)
    try:
        with open(path, "rb") as f:
            raw = f.read(16 * 1024 * 1024 + 1)
    except OSError as exc:
        raise EmulatorError(f"{path}: cannot read: {exc.strerror}") from None
    if len(raw) > 16 * 1024 * 1024:
        raise EmulatorError(f"{path}: a launch script larger than 16 MiB (put large data in file= buffers)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EmulatorError(f"{path}: not UTF-8 text at offset {exc.start:#x}") from None
    if path.endswith((".yaml", ".yml")):
        try:
            import yaml
        except ImportError:
            raise EmulatorError(f"{path}: a YAML launch script needs PyYAML (pip install pyyaml), which is not "
                                "installed; write the script as JSON instead") from None
        try:
            doc = yaml.safe_load(text)
        except RecursionError:
            raise EmulatorError(f"{path}: nested too deeply for a launch script") from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
            raise EmulatorError(f"{path}: not valid YAML{where}: {getattr(exc, 'problem', None) or exc}") from None
    else:
        try:
            doc = json.loads(text)
        except RecursionError:
            raise EmulatorError(f"{path}: nested too deeply for a launch script") from None
        except json.JSONDecodeError as exc:
            raise EmulatorError(f"{path}: not valid JSON at line {exc.lineno}, column {exc.colno} (offset "
                                f"{exc.pos:#x}): {exc.msg}") from None
    if not isinstance(doc, dict):
        raise EmulatorError(f"{path}: a launch script is an object with \"launches\" (and \"buffers\", \"globals\")")
    return doc


def _dims(value, where: str) -> tuple[int, int, int]:
    if isinstance(value, str):
        from amddbg.emu.args import parse_dims

        try:
            return parse_dims(value, where)
        except Exception as exc:  # noqa: BLE001 - UsageError: said again with the script's place
            raise EmulatorError(f"{where}: {exc}") from None
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    if (not isinstance(value, list) or not 1 <= len(value) <= 3
            or any(not isinstance(v, int) or isinstance(v, bool) or v <= 0 for v in value)):
        raise EmulatorError(f"{where}: expected a positive integer, [x, y, z] or \"x,y,z\", not {value!r}")
    return tuple(list(value) + [1] * (3 - len(value)))


def _count(value, where: str, *, lo: int = 0, hi: int = 1 << 62) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise EmulatorError(f"{where}: expected an integer {lo}..{hi}, not {value!r}")
    return value


def _relative(init: str | None, base: Path) -> str | None:
    if init is not None and init.startswith("file=") and not os.path.isabs(init[5:]):
        return "file=" + str(base / init[5:])
    return init


def _data_spec(value, where: str, base: Path, *, global_: bool) -> tuple[str, int, str | None]:
    """(type, count, init) of a buffer or global given as "TYPE:COUNT[:INIT]" or {"type", "count", "init" or
    "values"}; init None (globals only): keep the code object's value."""
    if isinstance(value, str):
        text = value[4:] if value.startswith("buf:") else value
        if global_:
            g = parse_global("x=" + text)
            return g.type, g.count, _relative(g.init, base)
        s = parse_arg("buf:" + text)
        return s.type, s.count, _relative(s.init, base)
    if not isinstance(value, dict):
        raise EmulatorError(f"{where}: expected \"TYPE:COUNT[:INIT]\" or {{\"type\", \"count\", \"init\"|\"values\"}}")
    extra = set(value) - {"type", "count", "init", "values"}
    if extra:
        raise EmulatorError(f"{where}: unknown key(s) {', '.join(sorted(extra))} (have: type, count, init, values)")
    t = value.get("type")
    if t not in TYPES:
        raise EmulatorError(f"{where}: \"type\" is one of {' '.join(TYPES)}, not {t!r}")
    values = value.get("values")
    if values is not None:
        if "init" in value:
            raise EmulatorError(f"{where}: give \"init\" or \"values\", not both")
        if not isinstance(values, list) or not values or any(
                not isinstance(v, int | float) or isinstance(v, bool) for v in values):
            raise EmulatorError(f"{where}: \"values\" is a non-empty list of numbers")
        if not t.startswith("f") and any(isinstance(v, float) for v in values):
            raise EmulatorError(f"{where}: \"values\" of a {t} are integers")
        count = _count(value.get("count", len(values)), f"{where}.count", lo=1, hi=1 << 28)
        return t, count, "values=" + ",".join(repr(v) for v in values)
    count = _count(value.get("count"), f"{where}.count", lo=1, hi=1 << 28)
    init = value.get("init", None if global_ else "zero")
    if init is not None and not isinstance(init, str):
        raise EmulatorError(f"{where}.init: expected zero, iota, fill=V, values=V1,... or file=PATH")
    return t, count, _relative(init, base)


@dataclass
class _Plan:
    code_object: str | None
    buffers: dict[str, ArgSpec]
    globals: list[GlobalSpec]
    launches: list[dict]


def parse_script(doc: dict, *, source: str = "script", base: str | os.PathLike | None = None) -> _Plan:
    """Check a script's structure and parse every spec in it before anything runs (an error names the place:
    `launches[2].args[1]`)."""
    base = Path(base) if base is not None else Path(".")
    if not isinstance(doc, dict):
        raise EmulatorError(f"{source}: a launch script is an object with \"launches\"")
    extra = set(doc) - SCRIPT_KEYS
    if extra:
        raise EmulatorError(f"{source}: unknown key(s) {', '.join(sorted(extra))} "
                            f"(have: {', '.join(sorted(SCRIPT_KEYS))})")
    co = doc.get("code_object")
    if co is not None and not isinstance(co, str):
        raise EmulatorError(f"{source}: \"code_object\" is a path")
    if co is not None and not os.path.isabs(co):
        co = str(base / co)
    try:
        buffers = {}
        raw_buffers = doc.get("buffers", {}) or {}
        if not isinstance(raw_buffers, dict):
            raise EmulatorError("buffers: an object of name: spec")
        for name, value in raw_buffers.items():
            if not isinstance(name, str) or not name or not name.replace("_", "").replace(".", "").isalnum():
                raise EmulatorError(f"buffers: {name!r} is not a name (letters, digits, _ and .)")
            t, count, init = _data_spec(value, f"buffers.{name}", base, global_=False)
            buffers[name] = ArgSpec("buffer", t, None, count, init or "zero", f"@{name}")
        globals_ = []
        raw_globals = doc.get("globals", {}) or {}
        if not isinstance(raw_globals, dict):
            raise EmulatorError("globals: an object of NAME: spec")
        for name, value in raw_globals.items():
            t, count, init = _data_spec(value, f"globals.{name}", base, global_=True)
            globals_.append(GlobalSpec(str(name), t, count, init, f"{name}={t}:{count}" + (f":{init}" if init else "")))
        launches = doc.get("launches")
        if not isinstance(launches, list) or not launches:
            raise EmulatorError("launches: a non-empty list of {\"kernel\", \"grid\", \"block\", \"args\", ...}")
        if len(launches) > MAX_LAUNCHES:
            raise EmulatorError(f"launches: {len(launches)} launches; at most {MAX_LAUNCHES}")
        plan = []
        for i, x in enumerate(launches):
            where = f"launches[{i}]"
            if not isinstance(x, dict):
                raise EmulatorError(f"{where}: an object with kernel, grid, block, args")
            extra = set(x) - LAUNCH_KEYS
            if extra:
                raise EmulatorError(f"{where}: unknown key(s) {', '.join(sorted(extra))} (have: "
                                    f"{', '.join(sorted(LAUNCH_KEYS))})")
            if not isinstance(x.get("kernel"), str) or not x["kernel"]:
                raise EmulatorError(f"{where}: \"kernel\" (a name) is required")
            for key in ("grid", "block"):
                if key not in x:
                    raise EmulatorError(f"{where}: \"{key}\" is required")
            args = x.get("args", [])
            if not isinstance(args, list):
                raise EmulatorError(f"{where}.args: a list of argument specs")
            specs = []
            for j, a in enumerate(args):
                if not isinstance(a, str):
                    raise EmulatorError(f"{where}.args[{j}]: a spec string (\"u32:7\", \"@name\", \"struct:...\"), "
                                        f"not {a!r}")
                try:
                    s = parse_arg(a)
                except EmulatorError as exc:
                    raise EmulatorError(f"{where}.args[{j}]: {exc}") from None
                if s.kind == "ref" and s.value not in buffers:
                    raise EmulatorError(f"{where}.args[{j}]: no buffer named @{s.value} (have: "
                                        f"{', '.join('@' + n for n in buffers) or 'none'})")
                if s.kind == "struct":
                    for t, v in s.value:
                        if t == "ptr" and isinstance(v, str) and v[1:] not in buffers:
                            raise EmulatorError(f"{where}.args[{j}]: no buffer named {v}")
                if s.kind == "buffer":
                    s.init = _relative(s.init, base)
                specs.append(s)
            from amddbg.emu.machine import DYNAMIC_STACK, DYNAMIC_STACK_MAX

            plan.append({"kernel": x["kernel"], "grid": _dims(x["grid"], f"{where}.grid"),
                         "block": _dims(x["block"], f"{where}.block"), "args": specs,
                         "dynamic_lds": _count(x.get("dynamic_lds", 0), f"{where}.dynamic_lds", hi=1 << 30),
                         "stack_size": _count(x.get("stack_size", DYNAMIC_STACK), f"{where}.stack_size",
                                              hi=DYNAMIC_STACK_MAX),
                         "max_instructions": (None if x.get("max_instructions") is None else
                                              _count(x["max_instructions"], f"{where}.max_instructions", lo=1)),
                         "cluster": (None if x.get("cluster") is None else _dims(x["cluster"], f"{where}.cluster"))})
    except EmulatorError as exc:
        raise EmulatorError(f"{source}: {exc}") from None
    return _Plan(co, buffers, globals_, plan)


# -- running it ------------------------------------------------------------------------------------------------
def run_script(code_object, script, *, max_instructions: int | None = None, seed: int = 0, core: str | None = None,
               layout: str = "split", base: str | os.PathLike | None = None) -> ScriptResult:
    """Run a launch script: `script` is a path (JSON, or YAML with PyYAML) or the parsed document (a dict; relative
    paths in it are relative to `base`, default the current directory). `code_object`: a path, a CodeObject, or
    None to take the script's "code_object". Each launch is bounded by its "max_instructions", else
    `max_instructions` (None: unbounded, as `Machine.run`). `core`: write the state of the first launch that does not
    complete, else of the last, as a core. Raises EmulatorError for a bad script or a launch that cannot be set up
    (naming the launch); a launch that faults or hangs is a result, not an error."""
    from amddbg.emu.globalvars import place_globals
    from amddbg.emu.machine import Machine

    if isinstance(script, dict):
        plan = parse_script(script, base=base)
    else:
        plan = parse_script(load_script(script), source=str(script),
                            base=base if base is not None else Path(script).resolve().parent)
    if code_object is None:
        if plan.code_object is None:
            raise EmulatorError("no code object: give CODEOBJ or the script's \"code_object\"")
        code_object = plan.code_object
    if isinstance(code_object, str):
        from amddbg.textsafe import check_regular

        check_regular(code_object)
    m = Machine(code_object, seed=seed)
    need = sum(s.count * TYPES[s.type][1] for s in plan.buffers.values())
    check_budget(3 * need, f"the script's buffers ({need} bytes, held three times while laid out)")
    named: dict[str, dict] = {}
    for name, spec in plan.buffers.items():
        arr = buffer_initial(spec)
        addr = m.memory.alloc(arr.nbytes)
        m.memory.write(addr, arr.tobytes())
        named[name] = {"type": spec.type, "count": spec.count, "address": addr}
    placed = place_globals(m, plan.globals)
    results: list[LaunchResult] = []
    for i, x in enumerate(plan.launches):
        try:
            m.dispatch(x["kernel"], x["grid"], x["block"], x["args"], dynamic_lds=x["dynamic_lds"],
                       stack_size=x["stack_size"], named=named, cluster=x["cluster"])
        except EmulatorError as exc:
            raise EmulatorError(f"launches[{i}] ({x['kernel']}): {exc}") from None
        limit = x["max_instructions"] if x["max_instructions"] is not None else max_instructions
        r = m.run(max_instructions=limit)
        own = [{"arg": b["arg"], "type": b["type"], "values": read_buffer(m, b)} for b in m.buffers]
        results.append(LaunchResult(i, x["kernel"], x["grid"], x["block"], x["dynamic_lds"], r.status, r.reason,
                                    r.wave_instructions, r.seconds, m.lds_bounds.warnings(), own))
        if r.status != "completed":
            break
    out = ScriptResult(results, m, named, placed, len(plan.launches))
    if core:
        m.write_core(core, layout=layout)
        out.core = core
    return out
