"""A Python repair curriculum built from a hostile run folder, in the Docker sandbox: a
round's workspace snapshot that rewrote the task's tests so that they pass, added a
conftest.py and a sitecustomize.py, replaced the reference in .meta/ and brought a module
of its own; another whose solution file is a link to a file of the host. A curriculum
reads from a workspace the solution files alone (curriculum/candidates.starting_code, and
every name through the path check): the repair task made from the first holds the task's
own tests, .meta and nothing the workspace added, and validates as a suite; the second's
link is never read, so its round is the stub's, and dropped as unedited."""

from __future__ import annotations

import json
import os

import pytest

from harness.curriculum import BuildConfig, build_from_runs
from harness.languages.registry import language_for
from harness.run import run
from harness.run.config import RunConfig
from harness.records import TrialResult
from harness.store import RunFolder
from harness.suite import load_suite
from harness.suite_validation import validate_suite
from harness.task import load_task

from ..conftest import make_backend
from ..run_support import fast_profile
from ..languages.python.tally import REFERENCE, SOLUTION, TEST_FILE, WRONG, write_tally

pytestmark = [pytest.mark.slow, pytest.mark.docker]

PASSING_TESTS = "def test_everything():\n    assert True\n"
EVERYTHING_PASSES = "import pytest\n\n@pytest.hookimpl(tryfirst=True)\ndef pytest_runtest_call(item):\n    return True\n"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile-curriculum")
    task = write_tally(tmp / "pyevil")
    (tmp / "pyevil" / "suite.toml").write_text('name = "pyevil"\nversion = "0.1"\nlanguage = "python"\n'
                                               'image = "harness-cpp"\ntasks = ["tally"]\n')
    run(RunConfig(suite=str(tmp / "pyevil"), models=["gold"], trials=2, rounds=1, workers=2,
                  agent=str(fast_profile(tmp)), runs_dir=tmp / "runs", run_id="evil"))
    folder = RunFolder(tmp / "runs" / "evil")
    with make_backend("docker").session("hostile-curriculum") as session:
        failing = language_for(task).run_tests(task, {SOLUTION: WRONG.encode()}, session)
    assert not failing.passed
    secret = tmp / "host-secret.py"
    secret.write_text("SECRET = 'of the host'\n")
    for trial in (1, 2):
        path = folder.trial_dir("gold", "tally", trial) / "result.json"
        result = TrialResult.model_validate_json(path.read_bytes())
        result.rounds[0].test_report = failing
        path.write_text(result.model_dump_json(indent=2))
        workspace = path.parent / "round-1" / "workspace"
        (workspace / SOLUTION).unlink()
        if trial == 1:
            (workspace / SOLUTION).write_text(WRONG)
            (workspace / TEST_FILE).write_text(PASSING_TESTS)
            (workspace / "conftest.py").write_text(EVERYTHING_PASSES)
            (workspace / "sitecustomize.py").write_text("import os\nos._exit(0)\n")
            (workspace / "helpers.py").write_text("HELP = 1\n")
            (workspace / ".meta").mkdir(exist_ok=True)
            (workspace / ".meta" / "example.py").write_text(WRONG)
        else:
            os.symlink(secret, workspace / SOLUTION)
    config = BuildConfig(runs=[str(folder.root)], out="evil", root=tmp / "curricula", sandbox="docker", workers=2)
    return build_from_runs(config), task


def test_a_repair_task_takes_only_the_solution_files_of_a_tampered_workspace(built, docker_sandbox):
    made, source = built
    assert made.path is not None and len(made.manifest.repair_tasks) == 1
    task = load_task(made.path / made.manifest.repair_tasks[0])
    assert task.stub_files() == {SOLUTION: WRONG.encode()}
    assert task.read(TEST_FILE) == source.read(TEST_FILE) and task.read(".meta/example.py") == REFERENCE.encode()
    names = {p.relative_to(task.path).as_posix() for p in task.path.rglob("*") if p.is_file()}
    assert not {"conftest.py", "sitecustomize.py", "helpers.py"} & names
    assert not any("secret" in p.read_text(errors="replace") for p in task.path.rglob("*") if p.is_file())
    validation = validate_suite(load_suite(made.path, origin="curriculum"), docker_sandbox, workers=1)
    assert not validation.broken, [(t.slug, t.problems) for t in validation.broken]


def test_a_solution_file_that_is_a_link_is_never_read(built):
    made, _ = built
    rows = [json.loads(line) for line in (made.path / "candidates.jsonl").read_text().splitlines()]
    assert sorted((r["origin"]["trial"], r["dropped"]) for r in rows) == [(1, None), (2, "unedited")]
