"""On the local backend a candidate cannot take the CPU of a concurrent session by spreading
over many processes (issue 34's CI: a concurrent round ran past its limit beside a bomb).

Each of its processes taking a session of its own (setsid) gets it an autogroup of its own,
which the scheduler weighs like a whole other session: 60 of them left a concurrent
session's half second of work about 7 s of wall time here. In a cpu cgroup of the session's
own (sandbox/cpu_group.py) they weigh as one."""

from __future__ import annotations

import threading
import time

import pytest

from harness.sandbox import cpu_group
from harness.sandbox.base import Role, SandboxLimits
from harness.sandbox.local import LocalSandbox

pytestmark = [pytest.mark.slow]

SPREAD = "for i in $(seq 60); do setsid sh -c 'while :; do :; done' & done; sleep 6"
HALF_A_SECOND = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.5:\n    pass\n"


@pytest.mark.skipif(not cpu_group.available(), reason="this host lets no cpu cgroup be made (not root, or cgroup v2 without delegation)")
def test_a_candidate_spread_over_many_sessions_takes_one_sessions_share():
    box = LocalSandbox(SandboxLimits(timeout_s=30))
    assert "cpu cgroup" in box.isolation
    with box.session("spreads") as spreads, box.session("works") as works:
        bomb = threading.Thread(target=spreads.exec, args=(["sh", "-c", SPREAD],),
                                kwargs=dict(role=Role.runner, timeout_s=10))
        bomb.start()
        time.sleep(1.5)  # its 60 processes started
        done = works.exec(["python3", "-c", HALF_A_SECOND], role=Role.runner, timeout_s=30)
        bomb.join()
    assert done.exit_code == 0, done.output
    # One session's share of two cores is a core; spread over 61 sessions' shares it was 1/30.
    assert done.seconds < 3.0, done.seconds
