"""`rlef`: a repair task in two turns, as the self-execution paper's multi-turn training
with ground-truth feedback runs it. The model answers the row's prompt; the task's public
tests (predict/public.py) run for real in the sandbox on that answer; when one of them
fails (or the answer cannot be read) the model is shown their results in a second user
turn and answers once more; the verifier then judges the final code: the task's starting
files, with the first answer's files over them and the second's over those.

Generation happens in the trainer (grpo.py hands each batch's rlef rows to `second_turns`),
so the tokens GRPO trains on are the whole exchange: the first answer, the feedback (masked
out of the loss, TRL's `env_mask`), the second answer. What the judge reads is the two
answers as the model wrote them, as a JSON list (`turns_text`); each is read by the same
rule as a one-turn repair answer (rewards.read_answer), file names checked, in the
harness's process. The public tests' verdicts are the sandbox's test report, never what the
candidate's process says of itself."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Final, Sequence

from ..executor.base import UnitFailure
from ..languages.registry import language_for
from ..predict.public import public_cases
from ..records import Status, TestReport
from ..sandbox import make_sandbox
from ..sandbox.base import Sandbox, SandboxSession
from ..suite_validation import work_on_tasks
from ..task import Task
from .config import RuntimeSettings
from .rewards import RepairJudge, TaskCache, read_answer, sandbox_workers

ENVIRONMENT: Final = "rlef"
RUN_TIMEOUT_S = 20.0     # one build and test of an answer: a first answer that loops is cut here
MESSAGE_CHARS = 600      # of one failed test's message
BUILD_CHARS = 2000       # of the build's diagnostics when nothing ran


def turns_text(turns: Sequence[str]) -> str:
    """The answers of one exchange, as the judge reads them."""
    return json.dumps(list(turns))


def _turns(text: str) -> list[str] | None:
    try:
        turns = json.loads(text)
    except ValueError:
        return None
    ok = isinstance(turns, list) and 1 <= len(turns) <= 2 and all(isinstance(t, str) for t in turns)
    return turns if ok else None


def final_files(task: Task, turns: Sequence[str]) -> tuple[dict[str, str] | None, str | None]:
    """The files each answer wrote, the later over the earlier; None and the reason when
    the last answer cannot be read (a first answer that cannot be read writes nothing)."""
    files: dict[str, str] = {}
    for n, text in enumerate(turns):
        parsed = read_answer(task, text)
        if not parsed.ok:
            if n == len(turns) - 1:
                return None, parsed.malformed
            continue
        files.update(parsed.files)
    return files, None


def feedback_message(task: Task, report: TestReport) -> str | None:
    """The second turn's message: the public tests' results; None when every one passed."""
    public = public_cases(task)
    by_name = {t.name: t for t in report.tests}
    results = [(case, by_name.get(case.name)) for case in public]
    if results and all(r is not None and r.status is Status.passed for _, r in results):
        return None
    lines = ["Your code was built and the public tests were run on it."]
    if not any(r is not None for _, r in results):
        lines.append(f"No test ran ({report.status.value}):\n{(report.message or report.output or '')[-BUILD_CHARS:]}")
    for case, r in results:
        status = r.status.value if r is not None else "did not run"
        lines.append(f"{status.upper()}: {case.name}\n{case.source.strip()}")
        if r is not None and r.status is not Status.passed and r.message:
            lines.append(f"  {r.message[:MESSAGE_CHARS]}")
    lines.append("Fix the code. Answer with every file you change in full, in the same format as before.")
    return "\n".join(lines)


def _unreadable(reason: str | None) -> str:
    return (f"Your answer could not be read: {reason}. Answer with every file you change in full: the file's "
            f"name on a line, then its whole content in a fenced block.")


@dataclass
class _Run:
    task: Task
    files: dict[str, bytes]
    rows: list[int] = field(default_factory=list)
    message: str | None = None


class PublicTests:
    """Runs first answers' public tests in warm sandbox sessions (an answer written the
    same way by several samples runs once) and words the feedback."""

    def __init__(self, runtime: RuntimeSettings):
        self.runtime = runtime
        self.tasks = TaskCache()
        self._box: Sandbox | None = None

    def feedback(self, texts: Sequence[str], task_paths: Sequence[str]) -> list[str | None]:
        """Per first answer, the second turn's message, or None when it passed every public test."""
        out: list[str | None] = [None] * len(texts)
        runs: dict[tuple[str, str], _Run] = {}
        for i, (text, path) in enumerate(zip(texts, task_paths, strict=True)):
            task = self.tasks(path)
            files, malformed = final_files(task, [text])
            if files is None:
                out[i] = _unreadable(malformed)
                continue
            workspace = {**task.stub_files(), **{k: v.encode() for k, v in files.items()}}
            key = (path, json.dumps(sorted(files.items())))
            runs.setdefault(key, _Run(task, workspace)).rows.append(i)
        if runs:
            if self._box is None:
                self._box = make_sandbox(self.runtime.sandbox)

            def run(unit: _Run, session: SandboxSession) -> None:
                unit.message = feedback_message(unit.task, language_for(unit.task).run_tests(unit.task, unit.files,
                                                                                               session))

            def failed(unit: _Run, failure: UnitFailure) -> None:
                # The sandbox's fault, not the answer's: the model is told only that nothing ran.
                unit.message = "The public tests could not be run this time. Check your code and answer again."

            work_on_tasks(self._box, list(runs.values()), run, workers=max(1, min(sandbox_workers(self.runtime),
                                                                                    len(runs))),
                          run_timeout_s=RUN_TIMEOUT_S, on_failure=failed)
            for unit in runs.values():
                for i in unit.rows:
                    out[i] = unit.message
        return out


class RlefJudge(RepairJudge):
    """The verifier on the final code of an exchange (`turns_text`); statuses as repair's,
    with the exchange's turns."""

    def read(self, path: str, text: str) -> tuple[dict[str, str] | None, str | None]:
        turns = _turns(text)
        return final_files(self.tasks(path), turns) if turns else (None, "not an exchange of answers")

    def facts(self, text: str) -> dict[str, Any]:
        turns = _turns(text)
        return {"turns": len(turns) if turns else None}
