"""Which `Language` judges a task. Above the layouts (harness/languages/__init__.py, which
every floor may read) and beside the build: a language's judge imports the sandbox."""

from __future__ import annotations

from ..task import Task
from .language import Language
from .cpp.language import Cpp
from .python.language import Python
from .go.language import Go

_LANGUAGES: dict[str, Language] = {lang.layout.name: lang for lang in (Cpp(), Python(), Go())}


def language_for(task: Task) -> Language:
    return _LANGUAGES[task.layout.name]
