"""What a run that left nothing readable is reported as: the limit's kill, or the exec's own
account of itself, so that a user (and whoever reads a flaky round) can tell a run whose
output broke off from one that ended before it printed."""

from __future__ import annotations

from harness.sandbox.capture import Kept, capture, lost_run

from tests.conftest import make_backend


def test_a_run_that_ends_before_its_files_are_read_back_says_how_it_ended():
    with make_backend("local").session("capture-lost") as session:
        ran, got = capture(session, "echo partial; exit 3", (Kept("out", 64),), timeout_s=30)
        assert got is None and not ran.timed_out
        assert lost_run(ran, 5) == "the test run left no readable results (exit status 3, 8 bytes of output)"
        ran, got = capture(session, "sleep 30", (Kept("out", 64),), timeout_s=1)
        assert got is None and ran.timed_out
        assert lost_run(ran, 1) == "the test run timed out after 1 s and was killed"
