"""A candidate's exception read in the test process as pytest shows it when the module and
its tests share one process (Aider's benchmark): the test's line, then the candidate's own
frames, file, line and function, each with its arguments.

The server lists its exception's frames (`listed`); the test process rebuilds them
(`traceback_of`) as frames of code objects of its own, each named and numbered as the
candidate's and holding nothing but its argument names, bound to stand-ins that show the
candidate's repr of each argument. No code of the candidate runs here and nothing it sent
is evaluated: a frame is a name, two numbers and strings. A frame in one of the candidate's
files is named by its path in the candidate's folder, relative, as pytest run in the tests'
folder prints a module beside the tests (`slug.py`, as in Aider's exercise folder), with its
source read as text from the candidate's file; a frame named in
the round's other folders is left out (its source would be the tests' or the harness's);
any other (the standard library's) is shown from that file, as pytest shows it."""

from __future__ import annotations

import keyword
import linecache
import os
import re
import sys
import types
from typing import Any

MAX_FRAMES = 64
MAX_PATH = 1024
MAX_NAME = 256
MAX_ARGS = 16
MAX_REPR = 1000
MAX_LINE = 10_000_000
MAX_SOURCE = 1 << 20
_CO_VARARGS, _CO_VARKEYWORDS = 0x04, 0x08
_GETFRAME = "__harness_getframe__"  # the one name a rebuilt frame uses besides its arguments
# The argument a comprehension's or a generator expression's code gets (its iterator): pytest
# shows it as `.0 = <list_iterator object at ...>`.
_IMPLICIT = re.compile(r"\.[0-9]{1,3}")


def listed(tb: types.TracebackType | None, hidden: tuple[str, ...]) -> list:
    """The frames of `tb` (the server's side), those of files starting with `hidden` (the
    proxy's, the import machinery's) left out: [file, line, first line, name, [[arg, repr]...]]."""
    frames: list[list] = []
    while tb is not None and len(frames) < MAX_FRAMES:
        code = tb.tb_frame.f_code
        if not code.co_filename.startswith(hidden):
            # The names pytest shows (_pytest._code.Code.getargs(var=True), flags added as it adds them).
            count = code.co_argcount + (code.co_flags & _CO_VARARGS) + (code.co_flags & _CO_VARKEYWORDS)
            args: dict[str, str] = {}
            for name in code.co_varnames[:min(count, MAX_ARGS)]:
                try:
                    shown = repr(tb.tb_frame.f_locals[name])
                except BaseException:  # the candidate's __repr__ raises, or the name is unbound
                    continue
                # pytest shows a long repr's head and tail (saferepr): both kept.
                half = MAX_REPR // 2
                args.setdefault(name[:MAX_NAME], shown if len(shown) <= MAX_REPR else shown[:half] + shown[-half:])
            # Within well_formed's bounds whatever the code object says (a line of None where it
            # has no line, a first line after it, a file named ""), so that no honest frame is refused.
            line = tb.tb_lineno if type(tb.tb_lineno) is int and 0 < tb.tb_lineno <= MAX_LINE else code.co_firstlineno
            line = line if 0 < line <= MAX_LINE else 1
            frames.append([code.co_filename[:MAX_PATH] or "?", line, min(max(code.co_firstlineno, 1), line),
                           code.co_name[:MAX_NAME], [list(arg) for arg in args.items()]])
        tb = tb.tb_next
    return frames


def well_formed(frames: Any) -> bool:
    """Whether `frames` (from the candidate's process) is a list `listed` can make."""
    def arg(a: Any) -> bool:
        return (type(a) is list and len(a) == 2 and type(a[0]) is str and len(a[0]) <= MAX_NAME
                and (a[0].isidentifier() and not keyword.iskeyword(a[0]) or _IMPLICIT.fullmatch(a[0]) is not None)
                and type(a[1]) is str and len(a[1]) <= MAX_REPR)

    def frame(f: Any) -> bool:
        return (type(f) is list and len(f) == 5 and type(f[0]) is str and 0 < len(f[0]) <= MAX_PATH
                and type(f[1]) is int and 0 < f[1] <= MAX_LINE and type(f[2]) is int and 0 < f[2] <= f[1]
                and type(f[3]) is str and len(f[3]) <= MAX_NAME and type(f[4]) is list and len(f[4]) <= MAX_ARGS
                and all(arg(a) for a in f[4]) and len({a[0] for a in f[4]}) == len(f[4]))

    return type(frames) is list and len(frames) <= MAX_FRAMES and all(frame(f) for f in frames)


class _Shown:
    """An argument as the candidate's process printed it."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _inside(path: str, folder: str) -> str | None:
    """`path` relative to `folder` when inside it, else None."""
    rel = os.path.relpath(os.path.normpath(path), os.path.normpath(folder))
    return None if rel == os.curdir or rel.startswith(os.pardir) or os.path.isabs(rel) else rel


def _candidate_source(candidate_dir: str, rel: str) -> list[str] | None:
    real_dir = os.path.realpath(candidate_dir)
    path = os.path.realpath(os.path.join(real_dir, rel))
    if _inside(path, real_dir) is None or not os.path.isfile(path):
        return None
    with open(path, "rb") as fh:
        data = fh.read(MAX_SOURCE)
    return data.decode("utf-8", errors="replace").splitlines(keepends=True)


def _frame(path: str, first: int, name: str, args: list) -> types.FrameType:
    """A finished frame of a code object named `name`, in `path` from line `first`, whose
    arguments are `args`' names bound to their shown values."""
    # Compiled with placeholders, then named: `.0` is no name a source can spell.
    source = f"def _({', '.join(f'a{i}' for i in range(len(args)))}):\n    return {_GETFRAME}()\n"
    outer = compile(source, path, "exec")
    code = next(c for c in outer.co_consts if isinstance(c, types.CodeType))
    names = tuple(a[0] for a in args)
    code = code.replace(co_name=name, co_qualname=name, co_firstlineno=first, co_varnames=names) \
        if sys.version_info >= (3, 11) else code.replace(co_name=name, co_firstlineno=first, co_varnames=names)
    function = types.FunctionType(code, {_GETFRAME: sys._getframe, "__builtins__": {}})
    return function(*(_Shown(a[1]) for a in args))


def traceback_of(frames: list, candidate_dir: str) -> types.TracebackType | None:
    """The candidate's frames (well_formed) as a traceback of this process, outermost first."""
    round_root = os.path.dirname(os.path.normpath(candidate_dir))
    built: list[tuple[types.FrameType, int]] = []
    for path, line, first, name, args in frames:
        rel = _inside(path, candidate_dir)
        if rel is not None:
            lines = _candidate_source(candidate_dir, rel)
            path = rel
            if lines is not None and not os.path.exists(path):
                linecache.cache[path] = (sum(map(len, lines)), None, lines, path)
        elif _inside(path, round_root) is not None:
            continue
        built.append((_frame(path, first, name, args), line))
    tb = None
    for frame, line in reversed(built):
        tb = types.TracebackType(tb, frame, 0, line)
    return tb
