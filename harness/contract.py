"""Prompt contracts: the versioned texts the harness adds to what the agent already says.

A contract (`prompt_contracts/<name>.toml`) has an instructions template (the first
message: the task's instructions plus an addendum), a feedback template (the message after
a failed round: the cleaned test output plus what to do about it) and optional system
text. Templates use `{name}` fields; the fields each may use are fixed, and a contract
naming any other is refused when loaded. Every trial records the hash of its contract's
texts as rendered for its task."""

from __future__ import annotations

import string
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .hashing import sha256_json
from .paths import load_bundled_toml
from .records import Status, TestReport
from .task import Task

DEFAULT_CONTRACT = "original"

INSTRUCTION_FIELDS = {"instructions", "file_list"}
FEEDBACK_FIELDS = {"test_output", "file_list"}
SYSTEM_FIELDS = {"file_list"}


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


class PromptContract(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[1] = 1
    name: str
    version: str
    description: str = ""
    system: str = ""
    instructions: str
    feedback: str
    feedback_cap_chars: int = Field(12000, gt=0, description="test output beyond this is cut")

    @model_validator(mode="after")
    def _known_fields(self) -> "PromptContract":
        for label, template, allowed in (
            ("instructions", self.instructions, INSTRUCTION_FIELDS),
            ("feedback", self.feedback, FEEDBACK_FIELDS),
            ("system", self.system, SYSTEM_FIELDS),
        ):
            try:
                unknown = _fields(template) - allowed
            except ValueError as exc:
                raise ValueError(f"{label}: {exc}") from None
            if unknown:
                raise ValueError(f"{label} uses unknown fields {sorted(unknown)}; allowed: {sorted(allowed)}")
        if "{instructions}" not in self.instructions:
            raise ValueError("instructions must contain {instructions}")
        if "{test_output}" not in self.feedback:
            raise ValueError("feedback must contain {test_output}")
        return self

    @property
    def content_hash(self) -> str:
        return sha256_json(self.model_dump(mode="json", exclude={"description"}))

    # --- rendering ---------------------------------------------------------------------

    def file_list(self, task: Task) -> str:
        return " ".join(task.solution_files)

    def system_text(self, task: Task) -> str:
        return self.system.format(file_list=self.file_list(task)).strip()

    def first_message(self, task: Task) -> str:
        return self.instructions.format(instructions=task.instructions(), file_list=self.file_list(task))

    def feedback_message(self, task: Task, report: TestReport) -> str:
        return self.feedback.format(test_output=render_test_output(report, self.feedback_cap_chars),
                                    file_list=self.file_list(task))

    def prompt_hash(self, task: Task) -> str:
        """The texts as this task sees them; the test output is the one part left open."""
        return sha256_json({
            "system": self.system_text(task),
            "first": self.first_message(task),
            "feedback": self.feedback.format(test_output="{test_output}", file_list=self.file_list(task)),
        })


def load_contract(name_or_path: str) -> PromptContract:
    """A bundled contract by name (`prompt_contracts/<name>.toml`) or a contract file by path."""
    return load_bundled_toml("prompt_contracts", name_or_path, PromptContract, "prompt contract")


# --- the test output a model is shown ---------------------------------------------------


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line for line in text.rstrip().splitlines())


def render_test_output(report: TestReport, cap_chars: int = 12000) -> str:
    """What the tests said, as a developer would want it after a failed run: the compiler's
    diagnostics when the build failed; otherwise each failing test with its failed
    expression and captured output, what stopped the run if it stopped, and a count.
    Timings are left out so that identical failures read identically."""
    parts: list[str] = []
    if report.status is Status.error and not report.tests:
        parts.append("The build failed:" if not report.timeout else "The build did not finish:")
        parts.append(report.message or "(no compiler output)")
    else:
        failing = report.failing()
        for case in failing:
            parts.append(f"FAILED: {case.name}" if case.status is Status.failed else f"ERROR: {case.name}")
            if case.message:
                parts.append(_indent(case.message))
            if case.output:
                parts.append("  with output:\n" + _indent(case.output))
        if report.message:
            parts.append(report.message)
        if report.output and report.status is not Status.passed:
            parts.append("The test program printed:\n" + _indent(report.output))
        total = len(report.tests)
        if total:
            parts.append(f"{len(failing)} of {total} tests failed." if failing else f"All {total} tests passed.")
    text = "\n".join(p for p in parts if p).strip()
    if len(text) > cap_chars:
        cut = len(text) - cap_chars
        text = text[:cap_chars].rstrip() + f"\n[... {cut} more characters of test output cut]"
    return text
