"""A suite of several languages through the whole path (real Aider, real sandbox): gold
passes every task in round 1, each language in its own image, and the exercise keeps its
own name where a build or a model's transcript uses it, whatever its task is called."""

from __future__ import annotations

import shutil

import pytest

from harness.languages.registry import language_for
from harness.records import Status, TrialOutcome
from harness.run import run
from harness.run.config import RunConfig
from harness.store import RunFolder
from harness.suite import import_suite

from tests.conftest import GOLDEN, make_backend
from tests.languages.go.leap import write_leap
from tests.run_support import write_python_leap

pytestmark = [pytest.mark.slow, pytest.mark.docker]

TASKS = ["cpp.sum-of-squares", "go.leap", "python.leap"]


def test_gold_runs_a_suite_of_three_languages_each_in_its_own_image(tmp_path, monkeypatch):
    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path / "state"))
    checkout = tmp_path / "polyglot-benchmark"
    # C++'s CMakeLists takes the exercise's file names from its folder's name.
    shutil.copytree(GOLDEN / "sum-of-squares", checkout / "cpp" / "exercises" / "practice" / "sum-of-squares")
    write_leap(checkout / "go" / "exercises" / "practice")
    write_python_leap(checkout / "python" / "exercises" / "practice" / "leap")
    suite = import_suite(checkout, "poly")
    assert [t.slug for t in suite.tasks] == TASKS

    summary = run(RunConfig(suite="poly", models=["gold"], trials=1, workers=2, sandbox="docker",
                            runs_dir=tmp_path / "runs", run_id="poly"))
    folder = RunFolder(summary.run_dir)
    for name in TASKS:
        r = folder.read_result("gold", name, 1)
        assert (r.outcome, r.passed_round) == (TrialOutcome.passed, 1), (name, r.infra_error)
    manifest = folder.read_manifest()
    assert [tag.split(":")[0] for tag in manifest.image.split(",")] == ["harness-cpp", "harness-go", "harness-python"]
    assert len(manifest.image_digest.split(",")) == 3

    # What a model is shown after a failed round names the exercise, as Aider's benchmark does.
    task = suite.task("go.leap")
    with make_backend("docker").session("poly go", "go") as session:
        report = language_for(task).run_tests(task, {"leap.go": b"package leap\n\nfunc IsLeap(y int) bool { return yr }\n"},
                                              session, transcript=True)
    assert report.status is Status.error
    assert report.transcript == "# leap [leap.test]\n./leap.go:3:34: undefined: yr\nFAIL\tleap [build failed]\nFAIL\n"
