"""The verifier's pure parts: judging the outcome channel, the reward, the verifier.toml
schema, and the static screen (on real sources: every fixed26 reference must pass it
clean, and each rule must fire on what it is about and not on comments)."""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path

import pytest

from harness.errors import BadInput
from harness.screen import screen, strip_comments
from harness.task import load_task
from harness.verify import CheckOutcome, VerdictStatus, load_spec, read_outcomes, reward

from .conftest import ROOT

TOKEN = bytes(range(32))
NAMES = ["first case", "second case", "third case"]


def line(name: str, passed: bool = True, ok: int = 1, failed: int = 0) -> bytes:
    return f"case {int(passed)} {ok} {failed} {name.encode().hex()}\n".encode()


def stream(body: bytes, token: bytes = TOKEN, start: bytes = b"harness-outcomes 1 token=ok\n") -> bytes:
    body = start + body
    return body + b"end " + hmac.new(token, body, hashlib.sha256).hexdigest().encode() + b"\n"


GOOD = stream(line("first case") + line("second case", passed=False, ok=0, failed=1) + line("third case"))


def test_authentic_outcomes_are_read():
    got = read_outcomes(GOOD, TOKEN, set(NAMES), exit_code=1)
    assert got.status is None
    assert {n: c.passed for n, c in got.cases.items()} == {"first case": True, "second case": False, "third case": True}
    assert got.cases["second case"].assertions_failed == 1


@pytest.mark.parametrize("data, status, words", [
    (stream(line("first case") + line("second case") + line("third case"), token=bytes(32)), "forged", "authenticate"),
    (GOOD + line("first case"), "forged", "follows the completion marker"),
    (GOOD + b"case 1", "forged", "follows the completion marker"),
    (line("first case") + GOOD, "forged", "start line"),
    (stream(line("first case") + line("first case") + line("second case") + line("third case")), "forged", "twice"),
    (stream(line("first case") + line("second case") + line("third case") + line("bonus")), "forged", "does not have"),
    (stream(line("first case") + line("second case")), "incomplete", "never reported"),
    (GOOD.replace(b"case 1 1 0", b"CASE 1 1 0", 1), "forged", "not one the test main writes"),
    (b"harness-outcomes 1 token=ok\n" + line("first case"), "incomplete", "before the completion marker"),
    (b"harness-outcomes 1 token=ok\n" * 2 + line("first case"), "forged", "more than one start line"),
    (b"harness-outcomes 1 token=ok\ncase 1 1", "incomplete", "mid-line"),
    (b"", "incomplete", "ended before its main reported anything"),
    (b"harness-outcomes 1 token=missing\n" + line("first case") + b"end none\n", "incomplete", "token=missing"),
    (b"harness-outcomes 1 token=ok\n" + line("first case") + b"end none\n", "forged", "no token"),
])
def test_anything_but_authentic_complete_outcomes_is_refused(data, status, words):
    got = read_outcomes(data, TOKEN, set(NAMES), exit_code=0)
    assert got.status is VerdictStatus(status)
    assert words in got.reason


def test_a_run_cut_short_by_a_signal_is_a_crash():
    got = read_outcomes(b"harness-outcomes 1 token=ok\n" + line("first case"), TOKEN, set(NAMES), exit_code=139)
    assert got.status is VerdictStatus.crash and "SIGSEGV" in got.reason
    assert read_outcomes(b"", TOKEN, set(NAMES), exit_code=134).status is VerdictStatus.crash


def test_reward_is_the_weighted_mean_of_plus_and_minus_one():
    def checks(*passed, weights=None):
        weights = weights or [1.0] * len(passed)
        return [CheckOutcome(name=str(i), group="g", passed=p, weight=w, tests=["t"]) for i, (p, w) in enumerate(zip(passed, weights))]

    assert reward(checks(*[True] * 12)) == 1.0
    assert reward(checks(*[False] * 12)) == -1.0
    assert reward(checks(*[True] * 10, False, False)) == pytest.approx(2 / 3)  # the study's ten of twelve
    assert reward(checks(True, False, weights=[3.0, 1.0])) == pytest.approx(0.5)
    assert reward([]) == -1.0


def test_the_phone_number_spec_has_twelve_checks_in_four_groups():
    task = load_task(ROOT / "suites" / "fixed26" / "phone-number")
    spec = load_spec(task)
    groups = {}
    for c in spec.checks:
        groups.setdefault(c.group, []).append(c.name)
    assert len(spec.checks) == 12
    assert [g.title for g in spec.groups] == [
        "valid-input behaviour", "formatting and rejection rules", "boundary cases", "combined interface checks"]
    assert sorted(len(v) for v in groups.values()) == [3, 3, 3, 3]
    test_file = task.read("phone_number_test.cpp").decode()
    own = {t for c in spec.checks for t in c.tests} - {e.name for e in spec.extra_tests}
    assert len(own) == 18 and all(f'"{t}"' in test_file for t in own)


@pytest.mark.parametrize("toml, words", [
    ("checks = 3", "checks"),
    ('[[checks]]\nname = "a"\ngroup = "g"\ntests = []', "checks.0.tests"),
    ('[[groups]]\nname = "g"\n[[checks]]\nname = "a"\ngroup = "h"\ntests = ["x"]', "not declared"),
    ('[[checks]]\nname = "a"\ngroup = "g"\ntests = ["x"]\n[[checks]]\nname = "b"\ngroup = "g"\ntests = ["x"]', "more than one check"),
    ('[[checks]]\nname = "a"\ngroup = "g"\ntests = ["x"]\n[[extra_tests]]\nname = "y"\nbody = ""', "belongs to no check"),
    ("checks = [", "not valid TOML"),
])
def test_a_bad_verifier_toml_is_one_line_of_bad_input(tmp_path, toml, words):
    src = ROOT / "tests" / "golden" / "sum-of-squares"
    task_dir = tmp_path / "sum-of-squares"
    for p in src.rglob("*"):
        if p.is_file():
            (task_dir / p.relative_to(src)).parent.mkdir(parents=True, exist_ok=True)
            (task_dir / p.relative_to(src)).write_bytes(p.read_bytes())
    (task_dir / ".meta" / "verifier.toml").write_text(toml)
    with pytest.raises(BadInput) as exc:
        load_spec(load_task(task_dir))
    assert words in str(exc.value) and "\n" not in str(exc.value)


def test_every_fixed26_reference_passes_the_screen_clean():
    flagged = {}
    for folder in sorted((ROOT / "suites" / "fixed26").iterdir()):
        if (folder / ".meta" / "config.json").is_file():
            task = load_task(folder)
            found = screen(task.reference_files())
            if found:
                flagged[task.slug] = [(f.rule, f.text) for f in found]
    assert flagged == {}


@pytest.mark.parametrize("source, rule", [
    ("#undef REQUIRE", "framework-name"),
    ("#  define TEST_CASE(...) x", "framework-name"),
    ("%:define CHECK(x) x", "framework-name"),
    ("#def\\\nine REQUIRE(x) x", "framework-name"),
    ("int main() { return 0; }", "framework-name"),
    ('#include <catch2/catch.hpp>', "test-include"),
    ('#include "phone_number_test.cpp"', "test-include"),
    ('#pragma GCC diagnostic ignored "-Wall"', "warning-pragma"),
    ("#pragma GCC system_header", "warning-pragma"),
    ('# 1 "/usr/include/string" 1 3', "warning-pragma"),
    ('_Pragma("GCC diagnostic ignored \\"-Wall\\"")', "warning-pragma"),
    ('auto home = std::getenv("HOME");', "environment"),
    ('std::ifstream f("/proc/self/cmdline");', "environment"),
    ("__attribute__((constructor)) void f() {}", "pre-main"),
    ("static int x = (std::_Exit(0), 1);", "process-control"),
    ("std::set_terminate(handler);", "process-control"),
    ("if (fork() == 0) {}", "process-control"),
    ("::read(0, buf, 8);", "raw-io"),
    ("syscall(SYS_read, 0, buf, 8);", "raw-io"),
    ("#include <unistd.h>", "system-header"),
    ("#include <sys/syscall.h>", "system-header"),
    ("std::cin >> s;", "raw-io"),
    ('asm("nop");', "inline-asm"),
    ('extern "C" int write(int, const void*, unsigned long);', "extern-c"),
])
def test_each_rule_fires_on_its_construct(source, rule):
    assert rule in {f.rule for f in screen({"phone_number.cpp": source.encode()})}


def test_comments_do_not_flag_but_strings_do():
    src = b'// getenv("HOME") and #undef REQUIRE\n/* ::read(0, b, 1); */\nconst char* p = "/proc/self";\nfile.open("x");\nvoid close();\n'
    flags = screen({"a.cpp": src})
    assert [(f.rule, f.line) for f in flags] == [("environment", 3)]
    assert strip_comments('a // b\n"// c" /* d\n e */ f') == 'a \n"// c"     \n      f'
