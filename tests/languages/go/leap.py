"""A tiny Go exercise in Exercism's layout, for the Go tests: two test functions, one with
subtests written to Exercism's Go runner's convention (a table, a range, t.Run first)."""

from __future__ import annotations

import json
from pathlib import Path

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
    task = root / "leap"
    (task / ".meta").mkdir(parents=True)
    (task / "go.mod").write_text("module leap\n\ngo 1.18\n")
    (task / "leap.go").write_text("package leap\n\nfunc IsLeap(year int) bool {\n\tpanic(\"implement me\")\n}\n")
    (task / "leap_test.go").write_text(TESTS)
    (task / ".meta" / "example.go").write_text(REFERENCE)
    (task / ".meta" / "config.json").write_text(json.dumps({"files": {
        "solution": ["leap.go"], "test": ["leap_test.go"], "example": [".meta/example.go"], "invalidator": ["go.mod"]}}))
    return task
