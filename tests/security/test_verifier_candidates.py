"""Candidates of our own that try to earn reward they did not (tests/security/README.md
lists them and what each tries). Every one is verified on phone-number in the real Docker
sandbox, in one batch, and those whose expect.toml says `every_backend` on the local
backend too; each must get the status its expect.toml names and no more reward than its
honest behaviour earns; the honest twins of the stream forgers (reject-everything,
validates-only, constant-answer) are among them, so the table shows them side by side.
The batch holds candidates that try to end it (values no reader survives) or to harm the
candidates after them (a fork bomb, full disks, a flood of output): every other verdict
must still be what it would be alone. The test prints how many were tried and how many got
more."""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from pathlib import Path

import pytest

from harness.sandbox.base import SandboxLimits
from harness.task import load_task
from harness.verify import VerdictStatus, verify_in_session, verify_many

from ..conftest import ROOT, make_backend

HERE = Path(__file__).resolve().parent
TASK = load_task(ROOT / "suites" / "fixed26" / "phone-number")
LIMITS = SandboxLimits(timeout_s=8, build_timeout_s=240)
_SHARED_INCLUDE = re.compile(rb'^#include "shared/([\w.]+)"\n', re.M)

pytestmark = [pytest.mark.slow, pytest.mark.docker]


def candidate(name: str) -> dict[str, bytes]:
    """A candidate's files as the verifier gets them: the shared header unless it brings
    its own, and `#include "shared/..."` lines replaced by that file (and so on inside it,
    each file once), so each candidate is self-contained when it reaches the sandbox."""
    folder = HERE / "candidates" / name
    files = {"phone_number.h": (HERE / "shared" / "phone_number.h").read_bytes()}
    for p in folder.iterdir():
        if p.name != "expect.toml":
            files[p.name] = p.read_bytes()
    def inline(data: bytes, seen: frozenset = frozenset()) -> bytes:
        def one(m):
            name = m.group(1).decode()
            return b"" if name in seen else inline((HERE / "shared" / name).read_bytes(), seen | {name})

        return _SHARED_INCLUDE.sub(one, data)

    return {n: inline(data) for n, data in files.items()}


NAMES = sorted(p.name for p in (HERE / "candidates").iterdir() if (p / "expect.toml").is_file())


def expectation(name: str) -> dict:
    return tomllib.loads((HERE / "candidates" / name / "expect.toml").read_text())


# A candidate that acts on its process's surroundings at run time (inherited fds, children,
# /proc, files, the clock) meets each backend's own isolation, so it runs on both. The rest
# act on the source, the build or their own process, which both backends build and run the
# same way; running them twice doubled the suite's cost and tested nothing new.
BACKEND_NAMES = {"docker": NAMES, "local": [n for n in NAMES if expectation(n).get("every_backend")]}


def test_there_are_enough_candidates():
    assert len(NAMES) >= 60
    # The behaviours the probe verifier must shrug off, each with a candidate of its own.
    assert {"stdout-probe-records", "records-on-inherited-fds", "fork-rewrites-records", "sleep-past-timeout",
            "exit-in-static-initialiser", "operator-new-override", "operator-new-forges", "throwing-destructor",
            "rewrite-stream-at-exit", "replace-probe-emit", "extra-probe-cases"} <= set(NAMES)
    assert {"records-on-inherited-fds", "fork-rewrites-records", "fork-outlives-run", "sleep-past-timeout",
            "stdout-probe-records", "rewrite-stream-at-exit"} <= set(BACKEND_NAMES["local"])
    # Issue 28: every shape of forged stream, and the three ways in that were found to work.
    assert {"encoder-specialisation", "interposed-write", "proc-fd-value-and-exception", "strong-emit-definition",
            "deep-nesting", "huge-integer", "nan-token", "giant-string", "duplicate-key", "non-ascii-bytes",
            "extra-key", "neither-value-nor-exception", "constant-claim", "fork-bomb", "fill-tmp",
            "flood-output"} <= set(NAMES)


@pytest.mark.parametrize("backend", ["docker", "local"])
def test_no_candidate_earns_more_than_its_behaviour(backend, capsys):
    sandbox = make_backend(backend, LIMITS)
    names = BACKEND_NAMES[backend]
    verdicts = dict(zip(names, verify_many(TASK, [candidate(n) for n in names], sandbox=sandbox, workers=2)))
    problems, rewarded = [], []
    for name, v in verdicts.items():
        want = expectation(name)
        if v.reward > want["max_reward"] + 1e-9:
            rewarded.append(name)
        # A candidate that races the harness may be caught one way or another depending on
        # who wins; its expect.toml then lists every status that is a right answer.
        allowed = want["status"] if isinstance(want["status"], list) else [want["status"]]
        if v.status.value not in allowed:
            problems.append(f"{name}: status {v.status.value} ({v.reason}), expected {' or '.join(allowed)}")
        if "reward" in want and abs(v.reward - want["reward"]) > 1e-9:
            problems.append(f"{name}: reward {v.reward}, expected {want['reward']}")
        missing_flags = set(want.get("flags", ())) - {f.rule for f in v.flags}
        if missing_flags:
            problems.append(f"{name}: the screen did not flag {sorted(missing_flags)}")
        if v.tampered != want.get("tampered", []):
            problems.append(f"{name}: tampered {v.tampered}, expected {want.get('tampered', [])}")
        if want.get("stolen_nothing") and "stolen=|" not in (v.output or ""):
            problems.append(f"{name}: read something where the token was: {(v.output or '')[:200]!r}")
        if "max_run_seconds" in want and v.run_seconds > want["max_run_seconds"]:
            problems.append(f"{name}: the run took {v.run_seconds} s")
    with capsys.disabled():
        print(f"\n[{backend}] hostile candidates tried: {len(verdicts)}; "
              f"rewarded beyond their honest behaviour: {len(rewarded)} {rewarded or ''}; "
              f"statuses: {dict(sorted(Counter(v.status.value for v in verdicts.values()).items()))}")
    assert not rewarded, f"earned reward they did not: {rewarded}"
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("backend", ["docker", "local"])
def test_a_forked_child_cannot_touch_the_next_candidate(backend):
    """The child of fork-outlives-run waits a second and then writes forged streams into
    every fd 4 it can open; the reference verified next in the same session must still be
    judged on its own values."""
    sandbox = make_backend(backend, LIMITS)
    with sandbox.session("security fork") as session:
        first = verify_in_session(TASK, candidate("fork-outlives-run"), session)
        assert first.status is VerdictStatus.ok and first.reward == -1.0, first.reason
        second = verify_in_session(TASK, TASK.reference_files(), session)
        assert second.status is VerdictStatus.ok, second.reason
        assert second.reward == 1.0
