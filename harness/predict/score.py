"""A prediction scored by the rule its item carries (items.Rule). The paper's exact-match
rule (a Comparison): the answer read back in the stated format (prompt.parse_answer; a
program's standard output as its text, prompt.parse_output) and compared with the observed
value (probe.compare: exact, floats within the item's tolerance, unordered arrays where the
check said so, standard output token by token), all in the harness's process, since the
truth was observed when the item was built. CruxEval's rule (a PythonAssertion,
predict/cruxeval.py): the answer is an expression, evaluated in the sandbox by `evaluate`
and compared by Python's `==` in the harness's process. Right is +1, anything else -1; an
answer that cannot be read is wrong and counted as malformed."""

from __future__ import annotations

from typing import Any, Mapping

from ..probe.compare import Comparison, call_matches
from ..records import Record
from . import cruxeval
from .items import PythonAssertion
from .prompt import parse_answer, parse_output

# The paper's rule for floats (Maimon et al.): values within 1e-5 are the same value.
FLOAT_TOLERANCE = 1e-5
# How a prediction compares with a value when nothing says otherwise (a check may keep its
# arrays unordered, build.rule_for).
PREDICTION_RULE = Comparison(mode="approx", abs_tol=FLOAT_TOLERANCE)
# A program's standard output, the paper's rule: token by token, numbers within the tolerance.
STDOUT_RULE = Comparison(mode="tokens", abs_tol=FLOAT_TOLERANCE)


class Scored(Record):
    reward: float
    correct: bool
    malformed: bool
    predicted: dict[str, Any] | None = None   # the answer as a probe record, when it could be read


def score(text: str, call: str, expected: Mapping[str, Any], compare: Comparison | PythonAssertion, *,
          evaluate: cruxeval.Evaluate | None = None) -> Scored:
    """`evaluate` runs an expression in the sandbox: a PythonAssertion's items need one."""
    if isinstance(compare, PythonAssertion):
        if evaluate is None:
            raise ValueError("an item judged by execution is scored with a sandbox to evaluate its answers in")
        correct, malformed, observed = cruxeval.scored(text, dict(expected), compare, evaluate)
        return Scored(reward=1.0 if correct else -1.0, correct=correct, malformed=malformed, predicted=observed)
    predicted = parse_output(text) if compare.mode == "tokens" else parse_answer(text, call, compare.answer)
    correct = predicted is not None and call_matches(dict(expected), predicted, compare)
    return Scored(reward=1.0 if correct else -1.0, correct=correct, malformed=predicted is None, predicted=predicted)
