"""Simulated feedback (`harness run --feedback simulated`): after a round, the run's own
model predicts what its code does on the task's public test cases (judge.simulate over
public.public_truths), and the cases it predicts to fail, each with the case, the
predicted value and the expected one, become the next round's message through the
contract's `simulated_feedback` template. No prediction of a failure, no next round: the
trial stands by this round's answer, whatever the real tests, which score every round,
said of it.

The simulation is kept on the round's record, so a resumed trial goes on from the message
it had decided on, and one whose simulation did not finish (the provider failed: an
infrastructure error like any other) simulates that round again."""

from __future__ import annotations

from pathlib import Path

from ..contract import PromptContract
from ..curriculum.candidates import starting_code
from ..languages.registry import language_for
from ..probe.compare import AnswerForm
from ..records import RoundRecord, SimulatedCase
from ..sandbox.pool import SessionLease
from ..task import Task
from .ask import Ask
from .judge import Judge, simulate
from .prompt import render_answer
from .public import public_truths


def indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line if line.strip() else line for line in text.strip("\n").splitlines())


def render_failures(failures: list[SimulatedCase], form: AnswerForm = "json") -> str:
    """Each predicted failure: the case, then the predicted and the expected observations in
    the prediction format of the task's language (`form`; one line per assertion reached)."""
    parts = []
    for case in failures:
        parts.append(f"PREDICTED TO FAIL: {case.name}\n{indent(case.call)}\n"
                     f"  predicted with your code:\n{indent(render_answer(case.predicted or {}, form))}\n"
                     f"  expected:\n{indent(render_answer(case.expected, form))}")
    return "\n\n".join(parts)


def simulated_message(task: Task, contract: PromptContract, ask: Ask, record: RoundRecord, workspace: Path,
                      sandboxing: SessionLease) -> str | None:
    """The message after round `record` (whose code is in `workspace`), or None when the
    model predicts every public case to pass. Sets `record.simulation`."""
    if record.simulation is None:
        public = sandboxing.use(lambda session: public_truths(task, session))
        shown = {f: data.decode(errors="replace") for f, data in starting_code(task, workspace).items()}
        record.simulation = simulate(Judge(ask), shown, public)
    failures = record.simulation.failures
    if not failures:
        return None
    form = language_for(task).prediction_terms().answer
    return contract.simulated_feedback_message(task, render_failures(failures, form))
