"""Fair termination over sequentially consistent interleavings of a herd-style litmus program.

Every interleaving of the threads (with control barriers blocking as in `herdcheck`) is a valid
execution of the weaker Vulkan/AMDGPU models, so a reachable deadlock, or a reachable cycle of states
that schedules every thread enabled throughout it (weak fairness), is a real non-terminating
execution. This complements the axiomatic spin-loop analysis for loops with side effects (e.g. an
exchange loop that livelocks). Exploration is exhaustive up to `MAX_STATES` states.
"""

from __future__ import annotations

from dataclasses import dataclass

from amddbg.models.herdops import herd_cmp as _cmp
from amddbg.models.herdops import herd_fn as _fn
from amddbg.models.litmus.herd import HerdTest

MAX_STATES = 100000


@dataclass
class SCResult:
    complete: bool  # the whole state space was explored
    hang: str | None  # description of a non-terminating behaviour, if found
    states: int


def explore(test: HerdTest) -> SCResult:
    threads = test.threads
    n = len(threads)
    labels = [{ins.args["name"]: k for k, ins in enumerate(t.code) if ins.op == "label"} for t in threads]
    members: dict[tuple, int] = {}
    for t in threads:
        for ins in t.code:
            if ins.op == "cbar":
                key = (t.qf, t.wg, ins.args["instance"], ins.args["resource"])
                members[key] = members.get(key, 0) | (1 << t.tid)
    locs = sorted({test.location(ins.args["loc"]) for t in threads for ins in t.code if "loc" in ins.args})
    loc_ix = {loc: i for i, loc in enumerate(locs)}
    mem0 = tuple(test.init_mem.get(loc, 0) for loc in locs)
    regs0 = tuple(tuple(sorted((r, v) for (tid, r), v in test.init_regs.items() if tid == t.tid))
                  for t in threads)

    def val(regs: dict, v):
        return v if isinstance(v, int) else regs.get(v, 0)

    def local(tid: int, pc: int, regs: dict) -> tuple[int, dict, bool]:
        """Run thread-local steps (labels, jumps, arithmetic) up to the next shared operation."""
        code = threads[tid].code
        steps = 0
        while pc < len(code) and code[pc].op in ("label", "goto", "br", "local"):
            steps += 1
            if steps > 1000:
                return pc, regs, True  # purely local infinite loop
            ins = code[pc]
            if ins.op == "label":
                pc += 1
            elif ins.op == "goto":
                pc = labels[tid][ins.args["target"]]
            elif ins.op == "br":
                if _cmp(ins.args["cond"], val(regs, ins.args["a"]), val(regs, ins.args["b"])):
                    pc = labels[tid][ins.args["target"]]
                else:
                    pc += 1
            else:
                regs = dict(regs)
                regs[ins.args["rd"]] = _fn(ins.args["fn"], val(regs, ins.args["a"]), val(regs, ins.args["b"]))
                pc += 1
        return pc, regs, False

    # state: (pcs, regs, mem, arrived barrier masks, open quorum barriers)
    init_pcs = []
    init_regs = []
    for t in range(n):
        pc, regs, _ = local(t, 0, dict(regs0[t]))
        init_pcs.append(pc)
        init_regs.append(tuple(sorted(regs.items())))
    start = (tuple(init_pcs), tuple(init_regs), mem0, (), ())
    index = {start: 0}
    states = [start]
    edges: list[list[tuple[int, int]]] = []
    enabled_of: list[int] = []
    k = 0
    complete = True
    while k < len(states):
        st = states[k]
        k += 1
        pcs, regss, mem, arrived, opened = st
        arrived_d = dict(arrived)
        out = []
        en = 0
        for t in range(n):
            code = threads[t].code
            pc = pcs[t]
            if pc >= len(code):
                continue
            ins = code[pc]
            regs = dict(regss[t])
            nmem = mem
            narr = arrived_d
            nopen = opened
            if ins.op == "cbar":
                key = (threads[t].qf, threads[t].wg, ins.args["instance"], ins.args["resource"])
                mask = arrived_d.get(key, 0) | (1 << t)
                quorum = ins.args["quorum"]
                q = val(regs, quorum) if quorum is not None else None
                if key in opened:
                    pass
                elif (q is None and mask == members[key]) or (q is not None and bin(mask).count("1") >= q):
                    if q is not None:
                        nopen = tuple(sorted(set(opened) | {key}))
                    narr = {kk: vv for kk, vv in arrived_d.items() if kk != key}
                    # everyone waiting at this barrier is released together with t
                    waiting = mask
                    npcs = list(pcs)
                    nregs = list(regss)
                    for u in range(n):
                        if (waiting >> u) & 1:
                            pc2, r2, _ = local(u, pcs[u] + 1, dict(regss[u]))
                            npcs[u] = pc2
                            nregs[u] = tuple(sorted(r2.items()))
                    en |= 1 << t
                    out.append((t, (tuple(npcs), tuple(nregs), nmem, tuple(sorted(narr.items())), nopen)))
                    continue
                else:
                    if (arrived_d.get(key, 0) >> t) & 1:
                        continue  # already waiting: not enabled
                    narr = dict(arrived_d)
                    narr[key] = mask
                    en |= 1 << t
                    out.append((t, (pcs, regss, mem, tuple(sorted(narr.items())), opened)))
                    continue
                pc2, regs, _ = local(t, pc + 1, regs)
            elif ins.op in ("ld", "st", "rmw"):
                li = loc_ix[test.location(ins.args["loc"])]
                ml = list(mem)
                if ins.op == "ld":
                    regs[ins.args["rd"]] = mem[li]
                elif ins.op == "st":
                    ml[li] = val(regs, ins.args["value"])
                else:
                    old = mem[li]
                    operand = val(regs, ins.args["value"])
                    ml[li] = _fn(ins.args["fn"], old, operand) if ins.args["fn"] else operand
                    regs[ins.args["rd"]] = old
                nmem = tuple(ml)
                pc2, regs, _ = local(t, pc + 1, regs)
            else:  # membar, avdevice, visdevice: no effect on SC state
                pc2, regs, _ = local(t, pc + 1, regs)
            npcs = list(pcs)
            npcs[t] = pc2
            nregs = list(regss)
            nregs[t] = tuple(sorted(regs.items()))
            en |= 1 << t
            out.append((t, (tuple(npcs), tuple(nregs), nmem, tuple(sorted(narr.items())), nopen)))
        succ = []
        for t, ns in out:
            if ns not in index:
                if len(states) >= MAX_STATES:
                    complete = False
                    continue
                index[ns] = len(states)
                states.append(ns)
            succ.append((t, index[ns]))
        edges.append(succ)
        enabled_of.append(en)
        if not succ and any(pcs[t] < len(threads[t].code) for t in range(n)):
            stuck = [f"P{t}" for t in range(n) if pcs[t] < len(threads[t].code)]
            where = "; ".join(f"P{t} at `{threads[t].code[pcs[t]].text}` (line {threads[t].code[pcs[t]].line})"
                              for t in range(n) if pcs[t] < len(threads[t].code))
            return SCResult(complete, f"does not terminate: deadlock with {', '.join(stuck)} blocked: {where}",
                            len(states))
    while len(edges) < len(states):
        edges.append([])
        enabled_of.append(0)
    cyc = _fair_scc(edges, enabled_of, len(states))
    if cyc is not None:
        pcs = states[cyc][0]
        looping = [f"P{t} (line {threads[t].code[pcs[t]].line})" for t in range(n) if pcs[t] < len(threads[t].code)]
        return SCResult(complete, "does not terminate: under fair scheduling the threads can cycle forever "
                        f"through the same states (livelock of {', '.join(looping)})", len(states))
    return SCResult(complete, None, len(states))


def _fair_scc(edges: list[list[tuple[int, int]]], enabled: list[int], n: int) -> int | None:
    """A state of a non-trivial SCC where every thread enabled throughout the SCC also steps inside it."""
    index = [-1] * n
    low = [0] * n
    on = [False] * n
    stack: list[int] = []
    counter = 0
    for root in range(n):
        if index[root] != -1:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on[v] = True
            recurse = False
            while i < len(edges[v]):
                w = edges[v][i][1]
                i += 1
                if index[w] == -1:
                    work.append((v, i))
                    work.append((w, 0))
                    recurse = True
                    break
                if on[w]:
                    low[v] = min(low[v], index[w])
            if recurse:
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on[w] = False
                    comp.append(w)
                    if w == v:
                        break
                cs = set(comp)
                inside = 0
                always = -1
                nontrivial = len(comp) > 1
                for u in comp:
                    always &= enabled[u]
                    for t, w in edges[u]:
                        if w in cs:
                            inside |= 1 << t
                            if w == u:
                                nontrivial = True
                if nontrivial and always & ~inside == 0:
                    return comp[0]
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return None
