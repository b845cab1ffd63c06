"""Prompt contracts: the versioned texts the harness adds to what the agent already says.

A contract (`prompt_contracts/<name>.toml`) has an instructions template (the first
message: the task's instructions plus an addendum), a feedback template (the message after
a failed round: the cleaned test output plus what to do about it), optional system text,
and optionally a simulated-feedback template (the message after a round under `harness run
--feedback simulated`: the failures the model predicted its own code has on the public
tests, plus what to do about them). Templates use `{name}` fields; the fields each may use are fixed, and a contract
naming any other is refused when loaded. Every trial records the hash of its contract's
texts as rendered for its task.

A contract may instead take its texts, at run time, from the user's Aider checkout
(`texts = "aider-checkout"`: Aider's benchmark/prompts.py, read as data), and may fill its
fields in the way Aider's benchmark does (`rendering = "aider-benchmark"`): the exercise's
documents as they are, the solution files by base name, and after a failed try the raw
console output of build and tests, cleaned only as Aider cleans it and never cut, or
Aider's own words for a timeout."""

from __future__ import annotations

import re
import string
from pathlib import Path, PurePosixPath
from typing import Literal, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .agents.aider.checkout import CHECKOUT_ENV, checkout_path, read_prompts
from .agents.editformat import render_whole
from .errors import BadInput, invalid
from .hashing import sha256_json
from .paths import load_bundled_toml
from .records import Status, TestReport, TrialKindName
from .store import CONTRACT_FILE, RunFolder, config_contract_file
from .task import Task

DEFAULT_CONTRACT = "original"
TESTS_CONTRACT = "tests"             # the default of test-writing runs
TESTS_FILL_CONTRACT = "tests-fill"   # ... that fill expected values by execution

# {file_list}: the files the model edits (a repair task's solution files, a test writer's
# test file); {solution_list}: the task's solution files (read-only to a test writer).
INSTRUCTION_FIELDS = {"instructions", "file_list", "solution_list"}
FEEDBACK_FIELDS = {"test_output", "file_list", "solution_list"}
SIMULATED_FEEDBACK_FIELDS = {"predicted_failures", "file_list", "solution_list"}
SYSTEM_FIELDS = {"file_list", "solution_list"}

# What precedes the files in a plain-completion prompt (completion_prompt); in an agent's
# chat the agent itself shows them.
CURRENT_FILES = "The files as they are now:"
READ_ONLY_FILES = "Read-only files (do not change them):"


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


# What Aider's benchmark says in place of test output when build and tests overran, and
# what its cleanup removes from test output (timings, which would make identical failures
# read differently).
AIDER_TIMEOUT_TEXT = "Tests timed out!"
_AIDER_TIMING = re.compile(r"\bin \d+\.\d+s\b")


class PromptContract(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[1] = 1
    name: str
    version: str
    description: str = ""
    kind: TrialKindName = "repair"  # the trials it is written for (harness/kinds/)
    system: str = ""
    instructions: str = ""
    feedback: str = ""
    feedback_cap_chars: int = Field(12000, gt=0, description="test output beyond this is cut")
    simulated_feedback: str = ""
    texts: Literal["inline", "aider-checkout"] = "inline"
    rendering: Literal["harness", "aider-benchmark"] = "harness"
    texts_file: str | None = None    # where texts from a checkout were read
    texts_sha256: str | None = None  # ... and that file's hash

    @model_validator(mode="after")
    def _known_fields(self) -> "PromptContract":
        if self.texts == "aider-checkout" and not (self.instructions or self.feedback):
            return self  # filled in from the checkout at run time (with_checkout_texts)
        for label, template, allowed in (
            ("instructions", self.instructions, INSTRUCTION_FIELDS),
            ("feedback", self.feedback, FEEDBACK_FIELDS),
            ("system", self.system, SYSTEM_FIELDS),
            ("simulated_feedback", self.simulated_feedback, SIMULATED_FEEDBACK_FIELDS),
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
        if self.simulated_feedback and "{predicted_failures}" not in self.simulated_feedback:
            raise ValueError("simulated_feedback must contain {predicted_failures}")
        return self

    @property
    def content_hash(self) -> str:
        """The texts and how they are filled in. Where texts came from does not count, and
        settings added after the first contracts count only when they differ from their
        defaults, so an unchanged contract keeps the hash its earlier runs recorded. The
        simulated-feedback template counts where a run uses it, in its configuration's
        feedback hash (`feedback_hash`), so runs with real feedback keep theirs too."""
        data = self.model_dump(mode="json", exclude={"description", "texts_file", "simulated_feedback"})
        for key, default in (("texts", "inline"), ("rendering", "harness"), ("texts_sha256", None), ("kind", "repair")):
            if data[key] == default:
                del data[key]
        return sha256_json(data)

    @property
    def needs_checkout(self) -> bool:
        return self.texts == "aider-checkout" and not self.instructions

    @property
    def wants_transcript(self) -> bool:
        """Its feedback shows the console output of a failed test run (TestReport.transcript)."""
        return self.rendering == "aider-benchmark"

    def with_checkout_texts(self, given: Path | None) -> "PromptContract":
        """This contract with its texts read from an Aider checkout (the one `given`, else
        $HARNESS_AIDER_CHECKOUT's), as Aider's benchmark uses them: the task's instructions
        followed by `instructions_addendum`, the test output followed by `test_failures`."""
        if not self.needs_checkout:
            return self
        checkout = checkout_path(given)
        if checkout is None:
            raise BadInput(f"prompt contract {self.name} reads Aider's benchmark prompts from an Aider checkout: "
                           f"give --aider-checkout PATH or set {CHECKOUT_ENV}")
        prompts = read_prompts(checkout)
        try:
            return PromptContract.model_validate({
                **self.model_dump(), "instructions": "{instructions}" + prompts.instructions_addendum,
                "feedback": "{test_output}" + prompts.test_failures,
                "texts_file": prompts.path, "texts_sha256": prompts.sha256,
            })
        except ValidationError as exc:
            raise invalid(exc, f"{prompts.path}: its prompts do not fit contract {self.name}") from None

    # --- rendering ---------------------------------------------------------------------

    def _texts(self) -> None:
        if self.needs_checkout:
            raise BadInput(f"prompt contract {self.name} has no texts until they are read from an Aider checkout")

    def file_list(self, task: Task, edits: Sequence[str] | None = None) -> str:
        """The files the model edits (`edits`, its kind's chat files: kinds/; the solution
        files unless given), as the contract names them."""
        names = task.solution_files if edits is None else edits
        if self.rendering == "aider-benchmark":
            return " ".join(PurePosixPath(f).name for f in names)
        return " ".join(names)

    def _lists(self, task: Task, edits: Sequence[str] | None) -> dict[str, str]:
        return {"file_list": self.file_list(task, edits), "solution_list": " ".join(task.solution_files)}

    def system_text(self, task: Task, edits: Sequence[str] | None = None) -> str:
        return self.system.format(**self._lists(task, edits)).strip()

    def first_message(self, task: Task, edits: Sequence[str] | None = None) -> str:
        self._texts()
        if self.rendering == "aider-benchmark":
            instructions = "".join(task.instruction_docs())
        else:
            instructions = task.instructions()
        return self.instructions.format(instructions=instructions, **self._lists(task, edits))

    def feedback_message(self, task: Task, report: TestReport, edits: Sequence[str] | None = None) -> str:
        self._texts()
        if self.rendering == "aider-benchmark":
            output = aider_test_output(report)
        else:
            output = render_test_output(report, self.feedback_cap_chars)
        return self.feedback.format(test_output=output, **self._lists(task, edits))

    def simulated_feedback_message(self, task: Task, predicted_failures: str) -> str:
        if not self.simulated_feedback:
            raise BadInput(f"prompt contract {self.name} has no simulated_feedback template")
        return self.simulated_feedback.format(predicted_failures=predicted_failures, **self._lists(task, None))

    def prompt_hash(self, task: Task, simulated: bool = False, edits: Sequence[str] | None = None) -> str:
        """The texts as this task sees them; the test output (or the predicted failures) is
        the one part left open."""
        self._texts()
        lists = self._lists(task, edits)
        texts = {
            "system": self.system_text(task, edits),
            "first": self.first_message(task, edits),
            "feedback": self.feedback.format(test_output="{test_output}", **lists),
        }
        if simulated:
            texts["simulated_feedback"] = self.simulated_feedback.format(
                predicted_failures="{predicted_failures}", **lists)
        return sha256_json(texts)

    def completion_prompt(self, task: Task, files: Mapping[str, bytes],
                          read_only: Mapping[str, bytes] | None = None) -> list[dict[str, str]]:
        """The trial's first request as a plain completion (for training): the system text,
        then the first message with the files the agent would have shown, as whole-file
        listings: the read-only ones, then the ones to change as they start (the contract's
        {file_list})."""
        edits = list(files)
        return listing_prompt(self.system_text(task, edits), self.first_message(task, edits), files, read_only)


def listing_prompt(system: str, message: str, files: Mapping[str, bytes],
                   read_only: Mapping[str, bytes] | None = None) -> list[dict[str, str]]:
    """A request that shows its files itself (a plain completion, the direct agent's round):
    the system text, then the message followed by the read-only files and the files to
    change, as whole-file listings."""
    messages = []
    if system:
        messages.append({"role": "system", "content": system})

    def listing(given: Mapping[str, bytes]) -> str:
        # A model's code may hold bytes that are not UTF-8; the prompt shows them replaced.
        return render_whole({rel: data.decode(errors="replace") for rel, data in given.items()})

    parts = [message.rstrip()]
    if read_only:
        parts += [READ_ONLY_FILES, listing(read_only)]
    parts += [CURRENT_FILES, listing(files)]
    messages.append({"role": "user", "content": "\n\n".join(parts)})
    return messages


def load_contract(name_or_path: str) -> PromptContract:
    """A bundled contract by name (`prompt_contracts/<name>.toml`) or a contract file by path."""
    return load_bundled_toml("prompt_contracts", name_or_path, PromptContract, "prompt contract")


def run_contract(folder: RunFolder, config: str) -> PromptContract:
    """The contract a run's configuration ran with, as the run folder keeps it: its own
    (a prompted control's), else the run's."""
    own = config_contract_file(config)
    return folder.read_record(own if (folder.root / own).is_file() else CONTRACT_FILE, PromptContract)


# --- the test output a model is shown ---------------------------------------------------


def aider_test_output(report: TestReport) -> str:
    """The test output as Aider's benchmark hands it to the model: the console output of
    build and tests with timings removed, lines rejoined without a final newline, uncut;
    for a run that overran its limit, Aider's own sentence."""
    if report.timeout:
        return AIDER_TIMEOUT_TEXT
    text = report.transcript if report.transcript is not None else report.message or ""
    return "\n".join(_AIDER_TIMING.sub("", text).splitlines())


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
