"""How wide the user's output is, and text folded at words to that width.

Long explain findings and start-up summary lines would otherwise be folded by the terminal in the middle of a word
or a number. The rule (`output_width`): `$COLUMNS` when it is set to a positive number (the user said how wide,
as for Python's `shutil.get_terminal_size` and rich's tables), else the terminal's width when the output is a
terminal, else 0: output to a pipe or a file keeps whole lines, so `grep` finds a finding on one line. A shell
sets COLUMNS without exporting it, so a program sees it only when the user asked for a width.
"""

from __future__ import annotations

import os


def output_width(stream=None) -> int:
    """Columns to fold text to for `stream` (default: sys.stdout), or 0 for no folding."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    if stream is None:
        import sys

        stream = sys.stdout
    try:
        if stream.isatty():
            return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError):
        pass
    return 0


def wrap_at_words(lines: list[str], width: int) -> list[str]:
    """`lines` folded at spaces to `width` columns (0: unchanged), continuation lines indented two spaces
    past the line's own indent, so a terminal never breaks a name or a number in two. A single word longer
    than the width is left whole (the terminal folds it; cutting it would change what grep finds)."""
    import textwrap

    if width <= 0:
        return list(lines)
    out: list[str] = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip(" "))]
        out += textwrap.wrap(line, width=width, initial_indent="", subsequent_indent=indent + "  ",
                             break_long_words=False, break_on_hyphens=False, drop_whitespace=True) or [line]
    return out
