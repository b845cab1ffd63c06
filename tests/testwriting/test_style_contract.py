"""The prompted control for a teacher's style (`harness tests style-contract`): the language's
style contract with the teacher's suites for the example tasks in its system text, a contract
file that `--model MODEL::PATH` names. Braces of the examples reach the model as written."""

from __future__ import annotations

import json

import pytest

from harness.contract import load_contract
from harness.errors import BadInput
from harness.run.config import split_contract
from harness.suite import load_suite
from harness.testwriting.teacher import teacher_style_contract

from tests.languages.python.tally import TESTS, write_tally
from tests.testwriting.test_python_testwriting import CLAMP_TESTS, write_clamp


@pytest.fixture
def pool(tmp_path):
    suite = tmp_path / "pymini"
    write_tally(suite)
    write_clamp(suite)
    (suite / "suite.toml").write_text('name = "pymini"\nversion = "0.1"\nlanguage = "python"\nimage = "harness-cpp"\n'
                                      'tasks = ["clamp", "tally"]\n')
    teacher = tmp_path / "teacher.jsonl"
    teacher.write_text("\n".join(json.dumps(line) for line in (
        {"task": "tally", "suite": TESTS + "\nSEEN = {'a': 1}\n"}, {"task": "tally", "suite": "later"},
        {"task": "clamp", "suite": CLAMP_TESTS})) + "\n")
    return suite, teacher


def test_the_teachers_suites_for_the_examples_join_the_style_prompt(pool, tmp_path):
    suite, teacher = pool
    out = tmp_path / "teacher-style.toml"
    teacher_style_contract(teacher, str(suite), ["tally"], out)
    contract = load_contract(str(out))
    assert contract.kind == "tests" and contract.name == "teacher-style"
    assert contract.system.startswith(load_contract("tests-style-python").system)
    assert "tally_test.py, for the exercise tally:" in contract.system and "later" not in contract.system
    task = load_suite(suite).task("clamp")
    prompt = contract.completion_prompt(task, {"clamp_test.py": b""}, {"clamp.py": b""})
    assert "SEEN = {'a': 1}" in prompt[0]["content"]  # the system message, braces as written
    assert split_contract(f"openai/m@http://[::1]:8000/v1::{out}") == ("openai/m@http://[::1]:8000/v1", str(out))


def test_an_example_without_a_teacher_suite_is_one_line(pool, tmp_path):
    suite, teacher = pool
    with pytest.raises(BadInput, match="no suite for example task"):
        teacher_style_contract(teacher, str(suite), ["nope"], tmp_path / "x.toml")
    assert not (tmp_path / "x.toml").exists()
