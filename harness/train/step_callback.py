"""The trainer callback that writes the step log while TRL trains. Apart from `steplog`
because it subclasses transformers' callback: importing transformers takes seconds, and
reading a log or a config must not pay for it."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from transformers import TrainerCallback

from ..records import Record
from .steplog import append


class StepLogger(TrainerCallback):
    """Writes a step record per logged update and prints its line. Only the main process
    of a multi-process run writes."""

    def __init__(self, log_path: Path, console: Console, label: str, build: Callable[[int, dict, float], Record],
                 line: Callable[[Any, int], str], main_process: bool = True):
        self.log_path = log_path
        self.console = console
        self.label = label
        self.build = build
        self.line = line
        self.main = main_process
        self.progress: Progress | None = None
        self._bar = None
        self._started: float | None = None
        self._step_seconds = 0.0

    def on_train_begin(self, args, state, control, **kwargs):
        if self.main and self.console.is_terminal:
            self.progress = Progress(TextColumn(self.label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                                     console=self.console, transient=True)
            self.progress.start()
            self._bar = self.progress.add_task(self.label, total=state.max_steps, completed=state.global_step)

    def on_step_begin(self, args, state, control, **kwargs):
        self._started = time.perf_counter()

    def on_step_end(self, args, state, control, **kwargs):
        if self._started is not None:
            self._step_seconds = time.perf_counter() - self._started
            self._started = None

    def on_log(self, args, state, control, logs=None, **kwargs):
        logs = logs or {}
        if "loss" not in logs:  # the closing summary, or evaluation
            return
        record = self.build(state.global_step, logs, self._step_seconds)  # in every process: it may gather
        if not self.main:
            return
        append(self.log_path, record)
        text = self.line(record, state.max_steps)
        if self.progress is not None:
            self.progress.console.print(text, markup=False, highlight=False)
            self.progress.update(self._bar, completed=state.global_step)
        else:
            self.console.print(text, markup=False, highlight=False, soft_wrap=True)

    def on_train_end(self, args, state, control, **kwargs):
        if self.progress is not None:
            self.progress.stop()
            self.progress = None
