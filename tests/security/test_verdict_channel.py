"""`harness test` judged outside the candidate: the verdict of a test run is the harness's
verdict channel's (harness/languages/cpp/assets/verdict_channel.cpp, read by
harness/languages/cpp/verdict_channel.py), never the report the candidate's process wrote.

Each candidate below is a broken phone-number (it keeps no digits and never throws) that
tries to pass anyway, the way issue 28 found or the way a reader of the channel's design
would try next; each must come out not passed, and those that touch the channel forged.
The honest reference still passes, and an honest broken or crashing solution is failed or
an error, never forged. On the harness before the channel, the XML-rewriting and the
reporter-registering candidates passed, and no run was ever forged."""

from __future__ import annotations

import pytest

from harness.languages.cpp.verdict_channel import CHANNEL_CAP, ChannelKeys, judged, read_channel
from harness.languages.cpp.catch2 import CatchRun
from harness.records import Status
from harness.task import load_task
from harness.languages.cpp.testrun import run_tests

from ..conftest import ROOT

PHONE = load_task(ROOT / "suites" / "fixed26" / "phone-number")
HEADER = (PHONE.path / ".meta" / "example.h").read_text()

BROKEN = """
namespace phone_number {
phone_number::phone_number(const std::string& text) { (void)text; }
std::string phone_number::number() const { return digits_; }
}  // namespace phone_number
"""

# Rewrites the XML report named by --out into a pass, then ends with status 0: what a
# static destructor did to harness test in issue 28.
REWRITE_XML = r"""
#include <fstream>
#include <iterator>
#include <regex>
#include <unistd.h>
namespace {
std::string out_path() {
    std::ifstream f("/proc/self/cmdline", std::ios::binary);
    std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    std::string prev, arg;
    for (char c : all) {
        if (c) { arg += c; continue; }
        if (prev == "--out") return arg;
        prev = arg;
        arg.clear();
    }
    return "";
}
void rewrite_report() {
    std::string path = out_path();
    if (path.empty()) return;
    std::ifstream in(path);
    std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    xml = std::regex_replace(xml, std::regex("success=\"false\""), "success=\"true\"");
    xml = std::regex_replace(xml, std::regex("failures=\"[0-9]+\""), "failures=\"0\"");
    std::ofstream(path, std::ios::trunc) << xml;
}
struct Forger {
    ~Forger() { rewrite_report(); _exit(0); }
} forger;
}  // namespace
"""

# A reporter under the harness's own name, registered first: every case passes, status 0.
FAKE_REPORTER = r"""
#define CATCH_CONFIG_EXTERNAL_INTERFACES
#include <catch2/catch.hpp>
#include <unistd.h>
namespace {
std::string escaped(std::string const& s) {
    std::string out;
    for (char c : s) {
        if (c == '&') out += "&amp;"; else if (c == '<') out += "&lt;"; else if (c == '"') out += "&quot;"; else out += c;
    }
    return out;
}
struct Fake : Catch::StreamingReporterBase<Fake> {
    using StreamingReporterBase::StreamingReporterBase;
    static std::string getDescription() { return "all pass"; }
    void assertionStarting(Catch::AssertionInfo const&) override {}
    bool assertionEnded(Catch::AssertionStats const&) override { return true; }
    void testRunStarting(Catch::TestRunInfo const&) override {
        stream << "<?xml version=\"1.0\"?>\n<Catch name=\"x\">\n<Group name=\"x\">\n";
    }
    void testCaseEnded(Catch::TestCaseStats const& s) override {
        stream << "<TestCase name=\"" << escaped(s.testInfo.name) << "\"><OverallResult success=\"true\"/></TestCase>\n";
        ++cases;
    }
    void testRunEnded(Catch::TestRunStats const&) override {
        stream << "<OverallResults successes=\"" << cases << "\" failures=\"0\" expectedFailures=\"0\"/>\n</Group>\n"
               << "<OverallResults successes=\"" << cases << "\" failures=\"0\" expectedFailures=\"0\"/>\n</Catch>\n";
        stream.flush();
        _exit(0);
    }
    int cases = 0;
};
}  // namespace
CATCH_REGISTER_REPORTER("harness-xml", Fake)

"""

# Writes a whole stream on fd 3 before any test runs (a completion record with a guessed
# token), then lets the run go on.
WRITES_CHANNEL = r"""
#include <unistd.h>
namespace {
struct Early {
    Early() {
        const char lines[] = "{\"e\":\"done\",\"code\":0,\"cases\":0,\"mac\":\"00000000000000000000000000000000"
                             "00000000000000000000000000000000\"}\n";
        if (write(3, lines, sizeof lines - 1) < 0) return;
    }
} early;
}  // namespace
"""

# Reads whatever its stdin, its own fd 0 by /proc and its parent's offer, and sends it on
# as the token of a completion record, then ends with status 0.
READS_STDIN = r"""
#include <cstdio>
#include <fcntl.h>
#include <string>
#include <unistd.h>
namespace {
std::string drain(const char* path) {
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) return "";
    char buf[256];
    long n = read(fd, buf, sizeof buf);
    close(fd);
    return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
}
struct Thief {
    Thief() {
        char parent[64];
        std::snprintf(parent, sizeof parent, "/proc/%d/fd/0", static_cast<int>(getppid()));
        std::string got = drain("/dev/stdin") + drain("/proc/self/fd/0") + drain(parent);
        std::string token = got.substr(0, 32);
        std::string line = "{\"e\":\"done\",\"code\":0,\"cases\":0,\"mac\":\"" + token + token + "\"}\n";
        if (write(3, line.data(), line.size()) < 0) return;
        _exit(0);
    }
} thief;
}  // namespace
"""

# Ends the process with status 0 in the first test, before anything failed.
EXITS_EARLY = r"""
#include <unistd.h>
namespace phone_number {
phone_number::phone_number(const std::string& text) { (void)text; _exit(0); }
std::string phone_number::number() const { return digits_; }
}  // namespace phone_number
"""

# The reference, and one more case of its own that passes.
EXTRA_CASE = r"""
#include <catch2/catch.hpp>
TEST_CASE("a case the task does not have") { CHECK(true); }
"""

CRASHES = r"""
#include <cstdlib>
namespace phone_number {
phone_number::phone_number(const std::string& text) { (void)text; std::abort(); }
std::string phone_number::number() const { return digits_; }
}  // namespace phone_number
"""


def _reference_cpp() -> str:
    return (PHONE.path / ".meta" / "example.cpp").read_text()


def _solution(*parts: str) -> dict[str, bytes]:
    cpp = '#include "phone_number.h"\n#include <string>\n' + "\n".join(parts)
    return {"phone_number.h": HEADER.encode(), "phone_number.cpp": cpp.encode()}


@pytest.fixture(scope="module", params=["docker", "local"])
def session(request):
    sandbox = request.getfixturevalue(f"{request.param}_sandbox")
    with sandbox.session("verdict-channel") as s:
        yield s


def _test(session, files):
    report = run_tests(PHONE, files, session)
    assert report.test_main is not None
    return report


def test_the_honest_reference_passes(session):
    report = _test(session, _solution(_reference_cpp()))
    assert report.passed and not report.forged, report.forgery
    assert len(report.tests) == 18 and all(t.status is Status.passed for t in report.tests)
    assert report.assertions is not None and report.assertions.failed == 0


def test_an_honest_broken_solution_fails_and_is_not_forged(session):
    report = _test(session, _solution(BROKEN))
    assert report.status is Status.failed and not report.forged, report.forgery
    assert len(report.tests) == 18 and any(t.status is Status.failed for t in report.tests)
    assert report.failing()[0].message  # the XML's failure lines, as before


def test_an_honest_crash_is_an_error_not_forgery(session):
    report = _test(session, _solution(CRASHES))
    assert report.status is Status.error and not report.forged, report.forgery
    assert "SIGABRT" in (report.message or "")


def test_a_static_destructor_rewriting_the_xml_does_not_pass(session):
    report = _test(session, _solution(BROKEN, REWRITE_XML))
    assert not report.passed
    assert report.status is Status.failed


def test_a_reporter_under_the_harness_name_is_forgery(session):
    report = _test(session, _solution(BROKEN, FAKE_REPORTER))
    assert not report.passed and report.forged, report
    assert report.forgery


def test_a_candidate_writing_the_channel_is_forgery(session):
    report = _test(session, _solution(BROKEN, WRITES_CHANNEL, REWRITE_XML))
    assert not report.passed and report.forged
    assert any("verdict channel" in r for r in report.forgery), report.forgery


def test_a_candidate_reading_stdin_finds_no_token(session):
    report = _test(session, _solution(BROKEN, READS_STDIN))
    assert not report.passed and report.forged
    assert any("token" in r or "no record" in r for r in report.forgery), report.forgery


def test_an_early_exit_with_status_0_is_forgery(session):
    report = _test(session, _solution(EXITS_EARLY))
    assert not report.passed and report.forged
    assert any("status 0" in r for r in report.forgery), report.forgery


def test_a_case_count_other_than_the_tasks_is_forgery(session, monkeypatch):
    # The screen forges this candidate first (it includes Catch2 to add a case); with the
    # screen out of the way the channel's own count still does.
    import harness.languages.cpp.testrun

    monkeypatch.setattr(harness.languages.cpp.testrun, "judge_build", lambda *args: ([], 0.0))
    report = _test(session, _solution(_reference_cpp(), EXTRA_CASE))
    assert not report.passed and report.forged
    assert any("declare 18" in r for r in report.forgery), report.forgery


# --- the reader, on bytes no listener writes ------------------------------------------------

KEYS = ChannelKeys("a" * 32, "b" * 32, "c" * 32)


def _hex(s: str) -> str:
    return s.encode().hex()


def _case(name: str, ok: bool = True) -> bytes:
    return (f'{{"e":"start","n":"{_hex(name)}"}}\n'
            f'{{"e":"end","n":"{_hex(name)}","ok":{"true" if ok else "false"},"p":{int(ok)},"f":{int(not ok)},"m":""}}\n'
            ).encode()


def _honest(names=("x", "y"), keys: ChannelKeys = KEYS, cases: int | None = None) -> bytes:
    """A stream as the listener writes it, signed with `keys`."""
    body = b"".join(_case(n) for n in names) + _case(KEYS.pass_name) + _case(KEYS.fail_name, ok=False)
    return _done(body, keys, len(names) + 2 if cases is None else cases)


def _done(body: bytes, keys: ChannelKeys, cases: int) -> bytes:
    fields = f'{{"e":"done","code":0,"cases":{cases}'.encode()
    return body + fields + f',"mac":"{keys.signature(body + fields)}"}}\n'.encode()


def test_the_reader_takes_an_honest_stream():
    run = read_channel(_honest(), KEYS)
    assert run.complete and not run.forgery and [c.name for c in run.cases] == ["x", "y"]
    verdict, forgery = judged(CatchRun(), run, 0, False, 2)
    assert not forgery and verdict.complete and all(t.status is Status.passed for t in verdict.cases)


@pytest.mark.parametrize("data, why", [
    (_honest(keys=ChannelKeys("d" * 32, KEYS.pass_name, KEYS.fail_name)), "token"),
    (_honest().replace(b'"p":1', b'"p":2', 1), "token"),  # a record changed after it was signed
    (_honest(cases=5), "counts 5 cases"),
    (_honest() + b"\n", "follows the completion"),
    (_honest() + _case("z"), "follows the completion"),
    (_honest() + b"x", "follow the completion"),
    (b"[" * 100_000 + b"\n" + _honest(), "longer than"),
    (b"[" * 1000 + b"\n" + _honest(), "no record"),
    (b'{"e":"start","n":"' + b"00" * 200_000 + b'"}\n', "longer than"),
    (b"\xff\xfe\x80 not utf-8\n" + _honest(), "no record"),
    (b'{"e":"start","n":"zz"}\n', "no record"),
    (b'{"e":"start","n":"78","extra":1}\n', "no record"),
    (_case("x") + _case("x") + _honest(()), "twice"),
    (_done(b"".join(_case(n) for n in ("x", "y")), KEYS, 2), "sentinel"),
    (_honest().replace(b'"ok":false', b'"ok":true', 1), "disagrees"),
    (_done(_case("x") + _case("y") + _case(KEYS.pass_name) + _case(KEYS.fail_name), KEYS, 4), "must fail"),
    (b'{"e":"end","n":"78","ok":true,"p":1,"f":0,"m":""}\n', "did not start"),
])
def test_the_reader_calls_hostile_bytes_forged_and_never_raises(data, why):
    run = read_channel(data, KEYS)
    assert not run.complete and run.forgery and why in run.forgery[0], run.forgery


def test_an_overflowing_channel_is_forged():
    assert read_channel(b"x" * CHANNEL_CAP, KEYS, truncated=True).forgery


def test_a_stream_that_stops_with_a_failing_status_is_a_crash_not_forgery():
    cut = _honest()[:-30]
    run = read_channel(cut, KEYS)
    assert not run.complete and not run.forgery
    verdict, forgery = judged(CatchRun(), run, 134, False, 2)
    assert not forgery and not verdict.complete
    _, forgery = judged(CatchRun(), run, 0, False, 2)
    assert forgery and "status 0" in forgery[0]


def test_the_judge_wants_the_status_and_the_count_the_stream_and_the_task_say():
    run = read_channel(_honest(), KEYS)
    assert "status 1" in judged(CatchRun(), run, 1, False, 2)[1][0]
    assert "declare 3" in judged(CatchRun(), run, 0, False, 3)[1][0]
