"""One trial read in full, for its page: every round's message, every model call as the
model saw it, the files after each round with their diffs against the starting code and
against the round before, the test reports, and the raw files behind them.

The starting code is the task's stub, taken from the suite the run's manifest names, and
only when that task's content hash is still the one the run recorded: a diff against a
changed task would show changes the model never made."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING

from pydantic import BaseModel, ValidationError

from ..curriculum.records import REPAIR_RECORD, RepairRecord
from ..errors import HarnessError
from ..fs import regular_files
from ..records import RoundRecord, RoundTrajectory, RunManifest, TestReport, TrialResult
from ..store import HARNESS_ERROR_LOG, RESULT
from ..suite import suite_of_run

if TYPE_CHECKING:  # annotations only: the suite is loaded in _suite_task, when a trial page asks
    from ..task import Task


@dataclass
class Message:
    role: str
    content: str


@dataclass
class CallView:
    number: int
    purpose: str
    seconds: float
    earlier: int                 # messages at the start of the request already shown above
    messages: list[Message]      # the rest of the request, in order
    response: str | None
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    error: str | None
    # Of `messages`, how many come before the round's own message (the agent's system
    # prompt, its example conversation, the files): folded, so the page opens on the task.
    context: int = 0


@dataclass
class DiffLine:
    kind: str    # "hunk", "add", "del" or "ctx"
    text: str


@dataclass
class FileDiff:
    path: str
    lines: list[DiffLine]
    note: str | None = None      # "unchanged", "new file", "deleted"


@dataclass
class RoundView:
    number: int
    trajectory: RoundTrajectory | None
    record: RoundRecord | None
    report: TestReport | None
    files: dict[str, str] | None   # the solution files after the round; None without a snapshot
    from_start: list[FileDiff] | None
    from_previous: list[FileDiff] | None
    calls: list[CallView]
    raw: list[tuple[str, str]]   # (label, path relative to the run folder)


@dataclass
class TrialView:
    config: str
    task: str
    trial: int
    run_dir: Path
    trial_rel: str               # the trial folder, relative to the run folder
    manifest: RunManifest
    result: TrialResult | None
    rounds: list[RoundView] = field(default_factory=list)
    start: dict[str, str] | None = None
    start_note: str | None = None
    repair: object | None = None  # curriculum.records.RepairRecord of a repair exercise
    raw: list[tuple[str, str]] = field(default_factory=list)

    @property
    def final_files(self) -> dict[str, str]:
        """The solution files after the last round that kept a snapshot."""
        return next((r.files for r in reversed(self.rounds) if r.files is not None), {})


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _read(path: Path, model: type[BaseModel]):
    try:
        return model.model_validate_json(path.read_bytes())
    except (OSError, ValidationError):
        return None


def content_text(content) -> str:
    """A message's content as text: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content)
    return "" if content is None else str(content)


def diff_files(before: dict[str, str], after: dict[str, str], context: int = 3) -> list[FileDiff]:
    """A unified diff per file of either side, in name order."""
    out = []
    for path in sorted(set(before) | set(after)):
        a, b = before.get(path), after.get(path)
        if a == b:
            out.append(FileDiff(path, [], "unchanged"))
            continue
        lines = []
        for line in difflib.unified_diff((a or "").splitlines(), (b or "").splitlines(), lineterm="", n=context):
            if line.startswith(("---", "+++")):
                continue
            kind = {"@": "hunk", "+": "add", "-": "del"}.get(line[:1], "ctx")
            lines.append(DiffLine(kind, line))
        out.append(FileDiff(path, lines, "new file" if a is None else "deleted" if b is None else None))
    return out


def _calls(trajectory: RoundTrajectory, shown: list[tuple[str, str]]) -> list[CallView]:
    """Each model call, with the start of its request that earlier calls already showed
    folded away. `shown` (role, text) pairs carry over from round to round."""
    views = []
    for i, call in enumerate(trajectory.calls, start=1):
        request = [(str(m.get("role", "")), content_text(m.get("content"))) for m in call.request]
        earlier = 0
        if call.purpose == "edit":
            while earlier < min(len(request), len(shown)) and request[earlier] == shown[earlier]:
                earlier += 1
        rest = request[earlier:]
        # The agent may add to the message it was given (a reminder of the edit format): its
        # start is the round's own.
        start = trajectory.message.strip()[:200]
        own = [j for j, (role, text) in enumerate(rest) if role == "user" and start and text.strip().startswith(start)]
        views.append(CallView(
            number=i, purpose=call.purpose, seconds=call.seconds, earlier=earlier, context=own[-1] if own else 0,
            messages=[Message(r, t) for r, t in rest], response=call.response,
            finish_reason=call.finish_reason, prompt_tokens=call.prompt_tokens,
            completion_tokens=call.completion_tokens,
            error=f"{call.error_type}: {call.error}" if call.error or call.error_type else None,
        ))
        if call.purpose == "edit":
            shown[:] = request + ([("assistant", call.response)] if call.response is not None else [])
    return views


def _task_facts(manifest: RunManifest, slug: str) -> tuple[Task | None, str | None]:
    return _suite_task(manifest.suite, manifest.suite_path, slug, manifest.task_hashes.get(slug))


@lru_cache(maxsize=4096)
def _suite_task(suite: str, suite_path: str | None, slug: str, recorded: str | None) -> tuple[Task | None, str | None]:
    """The suite task a trial ran, if it is still what the run recorded; else a note. Kept
    once looked up: a suite is loaded whole, and every trial page of its tasks asks."""
    manifest = SimpleNamespace(suite=suite, suite_path=suite_path)
    try:
        task = suite_of_run(manifest).task(slug)
    except HarnessError as exc:
        return None, f"The suite task is not available here ({exc}), so there is no diff against the starting code."
    if recorded is not None and task.content_hash != recorded:
        return None, (f"The suite's {slug} has changed since the run (content {task.content_hash[:12]}, the run "
                      f"recorded {recorded[:12]}), so there is no diff against the starting code.")
    return task, None


def _repair_record(task) -> object | None:
    return _read(task.path / REPAIR_RECORD, RepairRecord) if task is not None else None


def _raw(trial_dir: Path, run_dir: Path, names: list[str]) -> list[tuple[str, str]]:
    return [(name, (trial_dir / name).relative_to(run_dir).as_posix()) for name in names if (trial_dir / name).is_file()]


def read_trial(config: str, task_slug: str, trial: int, trial_dir: Path, run_dir: Path) -> TrialView:
    manifest = RunManifest.model_validate_json((run_dir / "manifest.json").read_bytes())
    result = _read(trial_dir / RESULT, TrialResult)
    task, note = _task_facts(manifest, task_slug)
    view = TrialView(config=config, task=task_slug, trial=trial, run_dir=run_dir,
                     trial_rel=trial_dir.relative_to(run_dir).as_posix(), manifest=manifest, result=result,
                     start_note=note, repair=_repair_record(task))
    if task is not None:
        view.start = {rel: _text(data) for rel, data in task.stub_files().items()}
    view.raw = _raw(trial_dir, run_dir, [RESULT, "aider.chat.md", "agent.log", HARNESS_ERROR_LOG])

    records = {r.round: r for r in result.rounds} if result else {}
    numbers = sorted({int(p.name.split("-", 1)[1]) for p in trial_dir.glob("round-*") if p.name.split("-", 1)[1].isdigit()}
                     | set(records))
    shown: list[tuple[str, str]] = []
    previous: dict[str, str] | None = view.start
    for n in numbers:
        round_dir = trial_dir / f"round-{n}"
        trajectory = _read(round_dir / "trajectory.json", RoundTrajectory)
        report = _read(round_dir / "test_report.json", TestReport)
        record = records.get(n)
        if report is None and record is not None:
            report = record.test_report
        workspace = round_dir / "workspace"
        if task is not None:
            names = list(task.solution_files)
        else:
            edited = {f for t in [trajectory] if t for f in t.edited_files}
            names = sorted(edited) or sorted(regular_files(workspace))
        # No snapshot (a round cut short, or records written by other tools): no files, no diffs.
        files = ({rel: _text((workspace / rel).read_bytes()) for rel in names if (workspace / rel).is_file()}
                 if workspace.is_dir() else None)
        raw = _raw(round_dir, run_dir, ["trajectory.json", "test_report.json"])
        raw += [(f"workspace/{rel}", (workspace / rel).relative_to(run_dir).as_posix()) for rel in sorted(files or {})]
        view.rounds.append(RoundView(
            number=n, trajectory=trajectory, record=record, report=report, files=files,
            from_start=diff_files(view.start, files) if view.start is not None and files is not None else None,
            from_previous=diff_files(previous, files) if previous is not None and files is not None and n > 1 else None,
            calls=_calls(trajectory, shown) if trajectory else [], raw=raw,
        ))
        previous = files if files is not None else previous
    return view
