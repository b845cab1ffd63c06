"""The static screen of in-process candidates (harness/languages/python/screen.py) and the
rule that picks in-process tasks (inprocess.py), on sources written here:

- each rule refuses what it names, with its rule and line (a route around one, such as
  `g = getattr`, too); the honest reference of the
  in-process exercise passes, and so do the idioms honest solutions write (super() calls,
  properties, constants computed from the allowed modules, data-model methods);
- a task runs in process when a test file reads the stack, not otherwise."""

from __future__ import annotations

import pytest

from harness.languages.python.inprocess import runs_in_process
from harness.languages.python.screen import screen

from .meter import REFERENCE, STUB, write_meter
from .tally import write_tally

REFUSED = {
    "import sys\n": "import",
    "import os.path as p\n": "import",
    "from importlib import import_module\n": "import",
    "from . import meter\n": "import",
    "from io import *\n": "import",
    "from io import open\n": "import",
    "import io\ndef f():\n    return io.FileIO('meter_test.py')\n": "import",
    "import random\ndef f():\n    return random._os\n": "import",
    "import dataclasses\ndef f():\n    dataclasses.sys.exit(0)\n": "import",
    "import io\ndef f():\n    x = io\n    return x\n": "import",
    "from operator import attrgetter\n": "import",
    "def f():\n    __builtins__['len'] = None\n": "dunder",
    "def f():\n    return __import__('os')\n": "dunder",
    "def f():\n    return ().__class__.__base__.__subclasses__()\n": "dunder",
    "def f(g):\n    return '{0.__globals__}'.format(g)\n": "dunder",
    "def f(g):\n    return '{0.f_back}'.format(g)\n": "format",
    "def f(g, t):\n    return t.format(g)\n": "format",
    "def f(g):\n    return str.format('{}', g)\n": "format",
    "def f():\n    return eval('1')\n": "builtin",
    "def f():\n    exec('x = 1')\n": "builtin",
    "def f():\n    return compile('1', 'x', 'eval')\n": "builtin",
    "def f():\n    return globals()\n": "builtin",
    "def f():\n    return locals()\n": "builtin",
    "def f(x):\n    return vars(x)\n": "builtin",
    "def f():\n    breakpoint()\n": "builtin",
    "def f():\n    return open('meter_test.py').read()\n": "builtin",
    "def f():\n    return input()\n": "builtin",
    "def f():\n    raise SystemExit(0)\n": "builtin",
    "def f(e):\n    return getattr(e, '__tra' + 'ceback__')\n": "reflection",
    "def f(e, name):\n    setattr(e, name, 1)\n": "reflection",
    "def f(e):\n    return hasattr(e, '__class__')\n": "reflection",
    "def f(g):\n    return getattr(g, 'gi_frame')\n": "reflection",
    "def f():\n    return type('X', (), {})\n": "builtin",
    "def f(x):\n    return type(type(x))('X', (), {})\n": "builtin",
    "import enum\n": "import",
    "import dataclasses\ndef f():\n    return dataclasses.make_dataclass('X', [])\n": "import",
    "from typing import NamedTupleMeta\n": "import",
    "def f():\n    try:\n        raise ValueError\n    except ValueError as e:\n        return e.__traceback__\n": "dunder",
    "def f(tb):\n    return tb.tb_frame.f_back.f_globals\n": "internals",
    "def f():\n    g = (x for x in [])\n    return g.gi_frame\n": "internals",
    "async def f(c):\n    return c.cr_frame\n": "internals",
    "def f(code):\n    return code.co_consts\n": "internals",
    "def f(source):\n    source.assert_called_once_with = lambda *a: None\n": "internals",
    "def f(source):\n    source.side_effect = None\n": "internals",
    "class M(type):\n    pass\n": "class",
    "class X(object, metaclass=type):\n    pass\n": "class",
    "import functools\n@functools.lru_cache\ndef f():\n    pass\n": "decorator",
    "@(lambda f: f)\ndef f():\n    pass\n": "decorator",
    "def f():\n    global len\n    len = None\n": "scope",
    "def f():\n    pass\nf()\n": "module-level",
    "X = [1]\nX.append(2)\n": "module-level",
    "if True:\n    X = 1\n": "module-level",
    "class C:\n    pass\nORIGIN = C()\n": "module-level",
    "class Anything:\n    def __eq__(self, other):\n        return True\n": "comparison",
    "class Truthy:\n    def __bool__(self):\n        return True\n": "comparison",
    "class Name(str):\n    def __hash__(self):\n        return 0\n": "comparison",
    "def f(:\n": "syntax",
    "def f(e):\n    g = getattr\n    return g(e, 'x')\n": "reflection",
    "def f(xs):\n    return list(map(getattr, xs, ['a']))\n": "reflection",
    "def f():\n    t = type\n    return t('X', (), {})\n": "builtin",
    "import dataclasses\ndef f(g):\n    return dataclasses.make_dataclass('X', [], namespace=dict(__eq__=g))\n": "dunder",
    "class M:\n    def pull(self, source):\n        source.reads = 2\n": "mutation",
    "class M:\n    def pull(self):\n        self._source.reads += 1\n": "mutation",
    "class M:\n    def pull(self, source):\n        setattr(source, 'reads', 2)\n": "mutation",
    "def f(source):\n    del source.data\n": "mutation",
    "class M:\n    def pull(self):\n        return (lambda: setattr(self, 'x', 1))()\n": "mutation",
}

ALLOWED = [
    REFERENCE, STUB,
    "from __future__ import annotations\nimport re\nWORD = re.compile(r'\\w+')\nNODE, EDGE = range(2)\n",
    "import io as stream\nclass R(stream.BytesIO):\n    def __iter__(self):\n        return self\n"
    "    def __next__(self):\n        return super().__next__()\n",
    "class P:\n    __slots__ = ('x',)\n    @property\n    def x(self):\n        return 1\n"
    "    @x.setter\n    def x(self, value):\n        pass\n    @staticmethod\n    def s():\n        return getattr(P, 's')\n",
    "from collections import Counter\nfrom string import punctuation\nPUNCT = set(punctuation)\n"
    "COUNTS = {'a': 1, 'b': -2}\nTOTAL: int = 3 * 4\ndef f(text):\n    return Counter(text).most_common(1)\n",
    "count = 0\ndef f():\n    global count\n    count += 1\n    return f'{count!r:>4}'\n",
    "class Wrap:\n    def __init__(self, inner):\n        self._inner = inner\n"
    "    def __exit__(self, *args):\n        return self._inner.__exit__(*args)\n",
]


@pytest.mark.parametrize("source", list(REFUSED))
def test_each_rule_refuses_what_it_names_with_its_line(source):
    refusals = screen({"meter.py": source.encode()})
    assert REFUSED[source] in {r.rule for r in refusals}, refusals
    assert all(r.file == "meter.py" and r.line >= 1 for r in refusals)
    assert str(refusals[0]).startswith(f"{refusals[0].rule}: meter.py:{refusals[0].line}: ")


@pytest.mark.parametrize("source", ALLOWED)
def test_what_honest_solutions_write_passes(source):
    assert screen({"meter.py": source.encode()}) == []


def test_only_python_files_are_screened_and_in_order():
    refusals = screen({"b.py": b"import os\n", "a.py": b"import sys\n", "notes.txt": b"import os\n"})
    assert [r.file for r in refusals] == ["a.py", "b.py"]


def test_a_task_runs_in_process_when_a_test_file_reads_the_stack(tmp_path):
    assert runs_in_process(write_meter(tmp_path / "m"))
    assert not runs_in_process(write_tally(tmp_path / "t"))
