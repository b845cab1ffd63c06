"""The judge outside the candidate by construction (issue 31).

In pytest the test file and the module it tests share one process, so a candidate could
patch pytest, its reports, `sys.exit`, `os._exit`, `atexit` or `builtins` at import. Here
the candidate's module runs in a process of its own (`server.py`) and the test process
imports, under the module's name, a generated proxy (`install.py`) whose functions, classes
and objects (`proxies.py`) forward every use to it over a pair of pipes (`client.py`), one
frame per message (`wire.py`), values in one strict, bounded encoding (`codec.py`). The test process
never imports, evaluates or unpickles anything of the candidate's, and its assertions
compare values it decoded itself.

What crosses, and how:
- None, bool, int (about 4,200 digits), float, str and bytes (10**6 each), range, list,
  tuple, dict, set and frozenset (64 deep, 100,000 values a message) cross as values; the
  standard library's OrderedDict, defaultdict and Counter arrive as dicts. Anything else,
  or over a bound, stays in the candidate's process and arrives as a handle (so do the
  arguments of a call to a lent callable, below, that are too large for one frame).
- A class arrives as a proxy class, one per class, with proxy bases that mirror the
  candidate's (16 deep and 16 wide; past that an exception's nearest builtin base), so
  `isinstance(x, Cls)` and `pytest.raises(CustomError)` hold; calling it
  constructs there; its objects' attributes, methods, operators, `len`, `iter`/`next`
  (generators and iterators, one call an item), `in`, indexing, `hash`, `str`, `repr` and
  `with` are calls there. The same object arrives as the same proxy, so `is` holds.
- An exception comes back as the builtin of its name (ValueError, KeyError, StopIteration)
  or as its proxy class (a custom one, subclass of its proxied bases), with its args and
  the remote traceback as a note. SystemExit, KeyboardInterrupt and GeneratorExit come back
  as stand-ins of the same name that are not Exceptions, so that neither ends the run nor
  satisfies `pytest.raises(Exception)`.
- Any other object of the test (a lambda, a mock, a file object) is lent: in the
  candidate's process it is a stand-in whose calls, iteration, `with`, `len`, indexing,
  `in`, `str` and public attributes are requests answered in the test process (list-ops,
  react); the candidate can neither read a private or special attribute of it (no
  `__globals__`, no `_outcome`) nor change it. What a test sets or deletes on the proxy
  module is set or deleted in the candidate's module: `mock.patch("grep.open", ...)` holds.

Equality: a handle never equals a plain value here (`assert f() == 5` is False if `f`
returned an object of the candidate's, whatever its `__eq__`); two handles compare by the
candidate's own rule, computed in its process and returned as a bool (clock, custom-set).

Each side gives a message room on its stack (wire.Room): a candidate that recursed to its
limit through a lent callable gets its RecursionError as in one process, and the two sides
stay in step.

When there is no answer: the server's death, a call over its time bound
(`call_timeout_s`), or the session's total time spent (`total_timeout_s`, which bounds a
remote iteration of a huge value) ends the candidate's process; that call and every later
one raise a `client.ProxyError`, a BaseException, so that no `except Exception` or
`assertRaises(Exception)` of a test passes on it. There is no restart: a module's state
lives as long as the run. A frame that no honest server sends (not JSON of the protocol,
out of order, over a bound, an answer of the wrong type for `==`, `len`, `iter`) makes the
run forged: the session writes `forged: <reason>` to the harness's verdict file
(`install.read_verdict`), ends the candidate's process, and raises `client.Forged` from
that call and every later one.

What cannot be proxied (gold of Aider's 34 Python exercises passes 33/34 through the proxy,
on the host and in the sandbox's round, with the stubs failing as they do in one process):
- paasio: its test helper `SuperMock` decides what `super()` returns by reading the
  caller's stack for a frame of the candidate's file, and its `MeteredFile` subclasses
  `io.BufferedRandom` over the test's mock file; neither holds across two processes. A
  task whose test files read the stack, paasio alone of the 34, runs its tests in one
  process with the candidate, behind a static screen of the candidate's source
  (languages/python/inprocess.py, screen.py); gold passes 34/34 that way.
- What inspects the module itself: `inspect.getsource`, `__file__`, the module's
  `__dict__`, `dir()`, `from module import *` (dunder names are answered locally, absent).
- A test's subclass of a candidate's class constructs the candidate's class; `copy` of a
  proxy names the same remote object; `isinstance(x, dict)` is False for an object of a
  candidate's subclass of a builtin.
- Objects of two proxied modules do not mix (one process each).

The security rests on the process boundary only where the sandbox makes it one: there the
server runs as the runner and the test process as the builder, two execs that meet on named
pipes the builder made (`ProxyConfig.fifos`, wire.meet; languages/python/testrun.py), so the
candidate can neither signal the test process nor write its verdict file."""
