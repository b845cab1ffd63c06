"""The judge: a model asked what a call of some code produces, in the output-prediction
prompt and answer format (predict/prompt.py), through the same call as `predict eval`
(ask.py: litellm, retries with backoff; a provider that keeps failing is a
ProviderFailure). An answer not in the format is no prediction (None).

`simulate` is the judge run over a task's public cases (public.py) on one version of the
code: a case is predicted to pass when the prediction matches the reference's record by
the prediction rule (score.PREDICTION_RULE). `select --by simulate` asks a judge about
every candidate; `harness run --feedback simulated` asks the run's own model about its own
round."""

from __future__ import annotations

from typing import Any, Mapping

from ..probe.compare import call_matches
from ..records import SimulatedCase, Simulation
from .ask import Ask
from .prompt import parse_answer, prompt_messages
from .public import PublicCase
from .score import PREDICTION_RULE


class Judge:
    def __init__(self, ask: Ask):
        self.ask = ask

    def predict(self, files: Mapping[str, str], call: str, prelude: str = "") -> dict[str, Any] | None:
        reply = self.ask([m.model_dump() for m in prompt_messages(files, call, prelude=prelude)])
        return parse_answer(reply.text, call)


def simulate(judge: Judge, files: Mapping[str, str], public: list[PublicCase]) -> Simulation:
    """What the judge predicts the code does on each public case, case by case."""
    cases = []
    for case in public:
        predicted = judge.predict(files, case.call, case.prelude)
        cases.append(SimulatedCase(name=case.name, call=case.call, expected=case.expected, predicted=predicted,
                                   passed=call_matches(case.expected, predicted, PREDICTION_RULE)))
    return Simulation(cases=cases)
