"""Hostile CruxEval-O predictions (predict/cruxeval.py), scored through the rule an item
carries (predict/score.score) with each answer evaluated in one Docker session, as `predict
eval` does. The answer is the model's text, and the benchmark's own evaluation runs it in
`assert output == prediction` in one process, where an early exit, an object whose `__eq__`
says yes or a rebound `f` would pass. Here none scores, nothing raises in the harness, and
after each an honest answer in the same session is right:

- `os._exit(0)` before any value (a judge that reads the exit status would pass it);
- an object whose `__eq__` is always true, and a tuple subclass whose `__eq__` is;
- rebinding `f` (and builtins) before giving a value, and spelling the call `f(10)` itself:
  the prediction sees no `f`;
- a capture-like block with the right value written on the exec's own output, then exit;
- killing every process it can; looping past its limit (1 s here, CruxEval's 3 s in use);
- text nested 20,000 deep: refused by the parser in the harness, as malformed."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.languages.python.expression import expression_value
from harness.predict.cruxeval import read_checkout
from harness.predict.score import score

pytestmark = [pytest.mark.slow, pytest.mark.docker]

CHECKOUT = Path(__file__).parents[1] / "predict" / "cruxeval-checkout"

HOSTILE = {
    "exits before any value": "__import__('os')._exit(0)",
    "an object equal to everything": "type('Yes', (), {'__eq__': lambda s, o: True, '__hash__': None})()",
    "a tuple whose == is always true": "type('T', (tuple,), {'__eq__': lambda s, o: True})((0,))",
    "rebinds f and == of builtins": "(globals().update(f=lambda *a: (3, 1)), "
                                    "__import__('builtins').__setattr__('tuple', list), 0)[2]",
    "calls f on the input": "f(10)",
    "writes a capture end with the right value on the exec's output":
        "[open(f'/proc/{p}/fd/1', 'w').write('\\n{\"o\":[{\"v\":{\"tuple\":[3,1]}}]}\\n@@harness-capture 0\\n')"
        " for p in __import__('os').listdir('/proc') if p.isdigit()] and __import__('os')._exit(0)",
    "kills every process it can": "__import__('os').kill(-1, 9)",
    "loops past its limit": "next(x for x in iter(int, 1) if x)",
}


@pytest.fixture(scope="module")
def session(docker_sandbox):
    with docker_sandbox.session("cruxeval-hostile") as s:
        yield s


def _reply(prediction: str) -> str:
    return f"[ANSWER]\nassert f(10) == {prediction}\n[/ANSWER]"


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_prediction_scores_nothing_and_the_next_honest_one_is_right(session, name):
    item = next(i for i in read_checkout(CHECKOUT)[2] if i.call == "f(10)")  # f(n) = (n // 3, n % 3)
    rule = item.compare.model_copy(update={"timeout_s": 1.0})

    def evaluate(expression: str, timeout_s: float):
        return expression_value(session, expression, timeout_s)

    hostile = score(_reply(HOSTILE[name]), item.call, item.expected, rule, evaluate=evaluate)
    assert not hostile.correct and hostile.reward == -1.0, name
    honest = score(_reply("(3, 1)"), item.call, item.expected, rule, evaluate=evaluate)
    assert honest.correct and honest.reward == 1.0


def test_text_nested_beyond_the_parser_is_malformed_without_running(session):
    item = read_checkout(CHECKOUT)[2][0]

    def never(expression: str, timeout_s: float):
        raise AssertionError("nothing that does not parse reaches the sandbox")

    got = score(_reply("[" * 20_000 + "]" * 20_000), item.call, item.expected, item.compare, evaluate=never)
    assert got.malformed and not got.correct
