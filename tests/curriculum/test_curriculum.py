"""`harness curriculum` end to end. A run is made here: the real Aider driver, the real
sandbox, and a scripted model (the only test double) that answers two tasks wrongly in
several ways over two rounds. The curriculum built from it is checked for what a user
relies on: the kept exercises validate as a suite, a mislabelled round is dropped with the
right reason, near-duplicates collapse, provenance leads back to the trial, the exports
load with `datasets`, and a held-out task appears nowhere. Then `synth` on two tasks."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.curriculum import BuildConfig, FailureKind, SynthConfig, build_from_runs, synthesize
from harness.curriculum.candidates import report_hash
from harness.curriculum.records import RepairRecord
from harness.agents.editformat import render_whole as whole_answer
from harness.gold import ChatServer
from harness.records import Sampling, Status, TestCaseResult, TrialResult
from harness.run import run
from harness.run.config import RunConfig
from harness.store import RunFolder
from harness.suite import load_suite
from harness.task import load_task
from harness.train.data import load_grpo, load_sft
from harness.suite_validation import validate_suite

from tests.conftest import GOLDEN, ROOT
from tests.run_support import fast_profile
from tests.scripted_model import is_summary_request
from tests.train_support import HARNESS

pytestmark = [pytest.mark.slow, pytest.mark.docker]

SOS = load_task(GOLDEN / "sum-of-squares")
PN = load_task(ROOT / "suites" / "fixed26" / "perfect-numbers")
CPP = SOS.reference_files()["sum_of_squares.cpp"].decode()
H = SOS.reference_files()["sum_of_squares.h"].decode()


def sos(cpp: str = CPP, h: str = H) -> str:
    return whole_answer({"sum_of_squares.cpp": cpp, "sum_of_squares.h": h})


OFF_BY_ONE = CPP.replace("k <= n", "k < n")
# The same mistake, written with other local names, comments and layout.
OFF_BY_ONE_AGAIN = (OFF_BY_ONE.replace("long long total = 0;", "long long acc = 0;  // running sum")
                    .replace("total += k * k;", "\n        acc += k * k;").replace("return total;", "return acc;"))
WRONG_PN = whole_answer({rel: data.decode() for rel, data in {
    **PN.reference_files(),
    **{p.name: p.read_bytes() for p in (PN.path / ".meta" / "faulty" / "accepts-zero").iterdir()},
}.items()})

# (model, task, round) -> the answer. perfect-numbers gets the same wrong answer throughout.
ANSWERS = {
    ("syntax", 1): sos(CPP.replace("total += k * k;", "total += k * ;")),
    ("syntax", 2): sos(CPP.replace("#include <stdexcept>\n", "")),
    ("offby", 1): sos(OFF_BY_ONE),
    ("offby", 2): sos(CPP.replace('    if (n < 0) throw std::domain_error("negative");\n', "")),
    ("again", 1): sos(OFF_BY_ONE_AGAIN),
    ("again", 2): sos(h=H.replace("long long sum(int n);", "long long sum(int n, int m);")),
    ("mislabel", 1): sos(CPP.replace("return total;", "return total + (n == 100);")),
    ("mislabel", 2): sos(CPP.replace("long long total = 0;", "long long total = 0;\n    if (n == 10) { int* p = nullptr; total = *p; }")),
}
MODELS = ("syntax", "offby", "again", "mislabel")
FEEDBACK = "Those are the errors from the tests"  # the `original` contract's feedback text


def respond(route: str, body: dict) -> str:
    if is_summary_request(body):
        return "We discussed the exercise."
    text = json.dumps(body["messages"])
    if "perfect_numbers.cpp" in text:
        return WRONG_PN
    return ANSWERS[(body["model"], 2 if FEEDBACK in text else 1)]


@pytest.fixture(scope="module")
def made_run(tmp_path_factory):
    """A run of the four scripted models on sum-of-squares and perfect-numbers, one trial,
    two rounds; then round 1 of `mislabel` relabelled: its report now blames another test."""
    tmp = tmp_path_factory.mktemp("curriculum-run")
    suite = tmp / "mini"
    shutil.copytree(SOS.path, suite / "sum-of-squares")
    shutil.copytree(PN.path, suite / "perfect-numbers")
    (suite / "suite.toml").write_text('name = "mini"\nversion = "0.1"\nlanguage = "cpp"\nimage = "harness-cpp"\n'
                                      'tasks = ["sum-of-squares", "perfect-numbers"]\n')
    runs = tmp / "runs"
    with ChatServer(respond) as server:
        run(RunConfig(suite=str(suite), models=[f"openai/{m}@{server.base('')}" for m in MODELS], trials=1,
                      rounds=2, workers=2, agent=str(fast_profile(tmp)), runs_dir=runs, run_id="cur",
                      sampling=Sampling(temperature=0.0)))
    folder = RunFolder(runs / "cur")
    for m in MODELS:
        for slug in ("sum-of-squares", "perfect-numbers"):
            result = folder.read_result(f"openai-{m}", slug, 1)
            assert result is not None and result.outcome.value == "failed" and len(result.rounds) == 2, (m, slug)
    path = folder.trial_dir("openai-mislabel", "sum-of-squares", 1) / "result.json"
    result = TrialResult.model_validate_json(path.read_bytes())
    report = result.rounds[0].test_report
    assert [t.name for t in report.failing()] == ["sum of the first hundred"]
    report.tests = [TestCaseResult(name=t.name, status=Status.failed if t.name == "sum of the first ten" else Status.passed,
                                   message="REQUIRE( sum(10) == 385 )" if t.name == "sum of the first ten" else None)
                    for t in report.tests]
    path.write_text(result.model_dump_json(indent=2))
    return folder


@pytest.fixture(scope="module")
def built(made_run, tmp_path_factory):
    root = tmp_path_factory.mktemp("curricula")
    config = BuildConfig(runs=[str(made_run.root)], out="fromrun", root=root, hold_out=["perfect-numbers"],
                         sandbox="docker", workers=2, seed=3)
    return build_from_runs(config)


def candidates(path: Path) -> list[dict]:
    return [json.loads(line) for line in (path / "candidates.jsonl").read_text().splitlines()]


def test_kept_exercises_are_each_kind_and_validate_as_a_suite(built, docker_sandbox):
    assert built.path is not None
    s = built.manifest.summary
    kinds = {k: n.kept for k, n in s.by_kind.items() if n.kept}
    assert kinds == {FailureKind.syntax_error: 1, FailureKind.missing_include: 1, FailureKind.wrong_value: 1,
                     FailureKind.wrong_exception: 1, FailureKind.signature_mismatch: 1, FailureKind.crash: 1}
    assert s.kept == 6 and s.candidates == 16
    assert {r.value: n for r, n in s.dropped.items()} == {"held-out": 8, "duplicate": 1, "not-reproduced": 1}
    suite = load_suite(built.path, origin="curriculum")
    assert len(suite.tasks) == 6
    # Every repair task, as written, keeps the suite rules: the starting code fails, the
    # reference passes, every faulty control builds and fails.
    validation = validate_suite(suite, docker_sandbox, workers=2)
    assert not validation.broken, [(t.slug, t.problems) for t in validation.broken]
    for task in suite.tasks:
        record = RepairRecord.model_validate_json(task.read(".meta/repair.json"))
        assert len(record.controls) == 2 and sorted(p.name for p in (task.path / ".meta/faulty").iterdir()) == sorted(record.controls)
        instructions = task.instructions()
        assert instructions.startswith(SOS.instructions()) and "## How the current code fails" in instructions


def test_a_mislabelled_round_is_dropped_as_not_reproduced(built):
    dropped = [c for c in candidates(built.path) if c["dropped"] == "not-reproduced"]
    assert len(dropped) == 1
    c = dropped[0]
    assert (c["origin"]["config"], c["origin"]["round"]) == ("openai-mislabel", 1)
    assert "no longer fails sum of the first ten" in c["why"] and "also fails sum of the first hundred" in c["why"]


def test_near_duplicates_collapse_to_one(built):
    rows = [c for c in candidates(built.path) if c["origin"].get("round") == 1
            and c["origin"]["config"] in ("openai-offby", "openai-again") and c["source_task"] == "mini/sum-of-squares"]
    assert len(rows) == 2 and rows[0]["normalized_hash"] == rows[1]["normalized_hash"]
    assert sorted((c["kept_as"] is not None, c["dropped"]) for c in rows) == [(False, "duplicate"), (True, None)]


def test_provenance_points_back_to_the_trial_and_round(built, made_run):
    for slug in built.manifest.repair_tasks:
        task = load_task(built.path / slug)
        record = RepairRecord.model_validate_json(task.read(".meta/repair.json"))
        o = record.origin
        assert o.type == "run" and o.run_id == "cur" and o.task == "sum-of-squares" and o.trial == 1
        result = made_run.read_result(o.config, o.task, o.trial)
        assert report_hash(result.rounds[o.round - 1].test_report) == o.test_report_hash
        snapshot = made_run.trial_dir(o.config, o.task, o.trial) / f"round-{o.round}" / "workspace"
        assert task.stub_files() == {f: (snapshot / f).read_bytes() for f in task.solution_files}
        assert record.source_task == "mini/sum-of-squares" and record.contract == "repair"
    m = built.manifest
    assert m.runs[0].run_id == "cur" and m.source_tasks == ["mini/sum-of-squares"] and len(m.content_hash) == 64


def test_exports_load_with_datasets_and_the_trainer(built):
    from datasets import load_dataset

    sft = load_dataset("json", data_files=str(built.path / "sft.jsonl"), split="train")
    grpo = load_dataset("json", data_files=str(built.path / "grpo.jsonl"), split="train")
    assert len(sft) == len(grpo) == 6
    assert sft[0]["messages"][-1]["role"] == "assistant" and "sum_of_squares.cpp\n```cpp\n" in sft[0]["messages"][-1]["content"]
    rows, source = load_sft(str(built.path))
    assert source.trained_on_tasks == ["mini/sum-of-squares"] and len(rows) == 6
    grows, _, tasks = load_grpo(str(built.path))
    assert {Path(p).name for p in tasks.values()} == set(built.manifest.repair_tasks)
    # the prompt shows the starting code, the answer is the reference
    first = load_task(built.path / grows[0].task_path)
    assert first.stub_files()["sum_of_squares.cpp"].decode() in grows[0].prompt[-1].content


def test_a_held_out_task_appears_nowhere(built):
    # Only the manifest's record of the options, and the candidates' log, may name it.
    text = "".join(p.read_text(errors="replace") for p in built.path.rglob("*") if p.is_file()
                   and p.name not in ("candidates.jsonl", "manifest.json"))
    assert "perfect" not in text
    assert built.manifest.options.hold_out == ["perfect-numbers"]
    assert not any("perfect" in t for t in [*built.manifest.source_tasks, *built.manifest.summary.by_task])
    held = [c for c in candidates(built.path) if c["source_task"] == "mini/perfect-numbers"]
    assert len(held) == 8 and all(c["dropped"] == "held-out" and c["kind"] is None for c in held)


def test_show_prints_kept_and_dropped_counts(built):
    done = subprocess.run([HARNESS, "curriculum", "show", "fromrun", "--root", str(built.path.parent), "--dropped"],
                          capture_output=True, text=True, timeout=60, env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "16 candidates, 6 kept, 10 dropped" in out
    for words in ("held-out", "duplicate", "not-reproduced", "syntax-error", "openai-mislabel trial 1 round 1"):
        assert words in out, words


def test_synth_makes_validated_repair_tasks_from_mutants(tmp_path, docker_sandbox):
    suite = tmp_path / "mini"
    shutil.copytree(SOS.path, suite / "sum-of-squares")
    shutil.copytree(PN.path, suite / "perfect-numbers")
    (suite / "suite.toml").write_text('name = "mini"\nversion = "0.1"\nlanguage = "cpp"\nimage = "harness-cpp"\n'
                                      'tasks = ["sum-of-squares", "perfect-numbers"]\n')
    built = synthesize(SynthConfig(suite=str(suite), out="syn", root=tmp_path / "curricula", max_per_task=1,
                                   mutants_per_task=10, sandbox="docker", workers=2))
    s = built.manifest.summary
    assert built.path is not None and s.kept >= 3
    assert built.manifest.source_tasks == ["mini/perfect-numbers", "mini/sum-of-squares"]
    per_group: dict[tuple[str, str], int] = {}
    for slug in built.manifest.repair_tasks:
        task = load_task(built.path / slug)
        record = RepairRecord.model_validate_json(task.read(".meta/repair.json"))
        per_group[(record.source_task, record.kind)] = per_group.get((record.source_task, record.kind), 0) + 1
        o = record.origin
        # the mutant's operator and place rebuild the starting code from the reference
        source = SOS if record.source_task.endswith("sum-of-squares") else PN
        text = source.reference_files()[o.file].decode()
        assert text[o.start:o.end] == o.original
        assert task.stub_files()[o.file].decode() == text[:o.start] + o.replacement + text[o.end:]
        assert o.line == text[:o.start].count("\n") + 1 or o.operator == "delete"  # a deletion starts its line
        assert record.expected_failing
    assert all(n == 1 for n in per_group.values())  # --max-per-task 1
    assert s.dropped.get("over-cap", 0) + s.kept + s.dropped.get("mutant-survived", 0) + s.dropped.get(
        "mutant-not-compiled", 0) + s.dropped.get("duplicate", 0) == s.candidates
    rows, _, _ = load_grpo(str(built.path))
    assert len(rows) == s.kept


def test_build_command_keeps_only_the_kinds_asked_for(made_run, tmp_path):
    def build(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([HARNESS, "curriculum", "build", str(made_run.root), "--root", str(tmp_path),
                               "--sandbox", "docker", "--workers", "2", *args], capture_output=True, text=True,
                              timeout=600, env={**os.environ, "COLUMNS": "200"})

    done = build("--out", "crashes", "--failure-kinds", "crash,missing-include")
    assert done.returncode == 0, done.stderr
    assert "16 candidates, 2 kept" in done.stdout
    suite = load_suite(tmp_path / "crashes", origin="curriculum")
    kinds = sorted(RepairRecord.model_validate_json(t.read(".meta/repair.json")).kind.value for t in suite.tasks)
    assert kinds == ["crash", "missing-include"]
    # nothing of the asked kind: nothing written, and the work failed
    done = build("--out", "none", "--failure-kinds", "timeout")
    assert done.returncode == 1 and "no candidate was kept" in done.stderr
    assert "kind-not-selected" in done.stdout and not (tmp_path / "none").exists()
    # an existing curriculum is not overwritten without --replace
    done = build("--out", "crashes", "--failure-kinds", "crash")
    assert done.returncode == 2 and "--replace" in done.stderr
