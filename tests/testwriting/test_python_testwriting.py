"""Test writing on Python through `harness run --kind tests` with the real Aider driver, in
Docker: two small exercises (tally, and clamp written here), gold against two scripted
writers. Gold (each task's own tests) is valid and kills every target its tests found; a writer whose
suites state one value each is valid but kills less, with fewer assertions; a writer with
wrong expected values is invalid, and its assertion accuracy counts every assertion, not
only those up to each test's first failure. The report shows the suites' shape, and
compare gives NEW minus BASE in the metrics and in the shape, paired over the tasks."""

from __future__ import annotations

import json

import pytest

from harness.agents.editformat import render_whole
from harness.outcomes import load, load_pair
from harness.records import TestWritingSettings
from harness.report import ReportOptions, build_comparison, build_report
from harness.run import run
from harness.run.config import RunConfig
from harness.store import RunFolder
from harness.task import load_task

from tests.languages.python.tally import write_tally
from tests.run_support import fast_profile
from tests.scripted_model import Script, ScriptedModel

pytestmark = [pytest.mark.docker, pytest.mark.slow]

CLAMP = '''def clamp(x, low, high):
    if x < low:
        return low
    if x > high:
        return high
    return x
'''
CLAMP_TESTS = '''from clamp import clamp


def test_inside():
    assert clamp(5, 0, 10) == 5


def test_below():
    assert clamp(-3, 0, 10) == 0


def test_above():
    assert clamp(12, 0, 10) == 10


def test_edges():
    assert clamp(0, 0, 10) == 0
    assert clamp(10, 0, 10) == 10
'''
WEAK = {"tally_test.py": "from tally import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
        "clamp_test.py": "from clamp import clamp\n\n\ndef test_inside():\n    assert clamp(5, 0, 10) == 5\n"}
# Three assertions in one test, the first two wrong: pytest stops at the first; all three count.
WRONG = {"tally_test.py": "from tally import add, words\n\n\ndef test_all():\n    assert add(2, 3) == 6\n"
                          "    assert words('a b') == ['a']\n    assert add(1, 1) == 2\n",
         "clamp_test.py": "from clamp import clamp\n\n\ndef test_all():\n    assert clamp(5, 0, 10) == 4\n"
                          "    assert clamp(-1, 0, 10) == -1\n    assert clamp(11, 0, 10) == 10\n"}
OPTS = ReportOptions(resamples=1000)


def write_clamp(folder):
    root = folder / "clamp"
    (root / ".meta").mkdir(parents=True)
    (root / "clamp.py").write_text("def clamp(x, low, high):\n    pass\n")
    (root / ".meta" / "example.py").write_text(CLAMP)
    (root / "clamp_test.py").write_text(CLAMP_TESTS)
    (root / ".meta" / "config.json").write_text(json.dumps({"files": {
        "solution": ["clamp.py"], "test": ["clamp_test.py"], "example": [".meta/example.py"]}}))
    return load_task(root)


def answer(suites: dict[str, str]):
    def reply(body: dict) -> str:
        text = json.dumps(body["messages"])
        name = next(n for n in suites if n in text)
        return render_whole({name: suites[name]})
    return reply


@pytest.fixture(scope="module")
def written(docker_sandbox, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("python-tests-kind")
    suite = tmp / "pymini"
    write_tally(suite)
    write_clamp(suite)
    (suite / "suite.toml").write_text('name = "pymini"\nversion = "0.1"\nlanguage = "python"\nimage = "harness-cpp"\n'
                                      'tasks = ["clamp", "tally"]\n')
    scripts = {"weak": Script(by_request=answer(WEAK)), "wrong": Script(by_request=answer(WRONG))}
    common = dict(kind="tests", suite=str(suite), trials=1, rounds=1, workers=2, agent=str(fast_profile(tmp)),
                  tests=TestWritingSettings(mutant_cap=6), runs_dir=tmp / "runs", sandbox="docker")
    with ScriptedModel(scripts) as model:
        run(RunConfig(models=["gold"], run_id="gold", **common))
        run(RunConfig(models=[f"openai/weak@{model.api_base}", f"openai/wrong@{model.api_base}"], run_id="written",
                      **common))
        asked = model.last_user_message("weak", 0)
    return tmp / "runs", asked


def rounds(runs_dir, run_id, config):
    folder = RunFolder(runs_dir / run_id)
    return {slug: folder.read_result(config, slug, 1).rounds[0] for slug in ("clamp", "tally")}


@pytest.fixture(scope="module")
def runs(written):
    return written[0]


def test_a_python_suite_is_asked_for_with_the_python_contract(written):
    runs_dir, asked = written
    manifest = RunFolder(runs_dir / "written").read_manifest()
    assert {c.contract for c in manifest.configs} == {"tests-python"}
    assert "pytest test functions" in asked and "Catch2" not in asked


def test_gold_is_valid_and_kills_every_target_its_tests_found_with_its_shape_read(runs):
    gold = rounds(runs, "gold", "gold")
    for slug, r in gold.items():
        assert r.valid and r.assertion_accuracy == 1.0, slug
        assert r.suite_shape is not None and r.suite_shape.assertions >= 3 and r.suite_shape.equality >= 3
    assert gold["tally"].kill_rate == 1.0
    # clamp's sixth target is one its own tests miss, found by the input search (clamp(0, 0, -10),
    # low above high): no suite that is the task's own tests can kill it.
    assert gold["clamp"].kill_rate == pytest.approx(5 / 6) and gold["clamp"].suite_shape.tests == 4


def test_every_assertion_of_a_failing_test_counts(runs):
    for slug, r in rounds(runs, "written", "openai-wrong").items():
        assert not r.valid and r.kill_rate is None
        assert r.assertion_accuracy == pytest.approx(1 / 3), slug  # pytest alone would have stopped at 0 of 1
    weak = rounds(runs, "written", "openai-weak")
    assert all(r.valid and r.suite_shape.assertions == 1 for r in weak.values())
    assert weak["clamp"].kill_rate < 1.0


def test_report_and_compare_show_the_shape_with_paired_statistics(runs):
    sources = [("auto", str(runs / "gold")), ("auto", str(runs / "written"))]
    report = build_report(load(sources), OPTS)
    assert any(t.title.startswith("Written suites: shape") for t in report.tables)
    shape = {d["config"]: d["mean"] for d in report.data["suite_metrics"] if d["metric"] == "assertions" and d["round"] == 1}
    assert shape == {"gold": pytest.approx((5 + 3) / 2), "openai-weak": 1.0, "openai-wrong": 3.0}
    pair, base, new = load_pair("gold", "openai-weak", sources)
    compared = build_comparison(pair, base, new, OPTS)
    assert any(t.title.startswith("Written suites' shape: openai-weak minus gold") for t in compared.tables)
    diffs = {(d["metric"], d["round"]): d for d in compared.data["suite_metrics"]["all tasks"]}
    assert diffs[("assertions", 1)]["difference"] == pytest.approx(1 - 4)
    assert diffs[("kill_rate", 1)]["difference"] < 0 and diffs[("kill_rate", 1)]["tasks"] == 2


def test_a_suite_earns_credit_for_what_the_tasks_own_tests_miss(docker_sandbox, tmp_path):
    """Targets are the mutants the task's tests kill and those an input search separates:
    here the task tests one value, two mutants that return None on a branch it never takes
    are found by varied inputs (the boundary ones, equivalent, are not), and a suite that
    covers both branches kills them too."""
    from harness.testwriting.targets import find_targets
    from harness.testwriting.score import score_with_report

    write_clamp(tmp_path)
    (tmp_path / "clamp" / "clamp_test.py").write_text(WEAK["clamp_test.py"])
    task = load_task(tmp_path / "clamp")
    with docker_sandbox.session("separate") as session:
        targets = find_targets(task, session, mutant_cap=None, use_cache=False)
        found = {t.name: t for t in targets.targets if t.found_by == "input search"}
        assert targets.survived == 4 and targets.separated == 2 == len(found)
        assert sorted(t.witness for t in found.values()) == ["clamp(-5, 0, 10)", "clamp(5, 0, 0)"]
        assert "input search" in targets.equivalence
        weak = score_with_report(task, WEAK["clamp_test.py"].encode(), session, targets)[0]
        full = score_with_report(task, (CLAMP_TESTS + "\n\ndef test_far():\n    assert clamp(-5, 0, 10) == 0\n"
                                        "    assert clamp(20, 0, 10) == 10\n").encode(), session, targets)[0]
    assert (weak.killed, weak.scored) == (3, 5) and (full.killed, full.scored) == (5, 5)


def test_a_trace_scratchpad_is_the_correct_solutions_own_run_above_each_assertion(docker_sandbox, tmp_path):
    from harness.languages.registry import language_for
    from harness.testwriting.targets import find_targets
    from harness.testwriting.score import score_with_report

    task = write_clamp(tmp_path)
    suite = CLAMP_TESTS + "\n\ndef test_named():\n    x = 3\n    assert clamp(x, 0, 1) == 1\n"
    with docker_sandbox.session("trace") as session:
        traced = language_for(task).traced_suite(task, suite.encode(), session)
        assert traced is not None
        targets = find_targets(task, session, mutant_cap=None, use_cache=False)
        plain, with_traces = (score_with_report(task, s, session, targets)[0] for s in (suite.encode(), traced))
    text = traced.decode()
    assert text.count("# trace of clamp(") == 5  # every literal call; `clamp(x, 0, 1)` has none
    assert ("    # trace of clamp(-3, 0, 10) on the correct solution:\n    #   line 2: if x < low:  x=-3, low=0, high=10\n"
            "    #   line 3: return low\n    #   returns 0\n    assert clamp(-3, 0, 10) == 0\n") in text
    assert [ln for ln in text.splitlines() if not ln.lstrip().startswith("#")] == suite.splitlines()
    assert (plain.valid, plain.killed, plain.scored) == (with_traces.valid, with_traces.killed, with_traces.scored)


def test_gold_suites_export_with_trace_scratchpads(runs, docker_sandbox, tmp_path):
    import datasets

    from harness.testwriting.export import TRACES_FILE, export_suites

    m = export_suites([runs / "gold"], tmp_path / "traced", sandbox=docker_sandbox, traces=True)
    assert m.traced == 2 and m.not_traced == {} and m.corrected is None
    rows = datasets.load_dataset("json", data_files=str(tmp_path / "traced" / TRACES_FILE), split="train")
    by_task = {r["source_task"].split("/")[1]: r for r in rows}
    answer = by_task["clamp"]["messages"][-1]["content"]
    assert "# trace of clamp(-3, 0, 10) on the correct solution:" in answer and "#   returns 0" in answer
    assert "trace the correct solution" in by_task["clamp"]["messages"][0]["content"]
    assert by_task["clamp"]["provenance"]["source"] == "traced" and by_task["clamp"]["provenance"]["traces"] == 5


def test_two_mutants_at_one_place_are_told_apart_by_the_search(docker_sandbox, tmp_path):
    """`x * 2 > 1` with its 1 shifted both ways: two mutants at one place. `> 0` is
    equivalent on integers; `> 2` differs at f(1), which the search tries (2 - 1). Only the
    second is a target."""
    from harness.testwriting.targets import find_targets

    line = "    return 0 if x * 2 > 1 else 1\n"
    root = tmp_path / "small"
    (root / ".meta").mkdir(parents=True)
    (root / "small.py").write_text("def small(x):\n    pass\n")
    (root / ".meta" / "example.py").write_text("def small(x):\n" + line)
    (root / "small_test.py").write_text("from small import small\n\n\ndef test_two():\n    assert small(2) == 0\n")
    (root / ".meta" / "config.json").write_text(json.dumps({"files": {
        "solution": ["small.py"], "test": ["small_test.py"], "example": [".meta/example.py"]}}))
    task = load_task(root)
    with docker_sandbox.session("one-place") as session:
        targets = find_targets(task, session, mutant_cap=None, use_cache=False)
    column = line.index("> 1") + 3  # 1-based: the 1
    at_one = {t.mutant.replacement: t.witness for t in targets.targets
              if t.mutant is not None and t.mutant.line == 2 and t.mutant.column == column}
    assert at_one == {"2": "small(1)"}
    assert targets.separated == sum(t.found_by == "input search" for t in targets.targets)
