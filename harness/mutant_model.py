"""The `mutant:SHARE[:SEED]` model: a scripted model for trying the tools with no GPU and no
key. Like gold (gold.py) it is a local OpenAI-compatible server that knows each task's files;
in each trial it answers a seeded SHARE of the run's tasks with a wrong solution, one of the
task's faulty controls (a mutant of its reference where it has none), and the others with
the reference. Half of a trial's wrong answers (seeded too) are followed, at the next
request, the one that brings the test output back, by the reference: so a report shows
round-1 failures, recoveries and failures within two rounds, and two shares compare as a
real pair of models would. A share is of each trial's tasks, not a chance per task-trial:
`mutant:0.3` over fixed26's 26 tasks answers 7 or 8 wrongly in each trial (7.8: 8 with a
seeded chance of 0.8). A chance per task-trial drew 14 and 12 of 26 in the quick
start's two trials (README), and draws 3 or fewer, or 12 or more, in one trial of twelve. The
same SEED draws the same numbers for every share, so `mutant:0.2`'s wrong task-trials are
among `mutant:0.5`'s.

Which answer a request gets is decided by the request alone (has this conversation already
seen the wrong answer?), never by the order requests come in: a resumed trial is answered
as the uninterrupted one was."""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import Mapping, Sequence

from .gold import ChatServer, ModelError, answer_text
from .hashing import sha256_text
from .languages.registry import language_for
from .suite_validation import faulty_controls
from .task import Task

RECOVERY_SHARE = 0.5


def draw(*parts: object) -> float:
    """A number in [0, 1) fixed by `parts`: the same on every machine and in every run."""
    return int(sha256_text("/".join(str(p) for p in parts))[:13], 16) / 16 ** 13


@dataclass(frozen=True)
class MutantAnswers:
    """What the model answers in one task-trial: its first answer, and every later one."""

    wrong: bool
    what: str                     # "reference", "faulty control <name>" or "mutant <where>"
    start: Mapping[str, bytes]    # the solution files as the trial starts
    first: Mapping[str, bytes]
    later: Mapping[str, bytes]


def _wrong_files(task: Task, seed: int, trial: int) -> tuple[str, dict[str, bytes]]:
    controls = faulty_controls(task)
    if controls:
        names = sorted(controls)
        name = names[int(draw(seed, task.slug, trial, "control") * len(names))]
        return f"faulty control {name}", controls[name]
    reference = task.reference_files()
    mutants = language_for(task).mutants(reference)
    if not mutants:
        return "reference (no mutant of it could be made)", reference
    mutant = mutants[int(draw(seed, task.slug, trial, "mutant") * len(mutants))]
    return f"mutant {mutant.describe()}", mutant.apply(reference)


def seeded_share(names: Sequence[str], share: float, *key: object) -> set[str]:
    """`share` of `names`, seeded by `key` and the names: share × n of them, its fraction
    rounded up with a seeded chance of that fraction, and those of the lowest draws, so that
    with the same key a larger share's names hold a smaller's."""
    exact = share * len(names)
    count = math.floor(exact) + (draw(*key, "count", *names) < exact - math.floor(exact))
    return set(sorted(names, key=lambda name: draw(*key, name))[:count])


def plan_answers(task: Task, suite: str, share: float, seed: int, trial: int, tasks: Sequence[str]) -> MutantAnswers:
    """The answers of `task` in `trial` of a run over `tasks` (slugs, `task`'s among them)."""
    reference, start = task.reference_files(), task.stub_files()
    wrong_tasks = seeded_share(sorted(set(tasks) | {task.slug}), share, seed, suite, trial, "wrong")
    if task.slug not in wrong_tasks:
        return MutantAnswers(False, "reference", start, reference, reference)
    what, wrong = _wrong_files(task, seed, trial)
    recovers = task.slug in seeded_share(sorted(wrong_tasks), RECOVERY_SHARE, seed, suite, trial, "recovers")
    return MutantAnswers(True, what, start, wrong, reference if recovers else wrong)


class MutantModel:
    """The server and the task-trials it knows, each under a route of its own."""

    def __init__(self) -> None:
        self._routes: dict[str, tuple[str, str]] = {}   # route -> (first answer, later answer)
        self._answers: dict[tuple, str] = {}
        self._lock = threading.Lock()
        self.server = ChatServer(self._respond)

    def add(self, suite: str, task: Task, share: float, seed: int, trial: int, tasks: Sequence[str], edit_format: str,
            names_from: str = "") -> str:
        """The api_base that answers this task-trial of a run over `tasks`, its files named
        from `names_from`."""
        plan = plan_answers(task, suite, share, seed, trial, tasks)
        key = (suite, task.slug, task.content_hash, share, seed, trial, tuple(sorted(tasks)), edit_format, names_from)
        with self._lock:
            if key not in self._answers:
                self._answers[key] = str(len(self._answers))
                first = answer_text(plan.start, plan.first, edit_format, names_from)
                later = (answer_text(plan.start, plan.later, edit_format, names_from) if plan.later is not plan.first
                         else first)
                self._routes[f"mutant/{self._answers[key]}"] = (first, later)
            return self.server.base(f"mutant/{self._answers[key]}")

    def _respond(self, route: str, body: dict) -> str:
        answers = self._routes.get(route)
        if answers is None:
            raise ModelError(404, f"no mutant task-trial at route {route!r}")
        first, later = answers
        # Aider keeps an answer in its history without its last newline.
        said = any(m.get("role") == "assistant" and str(m.get("content") or "").strip() == first.strip()
                   for m in body.get("messages") or [])
        return later if said else first

    def start(self) -> "MutantModel":
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop()
