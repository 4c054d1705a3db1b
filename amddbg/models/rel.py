"""Binary relations over a small event set, as one bitmask row per event.

Litmus executions have tens of events, so a relation is a list of Python ints: ``r[i]`` has bit ``j``
set when ``(i, j)`` is in the relation. Composition, closure and set restriction are then a few
integer operations per row, which is what makes exhaustive enumeration affordable in pure Python.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

Rel = list[int]


def empty(n: int) -> Rel:
    return [0] * n


def ident(n: int, mask: int = -1) -> Rel:
    return [(1 << i) if (mask >> i) & 1 else 0 for i in range(n)]


def bits(m: int) -> Iterator[int]:
    while m:
        low = m & -m
        yield low.bit_length() - 1
        m ^= low


def mask_of(items: Iterable[int]) -> int:
    m = 0
    for i in items:
        m |= 1 << i
    return m


def union(*rs: Rel) -> Rel:
    out = list(rs[0])
    for r in rs[1:]:
        for i, row in enumerate(r):
            out[i] |= row
    return out


def inter(a: Rel, b: Rel) -> Rel:
    return [x & y for x, y in zip(a, b, strict=True)]


def minus(a: Rel, b: Rel) -> Rel:
    return [x & ~y for x, y in zip(a, b, strict=True)]


def restrict(r: Rel, dom: int, rng: int = -1) -> Rel:
    """[dom]; r; [rng]"""
    return [(row & rng) if (dom >> i) & 1 else 0 for i, row in enumerate(r)]


def compose(a: Rel, b: Rel) -> Rel:
    out = []
    for row in a:
        acc = 0
        while row:
            low = row & -row
            acc |= b[low.bit_length() - 1]
            row ^= low
        out.append(acc)
    return out


def seq(*rs: Rel) -> Rel:
    out = rs[0]
    for r in rs[1:]:
        out = compose(out, r)
    return out


def refl(r: Rel) -> Rel:
    return [row | (1 << i) for i, row in enumerate(r)]


def closure(r: Rel) -> Rel:
    """Transitive closure (r+), Warshall on bit rows."""
    out = list(r)
    n = len(out)
    for k in range(n):
        kb = 1 << k
        rk = out[k]
        if not rk:
            continue
        for i in range(n):
            if out[i] & kb:
                out[i] |= rk
        rk = out[k]
    return out


def inverse(r: Rel) -> Rel:
    n = len(r)
    out = [0] * n
    for i, row in enumerate(r):
        for j in bits(row):
            out[j] |= 1 << i
    return out


def rai(r: Rel) -> Rel:
    return union(r, inverse(r))


def cross(n: int, a: int, b: int) -> Rel:
    return [b if (a >> i) & 1 else 0 for i in range(n)]


def drop_ident(r: Rel) -> Rel:
    return [row & ~(1 << i) for i, row in enumerate(r)]


def is_acyclic(r: Rel) -> bool:
    """Kahn's algorithm on the bit rows."""
    n = len(r)
    indeg = [0] * n
    for row in r:
        for j in bits(row):
            indeg[j] += 1
    stack = [i for i in range(n) if indeg[i] == 0]
    seen = 0
    while stack:
        i = stack.pop()
        seen += 1
        for j in bits(r[i]):
            indeg[j] -= 1
            if indeg[j] == 0:
                stack.append(j)
    return seen == n


def pairs(r: Rel) -> list[tuple[int, int]]:
    return [(i, j) for i, row in enumerate(r) for j in bits(row)]


def count(r: Rel) -> int:
    return sum(row.bit_count() for row in r)


def find_cycle(r: Rel) -> list[int] | None:
    """One cycle of r (as a list of nodes), or None; used to explain inconsistency."""
    n = len(r)
    color = [0] * n
    parent = [-1] * n
    for s in range(n):
        if color[s]:
            continue
        stack = [(s, iter(list(bits(r[s]))))]
        color[s] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                color[node] = 2
                stack.pop()
                continue
            if color[nxt] == 1:
                cyc = [nxt]
                for frame_node, _ in reversed(stack):
                    cyc.append(frame_node)
                    if frame_node == nxt:
                        break
                cyc.reverse()
                return cyc[:-1] if len(cyc) > 1 and cyc[0] == cyc[-1] else cyc
            if color[nxt] == 0:
                color[nxt] = 1
                parent[nxt] = node
                stack.append((nxt, iter(list(bits(r[nxt])))))
    return None
