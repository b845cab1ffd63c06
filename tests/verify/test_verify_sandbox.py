"""The verifier end to end in the real sandbox: the phone-number verifier scores its
reference and faulty controls as the study's reward says (both backends), every fixed26
task's verifier.toml gives its reference +1 and each faulty control less (random values
judged by the property its tests assert), a task without one is refused, the reference's
values are observed once and cached, the probe answers arbitrary calls, a candidate
recompiles only what its files changed, and `harness verify` prints verdicts with
expected and observed values, or one line of bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import harness.verify as verifier
from harness.errors import BadInput
from harness.languages.cpp.probe import observe
from harness.languages.cpp.probe.call_probe import CppCallProbe
from harness.sandbox.base import Role, SandboxLimits
from harness.task import load_task
from harness.verify import Verdict, VerdictStatus, verify_in_session, verify_many

from tests.conftest import GOLDEN, ROOT, make_backend

FIXED26 = ROOT / "suites" / "fixed26"
PHONE = load_task(FIXED26 / "phone-number")
LIMITS = SandboxLimits(timeout_s=10, build_timeout_s=240)

pytestmark = [pytest.mark.slow]


def faulty(task, name: str) -> dict[str, bytes]:
    folder = task.path / ".meta" / "faulty" / name
    return {p.name: p.read_bytes() for p in folder.iterdir()}


@pytest.fixture(scope="module", params=["docker", "local"])
def sandbox(request):
    return make_backend(request.param, LIMITS)


@pytest.fixture(scope="module")
def docker():
    return make_backend("docker", LIMITS)


def test_phone_number_reference_and_faulty_controls(sandbox):
    names = ["reference", "accepts-area-code-1", "drops-first-of-any-11-digits",
             "exchange-code-checked-one-digit-late", "keeps-country-code", "stub"]
    files = [PHONE.reference_files(), *(faulty(PHONE, n) for n in names[1:5]), PHONE.stub_files()]
    got = dict(zip(names, verify_many(PHONE, files, sandbox=sandbox, workers=2)))
    ref = got["reference"]
    assert ref.status is VerdictStatus.ok and ref.reward == 1.0, ref.reason
    assert [c.group for c in ref.checks] == ["valid-input"] * 3 + ["rules"] * 3 + ["boundary"] * 3 + ["combined"] * 3
    # Ten of twelve is the study's +2/3.
    passed = {n: (v.checks_passed, round(v.reward, 6)) for n, v in got.items()}
    assert passed == {
        "reference": (12, 1.0),
        "accepts-area-code-1": (10, round(2 / 3, 6)),
        "drops-first-of-any-11-digits": (11, round(5 / 6, 6)),
        "exchange-code-checked-one-digit-late": (9, 0.5),
        "keeps-country-code": (8, round(1 / 3, 6)),
        "stub": (0, -1.0),
    }
    assert got["stub"].status is VerdictStatus.compile_error and "phone_number" in got["stub"].build_log
    failed = [c for c in got["accepts-area-code-1"].checks if not c.passed]
    assert {c.name for c in failed} == {"an area code starting with 0 or 1 is rejected", "area code rules hold behind a country code"}
    # Each call says what the reference produced and what the candidate did.
    wrong = next(call for call in failed[0].calls if not call.passed)
    assert wrong.call == 'phone_number::phone_number("(123) 456-7890").number()'
    assert (wrong.expected, wrong.observed) == ({"o": [{"x": "std::domain_error"}]}, {"o": [{"v": "1234567890"}]})
    sequence = ref.checks[-1].calls[0]
    assert sequence.observed == {"o": [{"v": "2234567890"}, {"v": "9876543210"}, {"v": "2234567890"}, {"v": "2234567890"}]}
    # A verdict is a record trial results can carry.
    assert Verdict.model_validate_json(ref.model_dump_json()) == ref


VERIFIER_TASKS = sorted(p.parent.parent.name for p in FIXED26.glob("*/.meta/verifier.toml"))


def verify_tasks(sandbox, work: dict[str, list[dict[str, bytes]]], sessions: int = 2) -> dict[str, list[Verdict]]:
    """Each task's candidates in one of `sessions` warm sessions, whole tasks to a session,
    so a task's probe is configured once and no container is started per task (what
    verify_many would do, called task by task)."""
    slugs = sorted(work, key=lambda s: -len(work[s]))
    shares = [slugs[i::sessions] for i in range(sessions)]

    def one(n: int) -> dict[str, list[Verdict]]:
        with sandbox.session(f"verifier tasks #{n}") as session:
            return {slug: [verify_in_session(load_task(FIXED26 / slug), files, session) for files in work[slug]]
                    for slug in shares[n]}

    with ThreadPoolExecutor(sessions) as pool:
        return {slug: got for part in pool.map(one, range(sessions)) for slug, got in part.items()}


def test_every_fixed26_task_gives_its_reference_plus_one_and_every_faulty_control_less(docker):
    assert len(VERIFIER_TASKS) == 26  # every task is judged by calls, none by its test file's literals
    controls = {slug: sorted(p.name for p in (FIXED26 / slug / ".meta" / "faulty").iterdir()) for slug in VERIFIER_TASKS}
    # phone-number's reference and controls are checked value by value above.
    work = {slug: [load_task(FIXED26 / slug).reference_files(), *(faulty(load_task(FIXED26 / slug), n) for n in controls[slug])]
            for slug in VERIFIER_TASKS if slug != "phone-number"}
    problems = []
    for slug, verdicts in verify_tasks(docker, work).items():
        if (verdicts[0].status, verdicts[0].reward) != (VerdictStatus.ok, 1.0):
            problems.append(f"{slug}: the reference got {verdicts[0].status.value} {verdicts[0].reward} ({verdicts[0].reason})")
        problems += [f"{slug}/{n}: {v.status.value} {v.reward}" for n, v in zip(controls[slug], verdicts[1:]) if v.reward >= 1.0]
    assert not problems, "\n".join(problems)


def test_a_task_without_a_verifier_toml_is_refused_in_one_line():
    task = load_task(GOLDEN / "sum-of-squares")
    with pytest.raises(BadInput, match="verifier.toml: missing"):
        verify_many(task, [task.reference_files()], sandbox="local")


def test_the_reference_is_observed_once_and_cached_by_content(docker, monkeypatch, tmp_path):
    monkeypatch.setenv("HARNESS_CACHE_DIR", str(tmp_path))
    runs = []
    real = CppCallProbe.run

    def counting(probe, files, session, **kw):
        runs.append(files == probe.task.reference_files())
        return real(probe, files, session, **kw)

    monkeypatch.setattr(CppCallProbe, "run", counting)
    monkeypatch.setattr(verifier, "_PLANS", {})
    with docker.session("reference cache") as session:
        first = verify_in_session(PHONE, faulty(PHONE, "keeps-country-code"), session)
        assert runs == [True, False] and list((tmp_path / "verifier-references").glob("phone-number-*.json"))
        monkeypatch.setattr(verifier, "_PLANS", {})  # a new process: only the disk cache is left
        second = verify_in_session(PHONE, faulty(PHONE, "keeps-country-code"), session)
    assert runs == [True, False, False] and first.checks == second.checks and second.checks_passed == 8


def test_observe_answers_any_calls_without_a_verifier(docker):
    got = observe(PHONE, PHONE.reference_files(), [
        'phone_number::phone_number("(223) 456-7890").number()',
        'phone_number::phone_number("1").number()',
        'std::vector<std::string>{phone_number::phone_number("223.456.7890").number(), "x"}',
        "phone_number::phone_number a(\"2234567890\");\nauto b = a;\n=> b.number().size()\n=> a.number().substr(0, 3)",
    ], sandbox=docker, includes=["<vector>"])
    assert got.status == "ok", got.reason
    assert got.values == [
        {"o": [{"v": "2234567890"}]},
        {"o": [{"x": "std::domain_error"}]},
        {"o": [{"v": ["2234567890", "x"]}]},
        {"o": [{"v": 10}, {"v": "223"}]},
    ]


def test_a_build_redoes_only_what_the_candidate_changed(sandbox):
    obj = f"probe/{PHONE.slug}/CMakeFiles/{PHONE.slug}.dir/phone_number_test.cpp.o"

    def built_at(session) -> str:
        return session.exec(["stat", "-c", "%Y.%y", f"{session.build_root}/{obj}"], role=Role.builder, timeout_s=30).output.decode()

    with sandbox.session("reuse") as session:
        first = verify_in_session(PHONE, PHONE.reference_files(), session)
        stamp = built_at(session)
        second = verify_in_session(PHONE, faulty(PHONE, "keeps-country-code"), session)  # same header, other source
        assert built_at(session) == stamp
        assert (first.status, second.status) == (VerdictStatus.ok, VerdictStatus.ok)
        again = verify_in_session(PHONE, faulty(PHONE, "keeps-country-code"), session)  # nothing to build at all
        assert again.build_seconds == 0 and again.checks == second.checks
        changed = PHONE.reference_files()
        changed["phone_number.h"] += b"\n// a different header\n"
        third = verify_in_session(PHONE, changed, session)
        assert built_at(session) != stamp and third.reward == 1.0


@pytest.mark.docker
def test_cli_prints_verdicts_and_refuses_bad_input(tmp_path):
    ref, bad = tmp_path / "ref", tmp_path / "bad"
    for folder, files in ((ref, PHONE.reference_files()), (bad, faulty(PHONE, "accepts-area-code-1"))):
        folder.mkdir()
        for name, data in files.items():
            (folder / name).write_bytes(data)
    cli = [str(Path(sys.executable).with_name("harness")), "verify"]  # the installed entry point
    out = subprocess.run([*cli, str(PHONE.path), str(ref), str(bad), "--json", "--sandbox", "docker", "--workers", "1"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    verdicts = [json.loads(line) for line in out.stdout.splitlines()]
    assert [(v["status"], round(v["reward"], 4)) for v in verdicts] == [("ok", 1.0), ("ok", 0.6667)]
    calls = [call for check in verdicts[1]["checks"] for call in check["calls"]]
    assert len(calls) == 21 and all({"call", "expected", "observed", "passed"} <= set(c) for c in calls)
    assert sum(not c["passed"] for c in calls) == 2
    missing = subprocess.run([*cli, str(PHONE.path), str(tmp_path / "nowhere")], capture_output=True, text=True)
    assert missing.returncode == 2 and missing.stderr.strip().count("\n") == 0 and "not a folder" in missing.stderr
    plain = subprocess.run([*cli, str(GOLDEN / "sum-of-squares" / ".meta"), str(ref)], capture_output=True, text=True)
    assert plain.returncode == 2 and "Traceback" not in plain.stderr
