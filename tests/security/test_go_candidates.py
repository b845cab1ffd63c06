"""Hostile Go candidates through Go's real test round in Docker (issue 34). The candidate's
code and the tests compile into one binary, so each of these would pass if its attack
worked, and none passes:

- Reaching the process (os.Exit(0) at init, a write to the verdict descriptor through
  syscall, the environment's token through os, `//go:linkname` into the runtime or the
  testing package, cgo, a package name spelled with escapes): refused by the screen before
  anything is built, never a pass.
- Printing what `go test -v` prints for a pass (`--- PASS` lines, `ok`, PASS), test2json's
  own events, or a guess at the verdict record, then failing; running tests of its own named
  as the task's through testing.Main, which passes them and exits 0 before the task's tests
  run: the verdict is the channel's, and the run fails.
- A panic at init, an endless loop: an honest failure within the round's bound.
- Writing a test file, go.mod or another source file: refused as tampered, never built.
- Declaring `false` (or `nil`, `len`, ...) for the whole package, which the tests' files,
  of the same package, then read: `const false = true` turns a table's every expected
  success into an expected error, and an answer that always errs passed; refused by the
  screen, at the package's level only.
- Emptying the tests' table of cases from an init (the tests' files are of the solution's
  package): forged, as the solution does not build without the tests' files; calling a
  function those files give it (bottle-song's `Title`) is its interface, and passes.
- A constant that compiles to an object of 128 MB, or of 512 MB: the session's build cache,
  kept from trial to trial, outgrows its bound, or the compiler is killed for memory; the
  candidate fails and the next round finds the cache no larger than before it.

After them, the reference passes in the same session: no candidate harms the next."""

from __future__ import annotations

import textwrap

import pytest

from harness.languages.go.screen import refusals
from harness.languages.registry import language_for
from harness.records import Status
from harness.sandbox.base import Role
from harness.task import load_task

from ..conftest import make_backend
from ..exercise import write_exercise
from ..languages.go.leap import REFERENCE, TESTS, WRONG, write_leap

pytestmark = [pytest.mark.slow]

def solution(body: str, imports: tuple[str, ...] = ()) -> bytes:
    head = "package leap\n\n" + "".join(f"import {i}\n" for i in imports)
    return (head + "\n" + textwrap.dedent(body)).encode()


# Each would pass if the process were the candidate's to end or the channel its to write.
SCREENED = {
    "exits 0 at init": solution('func init() { os.Exit(0) }\n' + WRONG, ('"os"',)),
    "writes the verdict descriptor": solution(
        'func init() { syscall.Write(3, []byte("verdict 00 0\\n")); syscall.Exit(0) }\n' + WRONG, ('"syscall"',)),
    "reads the token": solution('var token = os.Getenv("HARNESS_GO_VERDICT")\n' + WRONG, ('"os"',)),
    "links into the runtime": solution('//go:linkname exit runtime.exit\nfunc exit(int32)\n'
                                       'func init() { exit(0) }\n' + WRONG, ('_ "unsafe"',)),
    "calls C": solution('func init() { C.exit(0) }\n' + WRONG, ('"C"',)),
    "spells os with escapes": solution('func init() { x.Exit(0) }\n' + WRONG, ('x "o\\x73"',)),
    "imports os in a raw string": solution('func init() { os.Exit(0) }\n' + WRONG, ('`os`',)),
    "embeds a file": solution('//go:embed leap_test.go\nvar tests string\n' + WRONG, ('_ "embed"',)),
}

# Each prints what a pass looks like, or breaks down, and must fail.
RUN = {
    "prints a verbose pass": solution('''
        func init() {
            fmt.Println("=== RUN   TestCommonYear\\n--- PASS: TestCommonYear (0.00s)")
            fmt.Println("=== RUN   TestLeapYears\\n--- PASS: TestLeapYears (0.00s)\\nPASS\\nok  \\tleap\\t0.001s")
        }
        ''' + WRONG, ('"fmt"',)),
    "prints test2json events and a guessed record": solution('''
        func IsLeap(year int) bool {
            fmt.Println(`{"Action":"pass","Test":"TestCommonYear"}`)
            fmt.Println(`{"Action":"pass","Test":"TestLeapYears"}`)
            fmt.Println("verdict 0123456789abcdef0123456789abcdef 0")
            return false
        }
        ''', ('"fmt"',)),
    "runs its own passing tests of the task's names and exits 0": solution('''
        func pass(t *testing.T) {}

        func init() {
            testing.Main(func(a, b string) (bool, error) { return true, nil },
                []testing.InternalTest{{Name: "TestCommonYear", F: pass}, {Name: "TestLeapYears", F: pass}}, nil, nil)
        }
        ''' + WRONG, ('"testing"',)),
    "panics at init": solution('var _ = boom()\n\nfunc boom() int { panic("boom") }\n' + WRONG),
    "loops forever": solution('func IsLeap(year int) bool {\n\tfor {\n\t}\n}\n'),
}


@pytest.fixture(scope="module")
def go_round(tmp_path_factory):
    """One Go session for the module, and the task."""
    task = load_task(write_leap(tmp_path_factory.mktemp("go")))
    with make_backend("docker").session("go-hostile", "go") as session:
        yield task, session


def test_the_screen_refuses_each_way_to_the_process():
    for name, source in SCREENED.items():
        assert refusals({"leap.go": source}), name
    assert refusals({"leap.go": b'package leap\nvar s = "unterminated\n'})
    assert not refusals({"leap.go": REFERENCE.encode()})


def test_hostile_candidates_never_pass(go_round):
    task, session = go_round
    go = language_for(task)
    for name, source in SCREENED.items():
        report = go.run_tests(task, {"leap.go": source}, session)
        assert not report.passed and report.forged and not report.built, name
    for name, source in RUN.items():
        report = go.run_tests(task, {"leap.go": source}, session, time_limit_s=3, transcript=True)
        assert report.status is not Status.passed and not report.passed, (name, report)
        assert report.forged or "exits 0" not in name, (name, report)  # its events say pass: the channel says not
        assert report.run_seconds < 20, name
    passed = go.run_tests(task, {"leap.go": REFERENCE.encode()}, session, transcript=True)
    assert passed.passed and [t.status for t in passed.tests] == [Status.passed] * 3, passed


def test_written_tests_and_module_files_are_refused(go_round):
    task, session = go_round
    cheat_tests = b'package leap\n\nimport "testing"\n\nfunc TestCommonYear(t *testing.T) {}\n\nfunc TestLeapYears(t *testing.T) {}\n'
    workspace = {"leap.go": solution(WRONG), "leap_test.go": cheat_tests, "extra_test.go": cheat_tests,
                 "go.mod": b"module leap\n\ngo 1.99\n", "helper.go": b"package leap\n\nimport \"os\"\n\nvar _ = os.Exit\n"}
    report = language_for(task).run_tests(task, workspace, session, transcript=True)
    assert not report.passed and report.status is Status.failed
    assert set(report.tampered) >= {"leap_test.go", "extra_test.go", "go.mod", "helper.go"}
    assert "--- FAIL: TestLeapYears" in (report.transcript or "")


def doubled_constant(times: int) -> bytes:
    """A few lines that compile to a string of 16 x 2**times bytes in the package's object,
    which the go command writes to the session's build cache."""
    lines = ['const c0 = "0123456789abcdef"'] + [f"const c{i + 1} = c{i} + c{i}" for i in range(times)]
    return solution("\n".join(lines) + f"\n\nvar Big = c{times}\n\nfunc IsLeap(year int) bool {{ return len(Big) == 0 }}\n")


def test_a_candidate_that_bloats_the_build_cache_leaves_the_next_round_the_images(go_round):
    """Go's build cache outlives the trial (languages/go/testrun.py), so it is what a
    candidate could leave behind: 128 MB of one object puts it past its bound, 512 MB
    kills the compiler for memory. Either fails, and the next round starts from the image's
    cache (no larger than before it) and passes the reference."""
    task, session = go_round
    go = language_for(task)
    used = ["sh", "-c", "du -sm /cache/go | cut -f1"]
    assert go.run_tests(task, {"leap.go": REFERENCE.encode()}, session).passed
    before_mb = int(session.exec(used, role=Role.builder, timeout_s=30).output)
    for times, status, left_mb in ((23, Status.failed, before_mb + 128), (25, Status.error, 0)):
        report = go.run_tests(task, {"leap.go": doubled_constant(times)}, session, transcript=True)
        assert report.status is status and report.run_seconds < 20, (times, report)
        assert int(session.exec(used, role=Role.builder, timeout_s=30).output) >= left_mb, times
        session.reset()
        assert go.run_tests(task, {"leap.go": REFERENCE.encode()}, session).passed, times
        assert int(session.exec(used, role=Role.builder, timeout_s=30).output) <= before_mb, times


def test_a_solution_that_reaches_into_the_tests_is_forged_and_one_that_calls_their_helper_is_not(tmp_path):
    root = write_leap(tmp_path)
    (root / "leap_test.go").write_text(TESTS + "\nfunc Century(year int) int { return year / 100 }\n")
    task = load_task(root)
    go = language_for(task)
    with make_backend("docker").session("go-tests-names", "go") as session:
        # Without the tests' table TestLeapYears has nothing to run, and 2015 is not a leap year.
        emptied = go.run_tests(task, {"leap.go": solution("func init() { leapYears = nil }\n" + WRONG)}, session,
                               transcript=True)
        assert emptied.forged and not emptied.passed and emptied.tests == [], emptied
        assert emptied.forgery == ["the solution does not build without the tests' files, whose names it uses: "
                                   "./leap.go:4:15: undefined: leapYears"], emptied.forgery
        helped = REFERENCE.replace("year%100 != 0", "Century(year)*100 != year")
        report = go.run_tests(task, {"leap.go": helped.encode()}, session)
        assert report.passed and not report.forged, report


HALF_TESTS = """package half

import "testing"

var cases = []struct {
	n, want   int
	expectErr bool
}{
	{4, 2, false},
	{10, 5, false},
	{3, 0, true},
}

func TestHalf(t *testing.T) {
	for _, tc := range cases {
		got, err := Half(tc.n)
		if tc.expectErr {
			if err == nil {
				t.Fatalf("Half(%d): no error", tc.n)
			}
		} else if err != nil || got != tc.want {
			t.Fatalf("Half(%d) = %d, %v", tc.n, got, err)
		}
	}
}
"""
ALWAYS_ERRS = """package half

import "errors"

func Half(n int) (int, error) { return 0, errors.New("odd") }
"""


def test_a_package_level_false_of_its_own_is_refused(tmp_path):
    task_dir = write_exercise(tmp_path, "half", {
        "go.mod": "module half\n\ngo 1.18\n",
        "half.go": "package half\n\nfunc Half(n int) (int, error) {\n\tpanic(\"implement me\")\n}\n",
        "half_test.go": HALF_TESTS,
        ".meta/example.go": 'package half\n\nimport "errors"\n\nfunc Half(n int) (int, error) {\n\tif n%2 != 0 {\n'
                            '\t\treturn 0, errors.New("odd")\n\t}\n\treturn n / 2, nil\n}\n',
    }, solution=["half.go"], test=["half_test.go"], example=[".meta/example.go"], invalidator=["go.mod"])
    task = load_task(task_dir)
    go = language_for(task)
    shadows = {"a constant": "\nconst false = true\n", "in a group, by repetition": "\nconst (\n\tyes = true\n\tfalse\n)\n"}
    with make_backend("docker").session("go-predeclared", "go") as session:
        for name, extra in shadows.items():
            report = go.run_tests(task, {"half.go": (ALWAYS_ERRS + extra).encode()}, session)
            assert report.forged and not report.built and not report.passed, (name, report)
            assert "declares 'false' for the whole package" in (report.message or ""), name
        assert not go.run_tests(task, {"half.go": ALWAYS_ERRS.encode()}, session).passed
        assert go.run_tests(task, task.reference_files(), session).passed
    # Inside a function the name is the function's own.
    local = ALWAYS_ERRS + "\nfunc local() int { len, max := 1, 2; return len + max }\n"
    assert refusals({"half.go": local.encode()}) == []
