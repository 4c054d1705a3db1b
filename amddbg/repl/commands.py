"""The command language: gdb/ROCgdb names, abbreviations and output shapes over a `Program`.

`Debugger.execute(line)` runs one command and writes its output through `self.out` (a callable taking
one line). Everything shown comes from the session API; the interactive shell (`amddbg.repl.shell`),
batch mode and `-ex` all go through here, so a script sees what a person sees.

Abbreviations follow gdb: an exact name or alias wins, otherwise a unique prefix of a command name;
``info`` sub-commands resolve the same way.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

from amddbg.dwarf.demangle import plain_name
from amddbg.errors import AmddbgError, Unavailable, UsageError
from amddbg.repl import render
from amddbg.textsafe import safe, safe_output

JSON_VERSION = 1


@dataclass
class Command:
    name: str
    func: Callable
    help: str
    aliases: tuple[str, ...] = ()
    complete: str = "none"  # expression | thread | file | info | set | command | none
    plugin: str | None = None


@dataclass
class Settings:
    values: dict = field(default_factory=lambda: {
        "print pretty": False, "pagination": True, "width": 0, "height": 0, "listsize": 10, "confirm": True,
        "print elements": 200,
    })

    def get(self, name: str):
        return self.values[name]


SETTING_KINDS = {"print pretty": bool, "pagination": bool, "width": int, "height": int, "listsize": int,
                 "confirm": bool, "print elements": int}


def _bool(text: str) -> bool:
    t = text.strip().lower()
    if t in ("", "on", "1", "yes", "enable"):
        return True
    if t in ("off", "0", "no", "disable"):
        return False
    raise UsageError(f'"on" or "off" expected, not "{text}".')


class Quit(Exception):  # noqa: N818 - a control-flow signal, not an error
    pass


class Debugger:
    def __init__(self, program, *, out: Callable[[str], None] | None = None, json_mode: bool = False,
                 plugins=None) -> None:
        self.program = program
        self.out = out or print  # through the `out` property: every line is escaped at the sink
        self.json_mode = json_mode
        self.plugins = plugins
        self.width: Callable[[], int] = lambda: 0  # columns to fold long text to (amddbg.termwidth); 0: whole lines
        self.settings = Settings()
        self.last_x: dict = {"fmt": "x", "unit": "w", "next": None, "space": None}
        self.last_list: tuple | None = None
        self.pending_summary = None  # the start-up summary's explanation on its way (amddbg.repl.background)
        self.commands: dict[str, Command] = {}
        self._register_builtins()
        if plugins is not None:
            self._add_plugin_commands()

    def _add_plugin_commands(self) -> None:
        """Plugin commands join the table unless a built-in has the name or would answer to it (an alias, or an
        abbreviation: `p`, `bt`, `inf`): built-ins win, and the user is told which plugin lost which name."""
        for name, c in self.plugins.commands.items():
            builtin = self._builtin_answering(name)
            if builtin is not None:
                self.plugins.warn(f"plugin {c.plugin}'s command {name!r} is not added: the built-in command "
                                  f"{builtin!r} answers to that name")
                continue
            self.commands[name] = Command(name, self._plugin_runner(c), c.help or f"(plugin {c.plugin})",
                                          complete="expression", plugin=c.plugin)

    def _builtin_answering(self, word: str) -> str | None:
        for c in self.commands.values():
            if c.plugin is None and (c.name == word or word in c.aliases or c.name.startswith(word)):
                return c.name
        return None

    def _drop_disabled_plugin_commands(self) -> None:
        """A plugin that failed (in a command, a printer, a rule) loses its commands: they leave `help` and
        completion, and typing one says it is unknown rather than doing nothing."""
        if self.plugins is None:
            return
        gone = [n for n, c in self.commands.items() if c.plugin is not None and self.plugins.get(c.plugin) is not None
                and self.plugins.get(c.plugin).state != "loaded"]
        for n in gone:
            del self.commands[n]

    @property
    def out(self) -> Callable[[str], None]:
        """The line writer. Every line passes `safe_output` on its way out, so a name from an input that
        a view did not escape still cannot reach the terminal as a control sequence."""
        return self._out

    @out.setter
    def out(self, raw: Callable[[str], None]) -> None:
        self._out = lambda line: raw(safe_output(line))

    # -- registration and lookup --------------------------------------------------------------------
    def _register_builtins(self) -> None:
        add = self._add
        add("help", self.cmd_help, "Print list of commands, or help for one: help [COMMAND].", ("h",), "command")
        add("apropos", self.cmd_apropos, "Search for commands matching a word: apropos WORD.")
        add("info", self.cmd_info, "Generic command for showing things about the program: info SUBCOMMAND.",
            ("i", "inf"), "info")
        add("thread", self.cmd_thread, "Use this command to switch between threads (waves): thread [N] | "
            "thread apply all|N... COMMAND.", ("t",), "thread")
        add("wave", self.cmd_thread, "Alias of thread: select a wave by its thread number.", (), "thread")
        add("lane", self.cmd_lane, "Select a lane of the current wave: lane [N].")
        add("frame", self.cmd_frame, "Select and print a stack frame: frame [N].", ("f",))
        add("up", self.cmd_up, "Select and print the frame that called this one: up [N].")
        add("down", self.cmd_down, "Select and print the frame called by this one: down [N].", ("do",))
        add("backtrace", self.cmd_backtrace, "Print backtrace of all stack frames: bt [N] [-full].",
            ("bt", "where"))
        add("print", self.cmd_print, "Print value of expression: print[/FMT] [-lane N|all] EXPR.",
            ("p", "inspect", "call"), "expression")
        add("output", self.cmd_output, "Like print, but no $N = and no newline history: output EXPR.", (),
            "expression")
        add("x", self.cmd_x, "Examine memory: x/NFU [SPACE#]ADDRESS.", (), "expression")
        add("ptype", self.cmd_ptype, "Print definition of type of an expression or type name: ptype EXPR.", (),
            "expression")
        add("whatis", self.cmd_whatis, "Print data type of an expression: whatis EXPR.", (), "expression")
        add("disassemble", self.cmd_disassemble, "Disassemble a function or range: disassemble [/s] [/r] "
            "[FUNC|ADDR[,+LEN]|START,END].", ("disas",), "expression")
        add("list", self.cmd_list, "List source lines: list [LOCATION].", ("l",), "expression")
        add("set", self.cmd_set, "Set a setting or a convenience variable: set pagination off, set $x = 1.",
            (), "set")
        add("show", self.cmd_show, "Show a setting: show width.", (), "set")
        add("pwd", self.cmd_pwd, "Print the working directory.")
        add("echo", self.cmd_echo, "Print a constant string (C escapes).")
        add("quit", self.cmd_quit, "Exit amddbg.", ("q", "exit"))
        add("python", self.cmd_python, "Run Python with `prog` bound to the Program: python [STATEMENT].",
            ("py", "pi"))
        add("explain", self.cmd_explain, "Explain why the waves cannot move (the hang explainer).")
        add("lanes", self.cmd_lanes, "Grid of the current wave's lanes: active, source line, work-item position, "
            "and an expression per lane: lanes [-expr EXPR].", (), "expression")
        add("divergence", self.cmd_divergence, "Run a kernel of the loaded code object in the emulator and show its "
            "lane divergence per source line: divergence --kernel NAME --grid X --block X [--arg SPEC]...")

    def _add(self, name, func, help_text, aliases=(), complete="none") -> None:
        self.commands[name] = Command(name, func, help_text, tuple(aliases), complete)

    def _plugin_runner(self, c):
        def run(args: str) -> None:
            result = self.plugins.call(c.plugin, c.func, self.program, args, expect=(str, type(None)),
                                       what=f"command {c.name!r}")
            if result is not None:
                for line in safe(result).splitlines():
                    self.out(line)

        return run

    def _value_printer(self):
        """The plugins' pretty-printers as the session's value printer (None when no plugin registered one)."""
        if self.plugins is None or not self.plugins.has_printers():
            return None
        from amddbg.session.values import ValueView, printer_type_names

        program = self.program

        def read(space: str, address: int, size: int, lane: int | None) -> bytes:
            return program.read(space, address, size, lane=lane)

        def hook(value) -> str | None:
            names = printer_type_names(value.type)
            if not names:
                return None
            text = self.plugins.pretty(names, ValueView(value, read))
            return safe(text) if text is not None else None

        return hook

    def resolve(self, word: str) -> Command:
        if word in self.commands:
            return self.commands[word]
        for c in self.commands.values():
            if word in c.aliases:
                return c
        hits = sorted(n for n in self.commands if n.startswith(word))
        if len(hits) == 1:
            return self.commands[hits[0]]
        if not hits:
            raise UsageError(f'Undefined command: "{word}".  Try "help".')
        raise UsageError(f'Ambiguous command "{word}": {", ".join(hits)}.')

    # -- execution ------------------------------------------------------------------------------------
    def execute(self, line: str) -> None:
        line = line.strip()
        if not line or line.startswith("#"):
            return
        m = re.match(r"([A-Za-z_][\w-]*|\S)(.*)", line)
        word, rest = m.group(1), m.group(2)
        # print/x, x/4wx, disassemble/s: the /FMT sticks to the command word
        suffix = ""
        if "/" in word:
            word, _, suffix = word.partition("/")
            suffix = "/" + suffix
        elif rest.startswith("/"):
            fm = re.match(r"(/\S*)(.*)", rest)
            suffix, rest = fm.group(1), fm.group(2)
        self._drop_disabled_plugin_commands()
        cmd = self.resolve(word)
        hook = self._value_printer()
        if hook is None:
            self._call(cmd, (suffix + " " + rest.strip()).strip() if suffix else rest.strip())
            return
        from amddbg.session.values import reset_printer, use_printer

        token = use_printer(hook)
        try:
            self._call(cmd, (suffix + " " + rest.strip()).strip() if suffix else rest.strip())
        finally:
            reset_printer(token)
            self._drop_disabled_plugin_commands()

    def _call(self, cmd: Command, argument: str) -> None:
        if not self.json_mode:
            cmd.func(argument)
            return
        # --json: every line on stdout is a JSON document. A command without a JSON form of its own has its
        # text lines gathered into one {"command", "text": [...]} document (also when it fails part-way).
        raw, text = self._out, []
        self._out = lambda line: raw(line) if line.startswith("{") else text.append(safe_output(line))
        try:
            cmd.func(argument)
        finally:
            self._out = raw
            if text:
                self.emit_json({"command": f"{cmd.name} {argument}".strip(), "text": text})

    # -- helpers ------------------------------------------------------------------------------------------
    def emit_json(self, doc: dict) -> None:
        self.out(json.dumps({"version": JSON_VERSION, **doc}, separators=(",", ":")))

    def _json_flag(self, args: str) -> tuple[bool, str]:
        parts = args.split()
        if "-json" in parts or "--json" in parts:
            return True, " ".join(p for p in parts if p not in ("-json", "--json"))
        return self.json_mode, args

    def thread(self):
        t = self.program.focus.thread
        if t is None:
            raise UsageError("No thread selected.")
        return t

    def frame(self):
        f = self.program.current_frame
        if f is None:
            raise UsageError("No stack.")
        return f

    # ==================================================================================== commands
    def cmd_help(self, args: str) -> None:
        if args:
            c = self.resolve(args.split()[0])
            self.out(c.help)
            if c.aliases:
                self.out(f"Aliases: {', '.join(c.aliases)}")
            if c.name == "info":
                self.out("info subcommands: " + ", ".join(sorted(INFO_SUBCOMMANDS)))
            return
        self._drop_disabled_plugin_commands()
        self.out("List of commands:")
        self.out("")
        for name in sorted(self.commands):
            c = self.commands[name]
            self.out(f"{name} -- {c.help.split(':')[0].rstrip('.')}")
        self.out("")
        self.out('Type "help" followed by a command name for full documentation.')

    def cmd_apropos(self, args: str) -> None:
        if not args:
            raise UsageError('REGEXP string is empty')
        try:
            rx = re.compile(args, re.I)
        except re.error as exc:
            raise UsageError(f"Invalid regexp: {exc}") from None
        for name in sorted(self.commands):
            c = self.commands[name]
            if rx.search(name) or rx.search(c.help):
                self.out(f"{name} -- {c.help}")
        for sub in sorted(INFO_SUBCOMMANDS):
            if rx.search(sub) or rx.search(INFO_SUBCOMMANDS[sub][1]):
                self.out(f"info {sub} -- {INFO_SUBCOMMANDS[sub][1]}")

    def cmd_pwd(self, args: str) -> None:
        self.out(f"Working directory {safe(os.getcwd())}.")

    def cmd_echo(self, args: str) -> None:
        text = args.encode("latin-1", "backslashreplace").decode("unicode_escape", "replace")
        for line in text.rstrip("\n").split("\n"):
            self.out(line)

    def cmd_quit(self, args: str) -> None:
        raise Quit()

    def cmd_python(self, args: str) -> None:
        from amddbg.repl.python import run_python

        if not self.json_mode or not args.strip():
            run_python(self, args)
            return
        import contextlib
        import io

        buf = io.StringIO()  # --json: what the statement prints becomes the command's text lines
        try:
            with contextlib.redirect_stdout(buf):
                run_python(self, args)
        finally:
            for line in buf.getvalue().splitlines():
                self.out(line)

    def cmd_explain(self, args: str) -> None:
        from amddbg.repl.explain_cmd import run_explain  # imported on use: the replay engine is heavy

        run_explain(self, args)

    # -- info ------------------------------------------------------------------------------------------------
    def cmd_info(self, args: str) -> None:
        if not args:
            raise UsageError('"info" must be followed by the name of an info command. Try "help info".')
        word, _, rest = args.partition(" ")
        if word in INFO_SUBCOMMANDS:
            name = word
        else:
            aliases = {"r": "registers", "reg": "registers", "s": "stack", "b": "barriers"}
            name = aliases.get(word)
            if name is None:
                hits = sorted(n for n in INFO_SUBCOMMANDS if n.startswith(word))
                if len(hits) != 1:
                    raise UsageError(f'Undefined info command: "{word}".  Try "help info".' if not hits else
                                     f'Ambiguous info command "{word}": {", ".join(hits)}.')
                name = hits[0]
        getattr(self, INFO_SUBCOMMANDS[name][0])(rest.strip())

    def info_agents(self, args: str) -> None:
        as_json, args = self._json_flag(args)
        rows = []
        for i, a in enumerate(self.program.agents, 1):
            e = a.entry
            rows.append({"id": i, "gpu_id": a.gpu_id, "target": a.processor, "num_xcc": a.num_xcc,
                         "location_id": e.get("location_id"), "device_id": e.get("device_id"),
                         "device_name": _device_name(e.get("device_id")),
                         "exceptions": a.exceptions})
        if as_json:
            self.emit_json({"command": "info agents", "agents": rows})
            return
        if not rows:
            self.out("No agents are currently active.")
            return
        from amddbg.core.kfd import device_name

        cur = self._current_gpu()
        table = [("", "Id", "State", "Target Id", "Architecture", "Device Name", "Location", "Exceptions")]
        for r in rows:
            loc = r["location_id"] or 0
            table.append(("*" if r["gpu_id"] == cur else "", str(r["id"]), "A", f"AMDGPU Agent (GPUID {r['gpu_id']})",
                          safe(r["target"]), device_name(r["device_id"]),
                          f"{loc >> 8 & 0xFF:02x}:{loc >> 3 & 0x1F:02x}.{loc & 7}",
                          ", ".join(r["exceptions"]) or "-"))
        widths = [max(len(row[c]) for row in table) for c in range(len(table[0]))]
        for row in table:  # columns as wide as their widest cell, two spaces apart (gdb's table style)
            self.out((row[0] or " ") + " " + "  ".join(cell.ljust(w) for cell, w in zip(row[1:], widths[1:],
                                                                                       strict=True)).rstrip())

    def _current_gpu(self):
        t = self.program.focus.thread
        return t.wave.gpu_id if t is not None and t.is_wave else None

    def info_queues(self, args: str) -> None:
        as_json, args = self._json_flag(args)
        rows = []
        for q in self.program.queues:
            rows.append({"agent": self.program.agent_index(q.gpu_id), "queue_id": q.queue_id, "type": q.queue_type,
                         "read_dispatch_id": q.read_dispatch_id, "write_dispatch_id": q.write_dispatch_id,
                         "ring_base_address": q.ring_base_address, "ring_size": q.ring_size,
                         "exceptions": q.exceptions})
        if as_json:
            self.emit_json({"command": "info queues", "queues": rows})
            return
        if not rows:
            self.out("No queues are currently active.")
            return
        self.out(f"{'  Id':<6}{'Target Id':<28}{'Type':<16}{'Read':<8}{'Write':<8}Address")
        q_gpu = [q.gpu_id for q in self.program.queues]
        for i, r in enumerate(rows, 1):
            tid = f"AMDGPU Queue {r['agent']}:{self.program.queue_handle(q_gpu[i - 1], r['queue_id'])}"
            self.out(f"  {i:<4}{tid:<28}{safe(r['type']):<16}{str(r['read_dispatch_id']):<8}"
                     f"{str(r['write_dispatch_id']):<8}{r['ring_base_address']:#x}")

    def info_dispatches(self, args: str) -> None:
        as_json, args = self._json_flag(args)
        rows = []
        for d in self.program.dispatches:
            k = self.program.kernel_name(d)
            rows.append({"agent": self.program.agent_index(d.gpu_id), "queue_id": d.queue_id,
                         "dispatch_id": d.dispatch_id, "grid": list(d.grid_size) if d.grid_size else None,
                         "workgroup": list(d.workgroup_size) if d.workgroup_size else None,
                         "kernel": k, "kernel_function": plain_name(_demangle(k)) if k else None,
                         "packet_address": d.packet_address, "error": d.error})
        if as_json:
            self.emit_json({"command": "info dispatches", "dispatches": rows})
            return
        if not rows:
            self.out("No dispatches are currently active.")
            return
        self.out(f"{'  Id':<6}{'Target Id':<40}{'Grid':<16}{'Workgroup':<14}Kernel Function")
        cur = self.program.focus.thread
        for i, r in enumerate(rows, 1):
            mark = "*" if cur is not None and cur.is_wave and cur.dispatch_id == r["dispatch_id"] \
                and cur.queue_id == r["queue_id"] else " "
            d = self.program.dispatches[i - 1]
            tid = (f"AMDGPU Dispatch {r['agent']}:{self.program.queue_handle(d.gpu_id, d.queue_id)}:"
                   f"{self.program.dispatch_handle(d)} (PKID {r['dispatch_id']})")
            grid = "[" + ",".join(map(str, r["grid"])) + "]" if r["grid"] else "?"
            wg = "[" + ",".join(map(str, r["workgroup"])) + "]" if r["workgroup"] else "?"
            self.out(f"{mark} {i:<4}{tid:<40}{grid:<16}{wg:<14}{safe(r['kernel_function'] or '??')}")

    def _thread_row(self, t) -> dict:
        d = {"id": t.number, "target_id": t.target_id, "current": t is self.program.focus.thread,
             "is_wave": t.is_wave, "pc": t.pc}
        try:
            frames = t.frames()
        except AmddbgError:
            frames = []
        if frames:
            f = frames[0]
            d["frame"] = {"function": plain_name(f.function), "file": f.file, "line": f.line}
        else:
            d["frame"] = None
        if t.is_wave:
            d.update({"state": str(t.state), "state_reason": t.state_reason, "exec": t.exec, "lanes": t.lanes,
                      "workgroup": list(t.workgroup) if t.workgroup else None, "wave_in_group": t.wave_in_group,
                      "dispatch_id": t.dispatch_id, "queue_id": t.queue_id, "kernel": t.kernel,
                      "stop_reason": t.stop_reason})
        return d

    def info_threads(self, args: str, *, waves_only: bool = False) -> None:
        as_json, args = self._json_flag(args)
        threads = self.program.waves if waves_only else self.program.threads
        if args:
            wanted = _ranges(args)
            threads = [t for t in threads if any(lo <= t.number <= hi for lo, hi in wanted)]
        if as_json:
            self.emit_json({"command": "info waves" if waves_only else "info threads",
                            "threads": [self._thread_row(t) for t in threads]})
            return
        if not threads:
            self.out("No threads.")
            return
        ids = [f"{safe(t.target_id)}{render.kernel_label(self.program, t)}" for t in threads]
        width = max(len("Target Id"), *(len(i) for i in ids))
        self.out(f"  {'Id':<4} {'Target Id':<{width}}  Frame ")
        cur = self.program.focus.thread
        for t, tid in zip(threads, ids, strict=True):
            mark = "*" if t is cur else " "
            self.out(f"{mark} {t.number:<4} {tid:<{width}}  {render.thread_frame_text(self.program, t)}")

    def info_waves(self, args: str) -> None:
        as_json, rest = self._json_flag(args)
        if as_json:
            self.info_threads(args, waves_only=True)
            return
        waves = self.program.waves
        if not waves:
            self.out("No waves.")
            return
        self.out(f"  {'Id':<5}{'Target Id':<34}{'State':<12}{'PC':<20}{'EXEC':<20}Source")
        cur = self.program.focus.thread
        for t in waves:
            frames = []
            try:
                frames = t.frames()
            except AmddbgError:
                pass
            src = f"{safe(os.path.basename(frames[0].file))}:{frames[0].line}" if frames and frames[0].file else "??"
            ex = f"{t.exec:#0{2 + t.lanes // 4}x}"
            self.out(f"{'*' if t is cur else ' '} {t.number:<5}{safe(t.target_id):<34}{str(t.state):<12}"
                     f"{t.pc:#018x}  {ex:<20}{src}")

    def info_lanes(self, args: str) -> None:
        as_json, args = self._json_flag(args)
        t = self.thread()
        if not t.is_wave:
            raise UsageError("info lanes: the current thread is not a GPU wave")
        from amddbg.session.scope import ProgramScope

        rows = []
        frames = t.frames()
        f0 = frames[0] if frames else None
        for ln in range(t.lanes):
            scope = ProgramScope(self.program, f0, ln)
            active = ln in t.active_lanes
            pos = scope.lane_position()
            rows.append({"id": ln, "active": active, "workgroup_pos": list(pos) if pos else None,
                         "pc": t.pc, "pc_is_wave_pc": True,
                         "frame": {"function": plain_name(f0.function), "file": f0.file, "line": f0.line}
                         if f0 else None})
        if as_json:
            self.emit_json({"command": "info lanes", "thread": t.number, "target_id": t.target_id, "lanes": rows})
            return
        self.out(f"  {'Id':<5}{'State':<7}{'Target Id':<44}Frame")
        for r in rows:
            mark = "*" if r["id"] == self.program.focus.lane else " "
            tid = _lane_target_id(t, r["id"], r["workgroup_pos"])
            frame = render.frame_summary(f0, r["id"]) if f0 and r["active"] else "(inactive)"
            self.out(f"{mark} {r['id']:<5}{'A' if r['active'] else 'I':<7}{tid:<44}{frame}")

    def info_registers(self, args: str) -> None:
        as_json, args = self._json_flag(args)
        t = self.thread()
        if as_json:
            self.emit_json({"command": "info registers", "thread": t.number, "target_id": t.target_id,
                            "lane": self.program.focus.lane if t.is_wave else None,
                            "registers": self._register_values(t, args)})
            return
        if not t.is_wave:
            regs = t.host.registers
            names = args.split() or list(regs)
            for n in names:
                key = n.lstrip("$")
                if key not in regs:
                    raise UsageError(f"Invalid register `{key}'")
                v = regs[key]
                natural = f"{v:#x}" if key in ("rip", "rsp", "rbp") else str(v)  # gdb: pointers in hex
                self.out(f"{key:<15}{v:<#19x}{natural}")
            return
        regs = t.registers
        names = [n.lstrip("$") for n in args.split()] or [n for n in regs.names() if not regs.is_vector(n)] + \
            [n for n in regs.names() if regs.is_vector(n)]
        lane = self.program.focus.lane
        for n in names:
            try:
                if regs.is_vector(n):
                    vals = [regs.read_named(n, lane=ln) for ln in range(t.lanes)]
                    self.out(f"{n:<15}{{" + render.repeats([f"{v:#010x}" for v in vals]) + "}")
                    continue
                v = regs.read_named(n, lane=lane)
            except KeyError:
                raise UsageError(f"Invalid register `{n}'") from None
            except Unavailable:
                self.out(f"{n:<15}<unavailable>")
                continue
            width = 18 if n in ("pc", "exec", "vcc") and t.lanes == 64 or n == "pc" else 10
            self.out(f"{n:<15}{v:#0{width}x}{'':4}{v}")

    def _register_values(self, t, args: str) -> dict:
        """{name: int, or a list of per-lane ints for a vector register, or None when unavailable}."""
        if not t.is_wave:
            regs = t.host.registers
            out = {}
            for n in args.split() or list(regs):
                key = n.lstrip("$")
                if key not in regs:
                    raise UsageError(f"Invalid register `{key}'")
                out[key] = regs[key]
            return out
        regs = t.registers
        names = [n.lstrip("$") for n in args.split()] or list(regs.names())
        out = {}
        for n in names:
            try:
                if regs.is_vector(n):
                    out[n] = [regs.read_named(n, lane=ln) for ln in range(t.lanes)]
                else:
                    out[n] = regs.read_named(n, lane=self.program.focus.lane)
            except KeyError:
                raise UsageError(f"Invalid register `{n}'") from None
            except Unavailable:
                out[n] = None
        return out

    def info_sharedlibrary(self, args: str) -> None:
        lcos = self.program.code_objects
        if not lcos:
            self.out("No shared libraries loaded at this time.")
            return
        self.out(f"{'From':<20}{'To':<20}{'Syms Read':<12}Shared Object Library")
        for lco in lcos:
            try:
                texts = lco._text
                lo = min(t[0] for t in texts)
                hi = max(t[1] for t in texts)
            except (AmddbgError, ValueError):
                lo = hi = lco.load_address
            has_dwarf = "Yes" if lco.codeobj is not None else "No"
            self.out(f"{lo:#018x}  {hi:#018x}  {has_dwarf:<12}{safe(lco.uri)}")

    def info_frame(self, args: str) -> None:
        f = self.frame()
        self.out(f"Stack level {f.level}, frame at pc = {f.pc:#x} in {safe(plain_name(f.function))}"
                 + (f" ({safe(f.file)}:{f.line})" if f.file else "") + ";")
        self.out(f" unwound by: {f.method}" + (" (inlined into the frame above)" if f.inlined else ""))
        if f.level + 1 < len(f.thread.frames()):
            self.out(f" called by frame at level {f.level + 1}")
        if f.level > 0:
            self.out(f" caller of frame at level {f.level - 1}")
        if f.stop_reason:
            self.out(f" {safe(f.stop_reason)}")

    def _vars(self, args: str, parameters: bool) -> None:
        f = self.frame()
        vs = f.arguments() if parameters else f.locals()
        if not vs:
            self.out("No arguments." if parameters else "No locals.")
            return
        all_lanes = "-lane all" in args or "-all" in args.split()
        for v in vs:
            try:
                text = v.lane_values().format() if all_lanes and f.thread.is_wave else v.value(
                    self.program.focus.lane if f.thread.is_wave else None).format()
            except AmddbgError as exc:
                text = f"<error: {exc.message}>"
            self.out(f"{safe(v.name)} = {safe(text)}")

    def info_locals(self, args: str) -> None:
        self._vars(args, False)

    def info_args(self, args: str) -> None:
        self._vars(args, True)

    def info_functions(self, args: str) -> None:
        from amddbg.repl.static_info import info_functions

        info_functions(self, args.strip())

    def info_scope(self, args: str) -> None:
        from amddbg.repl.static_info import info_scope

        info_scope(self, args.strip())

    def info_line(self, args: str) -> None:
        m = re.fullmatch(r"(.+):(\d+)", args.strip()) if args else None
        if m and not args.strip().startswith("*"):
            from amddbg.repl.static_info import info_line_at

            info_line_at(self, m.group(1), int(m.group(2)))
            return
        if args:
            addr = self._address(args)
        else:
            addr = self.frame().pc
        srcs = self.program.symbolize(addr)
        if not srcs or not srcs[0].file:
            self.out(f"No line number information available for address {addr:#x}")
            return
        s = srcs[0]
        self.out(f'Line {s.line} of "{safe(s.file)}" is at address {addr:#x} <{safe(plain_name(s.function))}>.')

    def info_source(self, args: str) -> None:
        f = self.frame()
        if not f.file:
            self.out("No current source file.")
            return
        self.out(f"Current source file is {safe(f.file)}")
        lco = f.code_object
        if lco is not None:
            self.out(f"Contains {('DWARF') if lco.codeobj else 'no'} debugging information.")
            self.out(f"Code object: {safe(lco.uri)}")

    def info_symbol(self, args: str) -> None:
        if not args:
            raise UsageError("Argument required (address).")
        addr = self._address(args)
        hit = self.program.symbol_at(addr)
        if hit is None:
            self.out(f"No symbol matches {args}.")
            return
        lco, sym, off = hit
        name = plain_name(_demangle(sym.name))
        where = f" in section .text of {safe(lco.uri)}"
        self.out(f"{safe(name)}{f' + {off}' if off else ''}{where}")

    def info_address(self, args: str) -> None:
        if not args:
            raise UsageError("Argument required.")
        name = args.strip()
        f = self.program.current_frame
        if f is not None:
            v = f.variable(name)
            if v is not None:
                self.out(f'Symbol "{safe(name)}" is a variable with DWARF location {safe(v.location_text())}.')
                return
        hits = self.program.lookup_function(name)
        if hits:
            lco, s = hits[0]
            self.out(f'Symbol "{safe(plain_name(_demangle(s.name)))}" is a function at address '
                     f"{s.address + lco.load_address:#x}.")
            return
        raise UsageError(f'No symbol "{name}" in current context.')

    def info_plugins(self, args: str) -> None:
        if self.plugins is None or not self.plugins.plugins:
            self.out("No plugins loaded (see docs/plugins.md: AMDDBG_PLUGIN_PATH, --plugin, entry points).")
            return
        rows = self.plugins.rows()
        width = max(len(r["name"]) for r in rows) + 2
        for r in rows:
            extra = f"  ({r['error']})" if r["error"] else ""
            self.out(f"{safe(r['name']):<{width}}{r['state']:<10}{safe(r['source'])}{safe(extra)}")
            if r["registered"]:
                self.out(f"{'':<{width}}registered: {safe(', '.join(r['registered']))}")

    def info_barriers(self, args: str) -> None:
        from amddbg.repl.explain_cmd import run_info_barriers  # imported on use: the replay engine is heavy

        run_info_barriers(self, args)

    def cmd_lanes(self, args: str) -> None:
        """A grid of the wave's lanes (8 per row): `#` active at the wave PC, `.` inactive; then one row per lane
        with its work-item position, its source line and the value of `-expr EXPR`. A lane's line is its own
        where the DWARF gives lane PCs (DW_AT_LLVM_lane_pc); otherwise inactive lanes show the wave PC's line,
        marked `*` like the values `print -lane all` evaluates at the wave PC. One legend says so."""
        t = self.thread()
        if not t.is_wave:
            raise UsageError("lanes: the current thread is not a GPU wave")
        expr = None
        m = re.match(r"-expr\s+(.+)", args.strip())
        if m:
            expr = m.group(1)
        elif args.strip():
            raise UsageError("usage: lanes [-expr EXPR]")
        from amddbg.session.scope import ProgramScope

        frames = t.frames()
        f0 = frames[0] if frames else None
        where = f"{os.path.basename(f0.file)}:{f0.line}" if f0 is not None and f0.file else f"{t.pc:#x}"
        active = set(t.active_lanes)
        own = self._lane_lines(f0)
        self.out(f"{safe(t.target_id)}: {t.lanes} lanes, {len(active)} active, wave PC at {safe(where)}")
        marked = own is None and len(active) < t.lanes
        self.out("  legend: # active lane, . inactive lane" + (
            "; * the wave PC's line or value, for an inactive lane (the DWARF gives no lane PC)" if marked else ""))
        for row in range(0, t.lanes, 8):
            cells = " ".join("#" if ln in active else "." for ln in range(row, row + 8))
            self.out(f"  lanes {row:>2}-{row + 7:<2}  {cells}")
        values = None
        if expr is not None:
            values = self.program.evaluate_lanes(expr, frame=self.program.current_frame)
        self.out(f"  {'lane':>4}  {'state':<8} {'position':<12} {'line':<20} {'value' if expr else ''}")
        for ln in range(t.lanes):
            pos = ProgramScope(self.program, f0, ln).lane_position()
            state = "active" if ln in active else "inactive"
            if own is not None and ln in own:
                line = own[ln]
            else:
                line = where + ("" if ln in active else "*")
            val = ""
            if values is not None:
                v = values[ln]
                val = v.format() + ("*" if v.pc_marked else "")
            ptxt = f"({pos[0]},{pos[1]},{pos[2]})" if pos else "?"
            self.out(f"  {ln:>4}  {state:<8} {ptxt:<12} {safe(line):<20} {safe(val)}".rstrip())

    def _lane_lines(self, frame) -> dict[int, str] | None:
        """lane -> ``file:line`` of the lane's own PC, when the DWARF gives lane PCs; else None."""
        if frame is None:
            return None
        pcs = frame.lane_pcs()
        lco = frame.code_object
        if not pcs or lco is None:
            return None
        out = {}
        for lane, (pc, in_frame) in pcs.items():
            if not in_frame:
                out[lane] = "(not in this frame)"
                continue
            srcs = lco.source_frames(pc + lco.load_address)
            out[lane] = f"{os.path.basename(srcs[0].file)}:{srcs[0].line}" if srcs and srcs[0].file else f"{pc:#x}"
        return out

    def cmd_divergence(self, args: str) -> None:
        import argparse as _ap
        import shlex as _sh

        from amddbg.emu.args import add_launch_arguments, parse_arg, parse_dims
        from amddbg.emu.launch import launch_options
        from amddbg.emu.machine import Machine
        from amddbg.teach.divergence import add_picture_arguments, record

        lcos = self.program.code_objects
        if not lcos:
            raise UsageError("divergence: no code object is loaded")
        p = _ap.ArgumentParser(prog="divergence", add_help=False, exit_on_error=False)
        add_launch_arguments(p, codeobj=False)
        add_picture_arguments(p)
        words = _sh.split(args)
        words += self._divergence_defaults(words)
        try:
            ns = p.parse_args(words)
        except (_ap.ArgumentError, SystemExit, ValueError) as exc:
            raise UsageError(f"divergence: {exc}") from None
        m = Machine(lcos[0].codeobj)
        m.dispatch(ns.kernel, parse_dims(ns.grid, "grid"), parse_dims(ns.block, "block"),
                   [parse_arg(a) for a in ns.arg], **launch_options(ns))
        rep = record(m, max_instructions=ns.max_instructions or 2_000_000)
        self.out(f"{rep.status}: {rep.reason}; SIMD efficiency {rep.efficiency:.1%} "
                 f"({rep.slots - rep.active} of {rep.slots} lane-slots lost)")
        from amddbg.dwarf.values import lane_ranges

        for k in sorted(rep.lines):
            st = rep.lines[k]
            mask, _ = st.masks.most_common(1)[0]
            self.out(f"  {safe(os.path.basename(st.file))}:{st.line:<5} {st.efficiency:7.1%}  lost {st.lost:<6} "
                     f"lanes {lane_ranges(mask, rep.lanes)}")
        from amddbg.teach.timeline import EFFICIENCY_RULE, event_lines

        for line in event_lines(rep):
            self.out(f"  {safe(line)}")
        self.out(f"  ({EFFICIENCY_RULE})")
        if ns.svg:
            from amddbg.teach.timeline import svg

            with open(ns.svg, "w", encoding="utf-8") as fh:
                fh.write(svg(rep))
        if ns.html:
            from amddbg.teach.timeline import html_page

            with open(ns.html, "w", encoding="utf-8") as fh:
                fh.write(html_page(rep))

    def _divergence_defaults(self, words: list[str]) -> list[str]:
        """On a core, `divergence` without --kernel/--grid/--block runs the core's dispatch (the focused wave's,
        else the first): its kernel, grid and block. Buffer arguments cannot be taken from a core (their
        sizes are not recorded), so a kernel with arguments still needs --arg, and the error says so."""
        given = {w.split("=")[0] for w in words if w.startswith("--")}
        if {"--kernel", "--grid", "--block"} <= given or self.program.core is None:
            return []
        t = self.program.focus.thread
        d = t.dispatch if t is not None and t.is_wave and t.dispatch is not None else \
            (self.program.dispatches[0] if self.program.dispatches else None)
        if d is None or not d.grid_size or not d.workgroup_size:
            raise UsageError("divergence: the core records no dispatch to take --kernel, --grid and --block from")
        kernel = self.program.kernel_name(d)
        if kernel is None:
            raise UsageError("divergence: the core's dispatch names no kernel of a loaded code object; give --kernel")
        extra = []
        if "--kernel" not in given:
            extra += ["--kernel", kernel]
        if "--grid" not in given:
            extra += ["--grid", ",".join(map(str, d.grid_size))]
        if "--block" not in given:
            extra += ["--block", ",".join(map(str, d.workgroup_size))]
        if "--arg" not in given:
            from amddbg.emu.args import explicit_args

            lco = self.program.code_object_at(d.kernel_object or 0) or self.program.code_objects[0]
            k = next((k for k in lco.codeobj.kernels if k.name in (kernel, kernel + ".kd")), None)
            ex = explicit_args(k) if k is not None else []
            if ex:
                kinds = ", ".join(f"{a.value_kind}:{a.size}" for a in ex)
                raise UsageError(f"divergence: the core's kernel {safe(kernel)} (grid {list(d.grid_size)}, block "
                                 f"{list(d.workgroup_size)}) takes {len(ex)} argument(s) ({kinds}); a core does not "
                                 "record buffer sizes: give one --arg per argument (buf:TYPE:COUNT[:INIT] or "
                                 "TYPE:VALUE)")
        self.out(f"divergence of the core's dispatch: {' '.join(safe(w) for w in extra)}")
        return extra

    # -- focus ------------------------------------------------------------------------------------------------
    def cmd_thread(self, args: str) -> None:
        if not args:
            t = self.thread()
            self.out(f"[Current thread is {t.number} ({safe(t.target_id)})]")
            return
        if args.startswith("apply"):
            self.thread_apply(args[5:].strip())
            return
        n = _int(args.split()[0], "thread")
        t = self.program.select_thread(n)
        self.out(f"[Switching to thread {t.number} ({safe(t.target_id)})]")
        self._print_frame(self.program.current_frame)

    def thread_apply(self, args: str) -> None:
        """gdb's `thread apply all|ID-LIST [FLAG]... [--] COMMAND`; flags -q (no thread headers), -c (go on after
        an error, printing it), -s (go on silently). An ID list is matched against the threads that exist,
        so `1-999999999` costs what the core has, not a billion-entry list."""
        if not args:
            raise UsageError("Please specify a thread ID list")
        words = args.split()
        if words[0] == "all":
            targets = list(self.program.threads)
            i = 1
        else:
            ranges = []
            i = 0
            while i < len(words) and re.fullmatch(r"\d+(-\d+)?", words[i]):
                ranges.extend(_ranges(words[i]))
                i += 1
            if not ranges:
                raise UsageError(f"Invalid thread ID: {words[0]}")
            have = {t.number: t for t in self.program.threads}
            targets, missing = [], []
            for lo, hi in ranges:
                if hi - lo < 4096:  # gdb's order: as listed
                    for n in range(lo, hi + 1):
                        (targets.append(have[n]) if n in have else missing.append(n))
                else:
                    hit = sorted(n for n in have if lo <= n <= hi)
                    targets += [have[n] for n in hit]
                    edges = [lo - 1, *hit, hi + 1]  # the gaps between the threads that exist
                    missing += [f"{a + 1}-{b - 1}" if b - a > 2 else str(a + 1)
                                for a, b in zip(edges, edges[1:], strict=False) if b - a > 1]
            if missing:
                shown = ", ".join(map(str, missing[:8])) + (" ..." if len(missing) > 8 else "")
                many = len(missing) > 1 or "-" in str(missing[0])
                warn = f"warning: Unknown thread{'s' if many else ''} {shown}"
                if not targets:
                    raise UsageError(warn[len("warning: "):])
                self.out(warn)
        flags, cmd = _apply_flags(words, i, "thread")
        saved = (self.program.focus.thread, self.program.focus.lane, self.program.focus.frame_level)
        try:
            for t in targets:
                self.program.select_thread(t.number)
                if not self.json_mode and "-q" not in flags:
                    self.out("")
                    self.out(render.thread_header(t))
                self._apply_one(cmd, flags)
        finally:
            self.program.focus.thread, self.program.focus.lane, self.program.focus.frame_level = saved

    def _apply_one(self, cmd: str, flags: set) -> None:
        """One step of `thread apply`/`lane apply`: -s skips a failing command silently, -c prints its error and
        goes on, neither stops the loop at the first error (gdb's rules)."""
        try:
            self.execute(cmd)
        except AmddbgError as exc:
            if "-s" in flags:
                return
            if "-c" not in flags:
                raise
            self.out(safe(exc.user_message()))

    def cmd_lane(self, args: str) -> None:
        t = self.thread()
        if args.startswith("apply"):
            self.lane_apply(t, args[5:].strip())
            return
        if not args:
            self.out(f"[Current lane is {self.program.focus.lane}]")
            return
        n = _int(args.split()[0], "lane")
        self.program.select_lane(n)
        from amddbg.session.scope import ProgramScope

        f = self.program.current_frame
        pos = ProgramScope(self.program, f, n).lane_position() if f is not None else None
        # ROCgdb: the lane's target id, then the frame line and source line as `thread N` prints them
        self.out(f"[Switching to thread {t.number}, lane {n} ({safe(_lane_target_id(t, n, pos))})]")
        if n not in t.active_lanes:
            self.out(f"(lane {n} is inactive at the wave's PC)")
        self._print_frame(f)

    def lane_apply(self, t, args: str) -> None:
        """ROCgdb's `lane apply all|LANE-LIST [FLAG]... [--] COMMAND`: COMMAND with each lane of the current
        wave in focus, under a `Lane N (target id):` header; flags -q, -c, -s as for `thread apply`."""
        if not t.is_wave:
            raise UsageError("lane apply: the current thread is not a GPU wave")
        words = args.split()
        if not words:
            raise UsageError("Please specify a lane ID list")
        if words[0] == "all":
            lanes, i = list(range(t.lanes)), 1
        else:
            lanes, i = [], 0
            while i < len(words) and re.fullmatch(r"\d+(-\d+)?", words[i]):
                for lo, hi in _ranges(words[i]):
                    if hi >= t.lanes:
                        raise UsageError(f"Lane {hi} does not exist on this thread.")
                    lanes.extend(range(lo, hi + 1))
                i += 1
            if not lanes:
                raise UsageError(f"Invalid lane ID: {words[0]}")
        flags, cmd = _apply_flags(words, i, "lane")
        from amddbg.session.scope import ProgramScope

        saved = self.program.focus.lane
        f = self.program.current_frame
        try:
            for ln in lanes:
                self.program.select_lane(ln)
                if not self.json_mode and "-q" not in flags:
                    pos = ProgramScope(self.program, f, ln).lane_position() if f is not None else None
                    self.out("")
                    self.out(f"Lane {ln} ({safe(_lane_target_id(t, ln, pos))}):")
                self._apply_one(cmd, flags)
        finally:
            self.program.select_lane(saved)

    def _print_frame(self, f) -> None:
        if f is None:
            return
        lane = render.lane_of(self.program, f.thread)
        self.out(render.frame_line(f, lane=lane))
        text = self._source_line(f.file, f.line)
        if text is not None:
            self.out(f"{f.line}\t{text}")

    def cmd_frame(self, args: str) -> None:
        if args:
            self.program.select_frame(_int(args.split()[0], "frame"))
        self._print_frame(self.frame())

    def cmd_up(self, args: str) -> None:
        n = _int(args, "count") if args else 1
        level = self.program.focus.frame_level + n
        frames = self.thread().frames()
        if self.program.focus.frame_level >= len(frames) - 1:
            raise UsageError("Initial frame selected; you cannot go up.")
        self.program.select_frame(min(level, len(frames) - 1))
        self._print_frame(self.frame())

    def cmd_down(self, args: str) -> None:
        n = _int(args, "count") if args else 1
        if self.program.focus.frame_level == 0:
            raise UsageError("Bottom (innermost) frame selected; you cannot go down.")
        self.program.select_frame(max(0, self.program.focus.frame_level - n))
        self._print_frame(self.frame())

    def cmd_backtrace(self, args: str) -> None:
        as_json, args = self._json_flag(args)
        words = args.split()
        full = "-full" in words or "full" in words
        words = [w for w in words if w not in ("-full", "full")]
        limit = _int(words[0], "count") if words else None
        t = self.thread()
        frames = t.frames()
        lane = render.lane_of(self.program, t)
        shown = frames if limit is None else (frames[:limit] if limit >= 0 else frames[limit:])
        if as_json:
            out = []
            for f in shown:
                d = {"level": f.level, "pc": f.pc, "function": plain_name(f.function),
                     "linkage_name": f.linkage_name, "file": f.file, "line": f.line, "column": f.column,
                     "inlined": f.inlined, "method": f.method, "show_address": render.show_address(f),
                     "args": [{"name": a.name, "value": _fmt(a, lane)} for a in _safe_list(f.arguments)]}
                if full:
                    d["locals"] = [{"name": v.name, "value": _fmt(v, lane)} for v in _safe_list(f.locals)]
                if f.stop_reason:
                    d["stop_reason"] = f.stop_reason
                out.append(d)
            self.emit_json({"command": "bt", "thread": t.number, "target_id": t.target_id, "lane": lane,
                            "frames": out})
            return
        for f in shown:
            self.out(render.frame_line(f, lane=lane))
            if full:
                locs = _safe_list(f.locals)
                if not locs:
                    self.out("No locals.")
                for v in locs:
                    self.out(f"        {safe(v.name)} = {safe(_fmt(v, lane))}")
        if limit is not None and 0 <= limit < len(frames):
            self.out("(More stack frames follow...)")
        elif frames and frames[-1].stop_reason and frames[-1].method != "host" and \
                not frames[-1].stop_reason.startswith("return address undefined"):
            self.out(f"Backtrace stopped: {safe(frames[-1].stop_reason)}")

    # -- values --------------------------------------------------------------------------------------------------
    def _parse_print(self, args: str) -> tuple[str | None, str | None, str]:
        fmt = None
        if args.startswith("/"):
            m = re.match(r"/(\w*)\s*(.*)", args, re.S)
            letters, args = m.group(1), m.group(2)
            for ch in letters:
                if ch not in "xduotcfazsr":
                    raise UsageError(f'Undefined output format "{ch}".')
            fmt = letters[-1] if letters else None
        lane = None
        m = re.match(r"-lane\s+(\S+)\s*(.*)", args, re.S)
        if m:
            lane, args = m.group(1), m.group(2)
        m = re.match(r"--\s+(.*)", args, re.S)
        if m:
            args = m.group(1)
        return fmt, lane, args.strip()

    def _eval_print(self, args: str):
        fmt, lane, expr = self._parse_print(args)
        if not expr:
            if not self.program.history:
                raise UsageError("History is empty.")
            return fmt, self.program.history[-1], None
        if lane == "all":
            return fmt, self.program.evaluate_lanes(expr, frame=self.program.current_frame), "all"
        if lane is not None:
            ln = _int(lane, "lane")
            t = self.thread()
            if not t.is_wave or not 0 <= ln < t.lanes:
                raise UsageError(f"Lane {ln} does not exist in this wave.")
            v = self.program.evaluate(expr, lane=ln)
            v.pc_marked = ln not in t.active_lanes
            return fmt, v, ln
        return fmt, self.program.evaluate(expr), None

    def cmd_print(self, args: str) -> None:
        fmt, value, lane = self._eval_print(args)
        as_json = self.json_mode
        if getattr(value, "error", None) == "void":
            self.out("$" + str(self.program.record(value)) + " = void" if not as_json else "")
            return
        n = self.program.record(value)
        f = fmt if fmt != "r" else None
        text = value.pretty(f) if self.settings.get("print pretty") and hasattr(value, "pretty") else value.format(f)
        if as_json:
            doc = {"command": "print", "history": n, "value": text, "format": fmt}
            if lane == "all":
                doc["lanes"] = [{"lane": ln, "value": v.format(fmt), "marked": v.pc_marked} for ln, v in value]
                doc["type"] = getattr(value.type, "name", None)
            else:
                doc["type"] = getattr(value.type, "name", None)
                doc["lane"] = value.lane if value.lane is not None else self.program.focus.lane
                doc["marked"] = value.pc_marked
            self.emit_json(doc)
            return
        for i, line in enumerate(text.split("\n")):
            self.out((f"${n} = " if i == 0 else "") + safe(line))
        self._mark_note(value)

    def _mark_note(self, value) -> None:
        marked = getattr(value, "marked_lanes", None)
        if marked:
            self.out("* lanes not active at the wave PC: their values were evaluated at the wave PC")
        elif getattr(value, "pc_marked", False):
            self.out("warning: this lane is not active at the wave PC; the value was evaluated there")

    def cmd_output(self, args: str) -> None:
        fmt, value, _ = self._eval_print(args)
        self.out(safe(value.format(fmt)))

    def cmd_whatis(self, args: str) -> None:
        if not args:
            raise UsageError("Argument required (one or more choice items).")
        t = self._type_of(args)
        self.out(f"type = {safe(getattr(t, 'name', 'void'))}")

    def cmd_ptype(self, args: str) -> None:
        if not args:
            raise UsageError("Argument required (one or more choice items).")
        t = self._type_of(args)
        for i, line in enumerate(_ptype_text(t).split("\n")):
            self.out(("type = " if i == 0 else "") + safe(line))

    def _type_of(self, text: str):
        from amddbg.session.expr.evaluator import Evaluator

        scope = self.program.eval_scope()
        try:
            return Evaluator(scope).resolve_type(text)
        except UsageError:
            pass
        try:
            return self.program.evaluate(text).type
        except UsageError:
            from amddbg.repl.static_info import function_type_text

            ftype = function_type_text(self.program, text.strip())  # a function: gdb prints its type
            if ftype is None:
                raise
            return _Named(ftype)

    def cmd_x(self, args: str) -> None:
        from amddbg.repl.examine import examine

        examine(self, args)

    # -- code --------------------------------------------------------------------------------------------------
    def _address(self, text: str) -> int:
        text = text.strip()
        if text.startswith("*"):
            text = text[1:]
        hits = self.program.lookup_function(text) if re.fullmatch(r"[\w:<>, ]+", text) and not \
            re.fullmatch(r"\d+|0[xX][0-9a-fA-F]+", text) else []
        if hits:
            lco, s = hits[0]
            return s.address + lco.load_address
        return self.program.evaluate(text).to_int() & (2**64 - 1)

    def cmd_disassemble(self, args: str) -> None:
        from amddbg.repl.disassemble import disassemble

        disassemble(self, args)

    def _source_line(self, file: str | None, line: int) -> str | None:
        lines = self._source(file)
        if lines is None or not 1 <= line <= len(lines):
            return None
        return safe(lines[line - 1].rstrip("\n"))

    def _source(self, file: str | None) -> list[str] | None:
        if not file:
            return None
        cache = getattr(self, "_src_cache", None)
        if cache is None:
            cache = self._src_cache = {}
        if file in cache:
            return cache[file]
        text = None
        for cand in _source_candidates(file, self.program.paths):
            try:
                if os.path.isfile(cand) and os.path.getsize(cand) < 64 << 20:
                    with open(cand, encoding="utf-8", errors="replace") as fh:
                        text = fh.readlines()
                    break
            except OSError:
                continue
        cache[file] = text
        return text

    def cmd_list(self, args: str) -> None:
        size = int(self.settings.get("listsize"))
        if args:
            file, line = self._location(args)
            first = max(1, line - size // 2)
        elif self.last_list is not None:
            file, first = self.last_list
        else:
            f = self.frame()
            file, line = f.file, f.line
            first = max(1, line - size // 2)
        lines = self._source(file)
        if lines is None:
            raise UsageError(f"{file or '??'}: No such file or directory.")
        if first > len(lines):
            raise UsageError(f"Line number {first} out of range; \"{file}\" has {len(lines)} lines.")
        for n in range(first, min(len(lines), first + size - 1) + 1):
            self.out(f"{n}\t{safe(lines[n - 1].rstrip(chr(10)))}")
        self.last_list = (file, first + size)

    def _location(self, text: str) -> tuple[str, int]:
        m = re.fullmatch(r"(.+):(\d+)", text.strip())
        if m:
            from amddbg.session.sources import match_source

            file = m.group(1)
            f = self.program.current_frame
            if f is not None and f.file and os.path.basename(f.file) == os.path.basename(file):
                return f.file, int(m.group(2))
            named = match_source(self.program, file)  # only files the debug information names
            if named is None:
                raise UsageError(f'No source file named {safe(file)}.')
            return named, int(m.group(2))
        if text.strip().isdigit():
            f = self.frame()
            return f.file, int(text)
        addr = self._address(text)
        srcs = self.program.symbolize(addr)
        if not srcs or not srcs[0].file:
            raise UsageError(f"No line number known for {text}.")
        return srcs[-1].file, srcs[-1].line

    # -- settings ---------------------------------------------------------------------------------------------------
    def cmd_set(self, args: str) -> None:
        if args.startswith("$") or args.startswith("var "):
            expr = args[4:] if args.startswith("var ") else args
            self.program.evaluate(expr)
            return
        name, value = self._setting(args)
        kind = SETTING_KINDS[name]
        if kind is bool:
            self.settings.values[name] = _bool(value)
        else:
            v = value.strip().lower()
            self.settings.values[name] = 0 if v in ("unlimited", "0") else _int(v, name)

    def _setting(self, args: str) -> tuple[str, str]:
        for name in sorted(SETTING_KINDS, key=len, reverse=True):
            if args == name or args.startswith(name + " "):
                return name, args[len(name):].strip()
        raise UsageError(f'No symbol "{args.split()[0] if args else ""}" in current context.' if args else
                         'Argument required (expression to compute).')

    def cmd_show(self, args: str) -> None:
        if args.strip() == "version":  # gdb's first line names the debugger and its version
            from amddbg import __version__

            self.out(f"amddbg {__version__}")
            self.out("Postmortem debugger for AMD GPUs: GPU cores (split, host + GPU, unified) and code objects.")
            return
        if not args:
            for name in sorted(SETTING_KINDS):
                self.out(f"{name}: {self._show_value(name)}")
            return
        name, _ = self._setting(args)
        descr = {"print pretty": "Pretty formatting of structures is", "pagination": "State of pagination is",
                 "width": "Number of characters gdb thinks are in a line is",
                 "height": "Number of lines gdb thinks are in a page is",
                 "listsize": "Number of source lines gdb will list by default is",
                 "confirm": "Whether to confirm potentially dangerous operations is",
                 "print elements": "Limit on string chars or array elements to print is"}[name]
        self.out(f"{descr} {self._show_value(name)}.")

    def _show_value(self, name: str) -> str:
        v = self.settings.get(name)
        if isinstance(v, bool):
            return "on" if v else "off"
        return "unlimited" if v == 0 else str(v)


class _Named:
    """A type known only by its printed name (a function's type from the symbol table and DWARF)."""

    def __init__(self, name: str) -> None:
        self.name = name


def _ptype_text(t) -> str:
    name = getattr(t, "name", "void")
    try:
        s = t.strip()
    except AttributeError:
        return name
    if getattr(s, "kind", None) in ("struct", "union", "class"):
        lines = [f"{s.kind} {s.name} {{"]
        for m in s.members:
            tname = m.type.name
            dims = ""
            while tname.endswith("]") and "[" in tname:  # C declarator: short tag[2], not short[2] tag
                cut = tname.rindex("[")
                dims = tname[cut:] + dims
                tname = tname[:cut]
            bits = f" : {m.bit_size}" if m.bit_size else ""
            lines.append(f"    {tname} {m.name}{dims}{bits};")
        lines.append("}")
        return "\n".join(lines)
    if getattr(s, "kind", None) == "enum":
        return f"enum {s.name} {{" + ", ".join(n for n, _ in s.enumerators) + "}"
    return name


def _fmt(var, lane) -> str:
    try:
        return var.value(lane).format()
    except AmddbgError as exc:
        return f"<error: {exc.message}>"


def _safe_list(fn):
    try:
        return fn()
    except AmddbgError:
        return []


def _demangle(name: str | None) -> str | None:
    if not name:
        return name
    from amddbg.dwarf.demangle import demangle

    return demangle(name) or name


def _int(text: str, what: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise UsageError(f"Invalid {what}: {text}") from None


def _lane_target_id(t, lane: int, pos) -> str:
    """ROCgdb's lane target id: `AMDGPU Lane AGENT:QUEUE:DISPATCH:WAVE/LANE (WG)[POSITION]`."""
    wg = t.workgroup or ("?", "?", "?")
    pos_t = f"[{pos[0]},{pos[1]},{pos[2]}]" if pos else "[?,?,?]"
    return (f"AMDGPU Lane {t.agent_id}:{t.queue_handle}:{t.dispatch_handle}:{t.wave_id}/{lane} "
            f"({wg[0]},{wg[1]},{wg[2]}){pos_t}")


def _device_name(device_id):
    from amddbg.core.kfd import device_name

    return device_name(device_id)


def _ranges(text: str) -> list[tuple[int, int]]:
    """`3 5-7` as [(3, 3), (5, 7)] (a range is never expanded: its end may be 999999999)."""
    out = []
    for part in text.split():
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not m:
            raise UsageError(f"Invalid thread ID: {part}")
        lo = int(m.group(1))
        hi = int(m.group(2) or lo)
        if hi < lo:
            raise UsageError(f"inverted range: {part}")
        out.append((lo, hi))
    return out


def _source_candidates(file: str, paths: list[str]) -> list[str]:
    out = [file]
    base = os.path.basename(file)
    parts = file.strip("/").split("/")
    # a build path recorded with -fdebug-compilation-dir: try it under the cwd and next to the inputs
    for i in range(len(parts)):
        out.append(os.path.join(os.getcwd(), *parts[i:]))
    for p in paths:
        d = os.path.dirname(os.path.abspath(p))
        for up in (d, os.path.dirname(d), os.path.dirname(os.path.dirname(d))):
            out.append(os.path.join(up, base))
            for i in range(len(parts)):
                out.append(os.path.join(up, *parts[i:]))
    return out


INFO_SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "agents": ("info_agents", "the GPU agents (devices) of the core"),
    "queues": ("info_queues", "the AQL queues of each agent"),
    "dispatches": ("info_dispatches", "kernel dispatches in flight, with grid and workgroup sizes"),
    "threads": ("info_threads", "host threads and GPU waves, with their innermost frame"),
    "waves": ("info_waves", "GPU waves with their state, PC, EXEC and source line"),
    "lanes": ("info_lanes", "the lanes of the current wave"),
    "registers": ("info_registers", "registers of the current wave (or the named ones)"),
    "sharedlibrary": ("info_sharedlibrary", "loaded code objects"),
    "frame": ("info_frame", "the selected frame"),
    "functions": ("info_functions", "kernels and device functions by source file: info functions [REGEXP]"),
    "scope": ("info_scope", "variables visible at a location and where they live: info scope FUNC|FILE:LINE|*ADDR"),
    "locals": ("info_locals", "local variables of the selected frame (-lane all for every lane)"),
    "args": ("info_args", "arguments of the selected frame"),
    "line": ("info_line", "the source line of an address"),
    "source": ("info_source", "the current source file"),
    "symbol": ("info_symbol", "the symbol at an address"),
    "address": ("info_address", "where a variable or function lives"),
    "plugins": ("info_plugins", "loaded plugins and where they came from"),
    "barriers": ("info_barriers", "barrier objects of each workgroup with expected/arrived counts"),
}

__all__ = ["Command", "Debugger", "INFO_SUBCOMMANDS", "Quit", "shlex"]


def _apply_flags(words: list[str], i: int, what: str) -> tuple[set, str]:
    """The flags (-q, -c, -s; `--` ends them) after an apply command's ID list at words[i], and the command."""
    flags = set()
    while i < len(words) and words[i] in ("-q", "-c", "-s", "--"):
        i += 1
        if words[i - 1] == "--":
            break
        flags.add(words[i - 1])
    cmd = " ".join(words[i:])
    if not cmd:
        raise UsageError(f"Please specify a command following the {what} ID list")
    return flags, cmd
