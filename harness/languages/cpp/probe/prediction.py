"""How an output-prediction prompt speaks of C++ code (`languages.language.PredictionTerms`):
values written as JSON, an exception by its type as C++ spells it."""

from __future__ import annotations

import json
from typing import Any

from ....probe.schema import Forged, bounded_json
from ...language import PredictionTerms

SYSTEM = "You read C++ code and predict exactly what a call of it produces when the program runs."

FORMAT = """Answer with the value only, in a fenced block, one line per observation in order:
- the value as JSON: a number, a "string", true or false, null for a call that returns nothing, [a, b] for a sequence;
  a value of another type as the probe writes it, e.g. {"text": "..."} for a type printed with operator<<;
- `throws <type>` when that observation throws, with the exception's type as C++ spells it (e.g. std::domain_error).
If a statement that is not an observation throws, the call stops there: add one last line `call ends: throws <type>`."""


def _read(text: str) -> Any:
    try:
        return bounded_json(text.encode())  # a model's text: bounded, so no answer can crash the judge
    except Forged as exc:
        raise ValueError(str(exc)) from None


TERMS = PredictionTerms(answer="json", fence="cpp", comment="//", system=SYSTEM, format=FORMAT, throws="throws ",
                        render=lambda value: json.dumps(value, ensure_ascii=False), read=_read)
