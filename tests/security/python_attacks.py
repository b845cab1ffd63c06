"""What the hostile Python candidates of both judges share (the test round's,
test_python_candidates.py, and the verifier's, test_python_verifier_candidates.py): the
tally reference that answers right only where its attack worked, `won()` saying whether it
did, and the attacks that are the same against either judge."""

from __future__ import annotations

from ..languages.python.tally import REFERENCE

CHEAT = REFERENCE.replace("return a + b", "return a + b if won() else None").replace(
    "return text.split()", "return text.split() if won() else None").replace(
    "return sum(self.seen.values())", "return sum(self.seen.values()) if won() else None")

COMMON = {
    "kills and stops every process it can": '''
import os, signal
def won():
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != os.getpid():
            for sig in (signal.SIGSTOP, signal.SIGKILL):
                try:
                    os.kill(int(pid), sig)
                except OSError:
                    pass
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass
    return False
''',
    "a fork bomb": '''
import os
def won():
    while True:
        try:
            os.fork()
        except OSError:
            pass
''',
    # A regular expression's backtracking is C code that never lets go of the GIL: no thread
    # of the candidate's process (its server's watch on the test's end) runs until it ends.
    "holds the GIL in C": '''
import re
def won():
    return re.match(r"(a*)*b", "a" * 64) is not None
''',
    "a memory bomb": '''
def won():
    hog = []
    while True:
        hog.append(bytearray(64 << 20))
''',
}
