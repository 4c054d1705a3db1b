"""What explain answers, as data: a `Finding` per proof (its kind, cause, summary, waves and source locations) and
the `Explanation` that holds them with the verdict and how it was reached.

They live apart from the analyses that make them so that every analysis (amddbg.replay.static, .analysis,
.causes, .cycles) can build findings without importing the explainer's entry point (amddbg.replay.explain),
which depends on all of them: the replay package's modules import one way, code and data first, entry last.
The JSON shape is docs/json.md's; `to_json` drops location keys that start with `_` (internal notes).
"""

from __future__ import annotations

from dataclasses import dataclass, field

EXIT_CODES = {"no_hang": 0, "unknown": 0, "hang": 3, "fault": 4, "trap": 4}


@dataclass
class Finding:
    """One thing explain proved: `kind` (trap, barrier_deadlock, spin_forever, ...), its `cause`, the sentence the
    user reads, the waves (JSON wave documents), the source locations (each with a role) and kind-specific
    details."""

    kind: str
    cause: str
    summary: str
    waves: list = field(default_factory=list)
    locations: list = field(default_factory=list)
    details: dict = field(default_factory=dict)
    # replay by symmetry: how many of `waves` replay ran and how many follow their class's representative
    # ({"replayed": n, "followed": m, "threads": "2-16, 18-..."}); None when every wave was replayed
    by_symmetry: dict | None = None

    def to_json(self) -> dict:
        locations = [{k: v for k, v in loc.items() if not k.startswith("_")} for loc in self.locations]
        doc = {"kind": self.kind, "cause": self.cause, "summary": self.summary, "waves": self.waves,
               "locations": locations, "details": self.details}
        if self.by_symmetry is not None:
            doc["by_symmetry"] = self.by_symmetry
        return doc


@dataclass
class Explanation:
    """The answer for a core: the verdict (no_hang, unknown, hang, fault, trap), the findings that support it and
    how replay reached it (`replay`: method, wave-instructions, budget, seconds)."""

    verdict: str
    findings: list = field(default_factory=list)
    replay: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"verdict": self.verdict, "findings": [f.to_json() for f in self.findings], "replay": self.replay}

    def replay_line(self) -> str:
        """How the verdict was reached and how much replay it took (the text output's last line); the count of
        wave-instructions is part of the answer, the seconds are a measurement."""
        r = self.replay
        budget = f", budget {r['budget']} per replay" if r.get("budget") else ""
        return (f"({r.get('method')}; replayed {r.get('wave_instructions', 0)} wave-instructions{budget}; "
                f"{r.get('seconds', 0)} s)")

    @property
    def exit_code(self) -> int:
        return EXIT_CODES.get(self.verdict, 0)
