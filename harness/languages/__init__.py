"""The languages a task can be written in, one folder each (`cpp/`, `python/`, `go/`, `rust/`,
`javascript/`, `java/`), each described to the rest of the harness by a `base.Layout`
registered here. An exercise's language comes from its solution files; one of a language
the harness does not have is refused in one line, never built as if it were C++."""

from __future__ import annotations

from pathlib import PurePosixPath

from ..errors import BadInput
from .base import Layout
from .cpp.layout import LAYOUT as _CPP
from .python.layout import LAYOUT as _PYTHON
from .go.layout import LAYOUT as _GO
from .rust.layout import LAYOUT as _RUST
from .javascript.layout import LAYOUT as _JAVASCRIPT
from .java.layout import LAYOUT as _JAVA

LAYOUTS: dict[str, Layout] = {layout.name: layout for layout in (_CPP, _PYTHON, _GO, _RUST, _JAVASCRIPT, _JAVA)}

# Exercism's other tracks, by their solution files' suffix: named in the refusal, so that a
# user who imports them learns what they hold and that it is not run yet.
_OTHER_TRACKS = {".ts": "TypeScript", ".kt": "Kotlin", ".cs": "C#", ".rb": "Ruby",
                 ".c": "C", ".zig": "Zig", ".swift": "Swift", ".ex": "Elixir", ".hs": "Haskell"}


# The languages of Aider's polyglot benchmark by its folders' names (Exercism's tracks'):
# <language>/exercises/practice/<exercise>.
BENCHMARK_TRACKS = ("cpp", "go", "java", "javascript", "python", "rust")


def task_name(language: str, exercise: str) -> str:
    """A task's name in a suite, or a result's in a results folder, of several languages: the
    same exercise is in several tracks."""
    return f"{language}.{exercise}"


def language_in_name(name: str) -> str | None:
    """The language a task's name gives (`task_name`'s), or None for a plain name."""
    head, dot, _ = name.partition(".")
    return head if dot and (head in LAYOUTS or head in BENCHMARK_TRACKS) else None


def _having() -> str:
    return ", ".join(f"{layout.title} ({name})" for name, layout in LAYOUTS.items())


def layout_named(name: str, where: str) -> Layout:
    try:
        return LAYOUTS[name]
    except KeyError:
        raise BadInput(f"{where}: language {name!r} is not one the harness has: {_having()}") from None


def language_of(solution_files: tuple[str, ...], where: str) -> Layout | None:
    """The language whose files an exercise's solution is; None for files of no language at
    all (a task judged without a build, by its answer's text); bad input for an exercise of
    a track the harness does not run."""
    for layout in LAYOUTS.values():
        if layout.owns(solution_files):
            return layout
    tracks = sorted({_OTHER_TRACKS[s] for f in solution_files if (s := PurePosixPath(f).suffix.lower()) in _OTHER_TRACKS})
    if tracks:
        raise BadInput(f"{where}: a {' and '.join(tracks)} exercise; the harness runs {_having()} exercises")
    return None


def no_language(solution_files: tuple[str, ...], where: str) -> BadInput:
    """Where a build is asked of an exercise whose files are of no language."""
    return BadInput(f"{where}: an exercise of no language it knows ({', '.join(solution_files)}); "
                    f"the harness runs {_having()} exercises")
