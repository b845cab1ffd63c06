"""A tiny Rust exercise in Exercism's layout, for the Rust tests: three tests, two of them
ignored (the round runs them, as `--include-ignored` does) and in a module."""

from __future__ import annotations

from pathlib import Path

from tests.exercise import write_exercise

WRONG = "pub fn is_leap_year(year: u64) -> bool {\n    year % 4 == 0\n}\n"
REFERENCE = "pub fn is_leap_year(year: u64) -> bool {\n    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)\n}\n"
TESTS = '''use leap::is_leap_year;

#[test]
fn common_year() {
    assert!(!is_leap_year(2015));
}

mod centuries {
    use leap::is_leap_year;

    #[test]
    #[ignore]
    fn not_every_century() {
        assert!(!is_leap_year(1900), "1900 is not a leap year");
    }

    #[test]
    #[ignore]
    fn every_fourth_century() {
        assert!(is_leap_year(2000));
    }
}
'''


def write_leap(root: Path) -> Path:
    return write_exercise(root, "leap", {
        "Cargo.toml": '[package]\nedition = "2021"\nname = "leap"\nversion = "1.0.0"\n',
        "src/lib.rs": 'pub fn is_leap_year(year: u64) -> bool {\n    todo!("{year}")\n}\n',
        "tests/leap.rs": TESTS, ".meta/example.rs": REFERENCE,
    }, solution=["src/lib.rs", "Cargo.toml"], test=["tests/leap.rs"], example=[".meta/example.rs"])
