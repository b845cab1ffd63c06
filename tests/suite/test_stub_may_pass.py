"""The one rule by which a stub may pass every test in `suite validate`, the same for every
language: an exercise that says so itself (a refactoring exercise's instructions, Exercism's
`.meta/.skip_tests`); any other stub must fail."""

from __future__ import annotations

from harness.suite_validation import stub_may_pass
from harness.task import load_task

from ..languages.go.leap import write_leap


def test_a_stub_may_pass_only_where_the_exercise_says_it_is_meant_to(tmp_path):
    plain = write_leap(tmp_path / "plain")
    (plain / ".docs").mkdir()
    (plain / ".docs" / "instructions.md").write_text("# Instructions\n\nGiven a year, report if it is a leap year.\n"
                                                    "Refactor nothing.\n")
    assert stub_may_pass(load_task(plain)) is None

    refactoring = write_leap(tmp_path / "refactoring")
    (refactoring / ".docs").mkdir()
    (refactoring / ".docs" / "instructions.md").write_text("# Instructions\n\nRefactor a leap year checker.\n")
    assert "refactoring exercise" in (stub_may_pass(load_task(refactoring)) or "")

    untested = write_leap(tmp_path / "untested")
    (untested / ".meta" / ".skip_tests").write_text("Do not remove this file.\n")
    assert ".skip_tests" in (stub_may_pass(load_task(untested)) or "")
