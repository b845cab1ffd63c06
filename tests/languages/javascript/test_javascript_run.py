"""JavaScript's test round in its own image, as Aider's npm-test.sh runs it: the reference
passes every test (its `xtest`s run too) behind the proxy, with a class, a getter and an
error of the candidate's crossing it; a wrong answer fails the one test it breaks with the
console `npm run test` prints, a thrown error's code frame and frames the candidate's own as
Jest shows them in its own process; results.json names each test as Jest does."""

from __future__ import annotations

import pytest

from harness.exercism_results import exercism_results
from harness.languages.javascript.testrun import NPM_FOLDER
from harness.languages.registry import language_for
from harness.records import Status
from harness.sandbox.base import Role
from harness.task import load_task

from ...conftest import make_backend
from .leap import REFERENCE, WRONG, untimed, write_leap

pytestmark = [pytest.mark.slow]


@pytest.fixture(scope="module")
def js_round(tmp_path_factory):
    task = load_task(write_leap(tmp_path_factory.mktemp("js")))
    with make_backend("docker").session("js-run", "javascript") as session:
        yield task, session


def test_the_reference_passes_and_results_json_names_each_test(js_round):
    task, session = js_round
    report = language_for(task).run_tests(task, task.reference_files(), session)
    assert report.passed, report
    assert [t.name for t in report.tests] == ["Leap > year not divisible by 4 in common year",
                                              "Leap > year divisible by 400 is leap year", "Leap > a calendar knows its year"]
    results = exercism_results(task, report).model_dump()
    assert results["status"] == "pass"
    assert results["tests"][2]["test_code"].startswith("xtest('a calendar knows its year', () => {")


def test_a_wrong_answer_fails_with_the_console_npm_prints(js_round):
    task, session = js_round
    report = language_for(task).run_tests(task, {"leap.js": WRONG.encode()}, session, transcript=True)
    assert report.status is Status.failed and not report.forged
    assert [t.status for t in report.tests] == [Status.passed, Status.failed, Status.passed]
    assert "Expected: true" in (report.tests[1].message or "")
    transcript = report.transcript or ""
    assert transcript.startswith("\n> test\n> jest ./*\n\n") and "--reporters" not in transcript
    assert "✕ year divisible by 400 is leap year" in transcript and "/build/" not in transcript
    assert "Tests:       1 failed, 2 passed, 3 total" in transcript
    # `jest ./*` lists the folder's files, package-lock.json among them as in Aider's npm-test.sh.
    assert "|.\\/node_modules|.\\/package-lock.json|.\\/package.json/i." in transcript


def test_warm_and_fresh_jest_print_what_npm_run_test_prints(js_round):
    """The round's Jest, warm (the session's, kept from round to round) or fresh, prints what
    npm-test.sh's `npm run test` prints on the same files, Jest's times aside."""
    task, session = js_round
    files = {str(p.relative_to(task.path)): p.read_bytes() for p in task.path.iterdir() if p.is_file()}
    files["leap.js"] = WRONG.encode()
    session.stage("npm-run-test", files)
    folder = f"{session.build_root}/npm-run-test"
    npm = session.exec(["sh", "-c", f"cp -r {session.src_root}/npm-run-test {folder} && cd {folder} && "
                        f"ln -s {NPM_FOLDER}/node_modules node_modules && ln -s {NPM_FOLDER}/package-lock.json . && "
                        f"sed -i 's/\\bxtest(/test(/g' *.spec.js && npm run test 2>&1; rm -rf {folder}"],
                       role=Role.builder, timeout_s=120)
    printed = {"npm": npm.output.decode()}
    for mode in ("fresh", "warm", "warm again"):
        session.keeps_processes = mode != "fresh"
        try:
            printed[mode] = language_for(task).run_tests(task, {"leap.js": WRONG.encode()}, session, transcript=True).transcript
        finally:
            session.keeps_processes = True
    assert "jest" in session.kept
    unmeasured = {k: untimed(v) for k, v in printed.items()}
    assert unmeasured["fresh"] == unmeasured["warm"] == unmeasured["warm again"] == unmeasured["npm"], printed


# Throws in a function that Array.map calls (isLeap(2000)), and passes the test's callback a
# symbol, which it cannot take modulo 2.
_THROWS = REFERENCE.replace("export const isLeap = (year) =>", (
    "const check = (year) => {\n  if (year === 2000) throw new TypeError(`no leap for ${year}`);\n  return year;\n};\n"
    "export const isLeap = (year) => [year].map(check)[0] % 4 === 0 &&")).replace("keep(year)", "keep(Symbol.iterator)")


def test_a_candidates_error_shows_its_own_frames_as_in_jests_process(js_round):
    """The code frame and stack lines Jest prints where the module runs in its own process
    (babel-jest's source maps, source-map-support's names), as seen there in the same image."""
    task, session = js_round
    transcript = language_for(task).run_tests(task, {"leap.js": _THROWS.encode()}, session, transcript=True).transcript or ""
    assert ("    > 2 |   if (year === 2000) throw new TypeError(`no leap for ${year}`);\n"
            "        |                            ^\n") in transcript
    assert ("      at check (leap.js:2:28)\n          at Array.map (<anonymous>)\n      at map (leap.js:5:40)\n"
            "      at Object.<anonymous> (leap.spec.js:9:18)\n") in transcript
    # The test's callback's own frame first, and Jest's code frame at it, as where it throws in Jest's process.
    assert "    > 15 |     expect(filterYears([1996, 2001], (year) => year % 2 === 0)).toEqual([1996]);\n" in transcript
    assert ("      at leap.spec.js:15:52\n      at keep (leap.js:18:68)\n          at Array.filter (<anonymous>)\n"
            "      at filter (leap.js:18:51)\n      at Object.<anonymous> (leap.spec.js:15:23)\n") in transcript


def test_the_references_mutants_are_made_on_code_tokens(js_round):
    task, _ = js_round
    mutants = language_for(task).mutants({"leap.js": REFERENCE.encode()})
    assert {m.operator.value for m in mutants} >= {"relational", "logical", "boundary"}
    assert all("no such year" not in m.original for m in mutants)


def test_honest_rounds_leave_the_session_as_it_was(js_round):
    """Each round's servers end when its tests have run, reaped and leaving nothing: the
    session's container serves the next round as it is, never made new (2 s, once a third
    of forth's rounds when the servers were told to end over their own pipes)."""
    task, session = js_round
    container = session.container
    for _ in range(4):
        assert language_for(task).run_tests(task, task.reference_files(), session).passed
        assert session.container is container and not session.runner_dirty
