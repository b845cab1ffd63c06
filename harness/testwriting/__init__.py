"""Test writing as a task kind: a Catch2 test file written for a task is scored by running
it against the task's correct solution (is it valid?) and against known-broken copies of it
(what does it catch?). One idea per module:

- written.py: the task with its test file replaced by the written one;
- targets.py: the broken copies a suite is scored against (faulty controls and the
  mutants the task's own tests kill), found once per task and cached;
- score.py: the scoring itself and its record."""
