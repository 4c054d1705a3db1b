"""`triage --explain`: the hang explainer run once per equivalence class (one sample core per leaf branch),
its verdict printed beside the branch."""

from __future__ import annotations

from amddbg.errors import NotSupported


def explain_classes(tree, *, plugins=None) -> None:
    try:
        from amddbg.replay.explain import explain_core
    except ImportError:
        raise NotSupported("triage --explain: the hang explainer (amddbg explain) is not built yet") from None
    done: dict[str, dict] = {}
    for leaf in tree.root.leaves():
        if leaf.sample is None:
            continue
        path = leaf.sample.get("path")
        if path is None:
            continue
        if path not in done:
            try:
                exp = explain_core(path.split(":") if ":" in path else path)
                doc = exp.to_json() if hasattr(exp, "to_json") else dict(exp)
                first = (doc.get("findings") or [{}])[0]
                done[path] = {"verdict": doc.get("verdict"), "kind": first.get("kind"),
                              "summary": first.get("summary", "")}
                if plugins is not None:
                    for rule, m in plugins.classify(exp, applies_to="explanation"):
                        done[path].setdefault("matches", []).append({"rule": rule, "pattern": m.pattern,
                                                                     "advice": m.advice})
            except Exception as exc:  # noqa: BLE001 - one failed explanation is a note, not the end
                done[path] = {"verdict": "unknown", "summary": f"explain failed: {exc}"}
        leaf.verdict = done[path]
