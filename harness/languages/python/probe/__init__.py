"""Python's probe (`languages.language.CallProbe`): calls of a task's interface written in
Python in `.meta/verifier.toml` (calls.py), run by the harness's driver (runtime.py) in the
builder's process of a round laid out as a test round is, the candidate's modules behind
the proxy in processes of their own (run.py); or a task's own test cases, each observed as
how it ended in a test round. The stream is framed and bounded as C++'s (probe/stream.py,
probe/schema.py), and read back from a folder only the builder reads."""

from .run import PythonCallProbe, TestCaseProbe

__all__ = ["PythonCallProbe", "TestCaseProbe"]
