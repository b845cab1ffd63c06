"""The verifier's pure parts: reading the probe's stream, comparing values and call
records, the call language and the driver it generates, the reward, the verifier.toml
schema, and the static screen (on real sources: every fixed26 reference must pass it
clean, and each rule must fire on what it is about and not on comments)."""

from __future__ import annotations

import json

import pytest

from harness.errors import BadInput
from harness.languages.cpp.probe import driver_source, parse_call
from harness.probe.compare import Comparison, call_matches, same, same_unordered
from harness.probe.stream import read_stream
from harness.languages.cpp.lexer import strip_comments
from harness.languages.cpp.screen import screen
from harness.task import load_task
from harness.verify import CheckOutcome, load_spec, reward

from tests.conftest import ROOT

PHONE = load_task(ROOT / "suites" / "fixed26" / "phone-number")


def stream(*cases: list[dict], declared: int | None = None, done: bool = True) -> bytes:
    lines = [f"probe 1 {len(cases) if declared is None else declared}"]
    for i, records in enumerate(cases):
        lines.append(f"case {i} {f'call {i}'.encode().hex()}")
        lines += [f"rec {i} {j} {json.dumps(r)}" for j, r in enumerate(records)]
        lines.append(f"end {i} {len(records)}")
    if done:
        lines.append(f"done {len(cases) if declared is None else declared}")
    return ("\n".join(lines) + "\n").encode()


GOOD = stream([{"o": [{"v": "2234567890"}]}], [{"o": [{"x": "std::domain_error"}]}])


def test_a_complete_stream_is_read():
    got = read_stream(GOOD)
    assert got.complete and got.declared == 2
    assert [c.name for c in got.cases] == ["call 0", "call 1"]
    assert got.cases[1].records == [{"o": [{"x": "std::domain_error"}]}]


@pytest.mark.parametrize("data, words", [
    (b"", "wrote nothing"),
    (GOOD[:-7], "stops after 2 of 2"),
    (GOOD[:-9], "stops in case 1"),
    (GOOD.replace(b"rec 1 0", b"rec 0 1"), "out of order"),
    (GOOD.replace(b"case 1 ", b"case 0 "), "out of order"),
    (GOOD + b"rec 1 1 {}\n", "follows the end"),
    (GOOD + b"x", "follows the end"),
    (stream([{"o": []}], declared=2), "ends after 1 of 2"),
    (stream([{"o": []}], [{"o": []}], declared=1, done=False), "more cases than the 1 announced"),
    (GOOD.replace(b'{"o": [{"v": "2234567890"}]}', b'{"o": [{"v": "22'), "not JSON"),
    (GOOD.replace(b'{"o": [{"v": "2234567890"}]}', b'[1, 2]'), "a call's record that is not"),
    (GOOD.replace(b"end 0 1", b"end 0 2"), "wrong index or count"),
    (b"probe 1 1\ncase 0 00\nrec 0 0 {}", "stops in case 0"),
    (b"harness-outcomes 1 token=ok\n", "does not begin with the probe's header"),
    (GOOD.replace(b"end 0 1\n", b"end 0 1\nhello\n"), "not a line the probe writes"),
])
def test_anything_but_a_complete_well_framed_stream_says_why(data, words):
    got = read_stream(data)
    assert not got.complete and words in got.problem


def test_a_large_stream_is_read_in_good_time():
    import time

    big = stream(*[[{"o": [{"v": ["x" * 1000] * 100}]}]] * 30)  # 3 MB of values the probe could write
    t0 = time.perf_counter()
    assert read_stream(big).complete
    assert time.perf_counter() - t0 < 5.0


def test_values_compare_strictly_by_default():
    assert same(3, 3.0) and same([1, "a", None], [1, "a", None])
    assert not same(True, 1) and not same(0, False) and not same("1", 1)
    assert not same({"v": 1}, {"v": 1, "x": 2}) and not same([1, 2], [2, 1])
    assert same(1.0, 1.0 + 1e-12, abs_tol=1e-9) and not same(1.0, 1.1, rel_tol=1e-3)
    assert same_unordered([[2, ["b", "a"]], [1, []]], [[1, []], [2, ["a", "b"]]])
    assert not same_unordered([1, 1, 2], [1, 2, 2])


@pytest.mark.parametrize("expected, observed, mode, ok", [
    ({"o": [{"v": "2234567890"}]}, {"o": [{"v": "2234567890"}]}, "exact", True),
    ({"o": [{"v": "2234567890"}]}, {"o": [{"v": "12234567890"}]}, "exact", False),
    ({"o": [{"x": "std::domain_error"}]}, {"o": [{"x": "std::domain_error"}]}, "exact", True),
    ({"o": [{"x": "std::domain_error"}]}, {"o": [{"x": "std::out_of_range"}]}, "exact", False),
    ({"o": [{"x": "std::domain_error"}]}, {"o": [{"v": ""}]}, "exact", False),
    ({"o": [{"v": 1}, {"v": 2}]}, {"o": [{"v": 1}]}, "exact", False),
    ({"o": [{"v": 1}], "x": "std::runtime_error"}, {"o": [{"v": 1}]}, "exact", False),
    ({"o": [{"v": 0.1}]}, {"o": [{"v": 0.1000000001}]}, "approx", True),
    ({"o": [{"v": [3, 1, 2]}]}, {"o": [{"v": [1, 2, 3]}]}, "unordered", True),
    ({"o": [{"v": [3, 1, 2]}]}, {"o": [{"v": [1, 2, 3]}]}, "exact", False),
    ({"o": [{"v": 1}, {"x": "std::domain_error"}]}, {"o": [{"v": 2}, {"x": "std::domain_error"}]}, "exception", True),
    ({"o": [{"v": 1}]}, {"o": [{"x": "std::domain_error"}]}, "exception", False),
    ({"o": [{"v": 1}]}, None, "exact", False),
    ({"o": [{"v": 1}]}, {"o": "garbage"}, "exact", False),
])
def test_a_call_matches_by_its_checks_mode(expected, observed, mode, ok):
    how = Comparison(mode=mode, abs_tol=1e-6 if mode == "approx" else 0.0)
    assert call_matches(expected, observed, how) is ok


def test_calls_are_expressions_or_sequences_with_observations():
    assert [(s.code, s.observe) for s in parse_call('phone_number::phone_number("1").number()')] == [
        ('phone_number::phone_number("1").number()', True)]
    steps = parse_call("""
        circular_buffer::circular_buffer<int> buffer(1);
        buffer.write(1);
        => buffer.read();
        => buffer.read()
    """)
    assert [s.observe for s in steps] == [False, False, True, True] and steps[2].code == "buffer.read()"
    for bad in ("", "int x = 1;", "int x = 1;\n=>"):
        with pytest.raises(BadInput):
            parse_call(bad)


def test_the_driver_includes_the_runtime_first_and_registers_one_case_per_call():
    src = driver_source(PHONE, ["phone_number::phone_number(\"1\").number()", "int x = 2;\n=> x + 1"],
                        includes=["<vector>"], prelude="int helper() { return 1; }")
    assert src.index("#include <harness_probe.hpp>") < src.index('#include "phone_number.h"') < src.index("int helper()")
    assert src.count("::harness_probe::Registrar") == 2 and '"call 1"' in src
    assert "harness_probe_call.put((x + 1, ::harness_probe::VoidMarker{}))" in src


def test_reward_is_the_weighted_mean_of_plus_and_minus_one():
    def checks(*passed, weights=None):
        weights = weights or [1.0] * len(passed)
        return [CheckOutcome(name=str(i), group="g", passed=p, weight=w) for i, (p, w) in enumerate(zip(passed, weights))]

    assert reward(checks(*[True] * 12)) == 1.0
    assert reward(checks(*[False] * 12)) == -1.0
    assert reward(checks(*[True] * 10, False, False)) == pytest.approx(2 / 3)  # the study's ten of twelve
    assert reward(checks(True, False, weights=[3.0, 1.0])) == pytest.approx(0.5)
    assert reward([]) == -1.0


def test_the_phone_number_spec_has_twelve_checks_in_four_groups():
    spec = load_spec(PHONE)
    groups = {}
    for c in spec.checks:
        groups.setdefault(c.group, []).append(c.name)
    assert len(spec.checks) == 12
    assert [g.title for g in spec.groups] == [
        "valid-input behaviour", "formatting and rejection rules", "boundary cases", "combined interface checks"]
    assert sorted(len(v) for v in groups.values()) == [3, 3, 3, 3]
    # Every input of the task's own eighteen test cases is asked, and some it never shows.
    test_file = PHONE.read("phone_number_test.cpp").decode()
    inputs = [c.split('"')[1] for c in spec.calls if c.count('"') == 2]
    assert sum(f'"{i}"' in test_file for i in inputs) == 18 and len(inputs) == 20


@pytest.mark.parametrize("toml, words", [
    ("checks = 3", "checks"),
    ('[[checks]]\nname = "a"\ngroup = "g"\ncalls = []', "checks.0.calls"),
    ('[[groups]]\nname = "g"\n[[checks]]\nname = "a"\ngroup = "h"\ncalls = ["f()"]', "not declared"),
    ('[[checks]]\nname = "a"\ngroup = "g"\ncalls = ["f()"]\n[[checks]]\nname = "a"\ngroup = "g"\ncalls = ["g()"]', "declared twice"),
    ('[[checks]]\nname = "a"\ngroup = "g"\ncompare = "approx"\ncalls = ["f()"]', "neither abs_tol nor rel_tol"),
    ('[[checks]]\nname = "a"\ngroup = "g"\ncompare = "sorted"\ncalls = ["f()"]', "checks.0.compare"),
    ('schema_version = 1\n[[checks]]\nname = "a"\ngroup = "g"\ntests = ["x"]', "schema_version 1"),
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
