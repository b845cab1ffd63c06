"""Hostile Rust candidates through Rust's real test round in Docker (issue 34). The
candidate's crate is linked into the test binaries, so each of these would pass if its
attack worked, and none passes:

- Reaching the process or the machine (process::exit(0), abort, a panic hook, an `unsafe`
  write to a descriptor, `extern` functions, `#[no_mangle]` over a symbol, the environment,
  writing a file, `include_str!` of the tests, a module read from another path, a `#` a
  macro puts before an attribute): refused by the screen before anything is built.
- Printing what a passing `cargo test` prints (`test ... ok`, `test result: ok`) and
  libtest's own JSON events, then failing: the verdict is the log's and the exit statuses'.
- A thread bomb, a memory bomb and an output bomb at once, and sleeping past the limit:
  honest failures within the round's bound.
- Writing Cargo.toml, a build script, a test file or cargo's configuration: refused as
  tampered, never built (the task's manifest is built).

After them, the reference passes in the same session: no candidate harms the next."""

from __future__ import annotations

import pytest

from harness.languages.registry import language_for
from harness.languages.rust.screen import refusals
from harness.records import Status
from harness.task import load_task

from ..conftest import make_backend
from ..languages.rust.leap import REFERENCE, WRONG, write_leap

pytestmark = [pytest.mark.slow]


def solution(extra: str, body: str = WRONG) -> bytes:
    return (extra + "\n" + body).encode()


# Each would pass if the process were the candidate's to end or its log its to write.
SCREENED = {
    "exits 0": solution("", "pub fn is_leap_year(_y: u64) -> bool { std::process::exit(0) }\n"),
    "aborts": solution("use std::process as p;\n", "pub fn is_leap_year(_y: u64) -> bool { p::abort() }\n"),
    "raw identifier": solution("", "pub fn is_leap_year(_y: u64) -> bool { std::r#process::exit(0) }\n"),
    "panic hook": solution("", "pub fn is_leap_year(y: u64) -> bool {\n    std::panic::set_hook(Box::new(|_| {}));\n"
                               "    y % 4 == 0\n}\n"),
    "writes descriptor 3 unsafely": solution(
        "extern \"C\" { fn write(fd: i32, b: *const u8, n: usize) -> isize; }\n",
        "pub fn is_leap_year(y: u64) -> bool { unsafe { write(3, b\"ok x\".as_ptr(), 4); } y % 4 == 0 }\n"),
    "overrides a symbol": solution("#[no_mangle]\npub fn exit(_c: i32) {}\n"),
    "reads the environment": solution("", "pub fn is_leap_year(_y: u64) -> bool { std::env::var(\"X\").is_ok() }\n"),
    "writes a file": solution("", "pub fn is_leap_year(_y: u64) -> bool { std::fs::write(\"x\", \"\").is_ok() }\n"),
    "writes stdout past the capture": solution(
        "use std::io::Write;\n", "pub fn is_leap_year(_y: u64) -> bool {\n    let _ = std::io::stdout().write_all(b\"ok\");\n"
                                 "    false\n}\n"),
    "includes the tests": solution("const T: &str = include_str!(\"../tests/leap.rs\");\n"),
    "a module from another path": solution("#[path = \"../tests/leap.rs\"]\nmod t;\n"),
    "an attribute through a macro": solution(
        "macro_rules! m { ($h:tt) => { $h [no_mangle] pub fn exit() {} } }\nm!(#);\n"),
    "a crate-wide attribute": solution("#![no_std]\n"),
    "a conditional attribute": solution("#[cfg_attr(all(), export_name = \"main\")]\npub fn f() {}\n"),
}

# Each prints what a pass looks like, or breaks down, and must fail.
FORGED_TEXT = solution("", r'''pub fn is_leap_year(year: u64) -> bool {
    println!("test common_year ... ok\ntest result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out");
    println!("{{ \"type\": \"test\", \"name\": \"common_year\", \"event\": \"ok\" }}");
    eprintln!("ok centuries::not_every_century\nok centuries::every_fourth_century");
    year % 4 == 0
}
''')
BOMBS = solution("", '''pub fn is_leap_year(year: u64) -> bool {
    if year == 2015 {
        for _ in 0..100_000 { std::thread::spawn(|| std::thread::sleep(std::time::Duration::from_secs(60))); }
    }
    if year == 1900 { let v: Vec<u64> = vec![7; 1 << 34]; return v[1] == 7; }
    if year == 2000 { loop { print!("{}", "x".repeat(1 << 20)); } }
    false
}
''')
SLEEPS = solution("", "pub fn is_leap_year(_y: u64) -> bool {\n    std::thread::sleep(std::time::Duration::from_secs(600));\n"
                      "    true\n}\n")


@pytest.fixture(scope="module")
def rust_round(tmp_path_factory):
    """One Rust session for the module, and the task."""
    task = load_task(write_leap(tmp_path_factory.mktemp("rust")))
    with make_backend("docker").session("rust-hostile", "rust") as session:
        yield task, session


def test_the_screen_refuses_each_way_to_the_process():
    for name, source in SCREENED.items():
        assert refusals({"src/lib.rs": source}), name
    assert refusals({"src/lib.rs": b'pub fn f() -> &\'static str { "unterminated }\n'})
    assert refusals({"src/lib.rs": b"/* /* nested, unterminated */\n"})
    assert not refusals({"src/lib.rs": REFERENCE.encode() + b"\nconst S: &str = r#\"std::process\"#; // unsafe\n"
                                       b"extern crate core as c;\n"})


def test_hostile_candidates_never_pass(rust_round):
    task, session = rust_round
    rust = language_for(task)
    for name, source in SCREENED.items():
        report = rust.run_tests(task, {"src/lib.rs": source}, session, transcript=True)
        assert not report.passed and report.forged and not report.built, name
        # The model is told what it reached for, as cargo would have told it why a build failed.
        assert report.transcript == report.message == "forged: " + "; ".join(report.forgery), name
    many = rust.run_tests(task, {"src/lib.rs": REFERENCE.encode() + b"\nunsafe fn f() {}" * 5000}, session, transcript=True)
    assert many.forged and len(many.forgery) >= 5000 and len(many.message or "") < 4000, len(many.message or "")
    assert (many.message or "").endswith(f"; and {len(many.forgery) - 20} more") and many.transcript == many.message
    tampered = {"src/lib.rs": FORGED_TEXT, "Cargo.toml": b'[package]\nname = "leap"\nversion = "1.0.0"\nbuild = "b.rs"\n',
                "build.rs": b"fn main() {}\n", "tests/leap.rs": b"#[test]\nfn common_year() {}\n",
                "tests/extra.rs": b"#[test]\nfn extra() {}\n", ".cargo/config.toml": b"[build]\nrustflags = []\n"}
    report = rust.run_tests(task, tampered, session, transcript=True)
    assert report.status is Status.failed and not report.passed, report
    assert set(report.tampered) >= {"Cargo.toml", "build.rs", "tests/leap.rs", "tests/extra.rs", ".cargo/config.toml"}
    assert [t.status for t in report.tests] == [Status.passed, Status.failed, Status.passed]
    assert "error: test failed, to rerun pass `--test leap`" in (report.transcript or "")
    for name, source in (("bombs", BOMBS), ("sleeps", SLEEPS)):
        report = rust.run_tests(task, {"src/lib.rs": source}, session, time_limit_s=3)
        assert not report.passed and report.status is not Status.passed, (name, report)
        assert report.run_seconds < 25, name
    passed = rust.run_tests(task, {"src/lib.rs": REFERENCE.encode()}, session)
    assert passed.passed and [t.status for t in passed.tests] == [Status.passed] * 3, passed
