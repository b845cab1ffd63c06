"""What Go's cases are, read from the test files alone (no build): every test file `go test`
compiles and no other, test_code as Exercism's Go runner shows it (Go's printer's tab
alignment; a subtest off the runner's convention gets its whole function)."""

from __future__ import annotations

from harness.languages.go.cases import case_texts, cases_for
from harness.task import load_task

from .leap import write_leap

STEP = '''//go:build step2 || !step1

package leap

import "testing"

func TestStepTwo(t *testing.T) {
\tcases := map[string]int{"a": 1}
\tfor name, want := range cases {
\t\tt.Run(name, func(t *testing.T) {
\t\t\tgot := want // the same
\t\t\tif got != want {
\t\t\t\tt.Fatal(name)
\t\t\t}
\t\t})
\t}
}
'''

BONUS = '''//go:build bonus

package leap

import "testing"

func TestBonus(t *testing.T) {}
'''

LITERAL = '''package leap

import "testing"

// A struct literal whose values gofmt aligns with spaces.
func TestLiteral(t *testing.T) {
\tr := struct{ a, bcd int }{
\t\ta:   1,
\t\tbcd: 2,
\t}
\t_ = r
}
'''


def test_the_cases_are_every_built_test_files_as_the_runner_prints_them(tmp_path):
    root = write_leap(tmp_path)
    (root / "leap_step2_test.go").write_text(STEP)
    (root / "leap_bonus_test.go").write_text(BONUS)
    (root / "literal_test.go").write_text(LITERAL)
    task = load_task(root)
    cases = {c.name: c for c in case_texts(task)}
    assert list(cases) == ["TestStepTwo", "TestCommonYear", "TestLeapYears", "TestLiteral"]
    assert cases["TestLiteral"].test_code == (
        "// A struct literal whose values gofmt aligns with spaces.\n"
        "func TestLiteral(t *testing.T) {\n\tr := struct{ a, bcd int }{\n\t\ta:\t1,\n\t\tbcd:\t2,\n\t}\n\t_ = r\n}")
    subtest = cases_for(task, ["TestStepTwo/a"])["TestStepTwo/a"]
    assert subtest.part_of == "TestStepTwo" and subtest.title == "TestStepTwo/ a"
    assert subtest.test_code == cases["TestStepTwo"].test_code and "got := want\t// the same" in subtest.test_code
