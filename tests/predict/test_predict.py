"""Output-prediction items (`harness predict build`): the answer format read back, the task
split, and, in the real Docker sandbox, items built from three fixed26 tasks' references,
faulty controls, a mutant and a recorded run's answers (two tasks by their verifier calls,
knapsack, which has no verifier, by its own test cases), with the observed truth checked
against values worked out by hand, duplicates merged across sources, eval tasks kept out
of every training row, and bad input refused in one line with exit 2."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from harness.errors import BadInput
from harness.predict.build import build, read_items, rule_for, split_tasks, write_set
from harness.predict.build import task_calls as build_task_calls
from harness.predict.config import PredictBuildConfig
from harness.predict.items import EVAL_GRPO_FILE, EVAL_SFT_FILE, GRPO_FILE, PredictItem, Provenance
from harness.predict.prompt import parse_answer, render_answer
from harness.probe.compare import call_matches
from harness.run.config import RunConfig
from harness.run.plan import make_plan
from harness.suite import find_suite, load_suite
from harness.task import load_task
from harness.train.data import load_sft
from harness.verify import load_spec

from tests.conftest import ROOT
from tests.report_support import write_run

FIXED26 = ROOT / "suites" / "fixed26"
PHONE = load_task(FIXED26 / "phone-number")
PHONE_CHECK = load_spec(PHONE).checks[0]   # an exact check: predictions compare with the float tolerance
SEQUENCE = """
    circular_buffer::circular_buffer<int> buffer(2);
    buffer.write(1);
    => buffer.read()
    => buffer.read()
"""


# --- the format, no sandbox ------------------------------------------------------------------


@pytest.mark.parametrize("record, text", [
    ({"o": [{"v": "2234567890"}]}, '"2234567890"'),
    ({"o": [{"x": "std::domain_error"}]}, "throws std::domain_error"),
    ({"o": [{"v": 1}, {"x": "std::domain_error"}]}, "1\nthrows std::domain_error"),
    ({"o": [{"v": 1}], "x": "std::domain_error"}, "1\ncall ends: throws std::domain_error"),
    ({"o": [], "x": "std::length_error"}, "call ends: throws std::length_error"),
])
def test_answers_render_and_read_back(record, text):
    call = SEQUENCE if len(record["o"]) == 2 or "x" in record else "f()"
    assert render_answer(record) == text
    assert parse_answer(f"```\n{text}\n```", call) == record


def test_a_test_case_is_answered_with_as_many_lines_as_it_reaches():
    case = 'TEST_CASE("two", "[x]") {\n    REQUIRE(f(1) == 2);\n    REQUIRE(f(2) == 3);\n}'
    assert parse_answer("```\n2\n3\n```", case) == {"o": [{"v": 2}, {"v": 3}]}
    assert parse_answer("2", case) == {"o": [{"v": 2}]}          # as many as the model says it reaches
    assert parse_answer("call ends: throws std::logic_error", case) == {"o": [], "x": "std::logic_error"}
    assert parse_answer("two", case) is None


def test_malformed_answers_read_as_none():
    assert parse_answer("the number is 2234567890", "f()") is None
    assert parse_answer("1\n2\n3", SEQUENCE) is None          # more lines than observations, no exception
    assert parse_answer("", "f()") is None
    assert parse_answer("1", SEQUENCE) is None                # an observation missing, nothing ended the call
    assert parse_answer("1\n2\ncall ends: throws", SEQUENCE) is None


def test_floats_compare_within_the_papers_tolerance():
    rule = rule_for(PHONE_CHECK)
    assert call_matches({"o": [{"v": 31.68808781402895}]}, {"o": [{"v": 31.688091}]}, rule)
    assert not call_matches({"o": [{"v": 31.68808781402895}]}, {"o": [{"v": 31.6881}]}, rule)
    assert not call_matches({"o": [{"v": "1"}]}, {"o": [{"v": 1}]}, rule)


def test_split_by_task_names_or_share():
    slugs = ["a", "b", "c", "d", "e"]
    assert split_tasks(slugs, slugs, ["b"], None, 0) == {"b"}
    drawn = split_tasks(slugs, slugs, None, 0.4, 7)
    assert len(drawn) == 2 and drawn == split_tasks(slugs, slugs, None, 0.4, 7)
    assert split_tasks(slugs, ["a", "b"], None, 0.5, 0) <= {"a", "b"}   # only tasks that give items
    with pytest.raises(BadInput, match="--eval-tasks: 'zz'"):
        split_tasks(slugs, slugs, ["zz"], None, 0)


def test_both_split_rules_are_refused():
    with pytest.raises(ValueError, match="not both"):
        PredictBuildConfig(suite="fixed26", out="x", eval_tasks=["a"], eval_share=0.5)


def _item(id_: str, task: str, split: str, source: str) -> PredictItem:
    return PredictItem(id=id_, task=task, split=split, check="c", call="f()", files={"a.h": "int f();"}, code_hash="h",
                       expected={"o": [{"v": 1}]}, answer="1", compare=rule_for(PHONE_CHECK),
                       sources=[Provenance(task=task, source=source)])


def test_written_set_merges_duplicates_and_keeps_eval_out_of_training(tmp_path):
    suite = find_suite("fixed26")
    items = [_item("i1", "fixed26/a", "train", "reference"), _item("i1", "fixed26/a", "train", "answer"),
             _item("i2", "fixed26/b", "eval", "faulty")]
    built = write_set(tmp_path / "set", "set", suite, items, Counter(), {}, eval_tasks=["fixed26/b"])
    assert [i.id for i in built.items] == ["i1", "i2"]
    assert [p.source for p in built.items[0].sources] == ["reference", "answer"]
    m = built.manifest
    assert m.items == {"train": 1, "eval": 1} and m.source_tasks == ["fixed26/a"] and m.eval_tasks == ["fixed26/b"]
    assert m.dropped == {"duplicate item (same normalised code and call)": 1}
    train = (tmp_path / "set" / "sft.jsonl").read_text() + (tmp_path / "set" / GRPO_FILE).read_text()
    assert "fixed26/b" not in train and "fixed26/a" in train
    assert "fixed26/b" in (tmp_path / "set" / EVAL_GRPO_FILE).read_text()
    # The set is a suite of output-prediction tasks, one per item: the prompt to read, an
    # empty answer file, the expected answer as the reference, and the item itself.
    as_suite = load_suite(tmp_path / "set")
    assert [t.slug for t in as_suite.tasks] == ["i1", "i2"] and {t.kind for t in as_suite.tasks} == {"output-prediction"}
    task = as_suite.tasks[0]
    assert task.solution_files == ("prediction.txt",) and task.stub_files() == {"prediction.txt": b""}
    assert task.reference_files() == {"prediction.txt": b"1\n"}
    assert "int f();" in task.instructions() and "f()" in task.instructions()
    assert read_items(tmp_path / "set") == built.items
    with pytest.raises(BadInput, match="i1 is an output-prediction task"):
        make_plan(RunConfig(suite=str(tmp_path / "set"), models=["openai/m"], api_base="http://127.0.0.1:9"))


# --- in the sandbox ---------------------------------------------------------------------------

SPACE = load_task(FIXED26 / "space-age")


def _control(task, name: str) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in (task.path / ".meta" / "faulty" / name).iterdir()}


def _answer_run(tmp_path):
    """A run with one phone-number trial of two rounds: round 1 is the keeps-country-code
    control with a comment added and a local renamed (the same code to the normal form),
    round 2 the reference reformatted (so is that)."""
    runs = tmp_path / "runs"
    run = write_run(runs, "r1", {"m": {"phone-number": [None]}}, task_hashes={"phone-number": PHONE.content_hash})
    result = run / "m" / "phone-number" / "trial-1" / "result.json"
    data = json.loads(result.read_text())
    data["task_hash"] = PHONE.content_hash
    result.write_text(json.dumps(data))
    control = _control(PHONE, "keeps-country-code")
    first = dict(control)
    first["phone_number.cpp"] = (b"// my answer\n" + control["phone_number.cpp"]).replace(b"area", b"offset")
    second = dict(PHONE.reference_files())
    second["phone_number.cpp"] = second["phone_number.cpp"].replace(b"\n", b"\n\n")
    for rnd, files in ((1, first), (2, second)):
        ws = run / "m" / "phone-number" / "trial-1" / f"round-{rnd}" / "workspace"
        ws.mkdir(parents=True)
        for name, body in files.items():
            (ws / name).write_bytes(body)
    return runs


@pytest.fixture(scope="module")
def built(tmp_path_factory, docker_sandbox):
    tmp = tmp_path_factory.mktemp("predict")
    runs = _answer_run(tmp)
    config = PredictBuildConfig(suite="fixed26", out="two", tasks=["phone-number", "space-age", "knapsack"], eval_tasks=["space-age"],
                                runs=["r1"], runs_dir=runs, mutants=1, root=tmp / "curricula", workers=2)
    return build(config, sandbox=docker_sandbox)


def _value(built, task: str, call: str, source: str, name: str | None = None):
    hits = [i for i in built.items if i.task == f"fixed26/{task}" and i.call.strip() == call.strip()
            and any(p.source == source and (name is None or p.name == name) for p in i.sources)]
    assert len(hits) == 1, (task, call, source, name, len(hits))
    return hits[0]


@pytest.mark.slow
def test_observed_values_are_the_ones_worked_out_by_hand(built):
    v = lambda *a: _value(built, *a).expected  # noqa: E731
    phone = 'phone_number::phone_number("{}").number()'.format
    assert v("phone-number", phone("(223) 456-7890"), "reference") == {"o": [{"v": "2234567890"}]}
    assert v("phone-number", phone("+1 (223) 456-7890"), "reference") == {"o": [{"v": "2234567890"}]}
    assert v("phone-number", phone("22234567890"), "reference") == {"o": [{"x": "std::domain_error"}]}
    assert v("phone-number", phone("12234567890"), "faulty", "keeps-country-code") == {"o": [{"v": "12234567890"}]}
    assert v("phone-number", phone("(123) 456-7890"), "faulty", "accepts-area-code-1") == {"o": [{"v": "1234567890"}]}
    sequence = next(c for c in (i.call for i in built.items) if "copy = first" in c)
    assert _value(built, "phone-number", sequence, "reference").answer == '"2234567890"\n"9876543210"\n"2234567890"\n"2234567890"'

    space = "space_age::space_age({}).{}()".format
    earth = v("space-age", space(1000000000, "on_earth"), "reference")["o"][0]["v"]
    assert abs(earth - 1e9 / 31557600) < 1e-9                     # 31.688087814...
    assert v("space-age", space(31557600, "on_earth"), "reference") == {"o": [{"v": 1}]}
    days365 = v("space-age", space(31557600, "on_earth"), "faulty", "earth-year-of-365-days")["o"][0]["v"]
    assert abs(days365 - 31557600 / (365 * 86400)) < 1e-9          # 1.000684...
    # 10**13 seconds in an int keeps the low 32 bits: 10**13 - 2328 * 2**32 = 1316134912.
    assert v("space-age", space("10000000000000ULL", "seconds"), "faulty", "seconds-stored-as-int") == {"o": [{"v": 1316134912}]}

    # knapsack's verifier has a check per test case, its calls the case's statements observing its REQUIRE's left side.
    case = lambda name, source, control=None: _case(built, "knapsack", name, source, control).expected  # noqa: E731
    # {5,10} {4,40} {6,30} {4,50} in 10: 40 + 50; with items reused, {4,50} twice.
    assert case("example knapsack", "reference") == {"o": [{"v": 90}]}
    assert case("example knapsack", "faulty", "items-reused") == {"o": [{"v": 100}]}
    # {2,5} x4 and {10,21} in 10: the densest first takes the four light ones, 20, not 21.
    assert case("five items (cannot be greedy by weight)", "reference") == {"o": [{"v": 21}]}
    assert case("five items (cannot be greedy by weight)", "faulty", "greedy-by-value-per-weight") == {"o": [{"v": 20}]}
    item = _case(built, "knapsack", "example knapsack", "reference")
    assert "=> knapsack::maximum_value(10, items)" in item.call and "{5, 10}, {4, 40}, {6, 30}, {4, 50}" in item.call
    assert item.answer == "90"


def _case(built, task: str, name: str, source: str, control: str | None = None):
    hits = [i for i in built.items if i.task == f"fixed26/{task}" and i.check == name
            and any(p.source == source and (control is None or p.name == control) for p in i.sources)]
    assert len(hits) == 1, (task, name, source, control, len(hits))
    return hits[0]


@pytest.mark.slow
def test_duplicates_merge_across_sources_and_every_source_is_there(built):
    ids = [i.id for i in built.items]
    assert len(ids) == len(set(ids))
    country = _value(built, "phone-number", 'phone_number::phone_number("12234567890").number()', "faulty",
                     "keeps-country-code")
    assert {(p.source, p.name, p.run_id, p.trial, p.round) for p in country.sources} == {
        ("faulty", "keeps-country-code", None, None, None), ("answer", None, "r1", 1, 1)}
    ref = _value(built, "phone-number", 'phone_number::phone_number("12234567890").number()', "reference")
    assert {(p.source, p.round) for p in ref.sources} == {("reference", None), ("answer", 2)}
    m = built.manifest
    assert m.by_source["mutant"] >= 1 and m.by_source["faulty"] > 0 and m.by_source["answer"] > 0
    assert m.dropped["duplicate code (same normal form)"] == 2


@pytest.mark.slow
def test_eval_tasks_never_reach_training_rows(built):
    folder = built.path
    assert read_items(folder) == built.items
    # The SFT export trains as it is, and training records only train tasks as seen.
    rows, source = load_sft(str(folder))
    assert len(rows) == built.manifest.items["train"]
    assert source.trained_on_tasks == built.manifest.source_tasks == ["fixed26/knapsack", "fixed26/phone-number"]
    assert {i.task for i in built.items if i.split == "eval"} == {"fixed26/space-age"}
    train = (folder / "sft.jsonl").read_text() + (folder / GRPO_FILE).read_text()
    assert "space-age" not in train and "space_age" not in train
    assert "space_age" in (folder / EVAL_SFT_FILE).read_text()
    for line in (folder / "sft.jsonl").read_text().splitlines():
        row = json.loads(line)
        item = next(i for i in built.items if row["task_id"].endswith(i.id))
        assert row["messages"][-1]["content"] == f"```\n{item.answer}\n```"


@pytest.mark.parametrize("args, message", [
    (["--suite", "nosuch", "--out", "x"], "unknown suite 'nosuch'"),
    (["--suite", "fixed26", "--out", "x", "--eval-tasks", "nosuch"], "--eval-tasks: 'nosuch'"),
    (["--suite", "fixed26", "--out", "x", "--eval-tasks", "clock", "--eval-share", "0.5"], "not both"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, message):
    got = subprocess.run([str(Path(sys.executable).with_name("harness")), "predict", "build", *args, "--root", str(tmp_path)],
                         capture_output=True, text=True, cwd=tmp_path)
    assert got.returncode == 2, got.stderr
    assert message in got.stderr and len(got.stderr.strip().splitlines()) == 1, got.stderr


@pytest.mark.docker
def test_a_test_case_is_asked_without_its_expected_values_and_observed_past_a_failing_assertion(tmp_path,
                                                                                              docker_sandbox):
    """A task without a verifier asks about its own test cases. Shown as written, a case
    holds its own answer wherever the code is right, so the model sees it without its
    expected values; and as it cannot see an assertion fail, none ends the case: on the
    control that keeps the country code, the first assertion fails and the second is
    still observed."""
    from harness.languages.cpp.probe import observe
    from harness.languages.cpp.probe.cases import case_context, task_cases
    from harness.predict.prompt import prompt_messages

    root = tmp_path / "phone-number"
    shutil.copytree(PHONE.path, root)
    (root / ".meta" / "verifier.toml").unlink()
    (root / "phone_number_test.cpp").write_text(
        '#include "phone_number.h"\n\n#include <catch2/catch.hpp>\n\n'
        'TEST_CASE("country code, then none", "[1]") {\n'
        '    REQUIRE(phone_number::phone_number("12234567890").number() == "2234567890");\n'
        '    REQUIRE(phone_number::phone_number("(223) 456-7890").number() == "2234567890");\n}\n')
    task = load_task(root)
    assert build_task_calls(task).from_cases
    (case,) = task_cases(task)
    got = observe(task, _control(PHONE, "keeps-country-code"), [case.call], session=None, sandbox=docker_sandbox)
    assert got.status == "ok" and got.runs[0] == [{"o": [{"v": "12234567890"}, {"v": "2234567890"}]}]
    asked = "\n".join(m.content for m in prompt_messages({"phone_number.cpp": "..."}, case.call,
                                                          prelude=case_context(task)))
    assert "OBSERVE(phone_number::phone_number(\"12234567890\").number())" in asked
    assert '== "2234567890"' not in asked and "country code, then none" not in asked
