"""Which `Language` judges a task. Above the layouts (harness/languages/__init__.py, which
every floor may read) and beside the build: a language's judge imports the sandbox."""

from __future__ import annotations

from collections.abc import Iterable

from ..task import Task
from . import language_of
from .language import Language
from .cpp.language import Cpp
from .python.language import Python
from .go.language import Go
from .rust.language import Rust
from .javascript.language import JavaScript
from .java.language import Java

_LANGUAGES: dict[str, Language] = {lang.layout.name: lang
                                   for lang in (Cpp(), Python(), Go(), Rust(), JavaScript(), Java())}


def language_for(task: Task) -> Language:
    return _LANGUAGES[task.layout.name]


def language_named(name: str) -> Language:
    """The language of a layout's name (`Layout.name`)."""
    return _LANGUAGES[name]


def languages() -> list[Language]:
    return list(_LANGUAGES.values())


def language_of_files(files: Iterable[str], where: str) -> Language | None:
    """The language of code given as files (a prediction item's), None for none of them."""
    layout = language_of(tuple(files), where)
    return _LANGUAGES[layout.name] if layout is not None else None
