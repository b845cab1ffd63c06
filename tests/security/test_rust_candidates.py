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
- Naming a public `Some` of its own (a function, a renamed re-export, a module's, or one a
  macro's caller names), which the tests' `use greeting::*;` takes in place of the
  prelude's, so that `Some("Ann")` is whatever the solution answers: refused by the screen.
- Returning a type of its own whose `PartialEq<&str>` is always true, where the tests'
  `assert_eq!` compares the reference's `String` (plainly, or behind `impl PartialEq`):
  forged by what the tests compare (languages/rust/compared_types.py); a solution that
  returns a library type the reference does not (`Cow<str>`) and compares a type the tests
  name by a rule of its own passes.

After them, the reference passes in the same session: no candidate harms the next."""

from __future__ import annotations

from pathlib import Path


import pytest

from harness.languages.registry import language_for
from harness.languages.rust.compared_types import RUST
from harness.languages.rust.screen import declared_names, refusals
from harness.records import Status
from harness.task import load_task

from ..conftest import make_backend
from ..exercise import write_exercise
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


# A task whose tests compare a library type (`hello`'s String) and a type of the solution's
# own (`Badge`), both with assert_eq!, and one with assert_ne!.
GREETING_TESTS = """use greeting::*;

#[test]
fn says_hello() {
    assert_eq!(hello("Ann"), "Hello, Ann!");
}

#[test]
#[ignore]
fn finds_the_first_name() {
    assert_eq!(first_name("Ann Lee"), Some("Ann".to_string()));
    assert_eq!(first_name(""), None);
}

#[test]
#[ignore]
fn badges_of_one_name_are_equal() {
    assert_eq!(Badge::new("Ann"), Badge::new("Ann"));
    assert_ne!(Badge::new("Ann"), Badge::new("Bo"));
}
"""
GREETING = """pub fn hello(name: &str) -> String {
    format!("Hello, {name}!")
}

pub fn first_name(name: &str) -> Option<String> {
    name.split_whitespace().next().map(|n| n.to_string())
}

#[derive(Debug, PartialEq)]
pub struct Badge(String);

impl Badge {
    pub fn new(name: &str) -> Self {
        Badge(name.to_string())
    }
}
"""
BADGE = GREETING[GREETING.index("pub fn first_name"):]
EQUALS_EVERYTHING = {
    "a type of its own": solution("""#[derive(Debug)]
pub struct Anything;

impl PartialEq<&str> for Anything {
    fn eq(&self, _: &&str) -> bool { true }
}

pub fn hello(_name: &str) -> Anything { Anything }
""", BADGE),
    "behind impl PartialEq": solution("""#[derive(Debug)]
pub struct Anything;

impl PartialEq<&'static str> for Anything {
    fn eq(&self, _: &&'static str) -> bool { true }
}

pub fn hello(_name: &str) -> impl PartialEq<&'static str> + std::fmt::Debug { Anything }
""", BADGE),
}
# Each names its own `Some`, which the tests' `use greeting::*;` takes in place of the
# prelude's: `first_name` then answers None, and `Some("Ann")` is None too.
SHADOWS_THE_PRELUDE = {
    "a function": """#[allow(non_snake_case)]
pub fn Some(_name: String) -> Option<String> { Option::None }
""",
    "a renamed re-export": """pub fn nothing(_name: String) -> Option<String> { Option::None }
pub use self::nothing as Some;
""",
    "a module's, re-exported": """mod m {
    #[allow(non_snake_case)]
    pub fn Some(_name: String) -> Option<String> { Option::None }
}
pub use m::Some;
""",
    "a macro's caller": """macro_rules! item {
    ($v:vis $n:ident) => { #[allow(non_snake_case)] $v fn $n(_n: String) -> Option<String> { Option::None } }
}
item!(pub Some);
""",
}
HONEST_OWN_TYPES = solution("""use std::borrow::Cow;

pub fn hello(name: &str) -> Cow<'static, str> {
    Cow::Owned(format!("Hello, {name}!"))
}

pub fn first_name(name: &str) -> Option<String> {
    let first: String = name.chars().take_while(|c| !c.is_whitespace()).collect();
    if first.is_empty() { None } else { Some(first) }
}

#[derive(Debug)]
pub struct Badge(String);

impl Badge {
    pub fn new(name: &str) -> Self { Badge(name.to_lowercase()) }
}

impl PartialEq for Badge {
    fn eq(&self, other: &Self) -> bool { self.0.eq_ignore_ascii_case(&other.0) }
}
""", "")


def write_greeting(root: Path) -> Path:
    return write_exercise(root, "greeting", {
        "Cargo.toml": '[package]\nedition = "2021"\nname = "greeting"\nversion = "1.0.0"\n',
        "src/lib.rs": 'pub fn hello(name: &str) -> String {\n    todo!("{name}")\n}\n',
        "tests/greeting.rs": GREETING_TESTS, ".meta/example.rs": GREETING,
    }, solution=["src/lib.rs", "Cargo.toml"], test=["tests/greeting.rs"], example=[".meta/example.rs"])


def test_what_the_tests_compare_is_read_from_the_demangled_assertions():
    listing = ("core::panicking::assert_failed::<greeting::Anything, &str>\n"
               "core::panicking::assert_failed::<core::option::Option<fn(&str) -> bool>, alloc::vec::Vec<(u8, char)>>\n"
               "core::panicking::assert_failed::<alloc::vec::Vec<greeting::hello::{closure#0}>, &'static str>\n")
    found = RUST.operand_types(listing)
    assert found == {"greeting::Anything", "&str", "core::option::Option<fn(&str) -> bool>",
                     "alloc::vec::Vec<(u8, char)>", "alloc::vec::Vec<greeting::hello::{closure#0}>", "&'static str"}
    assert RUST.unexpected(found, {"greeting::Anything"}) == ["alloc::vec::Vec<greeting::hello::{closure#0}>"]


def test_a_type_of_its_own_that_equals_everything_is_forged(tmp_path):
    task = load_task(write_greeting(tmp_path))
    rust = language_for(task)
    with make_backend("docker").session("rust-compared", "rust") as session:
        # Its own Badge sends for the reference's build, beside it: the run is still its own.
        wrong = rust.run_tests(task, {"src/lib.rs": GREETING.replace("Hello", "Hi").encode()}, session)
        assert wrong.status is Status.failed and not wrong.forged, wrong
        assert [t.status for t in wrong.tests] == [Status.failed, Status.passed, Status.passed], wrong
        for name, source in EQUALS_EVERYTHING.items():
            report = rust.run_tests(task, {"src/lib.rs": source}, session, transcript=True)
            assert report.forged and not report.passed and report.built and report.tests == [], (name, report)
            assert report.forgery == [
                "the tests compare a greeting::Anything where the reference's build compares &str or "
                "alloc::string::String or core::option::Option<alloc::string::String> or greeting::Badge: a type of the "
                "solution's own decides what the assertion says, not the value the tests ask for"], (name, report.forgery)
            assert report.message in (report.transcript or ""), name
        for name, shadow in SHADOWS_THE_PRELUDE.items():
            source = GREETING.replace("name.split_whitespace().next().map(|n| n.to_string())", "Option::None")
            report = rust.run_tests(task, {"src/lib.rs": (shadow + source).encode()}, session)
            assert report.forged and not report.built and not report.passed, (name, report)
            assert "the tests' glob import would take in place of the language's own" in (report.message or "") \
                or "an item named by a macro's caller" in (report.message or ""), (name, report.message)
        honest = rust.run_tests(task, {"src/lib.rs": HONEST_OWN_TYPES}, session)
        assert honest.passed and not honest.forged and len(honest.tests) == 3, honest
        gold = rust.run_tests(task, task.reference_files(), session)
        assert gold.passed and not gold.forged, gold


def test_the_prelude_names_a_tasks_own_solutions_declare_are_the_solutions_to_declare_too():
    """forth's stub declares `pub type Result`, which its tests use through `use forth::*;`."""
    stub = {"src/lib.rs": b"pub type Result = std::result::Result<(), Error>;\npub struct Error;\n"}
    assert declared_names(stub) == {"Result"}
    answer = {"src/lib.rs": b"pub type Result = std::result::Result<(), Error>;\n#[derive(Debug)]\npub struct Error;\n"}
    assert refusals(answer) and refusals(answer, may_declare=declared_names(stub)) == []
    private = (b"#[allow(non_snake_case)]\nfn Some() {}\nenum E { None }\npub(crate) fn Ok() {}\n"
               b"impl std::str::FromStr for X { type Err = (); }\n")
    assert refusals({"src/lib.rs": private}) == []
