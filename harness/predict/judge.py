"""The judge: a model asked what a call of some code produces, in the output-prediction
prompt and answer format (predict/prompt.py), through the same call as `predict eval`
(ask.py: litellm, retries with backoff; a provider that keeps failing is a
ProviderFailure). An answer not in the format is no prediction (None).

`simulate` is the judge run over a task's public cases (public.py) on one version of the
code. The judge is shown the code and each case without its expected values
(`PublicCase.shown`, prompt.public_messages: a C++ test case in the simulation prompt, a
Python call in Python's prediction prompt, read in its language's answer form); the harness
compares its prediction with the reference's record by the prediction rule (score.PREDICTION_RULE). With `attempts` M it is
asked M times per case and the verdicts aggregate: `majority`, predicted to pass when more
than half of the M predictions match (an unreadable one does not); `any`, when one does.
`select --by simulate` asks a judge about every candidate; `harness run --feedback
simulated` asks the run's own model about its own round."""

from __future__ import annotations

from collections import Counter
from typing import Any, Mapping

from ..hashing import sha256_json
from ..probe.compare import call_matches
from ..records import SimulatedCase, Simulation
from .ask import Ask
from .config import Aggregate
from .prompt import parse_answer, public_messages
from .public import PublicCase
from .score import PREDICTION_RULE


class Judge:
    def __init__(self, ask: Ask):
        self.ask = ask

    def predict_case(self, files: Mapping[str, str], case: PublicCase) -> dict[str, Any] | None:
        """The judge's prediction of a public case, shown without its expected values, read in
        its language's answer form."""
        reply = self.ask([m.model_dump() for m in public_messages(files, case.call, case.shown, case.prelude)])
        return parse_answer(reply.text, case.call, case.form)


def aggregate(matches: list[bool], rule: Aggregate) -> bool:
    return any(matches) if rule == "any" else 2 * sum(matches) > len(matches)


def simulate(judge: Judge, files: Mapping[str, str], public: list[PublicCase], *, attempts: int = 1,
             rule: Aggregate = "majority") -> Simulation:
    """What the judge predicts the code does on each public case, case by case, `attempts`
    times each (see the module's docstring for `rule`). A case's `predicted` is its most
    frequent prediction (the first among equals)."""
    cases = []
    for case in public:
        got = [judge.predict_case(files, case) for _ in range(attempts)]
        matches = [call_matches(case.expected, p, PREDICTION_RULE) for p in got]
        counts = Counter(sha256_json(p) for p in got)
        predicted = max(got, key=lambda p: counts[sha256_json(p)])
        cases.append(SimulatedCase(name=case.name, call=case.call, expected=case.expected, predicted=predicted,
                                   passed=aggregate(matches, rule), attempts=got if attempts > 1 else None))
    return Simulation(cases=cases)
