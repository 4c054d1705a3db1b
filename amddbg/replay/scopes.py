"""Scope wording for a lifted access: the widest scope its bytes are consistent with, never a narrower one.

Several memory-model rows can emit the same bytes (gfx90a compiles a relaxed load at singlethread, wavefront and
workgroup scope to the same plain `global_load`). The lifter claims only the weakest guarantee (the narrowest
scope) so that nothing stronger is ever asserted; but telling a user "your load is at most wavefront-scope" when
they wrote workgroup scope reads as a claim about their code. The wording therefore names the widest scope any
candidate row has, and says "or narrower" when the bytes cannot tell: "workgroup scope or narrower".
"""

from __future__ import annotations

ORDER = ("wavefront", "workgroup", "agent", "system")


def row_scopes(rows) -> set[str]:
    """The scopes the candidate rows name (singlethread is wavefront); non-atomic rows name none."""
    out = set()
    for row in rows or ():
        for word in row.split():
            if word in ("singlethread", "wavefront"):
                out.add("wavefront")
            elif word in ORDER:
                out.add(word)
    return out


SYNC = {"acquire": ("acquire", "acq_rel", "seq_cst"), "release": ("release", "acq_rel", "seq_cst")}


def consistent_scope(op, sync: str | None = None) -> tuple[str, str]:
    """(widest scope consistent with the op's bytes, its wording): ("workgroup", "workgroup scope or narrower").
    With `sync` ("acquire" or "release"), the rows with that ordering are preferred, and the wording says so:
    "an acquire at workgroup scope or narrower"; without such rows, "relaxed, system scope or narrower"."""
    rows = list(getattr(op, "rows", ()) or ())
    prefix = ""
    if sync is not None:
        synced = [r for r in rows if any(w in r.split() for w in SYNC[sync])]
        if synced:
            rows, prefix = synced, ("an acquire at " if sync == "acquire" else "a release at ")
        elif row_scopes(rows):
            prefix = "relaxed, "
    scopes = row_scopes(rows)
    if not scopes:
        return op.scope, f"{prefix}{op.scope} scope"
    widest = max(scopes, key=ORDER.index)
    return widest, f"{prefix}{widest} scope" + (" or narrower" if len(scopes) > 1 else "")


def widest_row(op, scope: str, sync: str | None = None) -> str | None:
    """The first candidate row at `scope` (with the `sync` ordering when one has it): what the wording quotes."""
    rows = list(getattr(op, "rows", ()) or ())
    if sync is not None:
        rows = [r for r in rows if any(w in r.split() for w in SYNC[sync])] or rows
    return next((r for r in rows if scope in r.split() or
                 (scope == "wavefront" and "singlethread" in r.split())), None)
