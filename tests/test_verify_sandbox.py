"""The verifier end to end in the real sandbox, on both backends: the phone-number
verifier scores its reference and faulty controls as the study's reward says, a task
without a verifier.toml gets one check per test case, candidates with an unchanged header
reuse the compiled test unit, and `harness verify` prints verdicts or one line of bad
input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.sandbox.base import Role, SandboxLimits
from harness.task import load_task
from harness.verify import Verdict, VerdictStatus, verify, verify_in_session, verify_many

from .conftest import GOLDEN, ROOT, make_backend

PHONE = load_task(ROOT / "suites" / "fixed26" / "phone-number")
LIMITS = SandboxLimits(timeout_s=10, build_timeout_s=240)

pytestmark = [pytest.mark.slow]


def faulty(name: str) -> dict[str, bytes]:
    folder = PHONE.path / ".meta" / "faulty" / name
    return {p.name: p.read_bytes() for p in folder.iterdir()}


@pytest.fixture(scope="module", params=["docker", "local"])
def sandbox(request):
    return make_backend(request.param, LIMITS)


def test_phone_number_reference_and_faulty_controls(sandbox):
    names = ["reference", "accepts-area-code-1", "drops-first-of-any-11-digits",
             "exchange-code-checked-one-digit-late", "keeps-country-code", "stub"]
    files = [PHONE.reference_files(), *(faulty(n) for n in names[1:5]), PHONE.stub_files()]
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
    failed = {c.name for c in got["accepts-area-code-1"].checks if not c.passed}
    assert failed == {"an area code starting with 0 or 1 is rejected", "area code rules hold behind a country code"}
    assert "invalid if area code starts with 1" in got["accepts-area-code-1"].failures
    # A verdict is a record trial results can carry.
    assert Verdict.model_validate_json(ref.model_dump_json()) == ref


def test_a_task_without_a_verifier_toml_has_one_check_per_test_case(sandbox):
    task = load_task(GOLDEN / "sum-of-squares")
    cases = GOLDEN / "cases"
    fail_one = {p.name: p.read_bytes() for p in (cases / "fail-one").iterdir()}
    good, bad = verify_many(task, [task.reference_files(), fail_one], sandbox=sandbox)
    assert good.status is VerdictStatus.ok and good.reward == 1.0 and len(good.checks) == 4
    assert bad.status is VerdictStatus.ok and bad.checks_passed == 3 and bad.reward == 0.5
    assert [c.name for c in bad.checks if not c.passed] == ["sum of the first hundred"]


def test_an_unchanged_header_reuses_the_compiled_test_unit(sandbox):
    obj = f"{PHONE.slug}/CMakeFiles/{PHONE.slug}.dir/phone_number_test.cpp.o"

    def built_at(session) -> str:
        return session.exec(["stat", "-c", "%Y.%y", f"{session.build_root}/{obj}"], role=Role.builder, timeout_s=30).output.decode()

    with sandbox.session("reuse") as session:
        first = verify_in_session(PHONE, PHONE.reference_files(), session)
        stamp = built_at(session)
        second = verify_in_session(PHONE, faulty("keeps-country-code"), session)  # same header, other source
        assert built_at(session) == stamp
        assert (first.status, second.status) == (VerdictStatus.ok, VerdictStatus.ok)
        changed = PHONE.reference_files()
        changed["phone_number.h"] += b"\n// a different header\n"
        third = verify_in_session(PHONE, changed, session)
        assert built_at(session) != stamp and third.reward == 1.0


def test_verify_opens_its_own_session(sandbox):
    verdict = verify(PHONE, faulty("keeps-country-code"), sandbox=sandbox)
    assert verdict.status is VerdictStatus.ok and verdict.checks_passed == 8


@pytest.mark.docker
def test_cli_prints_verdicts_and_refuses_bad_input(tmp_path):
    ref, bad = tmp_path / "ref", tmp_path / "bad"
    for folder, files in ((ref, PHONE.reference_files()), (bad, faulty("accepts-area-code-1"))):
        folder.mkdir()
        for name, data in files.items():
            (folder / name).write_bytes(data)
    cli = [str(Path(sys.executable).with_name("harness")), "verify"]  # the installed entry point
    out = subprocess.run([*cli, str(PHONE.path), str(ref), str(bad), "--json", "--sandbox", "docker"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    verdicts = [json.loads(line) for line in out.stdout.splitlines()]
    assert [(v["status"], round(v["reward"], 4)) for v in verdicts] == [("ok", 1.0), ("ok", 0.6667)]
    missing = subprocess.run([*cli, str(PHONE.path), str(tmp_path / "nowhere")], capture_output=True, text=True)
    assert missing.returncode == 2 and missing.stderr.strip().count("\n") == 0 and "not a folder" in missing.stderr
    plain = subprocess.run([*cli, str(GOLDEN / "sum-of-squares" / ".meta"), str(ref)], capture_output=True, text=True)
    assert plain.returncode == 2 and "Traceback" not in plain.stderr
