"""A tiny Go exercise in Exercism's layout, for the Go tests: two test functions, one with
subtests written to Exercism's Go runner's convention (a table, a range, t.Run first)."""

from __future__ import annotations

from pathlib import Path

from tests.exercise import write_exercise

WRONG = "func IsLeap(year int) bool { return false }\n"
REFERENCE = "package leap\n\nfunc IsLeap(year int) bool {\n\treturn year%4 == 0 && (year%100 != 0 || year%400 == 0)\n}\n"
TESTS = """package leap

import "testing"

func TestCommonYear(t *testing.T) {
	if IsLeap(2015) {
		t.Fatal("2015 is not a leap year")
	}
}

var leapYears = []struct {
	description string
	year        int
}{
	{description: "divisible by 4", year: 1996},
	{description: "divisible by 400", year: 2000},
}

func TestLeapYears(t *testing.T) {
	for _, tc := range leapYears {
		t.Run(tc.description, func(t *testing.T) {
			if !IsLeap(tc.year) {
				t.Errorf("%d is a leap year", tc.year)
			}
		})
	}
}
"""


def write_leap(root: Path) -> Path:
    return write_exercise(root, "leap", {
        "go.mod": "module leap\n\ngo 1.18\n",
        "leap.go": "package leap\n\nfunc IsLeap(year int) bool {\n\tpanic(\"implement me\")\n}\n",
        "leap_test.go": TESTS, ".meta/example.go": REFERENCE,
    }, solution=["leap.go"], test=["leap_test.go"], example=[".meta/example.go"], invalidator=["go.mod"])
