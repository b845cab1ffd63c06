"""The tally exercise (tally.py) with a `.meta/verifier.toml` of Python calls: expressions and
a call sequence, in three groups, one check compared by exception. Its reference earns +1,
the wrong answer (empty words kept) fails one check of four (+0.5), the stub all (-1)."""

from __future__ import annotations

from pathlib import Path

from harness.task import Task, load_task

from .tally import write_tally

VERIFIER = """\
[[groups]]
name = "math"

[[groups]]
name = "text"

[[groups]]
name = "state"

[[checks]]
name = "adds integers, floats and big integers"
group = "math"
calls = ["add(2, 3)", "add(0.5, 0.25)", "add(10 ** 30, 1)"]

[[checks]]
name = "adding a number and text raises TypeError"
group = "math"
compare = "exception"
calls = ["add(1, 'a')"]

[[checks]]
name = "splits on runs of whitespace"
group = "text"
calls = ["words('a b  c')", "tuple(words(' x\\ty '))"]

[[checks]]
name = "counts every word"
group = "state"
calls = ['''
t = Tally()
for word in "a b a".split():
    t.count(word)
=> t.total()
=> t.seen
=> set(t.seen)
''']
"""

CALLS = 7


def write_verified_tally(folder: Path, verifier: str = VERIFIER) -> Task:
    task = write_tally(folder)
    (task.path / ".meta" / "verifier.toml").write_text(verifier)
    return load_task(task.path)
