"""Whether a written suite embeds the reference: holds a copy of one of the reference
solution's function bodies (pasted as a helper, renamed, or spelled out in a string) and so
can test the code against the reference itself, or against its text, instead of against
behaviour the suite states. Such a suite is still scored, but marked, counted apart in
reports and given no training reward.

The measure is token containment: the share of a reference function body's token 8-grams
(the language's code_words: identifiers and numbers normalized, so renaming does not hide
a copy; string literals read as the code they hold) that also occur in the suite; a suite's
similarity is the largest share over the reference's bodies of at least MIN_GRAMS
8-grams. EMBEDS_AT is set from the figures in docs/verifiers.md (every fixed26 task's own
test file against copies of its reference pasted, renamed and quoted)."""

from __future__ import annotations

from ..languages.registry import language_for
from ..task import Task

GRAM = 8
MIN_GRAMS = 12      # bodies shorter than this (accessors, one-line returns) say nothing
EMBEDS_AT = 0.6     # docs/verifiers.md: honest suites at most 0.31, whole copies 1.00


def _grams(words: list[str]) -> set[tuple[str, ...]]:
    return {tuple(words[i:i + GRAM]) for i in range(len(words) - GRAM + 1)}


def reference_similarity(task: Task, suite: bytes) -> float:
    """The largest share of one reference function body's 8-grams found in the suite."""
    language = language_for(task)
    found = _grams(language.code_words(suite.decode(errors="replace")))
    best = 0.0
    for name, data in task.reference_files().items():
        if not task.layout.owns((name,)):
            continue
        for body in language.function_bodies(data.decode(errors="replace")):
            grams = _grams(body)
            if len(grams) >= MIN_GRAMS:
                best = max(best, len(grams & found) / len(grams))
    return round(best, 4)


def embeds_reference(similarity: float) -> bool:
    return similarity >= EMBEDS_AT
