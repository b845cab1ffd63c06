"""Self-RLEF (`harness run --agent direct --feedback self-rlef`): the paper's protocol of
self-execution feedback, each step a fresh prompt, the model deciding for itself when its
code is done.

1. solve: the question -> code (round 1, the direct agent's fresh prompt);
2. simulate: for each public test (public.py), the model predicts what its code outputs,
   shown the test without its expected values (`PublicCase.shown`: C++'s rewritten by
   languages/cpp/probe/shown.py, Python's a call that holds none) and never the expected
   output; one fresh prompt per test, in its language's output-prediction format
   (prompt.py). Under `self-rlef-exec` (the execution oracle) nothing is asked: the
   outputs are the real ones, the public tests run alone in the sandbox
   (`Language.observe_calls` with `alone`: C++'s in a test file of the public cases only,
   Python's as driver calls, so no other test's values are in the program, and nothing of
   the hidden tests is shown);
3. decide: the question, the code, and for every public test its input, expected output
   and predicted (or real) output, in one fresh prompt (`decide_message`, the direct
   agent's listing of the code after it); the model answers SUBMIT alone, and the trial
   stands by the code (`AgentRound.submitted`, parsed strictly by the agent), or with fixed
   code, which is the next round's. Up to `--rounds` rounds; the last is submitted.

Every round's code is scored on every test by the harness, as any round is, and its public
tests' results are read from that test report (`check_public`); none of it is shown to the
model under `self-rlef`. Each round's steps after its code (the simulation's requests and answers, the
decision's) are written to `round-<n>/self-rlef.json` (`RlefSteps`); the round's record
keeps its public results, what its decision was shown and the decision (records.RlefRound)."""

from __future__ import annotations

import time
from pathlib import Path

from ..curriculum.candidates import starting_code
from ..fs import write_record
from ..hashing import sha256_json
from ..languages.registry import language_for
from ..probe.compare import AnswerForm, call_matches
from ..records import FeedbackMode, ModelCall, RlefRound, RlefSteps, RoundRecord, SimulatedCase, Simulation, Status
from ..sandbox.pool import SessionLease
from ..store import utc_now
from ..task import Task
from .ask import Ask, Reply
from .judge import Judge, simulate
from .prompt import has_text, render_answer, simulation_hash
from .feedback import indent
from .public import PublicCase, public_truths
from .score import PREDICTION_RULE

SELF_RLEF: tuple[FeedbackMode, ...] = ("self-rlef", "self-rlef-exec")
SUBMIT = "#SUBMIT"
STEPS_FILE = "self-rlef.json"

DECIDE = """{question}

####

Your code, shown below, was checked on the task's public tests. For each public test: the test (its expected \
values hidden), the output the test expects, and {source}.

{tests}

####

Decide whether your code is correct. If it is, answer with {marker} alone, nothing else: your code is submitted \
as it is. If it is not, answer with the fixed code instead."""
SOURCES = {"self-rlef": ("the output you predicted your code gives", "predicted output of your code",
                         "(no prediction in the answer format)"),
           "self-rlef-exec": ("the output your code gave when the test ran", "output of your code",
                              "(none: the code did not build, or the test did not finish)")}


def simulates(feedback: FeedbackMode) -> bool:
    """Whether the model predicts its own code's outputs under `feedback`."""
    return feedback in ("simulated", "self-rlef")


def protocol_hash(form: AnswerForm = "json") -> str:
    """What Self-RLEF says besides the task and the code: the decision's prompt, the
    marker, and the prediction prompt (in the terms of the language answering in `form`)."""
    return sha256_json({"decide": DECIDE, "sources": SOURCES, "marker": SUBMIT, "prediction": simulation_hash(form)})


def _recording(ask: Ask, calls: list[ModelCall]) -> Ask:
    """`ask`, with each request and its answer kept in `calls`."""
    def recorded(messages: list[dict]) -> Reply:
        started, t = utc_now(), time.monotonic()
        reply = ask(messages)
        calls.append(ModelCall(purpose="simulate", started_at=started, finished_at=utc_now(),
                               seconds=round(time.monotonic() - t, 4), request=messages, response=reply.text,
                               prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens))
        return reply
    return recorded


def _steps(round_dir: Path, round_no: int) -> RlefSteps:
    """The round's steps written so far (a resumed trial's), else none."""
    path = round_dir / STEPS_FILE
    if path.is_file():
        return RlefSteps.model_validate_json(path.read_bytes())
    return RlefSteps(round=round_no)


def check_public(task: Task, feedback: FeedbackMode, record: RoundRecord, workspace: Path,
                 sandboxing: SessionLease) -> None:
    """Whether the round's code passes each public test (record.self_rlef.public), read from
    the round's own test report, and, under self-rlef-exec, the outputs its decision will be
    shown: the public cases run alone in the sandbox."""
    passing = {t.name for t in record.test_report.tests if t.status is Status.passed} if record.test_report else set()

    def run(session) -> tuple[list[PublicCase], list | None]:
        public = public_truths(task, session)
        if feedback != "self-rlef-exec":
            return public, None
        language = language_for(task)
        got = language.observe_calls(task, starting_code(task, workspace), [c.call for c in public], session,
                                     prelude=language.default_prelude(task), alone=True)
        # A run that did not finish cleanly (no build, a crash, a forged stream) has no output to trust;
        # nor has a value no answer writes (a Python object of the candidate's), which the decision could not show.
        if got.status != "ok":
            return public, [None] * len(public)
        return public, [v if v is None or has_text(v, c.form) else None for c, v in zip(public, got.values)]

    public, outputs = sandboxing.use(run)
    shown = None if outputs is None else Simulation(cases=[
        SimulatedCase(name=c.name, call=c.call, expected=c.expected, predicted=out,
                      passed=out is not None and call_matches(c.expected, out, PREDICTION_RULE))
        for c, out in zip(public, outputs)])
    record.self_rlef = RlefRound(public={c.name: c.name in passing for c in public}, shown=shown)


def decide_message(task: Task, feedback: FeedbackMode, question: str, ask: Ask | None, record: RoundRecord,
                   round_dir: Path, sandboxing: SessionLease, workspace: Path) -> str:
    """The decision's message after round `record` (its code in `workspace`, its folder
    `round_dir`; `question`: what round 1 asked): under self-rlef the model first predicts
    its code's output on each public test, with `ask` (kept on the record, so a resumed
    trial does not ask again)."""
    if record.self_rlef is None:  # a resumed trial whose public tests did not finish
        check_public(task, feedback, record, workspace, sandboxing)
    rlef = record.self_rlef
    assert rlef is not None
    public = sandboxing.use(lambda session: public_truths(task, session))
    if rlef.shown is None:
        if ask is None:
            raise RuntimeError("self-rlef without the model that simulates")
        calls: list[ModelCall] = []
        code = {f: data.decode(errors="replace") for f, data in starting_code(task, workspace).items()}
        try:
            rlef.shown = simulate(Judge(_recording(ask, calls)), code, public)
        finally:
            write_record(round_dir / STEPS_FILE, _steps(round_dir, record.round).model_copy(update={"simulate": calls}))
    source, label, missing = SOURCES[feedback]
    form = language_for(task).prediction_terms().answer
    # A case's name can say its answer ("modifier for score 12 is +1"): the tests are numbered.
    inputs = {c.name: c.shown for c in public}
    tests = "\n\n".join(
        f"PUBLIC TEST {i}:\n{indent(inputs[case.name])}\n  expected output:\n{indent(render_answer(case.expected, form))}\n"
        f"  {label}:\n{indent(render_answer(case.predicted, form)) if case.predicted is not None else '    ' + missing}"
        for i, case in enumerate(rlef.shown.cases, 1))
    return DECIDE.format(question=question.strip(), source=source, tests=tests, marker=SUBMIT)


def decided(record: RoundRecord, submitted: bool, call: ModelCall | None, round_dir: Path) -> None:
    """The model's decision after round `record`, from the answer to its decision's message."""
    if record.self_rlef is None:
        raise RuntimeError("a Self-RLEF decision on a round without its public tests")
    record.self_rlef.decision = "submit" if submitted else "fix"
    write_record(round_dir / STEPS_FILE, _steps(round_dir, record.round).model_copy(
        update={"decide": call, "decision": record.self_rlef.decision}))
