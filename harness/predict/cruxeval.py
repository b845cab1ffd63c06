"""CruxEval-O (Gu et al., 2024): output prediction on the benchmark's 800 Python functions,
read from a user's checkout of it (`data/cruxeval.jsonl`: code, input, output, id per line)
as a prediction set, never shipped with the harness.

An item is the function, the call `f(input)` and the benchmark's recorded output. The model
is asked to complete `assert f(input) == ??` between `[ANSWER]` and `[/ANSWER]` (the
benchmark's output-prediction format); the answer is scored by the benchmark's rule, carried
by the item as `items.PythonAssertion`: the assertion's right-hand side, a Python expression,
is right when `output == prediction` holds, as the benchmark's own evaluation executes it.
The expression is model text: it is evaluated only in the sandbox, as the runner, in a
process of its own with CruxEval's 3 s limit (languages/python/expression.py), and the `==`
is Python's, taken in the harness's process on the value read back (`same_value`), so an
early exit, a patched `f` or an object whose `__eq__` says yes earns nothing. Differences
from the benchmark's evaluation, all on answers it means to refuse: the prediction sees no
`f` (it refuses a prediction that calls `f` on the item's input by its text; here no spelling
of a call reaches `f`), and the answer is read with Python's parser, not split at its first
`==` (an output holding `==` in a string is read whole)."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any, Callable

from ..errors import BadInput
from ..hashing import sha256_bytes, sha256_json
from ..languages.python.probe.runtime import Encoder
from ..languages.python.probe.run import BOUNDS
from ..training_files import ChatMessage
from .items import PredictItem, Provenance, PythonAssertion

BENCHMARK = "cruxeval-o"
DATA_FILE = Path("data") / "cruxeval.jsonl"
FORMAT_VERSION = 1
TASK = "cruxeval/cruxeval-o"           # every item's task: the report's per-task rows are one
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")
_MAX_LINE = 1 << 20                      # bytes of one line of the data file
MAX_ANSWER = 1 << 16                     # characters of an answer the harness parses

SYSTEM = "You read Python code and work out exactly what a call of it returns."

_ASK = """Below is a Python function f and an assertion about one call of it, with the value left out as ??.

[PYTHON]
{code}
assert f({input}) == ??
[/PYTHON]

Replace ?? with the value this call returns, written as a Python literal (no expressions to work out, no calls),
even when the function looks wrong or unfinished. Answer with the completed assertion between [ANSWER] and
[/ANSWER] and nothing else. For `def f(xs): return xs + xs`, asked about f([1, 2]), the answer is:
[ANSWER]
assert f([1, 2]) == [1, 2, 1, 2]
[/ANSWER]"""

Evaluate = Callable[[str, float], "dict[str, Any] | None"]


def prompt_hash() -> str:
    """What every CruxEval prompt says besides its code and input."""
    return sha256_json({"system": SYSTEM, "ask": _ASK, "version": FORMAT_VERSION})


def prompt_messages(code: str, call_input: str) -> list[ChatMessage]:
    return [ChatMessage(role="system", content=SYSTEM),
            ChatMessage(role="user", content=_ASK.format(code=code.rstrip(), input=call_input))]


def call_input(item: PredictItem) -> str:
    """The input of the item's call `f(input)`."""
    return item.call[2:-1]


def item_messages(item: PredictItem) -> list[ChatMessage]:
    return prompt_messages(item.files["f.py"], call_input(item))


# --- reading the checkout ----------------------------------------------------------------


def _data_file(path: Path) -> Path:
    path = Path(path)
    found = path / DATA_FILE if path.is_dir() else path
    if not found.is_file():
        raise BadInput(f"{path}: no {DATA_FILE} (give a checkout of facebookresearch/cruxeval or its data file)")
    return found


def _value_record(output: str, where: str) -> dict[str, Any]:
    """The recorded output as a probe record, read as a Python literal in the harness."""
    try:
        value = ast.literal_eval(output)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise BadInput(f"{where}: output {output[:60]!r} is not a Python literal") from None
    encoder = Encoder(BOUNDS, lambda _: False, repr)
    return {"o": [{"v": encoder.value(value)}]}


def _item(row: Any, where: str, task: str) -> PredictItem:
    if not isinstance(row, dict) or not all(isinstance(row.get(k), str) for k in ("code", "input", "output", "id")):
        raise BadInput(f"{where}: not a CruxEval row (code, input, output, id as text)")
    if not _ID.fullmatch(row["id"]):
        raise BadInput(f"{where}: id {row['id'][:60]!r} is not a name a run folder can hold")
    code, given, output = row["code"], row["input"], row["output"]
    call = f"f({given})"
    return PredictItem(id=row["id"], task=task, split="eval", check=row["id"], call=call, files={"f.py": code},
                       code_hash=sha256_bytes(code.encode()), expected=_value_record(output, where),
                       answer=f"assert {call} == {output}", compare=PythonAssertion(),
                       sources=[Provenance(task=task, source="reference")])


def read_checkout(path: Path) -> tuple[Path, bytes, list[PredictItem]]:
    """The data file, its bytes and its items, in the file's order."""
    data = _data_file(path)
    raw = data.read_bytes()
    items, seen = [], set()
    for n, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{data}:{n}"
        if len(line) > _MAX_LINE:
            raise BadInput(f"{where}: a line of more than {_MAX_LINE} bytes")
        try:
            row = json.loads(line)
        except ValueError:
            raise BadInput(f"{where}: not JSON") from None
        item = _item(row, where, TASK)
        if item.id in seen:
            raise BadInput(f"{where}: id {item.id} twice")
        seen.add(item.id)
        items.append(item)
    if not items:
        raise BadInput(f"{data}: no items")
    return data, raw, items


# --- scoring -----------------------------------------------------------------------------


def read_prediction(text: str) -> str | None:
    """The prediction in a reply: the right-hand side of the assertion between [ANSWER] and
    [/ANSWER] (or in the whole reply when it has no tags), or the whole answer when it is an
    expression; None when it is neither. Parsed by Python's parser, in bounds."""
    body = text.split("[ANSWER]", 1)[1] if "[ANSWER]" in text else text
    body = body.split("[/ANSWER]", 1)[0].strip()
    if body.startswith("```"):
        body = body.strip("`").removeprefix("python").strip()
    if not body or len(body) > MAX_ANSWER:
        return None
    try:
        tree = ast.parse(body)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if len(tree.body) != 1:
        return None
    node = tree.body[0]
    if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1 \
            and isinstance(node.test.ops[0], ast.Eq):
        return ast.get_source_segment(body, node.test.comparators[0])
    return body if isinstance(node, ast.Expr) else None


class _Opaque:
    """A value read back that no literal equals (an object, a class); a digest equals the
    same digest (two values over the schema's bounds with the same encoding)."""

    def __init__(self, key: Any = None):
        self.key = key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Opaque) and self.key is not None and self.key == other.key

    __hash__ = None  # type: ignore[assignment]


def _decoded(value: Any) -> Any:
    """A value of the probe's schema as the Python value it stands for; TypeError for a
    shape no honest encoder writes (a list in a set)."""
    if isinstance(value, list):
        return [_decoded(v) for v in value]
    if not isinstance(value, dict):
        return value
    (kind, body), = value.items()
    if kind == "int":
        return int(body)
    if kind == "float":
        return float({"nan": "nan", "inf": "inf", "-inf": "-inf"}[body])  # a NaN of its own, as Python makes one
    if kind == "bytes":
        return bytes.fromhex(body)
    if kind == "tuple":
        return tuple(_decoded(v) for v in body)
    if kind == "set":
        return frozenset(_decoded(v) for v in body)
    if kind == "dict":
        return {_decoded(k): _decoded(v) for k, v in body}
    if kind == "range":
        return range(*(_decoded(v) for v in body))
    return _Opaque(body if kind == "digest" else None)


def same_value(expected: dict[str, Any], observed: dict[str, Any] | None) -> bool:
    """Python's `==` on the values two records stand for, taken in the harness's process on
    values it built (no object of the candidate's takes part); an outcome that raised
    equals nothing."""
    if observed is None:
        return False
    try:
        (want,), (got,) = expected["o"], observed["o"]
        return "v" in want and "v" in got and bool(_decoded(want["v"]) == _decoded(got["v"]))
    except (TypeError, ValueError, KeyError, OverflowError, RecursionError):
        return False


def scored(text: str, expected: dict[str, Any], rule: PythonAssertion, evaluate: Evaluate) -> tuple[bool, bool, dict | None]:
    """(correct, malformed, the prediction's record): the reply's prediction evaluated in the
    sandbox (`evaluate`) and compared by Python's `==`."""
    prediction = read_prediction(text)
    if prediction is None:
        return False, True, None
    observed = evaluate(prediction, rule.timeout_s)
    return same_value(expected, observed), False, observed
