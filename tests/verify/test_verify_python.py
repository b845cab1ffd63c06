"""The verifier on Python tasks in the real sandbox (Docker, and the local backend).

- A task with `.meta/verifier.toml` is judged by its Python calls, run by the harness's
  driver behind the proxy: the reference earns +1, a wrong answer what its checks earn (each
  call showing the reference's value and the candidate's), the stub -1, a module that does
  not import `compile_error` with its SyntaxError; an object of the candidate's is its class
  and the repr its process gives, never the plain value that repr spells.
- A task without one is judged by its own test cases, each a check, from the test round's
  report: the same reward formula, checks named as pytest names the cases, grouped by their
  task markers.
- A task whose tests run in one process with the candidate needs a verifier.toml; calls that
  do not parse are one line of bad input, before any sandbox starts."""

from __future__ import annotations

import pytest

from harness.errors import BadInput
from harness.languages.registry import language_for
from harness.sandbox.base import SandboxLimits
from harness.verify import VerdictStatus, verify_in_session, verify_many

from ..conftest import make_backend
from ..languages.python import meter
from ..languages.python.tally import REFERENCE, SOLUTION, STUB, WRONG, write_tally
from ..languages.python.verifier_task import CALLS, VERIFIER, write_verified_tally

pytestmark = [pytest.mark.slow]

LIMITS = SandboxLimits(timeout_s=15)


@pytest.fixture(scope="module", params=["docker", "local"])
def session(request):
    with make_backend(request.param, LIMITS).session("python-verify") as session:
        yield session


@pytest.fixture(scope="module")
def verified(tmp_path_factory):
    return write_verified_tally(tmp_path_factory.mktemp("python-verified"))


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    return write_tally(tmp_path_factory.mktemp("python-plain"))


def _verify(task, session, source: str):
    return verify_in_session(task, {SOLUTION: source.encode()}, session)


def test_python_calls_score_the_reference_a_wrong_answer_and_the_stub(verified, session):
    ref = _verify(verified, session, REFERENCE)
    assert (ref.status, ref.reward) == (VerdictStatus.ok, 1.0), ref.reason
    assert [c.group for c in ref.checks] == ["math", "math", "text", "state"]
    assert sum(len(c.calls) for c in ref.checks) == CALLS
    counted = ref.checks[-1].calls[0]
    assert counted.observed == {"o": [{"v": 3}, {"v": {"dict": [["a", 2], ["b", 1]]}}, {"v": {"set": ["a", "b"]}}]}
    assert ref.checks[0].calls[2].observed == {"o": [{"v": {"int": str(10 ** 30 + 1)}}]}
    assert ref.checks[1].calls[0].observed == {"o": [{"x": "TypeError"}]}

    wrong = _verify(verified, session, WRONG)
    assert (wrong.status, wrong.reward) == (VerdictStatus.ok, 0.5)
    failed = [call for c in wrong.checks for call in c.calls if not call.passed]
    assert [(f.expected, f.observed) for f in failed] == [
        ({"o": [{"v": ["a", "b", "c"]}]}, {"o": [{"v": ["a", "b", "", "c"]}]}),
        ({"o": [{"v": {"tuple": ["x", "y"]}}]}, {"o": [{"v": {"tuple": ["", "x\ty", ""]}}]})]

    stub = _verify(verified, session, STUB)
    assert (stub.status, stub.reward, stub.checks_passed) == (VerdictStatus.ok, -1.0, 0)
    broken = _verify(verified, session, "def add(:\n")
    assert (broken.status, broken.reward) == (VerdictStatus.compile_error, -1.0), broken.reason
    assert "SyntaxError" in (broken.build_log or "") and broken.reason == "the candidate does not import"


def test_an_object_of_the_candidates_is_its_class_and_repr_never_the_value_it_spells(verified, session):
    fraction = _verify(verified, session, REFERENCE.replace(
        "def add(a, b):\n    return a + b", "from fractions import Fraction\n\ndef add(a, b):\n    return Fraction(a) + b"))
    first = fraction.checks[0].calls[0]
    assert first.observed == {"o": [{"v": {"object": ["Fraction", "Fraction(5, 1)"]}}]} and not first.passed
    liar = _verify(verified, session, REFERENCE + "\n\nclass Five:\n    def __repr__(self):\n        return '5'\n\n"
                   "    def __eq__(self, other):\n        return True\n\n\ndef add(a, b):\n"
                   "    return Five() if (a, b) == (2, 3) else a + b\n")
    first = liar.checks[0].calls[0]
    assert first.observed == {"o": [{"v": {"object": ["Five", "5"]}}]} and not first.passed
    assert liar.reward == fraction.reward == 0.5  # the other three checks hold


def test_the_probe_answers_any_python_calls_without_a_verifier(plain, session):
    probe = language_for(plain).call_probe(plain, [
        "add(b'ab', b'c')", "words('x')[0] * 3", "{add(1, 2): (None, 2.5)}", "add(1, [])",
        "t = Tally()\n=> t.count('a') is t\n=> t.seen\nt.count(None)['x']\n=> 'never'",
    ])
    got = probe.observe({SOLUTION: REFERENCE.encode()}, session)
    assert got.status == "ok", got.reason
    assert got.values == [
        {"o": [{"v": {"bytes": "616263"}}]}, {"o": [{"v": "xxx"}]},
        {"o": [{"v": {"dict": [[3, {"tuple": [None, 2.5]}]]}}]}, {"o": [{"x": "TypeError"}]},
        {"o": [{"v": True}, {"v": {"dict": [["a", 1]]}}], "x": "TypeError"},
    ]


def test_a_task_without_a_verifier_toml_is_judged_by_its_own_test_cases(plain, session):
    got = {name: _verify(plain, session, source) for name, source in
           (("reference", REFERENCE), ("wrong", WRONG), ("stub", STUB), ("broken", "def add(:\n"))}
    assert {n: (v.status.value, round(v.reward, 4)) for n, v in got.items()} == {
        "reference": ("ok", 1.0), "wrong": ("ok", round(1 / 3, 4)), "stub": ("ok", -1.0),
        "broken": ("compile_error", -1.0)}
    ref = got["reference"]
    assert [(c.name, c.group) for c in ref.checks] == [
        ("tally_test.py::test_add", "task 1"), ("tally_test.py::test_words", "task 1"),
        ("tally_test.py::TallyTest::test_total", "task 2")]
    words = got["wrong"].checks[1].calls[0]
    assert (words.expected, words.observed, words.passed) == ({"o": [{"v": "pass"}]}, {"o": [{"v": "fail"}]}, False)
    assert "SyntaxError" in (got["broken"].build_log or "")


def test_a_task_whose_tests_share_the_candidates_process_needs_calls(tmp_path):
    task = meter.write_meter(tmp_path)
    with pytest.raises(BadInput, match="verifier.toml: missing"):
        verify_many(task, [{meter.SOLUTION: meter.REFERENCE.encode()}], sandbox="local")


@pytest.mark.parametrize("verifier, words", [
    (VERIFIER.replace('"add(2, 3)"', '"add(2, 3"'), "does not parse as a Python expression"),
    (VERIFIER.replace("=> t.total()", "=> "), "without an expression"),
    ('includes = ["<vector>"]\n' + VERIFIER, "C\\+\\+ headers"),
    ('prelude = "from tally import ("\n' + VERIFIER, "the prelude does not parse"),
])
def test_calls_that_do_not_parse_are_bad_input_before_any_sandbox(tmp_path, verifier, words):
    task = write_verified_tally(tmp_path, verifier)
    with pytest.raises(BadInput, match=words):
        verify_many(task, [{SOLUTION: REFERENCE.encode()}], sandbox="local")
