"""Text shapes gdb and ROCgdb print, built from session objects (no I/O here).

Scripts written against gdb parse these lines, so the shapes are gdb's: ``#K  0xPC in f (a=1) at file:N``
(two spaces after the level; the PC as 16 hex digits; no ``0xPC in`` for a frame at the first address of
its line, or for the caller of an inlined frame), ``Thread N (TARGET-ID):`` headers of `thread apply`,
``  N    TARGET-ID  FRAME`` rows of `info threads` with ``*`` on the current one.
"""

from __future__ import annotations

from amddbg.dwarf.demangle import plain_name
from amddbg.errors import AmddbgError
from amddbg.textsafe import safe


def show_address(frame) -> bool:
    """gdb's frame_show_address: not for the caller of an inlined frame; for frame 0 only when the PC is
    not the first address of its line; always for a caller's return address."""
    if frame.inline_depth > 0:
        return False
    phys = frame.physical
    if phys is not None and getattr(phys, "index", 0) > 0:
        return True
    if frame.code_object is None:
        return True
    try:
        return not frame.code_object.is_statement_start(frame.pc)
    except AmddbgError:
        return True


def frame_args_text(frame, lane: int | None) -> str:
    parts = []
    try:
        args = frame.arguments()
    except AmddbgError:
        return ""
    for a in args:
        try:
            v = a.value(lane)
            text = v.format()
        except AmddbgError as exc:
            text = f"<error: {exc.message}>"
        parts.append(f"{safe(a.name)}={safe(text)}")
    return ", ".join(parts)


def frame_line(frame, *, lane: int | None = None, level: bool = True) -> str:
    """``#K  0xPC in FUNCTION (ARGS) at FILE:LINE`` (gdb's print_frame)."""
    head = f"#{frame.level:<2} " if level else ""
    body = ""
    if show_address(frame):
        body += f"0x{frame.pc:016x} in "
    body += f"{safe(plain_name(frame.function))} ({frame_args_text(frame, lane)})"
    if frame.file:
        body += f" at {safe(frame.file)}:{frame.line}"
    elif frame.code_object is not None:
        body += f" from {safe(frame.code_object.uri)}"
    return head + body


def frame_summary(frame, lane: int | None = None) -> str:
    """The FRAME column of `info threads` (gdb: the innermost frame without its level)."""
    return frame_line(frame, lane=lane, level=False)


def thread_header(thread) -> str:
    return f"Thread {thread.number} ({safe(thread.target_id)}):"


def lane_of(program, thread) -> int | None:
    if not thread.is_wave:
        return None
    if program.focus.thread is thread:
        return program.focus.lane
    active = thread.active_lanes
    return active[0] if active else 0


def thread_frame_text(program, thread) -> str:
    try:
        frames = thread.frames()
    except AmddbgError as exc:
        return f"<unavailable: {safe(exc.message)}>"
    if not frames:
        return "<unavailable>"
    return frame_summary(frames[0], lane_of(program, thread))


def kernel_label(program, thread) -> str:
    if not thread.is_wave:
        return ""
    k = thread.kernel
    if not k:
        return ""
    from amddbg.dwarf.demangle import demangle

    return f' "{safe(plain_name(demangle(k) or k))}"'


REPEAT_THRESHOLD = 10  # gdb's `set print repeats` default


def repeats(items: list[str], threshold: int = REPEAT_THRESHOLD) -> str:
    """Array elements joined as gdb prints them: a run of at least `threshold` equal elements becomes
    `V <repeats N times>` (`info registers v1` of a uniform VGPR is `{0x00000000 <repeats 64 times>}`)."""
    out: list[str] = []
    i = 0
    while i < len(items):
        j = i
        while j < len(items) and items[j] == items[i]:
            j += 1
        if j - i >= threshold:
            out.append(f"{items[i]} <repeats {j - i} times>")
        else:
            out.extend(items[i:j])
        i = j
    return ", ".join(out)
