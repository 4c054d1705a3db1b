"""The Vulkan memory model (and the AMDGPU model, its special case) over one candidate execution.

Relations follow the Khronos Vulkan-MemoryModel alloy formalisation (`alloy/spirv.als`) and the
AMDGPU memory model text: scope instances and inclusive scopes (`inscope`), mutually ordered atomics,
scoped modification order (`asmo`), release sequences, synchronizes-with (atomics, fences and the
fence->cbar->cbar->fence case), inter-thread happens-before per storage-class set, availability /
visibility chains (off in the NOCHAINS variant), location order, from-read, data races and the two
consistency axioms.

`StaticModel` holds what depends only on the events; `StaticModel.dynamic(rf, asmo, syncbar)` computes
the rest for one choice of reads-from, scoped modification order and barrier pairing. Everything is
per-location decomposable (locord, rf, fr and asmo only relate same-location events), which the
enumerator exploits.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from amddbg.amdgpu import Scope
from amddbg.models import rel as R
from amddbg.models.events import INIT, Event, Kind

# Vulkan instance domains used by the chains: subgroup, workgroup, queue family, shader (device).
_LEVELS = (Scope.WAVEFRONT, Scope.WORKGROUP, Scope.QUEUE_FAMILY, Scope.AGENT)


@dataclass
class Options:
    chains: bool = True  # availability/visibility chains supported (False: NOCHAINS)
    fr_via_locord_rf: bool = False  # Dat3M's fr: only rf edges that are also locord order W->W successors


class StaticModel:
    """Relations that depend only on the events and program order."""

    def __init__(self, events: list[Event], po_threads: list[list[int]], ssw: list[tuple[int, int]],
                 options: Options | None = None) -> None:
        self.events = events
        self.opt = options or Options()
        n = self.n = len(events)
        m = R.mask_of
        ev = list(range(n))
        self.ALL = (1 << n) - 1
        self.R = m(i for i in ev if events[i].is_read)
        self.W = m(i for i in ev if events[i].is_write)
        self.RW = self.R | self.W
        self.F = m(i for i in ev if events[i].is_fence)
        self.CBAR = m(i for i in ev if events[i].kind is Kind.CBAR)
        self.A = m(i for i in ev if events[i].atomic)
        self.ACQ = m(i for i in ev if events[i].acquire)
        self.REL = m(i for i in ev if events[i].release)
        self.AV = m(i for i in ev if events[i].av)
        self.VIS = m(i for i in ev if events[i].vis)
        self.SEMAV = m(i for i in ev if events[i].semav)
        self.SEMVIS = m(i for i in ev if events[i].semvis)
        self.NONPRIV = m(i for i in ev if events[i].nonpriv or events[i].atomic or events[i].av
                         or events[i].vis)
        self.PRIV = self.RW & ~self.NONPRIV
        self.AVDEV = m(i for i in ev if events[i].kind is Kind.AVDEVICE)
        self.VISDEV = m(i for i in ev if events[i].kind is Kind.VISDEVICE)
        classes = sorted({e.storage_class for e in events if e.storage_class is not None}
                         | {c for e in events for c in e.semsc})
        self.SC = {c: m(i for i in ev if events[i].storage_class == c) for c in classes}
        self.SEMSC = {c: m(i for i in ev if c in events[i].semsc) for c in classes}
        self.SCALL = self.RW
        self.scoped = {lv: m(i for i in ev if events[i].scope is not None and events[i].scope >= lv)
                       for lv in Scope}

        # program order, same thread, same scope instances
        po = R.empty(n)
        sthd = R.empty(n)
        for order in po_threads:
            tm = m(order)
            for k, i in enumerate(order):
                po[i] = m(order[k + 1:])
                sthd[i] = tm
        self.po = po
        self.sthd = sthd
        self.po_refl = R.refl(po)

        def same(level: Scope) -> R.Rel:
            groups: dict[object, int] = {}
            keys = [events[i].instances.get(level) for i in ev]
            for i, k in enumerate(keys):
                groups[k] = groups.get(k, 0) | (1 << i)
            return [groups[k] for k in keys]

        self.same = {lv: same(lv) for lv in (Scope.WAVEFRONT, Scope.WORKGROUP, Scope.CLUSTER,
                                               Scope.QUEUE_FAMILY, Scope.AGENT, Scope.SYSTEM)}
        self.ssg = self.same[Scope.WAVEFRONT]
        self.swg = self.same[Scope.WORKGROUP]
        self.sqf = self.same[Scope.QUEUE_FAMILY]

        # locations: sloc over memory accesses, sref (same reference)
        acc = [e.is_read or e.is_write for e in events]
        by_loc: dict[object, int] = {}
        by_ref: dict[object, int] = {}
        for i in ev:
            if acc[i]:
                by_loc[events[i].loc] = by_loc.get(events[i].loc, 0) | (1 << i)
                rk = events[i].ref or events[i].loc
                by_ref[rk] = by_ref.get(rk, 0) | (1 << i)
        self.sloc = [by_loc[events[i].loc] if acc[i] else 0 for i in ev]
        self.sref = [by_ref[events[i].ref or events[i].loc] if acc[i] else 0 for i in ev]

        # inscope: both in each other's scope instance (inclusive scopes)
        inscope = R.empty(n)
        for i in ev:
            si = events[i].scope
            if si is None:
                continue
            row = 0
            for j in ev:
                sj = events[j].scope
                if sj is None:
                    continue
                lv = min(si, sj)
                if lv <= Scope.SINGLETHREAD:
                    ok = events[i].thread == events[j].thread
                else:
                    ok = events[i].instances.get(lv) == events[j].instances.get(lv)
                if ok:
                    row |= 1 << j
            inscope[i] = row
        self.inscope = inscope
        self.mutordatom = R.drop_ident(R.restrict(R.inter(R.inter(self.sloc, self.sref), inscope),
                                                  self.A, self.A))

        # avvisinc: which accesses an av/vis operation may include
        av = R.union(R.cross(n, self.SCALL, self.AVDEV), R.cross(n, self.VISDEV, self.SCALL))
        for c in classes:
            av = R.union(av, R.cross(n, self.SC[c], self.SEMSC[c] & self.SEMAV),
                         R.cross(n, self.SEMSC[c] & self.SEMVIS, self.SC[c]))
        av = R.union(av, R.rai(R.restrict(R.inter(self.sref, self.sloc), self.AV | self.VIS)))
        self.avvisinc = av
        self.posctosem = R.empty(n)
        self.posemtosc = R.empty(n)
        for c in classes:
            self.posctosem = R.union(self.posctosem, R.restrict(po, self.SC[c], self.SEMSC[c]))
            self.posemtosc = R.union(self.posemtosc, R.restrict(po, self.SEMSC[c], self.SC[c]))

        # storage-class sets for inter-thread happens-before: every non-empty subset of the classes
        self.sc_sets = []
        for k in range(1, len(classes) + 1):
            for sub in combinations(classes, k):
                scm = 0
                sem = self.ALL
                for c in sub:
                    scm |= self.SC[c]
                    sem &= self.SEMSC[c]
                if sem:
                    self.sc_sets.append((scm, sem))
        self.ssw = R.empty(n)
        for a, b in ssw:
            self.ssw[a] |= 1 << b
        self.ssw_plus = R.closure(self.ssw)

        avs = self.AV | self.SEMAV
        viss = self.VIS | self.SEMVIS
        self.AVSG, self.VISSG = avs, viss
        self.AVWG = avs & self.scoped[Scope.WORKGROUP]
        self.VISWG = viss & self.scoped[Scope.WORKGROUP]
        self.AVQF = avs & self.scoped[Scope.QUEUE_FAMILY]
        self.VISQF = viss & self.scoped[Scope.QUEUE_FAMILY]
        self.AVSH = avs & self.scoped[Scope.AGENT]
        self.VISSH = viss & self.scoped[Scope.AGENT]
        self.chains = [self.ALL] * n if self.opt.chains else R.ident(n)
        self.pairs_with_write = [((self.W | self.R) if (self.W >> i) & 1 else (self.W if (self.R >> i) & 1
                                                                                 else 0)) for i in ev]
        self.dr_static = R.drop_ident(R.minus(R.inter(self.sloc, self.pairs_with_write),
                                              self.mutordatom))

    # ------------------------------------------------------------------ dynamic part
    def rf_rel(self, rf: dict[int, int]) -> R.Rel:
        out = R.empty(self.n)
        for r, w in rf.items():
            if w != INIT:
                out[w] |= 1 << r
        return out

    def dynamic(self, rf: dict[int, int], asmo: R.Rel, syncbar: R.Rel) -> Dynamic:
        return Dynamic(self, rf, asmo, syncbar)


class Dynamic:
    """Relations for one (rf over atomic reads, asmo, syncbar) choice: sw, hb, chains, locord, dr."""

    def __init__(self, s: StaticModel, rf: dict[int, int], asmo: R.Rel, syncbar: R.Rel) -> None:
        self.s = s
        self.asmo = asmo
        rfr = s.rf_rel(rf)
        self.rf_atomic = rfr
        imm = R.minus(asmo, R.compose(asmo, asmo))
        step = R.restrict(imm, s.ALL, s.R & s.W)
        star = R.refl(R.closure(step))
        self.rs = R.restrict(star, s.REL & s.A)
        hypors = R.restrict(star, s.W & s.A)
        rfm = R.inter(rfr, s.mutordatom)
        acq_a = s.ACQ & s.A
        rel_a = s.REL & s.A
        rel_f = s.REL & s.F
        acq_f = s.ACQ & s.F
        rs_rf = R.compose(self.rs, rfm)
        hyp_rf = R.compose(R.restrict(s.posemtosc, rel_f, s.A & s.W), R.compose(hypors, rfm))
        to_acq_f = R.restrict(s.posctosem, s.A & s.R, acq_f)
        sw = R.union(
            R.restrict(rs_rf, rel_a, acq_a),
            R.restrict(hyp_rf, rel_f, acq_a),
            R.compose(R.restrict(rs_rf, rel_a, s.A & s.R), to_acq_f),
            R.compose(R.restrict(hyp_rf, rel_f, s.A & s.R), to_acq_f),
            R.seq(R.restrict(s.po_refl, rel_f, s.CBAR),
                  R.drop_ident(R.inter(syncbar, s.inscope)),
                  R.restrict(s.po_refl, s.CBAR, acq_f)),
        )
        self.sw = R.inter(sw, s.inscope)
        hb = list(s.po)
        for scm, sem in s.sc_sets:
            base = R.union(s.ssw, R.restrict(self.sw, sem, sem),
                           R.restrict(s.po, scm | sem, s.REL & sem),
                           R.restrict(s.po, s.ACQ & sem, scm | sem))
            hb = R.union(hb, R.closure(base))
        if not s.sc_sets:
            hb = R.union(hb, s.ssw_plus)
        self.hb = hb
        self._chains()
        self._locord()
        self.dr = R.minus(s.dr_static, R.rai(self.locord))

    def _chains(self) -> None:
        s = self.s
        hb, n = self.hb, s.n
        hsg = R.inter(R.inter(hb, s.ssg), s.avvisinc)
        hwg = R.inter(R.inter(hb, s.swg), s.avvisinc)
        hqf = R.inter(R.inter(hb, s.sqf), s.avvisinc)
        avsg = R.ident(n, s.AVSG)
        a1 = R.refl(R.compose(avsg, hsg))
        self.avsg = avsg
        self.avwg = R.restrict(R.inter(s.chains, a1), s.ALL, s.AVWG)
        a2 = R.refl(R.compose(self.avwg, hwg))
        self.avqf = R.restrict(R.inter(s.chains, R.compose(a1, a2)), s.ALL, s.AVQF)
        a3 = R.refl(R.compose(self.avqf, hqf))
        self.avsh = R.restrict(R.inter(s.chains, R.seq(a1, a2, a3)), s.ALL, s.AVSH)
        vissg = R.ident(n, s.VISSG)
        v1 = R.refl(R.compose(hsg, vissg))
        self.vissg = vissg
        self.viswg = R.restrict(R.inter(s.chains, v1), s.VISWG)
        v2 = R.refl(R.compose(hwg, self.viswg))
        self.visqf = R.restrict(R.inter(s.chains, R.compose(v2, v1)), s.VISQF)
        v3 = R.refl(R.compose(hqf, self.visqf))
        self.vissh = R.restrict(R.inter(s.chains, R.seq(v3, v2, v1)), s.VISSH)

    def _locord(self) -> None:
        s = self.s
        hb = self.hb
        wnp = s.W & ~s.PRIV
        rnp = s.R & ~s.PRIV
        poav = R.inter(s.po_refl, s.avvisinc)
        hbav = R.inter(hb, s.avvisinc)
        lo = R.union(
            R.inter(R.inter(hb, s.sthd), s.sref),
            R.restrict(hb, rnp, s.RW & ~s.PRIV),
            R.restrict(s.ssw_plus, s.R, s.RW),
        )
        self.waw_raw = []
        for av, same, vis in ((self.avsg, s.ssg, self.vissg), (self.avwg, s.swg, self.viswg),
                              (self.avqf, s.sqf, self.visqf), (self.avsh, None, self.vissh)):
            mid = R.seq(R.restrict(poav, wnp), av, hb if same is None else R.inter(hb, same))
            waw = R.restrict(mid, s.ALL, wnp)
            raw = R.restrict(R.seq(mid, vis, poav), s.ALL, rnp)
            lo = R.union(lo, R.inter(s.sref, waw), R.inter(s.sref, raw))
        avdv = R.ident(s.n, s.AVDEV)
        visdv = R.ident(s.n, s.VISDEV)
        mid = R.seq(R.restrict(hbav, s.W), avdv, hb)
        lo = R.union(lo, R.restrict(mid, s.ALL, s.W),
                     R.restrict(R.seq(mid, visdv, hbav), s.ALL, s.R))
        self.locord = R.inter(s.sloc, lo)

    # ------------------------------------------------------------------ per-location consistency
    def fr(self, rf: dict[int, int], loc_mask: int) -> R.Rel:
        s = self.s
        out = R.empty(s.n)
        lo_ww = R.restrict(self.locord, s.W, s.W)
        for r, w in rf.items():
            if not (loc_mask >> r) & 1:
                continue
            if w == INIT:
                out[r] |= s.sloc[r] & s.W
            else:
                if not s.opt.fr_via_locord_rf or (self.locord[w] >> r) & 1:
                    out[r] |= lo_ww[w]
                out[r] |= self.asmo[w]
            out[r] &= ~(1 << r)
        return out

    def _loc_view(self, m: int):
        """The location's events renumbered 0..k-1, with locord/asmo/shadow relations precomputed."""
        cache = self.__dict__.setdefault("_views", {})
        if m in cache:
            return cache[m]
        s = self.s
        idx = list(R.bits(m))
        pos = {g: k for k, g in enumerate(idx)}

        def small(rel: R.Rel) -> list[int]:
            out = []
            for g in idx:
                row = 0
                for j in R.bits(rel[g] & m):
                    row |= 1 << pos[j]
                out.append(row)
            return out

        lo = small(self.locord)
        asmo = small(self.asmo)
        wmask = R.mask_of(pos[g] for g in idx if (s.W >> g) & 1)
        lo_ww = [(row & wmask) if (wmask >> k) & 1 else 0 for k, row in enumerate(lo)]
        wlo = [row if (wmask >> k) & 1 else 0 for k, row in enumerate(lo)]
        two = R.compose(wlo, R.closure(wlo))
        base = [a | b for a, b in zip(lo, asmo, strict=True)]
        view = (idx, pos, lo, asmo, wmask, lo_ww, two, base)
        cache[m] = view
        return view

    def location_consistent(self, rf: dict[int, int], loc_mask: int) -> tuple[bool, str]:
        """Both consistency axioms restricted to one location (all four relations are per-location)."""
        s = self.s
        idx, pos, lo, asmo, wmask, lo_ww, two, base = self._loc_view(loc_mask)
        g = list(base)
        via = s.opt.fr_via_locord_rf
        for r, w in rf.items():
            if not (loc_mask >> r) & 1:
                continue
            pr = pos[r]
            if w == INIT:
                g[pr] |= wmask & ~(1 << pr)
                continue
            pw = pos[w]
            g[pw] |= 1 << pr
            fr = asmo[pw]
            if not via or (lo[pw] >> pr) & 1:
                fr |= lo_ww[pw]
            g[pr] |= fr & ~(1 << pr)
            if not (s.A >> r) & 1 and (two[pw] >> pr) & 1:
                return False, "shadowed"
        if not R.is_acyclic(g):
            return False, "cycle"
        return True, ""
