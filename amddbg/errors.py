"""One exception hierarchy for every layer.

Every error a user can cause (a bad file, a missing capability, bytes a core does not hold) is an
`AmddbgError`. It carries the file and offset it concerns so the CLI can print the one-line form
``amddbg: error: <file>: <what> at offset 0x…`` and exit 2 without a traceback.
"""

from __future__ import annotations


class AmddbgError(Exception):
    """Base class of all user-facing errors."""

    def __init__(self, message: str, *, file: str | None = None, offset: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.offset = offset

    def with_file(self, file: str) -> AmddbgError:
        """Return self after attaching `file` if none is set yet (used as errors bubble up)."""
        if self.file is None:
            self.file = file
        return self

    def user_message(self) -> str:
        parts = []
        if self.file:
            parts.append(f"{self.file}: ")
        parts.append(self.message)
        if self.offset is not None:
            parts.append(f" at offset {self.offset:#x}")
        return "".join(parts)

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.user_message()


class FormatError(AmddbgError):
    """The input bytes do not follow the format they claim (truncated, corrupt, wrong kind of file)."""


class UsageError(AmddbgError):
    """The command line or API call is wrong (bad option combination, unknown kernel name, ...)."""


class NotSupported(AmddbgError):
    """A capability that amddbg does not have yet. Names the capability; never a silent wrong answer."""

    def __init__(self, capability: str, *, file: str | None = None, offset: int | None = None) -> None:
        super().__init__(f"not supported yet: {capability}", file=file, offset=offset)
        self.capability = capability


class Unavailable(AmddbgError):
    """Bytes or registers the target does not hold (a hole in a core, memory never dumped).

    Views print ``<unavailable>`` for these; they are not failures of amddbg.
    """

    def __init__(self, space: str, address: int, size: int, why: str = "not in the core") -> None:
        super().__init__(f"{space} memory {address:#x}+{size} is unavailable: {why}")
        self.space = space
        self.address = address
        self.size = size
        self.why = why
