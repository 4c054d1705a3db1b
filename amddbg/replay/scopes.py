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


def consistent_scope(op) -> tuple[str, str]:
    """(widest scope consistent with the op's bytes, its wording): ("workgroup", "workgroup scope or narrower")."""
    scopes = row_scopes(getattr(op, "rows", ()))
    if not scopes:
        return op.scope, f"{op.scope} scope"
    widest = max(scopes, key=ORDER.index)
    return widest, f"{widest} scope" + (" or narrower" if len(scopes) > 1 else "")


def widest_row(op, scope: str) -> str | None:
    """The first candidate row at `scope` (what the wording quotes)."""
    return next((r for r in getattr(op, "rows", ()) if scope in r.split() or
                 (scope == "wavefront" and "singlethread" in r.split())), None)
