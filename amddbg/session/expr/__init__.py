"""The C-subset expression language of `print`, `output`, `x` and `display`."""

from amddbg.session.expr.evaluator import EvalScope, Evaluator, evaluate, parse_with
from amddbg.session.expr.parser import parse, tokenize

__all__ = ["EvalScope", "Evaluator", "evaluate", "parse", "parse_with", "tokenize"]
