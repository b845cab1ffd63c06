"""Python's test round in the real sandbox (Docker, and the local backend): the task's pytest
file run as the builder, the candidate's module behind the proxy as the runner.

- The reference passes every test, each named by its pytest node id and tagged by its
  Exercism task marker; the stub fails every one; a wrong answer fails the one test it
  breaks, with pytest's message.
- The transcript is pytest's console output as Aider's benchmark sends it: the exercise's
  folder by its name, no timings, no line about the report file.
- What the candidate prints is its output, never the transcript's; its exception reads as in
  one process, without the proxy's frames; a module that does not
  import fails as an error with its SyntaxError.
- A task that names no test file is the suite's error, not the model's failure; a server
  the sandbox was too slow to start is the sandbox's error, after one more try.
- A round whose container is made new under it (the emptying owed since a reset found it
  unfit) runs again and passes.
- On Docker, rounds run on one warm pytest (languages/python/warm.py), kept across a reset,
  whose transcripts, messages and outcomes are a fresh pytest's; a round judged in one
  process is never run beside one, and none is started after it until the next emptying.
- results.json (Exercism's v3) names each test as Exercism's Python runner does, with its
  code and task."""

from __future__ import annotations

import pytest

from harness.errors import InfraKind, SandboxUnavailable, SuiteBroken
from harness.exercism_results import exercism_results
from harness.languages.registry import language_for
from harness.records import Status
from harness.sandbox.base import Role

from ...conftest import make_backend
from . import meter
from .tally import CASES, REFERENCE, SOLUTION, STUB, WRONG, write_tally

pytestmark = [pytest.mark.slow]


@pytest.fixture(scope="module", params=["docker", "local"])
def session(request):
    with make_backend(request.param).session("python-run") as session:
        yield session


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return write_tally(tmp_path_factory.mktemp("python"))


def _run(task, session, solution: str, **options):
    return language_for(task).run_tests(task, {SOLUTION: solution.encode()}, session, **options)


def test_the_reference_passes_every_test_named_and_tagged(task, session):
    report = _run(task, session, REFERENCE)
    assert report.passed, report
    assert [(t.name, t.status, t.tags) for t in report.tests] == [
        (CASES[0], Status.passed, ["task_1"]), (CASES[1], Status.passed, ["task_1"]),
        (CASES[2], Status.passed, ["task_2"])]
    assert language_for(task).declared_test_cases(task) == 3
    assert report.backend == session.backend and not report.forged


def test_the_stub_fails_every_test_and_the_transcript_reads_as_pytest_in_the_exercise(task, session):
    report = _run(task, session, STUB, transcript=True)
    assert report.status is Status.failed
    assert [t.status for t in report.tests] == [Status.failed] * 3
    text = report.transcript
    assert text is not None and "rootdir: tally" in text and "FAILED tally_test.py::test_add" in text
    assert "3 failed" in text
    for noise in ("/build", session.build_root, "generated xml", " in 0.", "_harness_proxy.server"):
        assert noise not in text, noise


def test_a_wrong_answer_fails_the_one_test_it_breaks(task, session):
    report = _run(task, session, WRONG)
    assert report.status is Status.failed
    assert [t.name for t in report.failing()] == [CASES[1]]
    message = report.failing()[0].message or ""
    assert "['a', 'b', '', 'c']" in message and session.build_root not in message


def test_what_the_candidate_prints_is_its_output_not_the_transcript(task, session):
    report = _run(task, session, WRONG.replace("return a + b", 'print("adding"); return a + b'), transcript=True)
    assert report.status is Status.failed
    assert "adding" in (report.output or "") and "adding" not in (report.transcript or "")


def test_a_module_that_does_not_import_is_an_error_with_its_syntax_error(task, session):
    report = _run(task, session, "def add(:\n", transcript=True)
    assert report.status is Status.error and not report.passed
    assert "SyntaxError" in (report.message or "") and "SyntaxError" in (report.transcript or "")


def test_a_task_that_names_no_test_file_is_the_suites_error(tmp_path, session):
    broken = write_tally(tmp_path, tests=None)
    with pytest.raises(SuiteBroken) as raised:
        _run(broken, session, REFERENCE)
    assert raised.value.kind is InfraKind.suite


def test_a_server_that_never_meets_the_tests_is_the_sandboxs_error_not_the_models(task, session, monkeypatch):
    # A sandbox too slow to start the candidate's process in time (here a server that only
    # sleeps past the start bound): none of the candidate's code ran, so the round runs
    # again, then is an infrastructure error, never a failure of the model's.
    from harness.languages.python import testrun

    monkeypatch.setattr(testrun, "server_argv", lambda *args: ["sleep", "2"])
    with pytest.raises(SandboxUnavailable, match="did not start within 1 s, twice"):
        _run(task, session, REFERENCE, time_limit_s=3)  # a start bound of 1 s
    # The probe's rounds are the same rounds (the verifier's calls)
    probe = language_for(task).call_probe(task, ["words('a b')"])
    monkeypatch.setattr(session, "limits", session.limits.model_copy(update={"timeout_s": 3}))
    with pytest.raises(SandboxUnavailable, match="did not start within 1 s, twice"):
        probe.run({SOLUTION: REFERENCE.encode()}, session)
    monkeypatch.undo()
    assert _run(task, session, REFERENCE).passed


def test_a_round_whose_container_is_made_new_under_it_runs_again(task, session):
    # The runner's exec starts beside the builder's, whose first command after a reset first
    # empties the container: one it finds unfit (a process an earlier trial left) is made new,
    # which ends the servers' exec with it; the round then runs again in the new one.
    if session.backend != "docker":
        pytest.skip("the local backend's commands end all they start")
    session.exec(["sh", "-c", "sleep 600 >/dev/null 2>&1 &"], role=Role.builder, timeout_s=30)
    session.reset()
    unfit = session.container.id
    report = _run(task, session, REFERENCE, time_limit_s=6)  # the lost round's test run waits 2 s for its server
    assert report.passed, report
    assert session.container.id != unfit


def test_rounds_share_one_warm_pytest_across_a_reset_and_read_as_a_fresh_one(task, session):
    if not session.keeps_processes:
        pytest.skip("the local backend keeps no process: every run is a fresh pytest")
    answers = [STUB, WRONG.replace("return a + b", 'print("adding"); return a + b'), "def add(:\n"]
    warm = [_run(task, session, a, transcript=True) for a in answers]
    started = session.kept["pytest"]
    session.reset()  # another trial: the warm pytest is kept, and checked alive
    assert _run(task, session, REFERENCE).passed and session.kept["pytest"] == started
    session.keeps_processes = False
    try:
        fresh = [_run(task, session, a, transcript=True) for a in answers]
    finally:
        session.keeps_processes = True
    for w, f in zip(warm, fresh):
        assert (w.status, w.transcript, w.message, w.tests) == (f.status, f.transcript, f.message, f.tests)


def test_a_round_judged_in_one_process_never_runs_beside_a_warm_pytest(task, session, tmp_path):
    # The candidate's module runs as the builder there, which could reach a builder's process.
    if not session.keeps_processes:
        pytest.skip("the local backend keeps no process")
    assert _run(task, session, REFERENCE).passed and "pytest" in session.kept
    warm_container = session.container.id
    in_process = meter.write_meter(tmp_path)
    assert language_for(in_process).run_tests(in_process, {meter.SOLUTION: meter.REFERENCE.encode()}, session).passed
    assert session.container.id != warm_container and not session.kept
    assert _run(task, session, REFERENCE).passed and not session.kept  # none started until the next emptying
    session.reset()
    assert _run(task, session, REFERENCE).passed and "pytest" in session.kept


def test_the_candidates_exception_reads_as_in_one_process(task, session):
    report = _run(task, session, REFERENCE.replace("return a + b", "raise ValueError('no adding')"), transcript=True)
    text = report.transcript or ""
    assert report.status is Status.failed and [t.name for t in report.failing()] == [CASES[0]]
    assert "E       ValueError: no adding" in text and "tally.py:2: ValueError" in text
    assert "_harness_proxy" not in text


def test_results_json_names_each_test_as_exercisms_runner_with_its_code_and_task(task, session):
    results = exercism_results(task, _run(task, session, WRONG.replace("return a + b", 'print("adding"); return a + b')))
    assert results.version == 3 and results.status == "fail"
    assert [(t.name, t.status, t.task_id) for t in results.tests] == [
        ("test add~", "pass", 1), ("test words~", "fail", 1), ("Tally > total~", "pass", 2)]
    assert results.tests[0].test_code == "assert add(2, 3) == 5"
    assert "['a', 'b', '', 'c']" in (results.tests[1].message or "")
