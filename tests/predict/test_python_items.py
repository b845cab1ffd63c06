"""Output prediction on Python: (function, input) -> value items from a Python suite's tests,
and (program, stdin) -> stdout items from a problems file (tests/predict/problems.jsonl,
written here), both observed in the real Docker sandbox and written as every set is; the
answers in Python terms read back as the probe's typed values, standard output compared token
by token with the float tolerance, and both kinds of item scored by `predict eval` through a
scripted server and by the GRPO predict environment's judge, unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.languages.python.probe.prediction import item_calls
from harness.cli import app
from harness.predict.build import build, read_items
from harness.predict.config import PredictBuildConfig, PredictEvalConfig
from harness.predict.evaluate import evaluate
from harness.predict.items import GRPO_FILE, PredictGrpoRow
from harness.predict.prompt import item_messages, parse_answer, parse_output, render_answer
from harness.predict.score import PREDICTION_RULE, STDOUT_RULE, score
from harness.probe.compare import call_matches
from harness.records import TrialOutcome
from harness.sandbox.image import image_repo
from harness.suite import MANIFEST, SuiteManifest, render_manifest
from harness.task import load_task
from harness.train.rewards import PredictJudge, PredictTarget

from tests.languages.python.tally import REFERENCE as TALLY, write_tally
from tests.scripted_model import Script, ScriptedModel

PROBLEMS = Path(__file__).parent / "problems.jsonl"
PYTHON = PREDICTION_RULE.model_copy(update={"answer": "python"})

SHELF = '''class Shelf:
    def __init__(self):
        self.items = []

    def put(self, item):
        if not item:
            raise ValueError("nothing to put")
        self.items.append(item)
        return len(self.items)

    def take(self):
        return self.items.pop()


def ratio(a, b):
    return (a / b, a // b)
'''

SHELF_TESTS = '''import unittest

import pytest

from shelf import Shelf, ratio

candidate = ratio  # HumanEval's way of naming the function under test


def test_ratio():
    assert candidate(7, 2) == (3.5, 3)
    assert candidate(1, 1) is not None


def test_shelf():
    shelf = Shelf()
    shelf.put("a")
    expected = 2
    assert shelf.put("b") == expected
    assert shelf.take() == "b"
    with pytest.raises(ValueError):
        shelf.put("")


def test_a_loop():
    for n in (1, 2):
        assert ratio(n, 1) == (n, n)


def test_a_fixture(tmp_path):
    assert ratio(4, 2) == (2.0, 2)


class ShelfTest(unittest.TestCase):
    def test_take(self):
        shelf = Shelf()
        shelf.put("c")
        self.assertIs(shelf.take(), "c")
'''

SEQUENCE = "shelf = Shelf()\nshelf.put('a')\n=> shelf.put('b')\n=> shelf.take()\n=> shelf.put('')"
TAKE = "shelf = Shelf()\nshelf.put('c')\n=> shelf.take()"


def _shelf(folder: Path):
    root = folder / "shelf"
    (root / ".meta").mkdir(parents=True)
    (root / "shelf.py").write_text("class Shelf:\n    pass\n\n\ndef ratio(a, b):\n    pass\n")
    (root / ".meta" / "example.py").write_text(SHELF)
    (root / "shelf_test.py").write_text(SHELF_TESTS)
    (root / ".meta" / "config.json").write_text(json.dumps({"files": {
        "solution": ["shelf.py"], "test": ["shelf_test.py"], "example": [".meta/example.py"]}}))
    return load_task(root)


# --- no sandbox ------------------------------------------------------------------------------


def test_calls_are_what_the_tests_call_on_their_own_by_the_modules_names(tmp_path):
    calls = item_calls(_shelf(tmp_path))
    # the loop's call reads a local, and the fixture's test runs in a world of the test's making
    assert calls.calls == [("test_ratio", "ratio(7, 2)"), ("test_ratio", "ratio(1, 1)"), ("test_shelf", SEQUENCE),
                           ("ShelfTest.test_take", TAKE)]
    assert calls.prelude == "import shelf\nfrom shelf import Shelf, ratio" and not calls.from_cases


@pytest.mark.parametrize("record, text", [
    ({"o": [{"v": {"tuple": [3.5, 3]}}]}, "(3.5, 3)"),
    ({"o": [{"v": [{"tuple": [1]}, {"set": ["a"]}, {"set": []}, {"bytes": "6869"}, None, True]}]},
     "[(1,), {'a'}, set(), b'hi', None, True]"),
    ({"o": [{"v": {"dict": [["k", {"int": "1" + "0" * 30}]]}}]}, "{'k': 1" + "0" * 30 + "}"),
    ({"o": [{"v": 2}, {"v": "b"}, {"x": "ValueError"}]}, "2\n'b'\nraises ValueError"),
    ({"o": [], "x": "KeyError"}, "call ends: raises KeyError"),
])
def test_python_answers_render_and_read_back_as_typed_values(record, text):
    call = SEQUENCE if len(record["o"]) != 1 else "f()"
    assert render_answer(record, "python") == text
    assert parse_answer(f"```python\n{text}\n```", call, "python") == record


def test_a_python_answer_is_typed_and_floats_are_within_the_tolerance():
    expected = {"o": [{"v": {"tuple": [3.5, 3]}}]}
    assert score("(3.500001, 3)", "ratio(7, 2)", expected, PYTHON).correct
    assert not score("[3.5, 3]", "ratio(7, 2)", expected, PYTHON).correct          # a list is not a tuple
    assert score("{'b', 'a'}", "f()", {"o": [{"v": {"set": ["a", "b"]}}]}, PYTHON).correct
    for bad in ("__import__('os')", "(1, 2", "[" * 100_000, "9" * 5000, "1j", "x" * (2 << 20)):
        assert score(bad, "f()", expected, PYTHON).malformed
    with pytest.raises(ValueError):
        render_answer({"o": [{"v": {"object": ["Shelf", "<Shelf>"]}}]}, "python")   # no literal: no item


def test_standard_output_matches_token_by_token_with_the_float_tolerance():
    expected = {"o": [{"v": "3.141592653589793\n2 words\n"}]}
    for text, right in [("```\n3.141593\n2 words\n```", True), ("3.14159265 2   words", True),
                        ("3.14158\n2 words", False), ("3.141593\n2 words\nmore", False), ("3.141593 2 Words", False)]:
        assert score(text, "1\n", expected, STDOUT_RULE).correct is right, text
    assert parse_output("x" * (1 << 17)) is None
    assert call_matches({"o": [{"v": "nan 1e400"}]}, {"o": [{"v": "nan 1e400"}]}, STDOUT_RULE)


# --- in the sandbox --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sets(tmp_path_factory, docker_sandbox):
    """A Python suite of two tasks built into a set, and the fixture problems imported."""
    base = tmp_path_factory.mktemp("python-items")
    suite = base / "pysuite"
    write_tally(suite)
    _shelf(suite)
    (suite / MANIFEST).write_text(render_manifest(SuiteManifest(
        name="pysuite", version="1", language="python", image=image_repo("python"), description="", tasks=["shelf", "tally"])))
    root = base / "curricula"
    build(PredictBuildConfig(suite=str(suite), out="py", mutants=0, eval_tasks=["tally"], root=root, workers=2),
          sandbox=docker_sandbox)
    imported = CliRunner().invoke(app, ["predict", "import", "problems", str(PROBLEMS), "--out", "io", "--eval-tasks",
                                        "circle-area", "--root", str(root), "--sandbox", "docker", "--workers", "2"])
    assert imported.exit_code == 0, imported.output
    assert "9 items" in " ".join(imported.stdout.split())
    return root


def test_python_items_hold_the_values_the_reference_produced(sets):
    items = {i.call: i for i in read_items(sets / "py")}
    assert {c: i.answer for c, i in items.items()} == {
        "ratio(7, 2)": "(3.5, 3)",
        "ratio(1, 1)": "(1.0, 1)",
        SEQUENCE: "2\n'b'\nraises ValueError",
        TAKE: "'c'",
        "add(2, 3)": "5",
        "words('a b  c')": "['a', 'b', 'c']",
        "Tally().count('a').count('b').count('a').total()": "3",
    }
    shown = item_messages(items[SEQUENCE])[-1].content
    assert "```python\n# file: shelf.py\n" in shown and "expected" not in shown and "raises <type>" in shown
    assert items["add(2, 3)"].files == {"tally.py": TALLY} and items["add(2, 3)"].split == "eval"
    assert json.loads((sets / "py" / "manifest.json").read_text())["source_tasks"] == ["pysuite/shelf"]


def test_problem_items_are_the_observed_output_of_runs_that_print_the_expected_one(sets):
    items = read_items(sets / "io")
    got = sorted((i.task, i.check, i.sources[0].name, i.answer) for i in items)
    assert [(t, c, a) for t, c, _, a in got] == [
        ("problems/circle-area", "private test 1", "12.566370614359172"),   # the file says 12.566371
        ("problems/circle-area", "public test 1", "3.141592653589793"),
        ("problems/pair-sums", "private test 1", "0"), ("problems/pair-sums", "private test 1", "0"),
        ("problems/pair-sums", "private test 2", "30\n0\n-1"), ("problems/pair-sums", "private test 2", "30\n0\n-1"),
        ("problems/pair-sums", "public test 1", "3\n7"), ("problems/pair-sums", "public test 1", "3\n7"),
        ("problems/reverse-words", "public test 1", "c b a"),
    ]
    assert {i.sources[0].name for i in items if i.task == "problems/pair-sums"} == {"solution 1", "solution 3"}
    manifest = json.loads((sets / "io" / "manifest.json").read_text())
    assert manifest["eval_tasks"] == ["problems/circle-area"] and manifest["items"] == {"train": 7, "eval": 2}
    # reverse-words' private test expects the words unreversed, any-divisor accepts any divisor: no item
    assert manifest["dropped"] == {"output differs from the file's expected output (a wrong solution, or several "
                                   "right answers)": 2}
    assert manifest["skipped_tasks"] == {"any-divisor": "no run of a solution printed the expected output"}
    prompt = item_messages(next(i for i in items if i.check == "public test 1" and "circle" in i.task))[-1].content
    assert "Its standard input:\n```\n1\n```" in prompt and "3.141593" not in prompt


def test_both_kinds_are_scored_by_predict_eval_and_the_grpo_judge(sets, tmp_path):
    items = [*read_items(sets / "py"), *read_items(sets / "io")]
    wrong = {items[0].id, items[-1].id}
    replies = {item_messages(i)[-1].content: "```\n" + ("'wrong'" if i.id in wrong else i.answer) + "\n```" for i in items}
    with ScriptedModel({"predictor": Script(by_request=lambda body: replies[body["messages"][-1]["content"]])}) as server:
        for name in ("py", "io"):
            done = evaluate(PredictEvalConfig(model="openai/predictor", api_base=server.api_base, items=name, split="all",
                                              root=sets, runs_dir=tmp_path, run_id=name))
            n = sum(1 for i in items if i.task.startswith("pysuite/" if name == "py" else "problems/"))
            assert (done.count(TrialOutcome.passed), done.count(TrialOutcome.failed)) == (n - 1, 1)
    rows = [PredictGrpoRow.model_validate_json(line) for name in ("py", "io")
            for line in (sets / name / GRPO_FILE).read_text().splitlines()]
    targets = [PredictTarget(call=r.call, expected=r.expected, compare=r.compare).model_dump_json() for r in rows]
    judged = PredictJudge().judge([f"```\n{r.answer}\n```" for r in rows] + ["```\n'wrong'\n```"] * len(rows),
                                  targets + targets)
    assert [j.reward for j in judged] == [1.0] * len(rows) + [-1.0] * len(rows)


def test_a_problems_file_of_another_shape_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"name": "p", "solutions": ["print(1)"], "public_tests": {"input": ["1"]}}) + "\n")
    got = CliRunner().invoke(app, ["predict", "import", "problems", str(bad), "--out", "bad", "--root", str(tmp_path)])
    assert got.exit_code == 2 and "bad.jsonl:1: not a problem" in got.stderr and len(got.stderr.strip().splitlines()) == 1
