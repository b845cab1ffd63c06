"""`harness curriculum` on Python, end to end. A run is made here over a Python exercise
written in test code (tests/languages/python/tally.py): the real Aider driver, the real
sandbox, and a scripted model (the only test double) that answers wrongly in several ways
over two rounds. The curriculum built from it is a Python suite that `suite validate`
accepts and gold passes; each failure's kind is read from what pytest reported;
near-duplicates (other local names, comments, layout) collapse by Python's normal form;
each repair task keeps the source task's tests and .meta, as GRPO's verifier needs. Then
`synth` from mutants of the same reference."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.agents.editformat import render_whole
from harness.curriculum import BuildConfig, FailureKind, SynthConfig, build_from_runs, synthesize
from harness.curriculum.records import RepairRecord
from harness.gold import ChatServer
from harness.records import Sampling
from harness.run import run
from harness.run.config import RunConfig
from harness.store import RunFolder
from harness.suite import load_suite
from harness.suite_validation import validate_suite
from harness.task import load_task
from harness.train.data import load_grpo

from tests.run_support import fast_profile
from tests.scripted_model import is_summary_request
from tests.languages.python.tally import REFERENCE, SOLUTION, TEST_FILE, write_tally

pytestmark = [pytest.mark.slow, pytest.mark.docker]

# words() keeps the empty words, through a local; then the same mistake with another
# local name, a comment and other spacing.
SPLIT = REFERENCE.replace("    return text.split()", '    parts = text.split(" ")\n    return parts')
SPLIT_AGAIN = REFERENCE.replace("    return text.split()",
                                '    # one word between single spaces\n    pieces = text.split( " " )\n\n    return pieces')
# (model, round) -> the solution it answers with.
ANSWERS = {
    ("syntax", 1): REFERENCE.replace("return a + b", "return a +"),
    ("syntax", 2): REFERENCE.replace("return a + b", "return a + c"),
    ("split", 1): SPLIT,
    ("split", 2): REFERENCE.replace("def add(a, b):", "def add(a, b, c):"),
    ("again", 1): SPLIT_AGAIN,
    ("again", 2): REFERENCE.replace("return a + b", 'raise ValueError("no")'),
}
MODELS = ("syntax", "split", "again")
FEEDBACK = "Those are the errors from the tests"  # the `original` contract's feedback text
CANONICAL = b'# the exercise\'s canonical data, as Exercism ships it\n[a1]\ndescription = "add"\n'


def respond(route: str, body: dict) -> str:
    if is_summary_request(body):
        return "We discussed the exercise."
    later = FEEDBACK in json.dumps(body["messages"])
    return render_whole({SOLUTION: ANSWERS[(body["model"], 2 if later else 1)]})


def python_suite(root: Path) -> Path:
    suite = root / "pymini"
    task = write_tally(suite)
    (task.path / ".meta" / "tests.toml").write_bytes(CANONICAL)
    (suite / "suite.toml").write_text('name = "pymini"\nversion = "0.1"\nlanguage = "python"\nimage = "harness-cpp"\n'
                                      'tasks = ["tally"]\n')
    return suite


@pytest.fixture(scope="module")
def made_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("py-curriculum-run")
    suite = python_suite(tmp)
    with ChatServer(respond) as server:
        run(RunConfig(suite=str(suite), models=[f"openai/{m}@{server.base('')}" for m in MODELS], trials=1,
                      rounds=2, workers=2, agent=str(fast_profile(tmp)), runs_dir=tmp / "runs", run_id="py",
                      sampling=Sampling(temperature=0.0)))
    folder = RunFolder(tmp / "runs" / "py")
    for m in MODELS:
        result = folder.read_result(f"openai-{m}", "tally", 1)
        assert result is not None and result.outcome.value == "failed" and len(result.rounds) == 2, m
    return folder, load_task(suite / "tally")


@pytest.fixture(scope="module")
def built(made_run, tmp_path_factory):
    config = BuildConfig(runs=[str(made_run[0].root)], out="pyrun", root=tmp_path_factory.mktemp("curricula"),
                         sandbox="docker", workers=2, seed=3)
    return build_from_runs(config)


def test_failed_python_rounds_become_repair_tasks_of_each_kind(built):
    s = built.manifest.summary
    assert {k: n.kept for k, n in s.by_kind.items() if n.kept} == {
        FailureKind.syntax_error: 1, FailureKind.missing_declaration: 1, FailureKind.signature_mismatch: 1,
        FailureKind.wrong_exception: 1, FailureKind.wrong_value: 1}
    assert (s.candidates, s.kept, {r.value: n for r, n in s.dropped.items()}) == (6, 5, {"duplicate": 1})
    rows = [json.loads(line) for line in (built.path / "candidates.jsonl").read_text().splitlines()]
    split = [r for r in rows if r["origin"]["round"] == 1 and r["origin"]["config"] in ("openai-split", "openai-again")]
    assert len({r["normalized_hash"] for r in split}) == 1 and sorted(r["dropped"] or "" for r in split) == ["", "duplicate"]


def test_the_curriculum_is_a_python_suite_that_validates_and_gold_passes(built, docker_sandbox, tmp_path):
    suite = load_suite(built.path, origin="curriculum")
    assert suite.language == "python" and len(suite.tasks) == 5
    validation = validate_suite(suite, docker_sandbox, workers=2)
    assert not validation.broken, [(t.slug, t.problems) for t in validation.broken]
    summary = run(RunConfig(suite=str(built.path), models=["gold"], trials=1, workers=2, agent=str(fast_profile(tmp_path)),
                            runs_dir=tmp_path / "runs", run_id="gold"))
    folder = RunFolder(summary.run_dir)
    outcomes = [folder.read_result("gold", t.slug, 1).outcome.value for t in suite.tasks]
    assert outcomes == ["passed"] * 5


def test_a_repair_task_keeps_the_source_tasks_tests_and_meta(built, made_run):
    folder, source = made_run
    for slug in built.manifest.repair_tasks:
        task = load_task(built.path / slug)
        record = RepairRecord.model_validate_json(task.read(".meta/repair.json"))
        o = record.origin
        snapshot = folder.trial_dir(o.config, o.task, o.trial) / f"round-{o.round}" / "workspace"
        assert task.stub_files() == {SOLUTION: (snapshot / SOLUTION).read_bytes()}
        assert task.test_files == (TEST_FILE,) and task.read(TEST_FILE) == source.read(TEST_FILE)
        for rel in (".meta/config.json", ".meta/example.py", ".meta/tests.toml"):
            assert task.read(rel) == source.read(rel), rel
        assert task.reference_files() == source.reference_files()
        controls = sorted(p.name for p in (task.path / ".meta" / "faulty").iterdir())
        assert len(record.controls) == 2 and controls == sorted(record.controls)
        assert "## How the current code fails" in task.instructions() and record.contract == "repair-python"
    rows, _, tasks = load_grpo(str(built.path))
    assert len(rows) == 5 and {Path(p).name for p in tasks.values()} == set(built.manifest.repair_tasks)
    # The training prompt asks for Python, and shows the starting code.
    prompt = rows[0].prompt
    assert "Python 3" in prompt[0].content and "the Python standard library" in prompt[-1].content
    assert load_task(built.path / rows[0].task_path).stub_files()[SOLUTION].decode() in prompt[-1].content


def test_synth_makes_python_repair_tasks_from_mutants(tmp_path, docker_sandbox):
    suite = python_suite(tmp_path)
    built = synthesize(SynthConfig(suite=str(suite), out="pysyn", root=tmp_path / "curricula", max_per_task=1,
                                   mutants_per_task=12, sandbox="docker", workers=2))
    s = built.manifest.summary
    assert built.path is not None and s.kept >= 2, s
    source = load_task(suite / "tally")
    for slug in built.manifest.repair_tasks:
        task = load_task(built.path / slug)
        o = RepairRecord.model_validate_json(task.read(".meta/repair.json")).origin
        text = REFERENCE
        assert o.type == "mutant" and text[o.start:o.end] == o.original
        assert task.stub_files()[SOLUTION].decode() == text[:o.start] + o.replacement + text[o.end:]
        assert task.read(TEST_FILE) == source.read(TEST_FILE)
    assert load_suite(built.path, origin="curriculum").language == "python"
