"""results.json (Exercism's test-runner interface, v3) of a Python exercise, written by
`harness test --format exercism` in the Docker sandbox, where what Exercism's own Python
runner (exercism/python-test-runner, run side by side in tests/bench/compare_exercism_python.py)
or the interface says differs from what the harness wrote before (issue 31):

- What the candidate prints during a test is that test's `output` (the interface: attached to
  every test that printed), although its module runs behind the proxy in another process;
  over 500 characters it is cut and ended with the interface's message.
- A solution whose module does not import leaves no test run: the status is `error`, the
  message says why (its SyntaxError), and no test is listed, as that runner writes it;
  before, pytest's errored collection entry was listed as a test and the status was `fail`.
- A test whose setup raises is that test's `error`, and the run a `fail`, as that runner has it."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.exercism_results import OUTPUT_LIMIT, OUTPUT_TRUNCATED

from .tally import REFERENCE, SOLUTION, TESTS, write_tally

pytestmark = [pytest.mark.docker]
runner = CliRunner()


def _results(tmp_path, solution: str, tests: str = TESTS) -> dict:
    task = write_tally(tmp_path / "task", tests=tests)
    answer = tmp_path / "answer"
    answer.mkdir()
    (answer / SOLUTION).write_text(solution)
    out = tmp_path / "results.json"
    got = runner.invoke(app, ["test", str(task.path), "--solution", str(answer), "--format", "exercism",
                              "--out", str(out), "--sandbox", "docker"])
    assert got.exit_code in (0, 1), got.output
    return json.loads(out.read_text())


def test_what_a_test_prints_is_its_output(tmp_path, docker_sandbox):
    results = _results(tmp_path, REFERENCE.replace("    return a + b", '    print("adding", a, b)\n    return a + b'))
    assert results["status"] == "pass"
    assert [t.get("output") for t in results["tests"]] == ["adding 2 3", None, None]


def test_output_over_500_characters_is_cut_with_the_interfaces_message(tmp_path, docker_sandbox):
    results = _results(tmp_path, REFERENCE.replace("    return a + b", '    print("x" * 2000)\n    return a + b'))
    output = results["tests"][0]["output"]
    assert len(output) <= OUTPUT_LIMIT and output.startswith("x" * 400) and output.endswith(OUTPUT_TRUNCATED)


def test_a_module_that_does_not_import_is_an_error_with_no_test(tmp_path, docker_sandbox):
    results = _results(tmp_path, "def add(:\n")
    assert results["status"] == "error" and "tests" not in results
    assert "SyntaxError" in results["message"] and "tally.py" in results["message"]


def test_a_test_whose_setup_raises_is_its_error_and_the_run_fails(tmp_path, docker_sandbox):
    broken = TESTS + ('\n\n@pytest.fixture(autouse=True)\ndef broken(request):\n'
                      '    if request.node.name == "test_words":\n        raise RuntimeError("setup broke")\n')
    results = _results(tmp_path, REFERENCE, tests=broken)
    assert results["status"] == "fail"
    assert [(t["name"], t["status"]) for t in results["tests"]] == [
        ("test add~", "pass"), ("test words~", "error"), ("Tally > total~", "pass")]
    assert "setup broke" in results["tests"][1]["message"]
