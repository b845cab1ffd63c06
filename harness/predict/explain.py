"""`harness predict explain`: trace explanations as training data (the self-execution
paper's NLEX). Each item of a prediction set whose code a language can trace (Python) and
whose call is one expression runs its call again in the sandbox under the line tracer
(Language.trace_calls, within the paper's limits: 10,000 line events, 1 MB of trace text; a
longer run is cut and marked). A model (litellm, any `--model` a run takes) is shown the
item's prompt (the one `predict eval` asks) with the trace, and asked to explain in words,
between tags, how the call runs, then to answer as that prompt asks. The answer is judged
by the item's own rule (score.py: compared with the observed value in the harness's
process, or for CruxEval's rule evaluated in the sandbox and compared here); only
explanations whose answer is right are kept, each as an SFT row (training_files.SftRow):
the item's prompt without the trace, with REASON added, then the explanation followed by
the expected answer, so a model trained on it learns to reason through a run it is not
shown before it answers."""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Literal

from pydantic import Field

from ..curriculum.config import default_root
from ..errors import BadInput, InfraError
from ..fs import check_writable
from ..languages.language import PAPER_TRACE_LIMITS, CallTrace, render_trace
from ..languages.registry import language_of_files
from ..models import check_access, parse_model
from ..records import Record
from ..sandbox import Sandbox, make_sandbox
from ..training_files import ChatMessage, SftRow, TraceExplanation, write_jsonl
from .ask import Ask, asker
from .cruxeval import Evaluate
from .evaluate import Sessions, executes, read_set
from .items import PredictItem
from .prompt import item_answer, item_messages
from .score import score

EXPLAIN_FILE = "explain-sft.jsonl"

# Added to the item's prompt in the rows kept: a model trained on them reasons, then answers.
REASON = "Before the answer, explain step by step in words how the call runs and why it ends as it does."
EXPLANATION, END = "[EXPLANATION]", "[/EXPLANATION]"

ASK = f"""{REASON}

To help you, here is a trace of that call's run: each line of the code it ran, with the local names the line \
changed, then what the call returned or raised.
```
{{trace}}
```

Write the explanation as you would reason it out from the code alone, without mentioning the trace, between \
{EXPLANATION} and {END}; after it, answer exactly as asked above."""


class ExplainConfig(Record):
    """What `harness predict explain` is asked: one model on one set's traceable items."""

    model: str
    items: str = Field(description="the set's name under the root")
    split: Literal["eval", "train", "all"] = "train"  # an explanation is training data: the train split's
    root: Path | None = None
    out: Path | None = Field(None, description=f"the JSONL written (default: the set's {EXPLAIN_FILE})")
    api_base: str | None = None
    workers: int = Field(4, ge=1, description="model calls in flight")
    sandbox: Literal["auto", "docker", "local"] = "auto"
    retries: int = Field(4, ge=1)
    timeout_s: float = Field(120.0, gt=0, description="one model call")

    def items_root(self) -> Path:
        return Path(self.root) if self.root is not None else default_root()


class Explained(Record):
    out: Path
    counts: dict[str, int] = Field(description="items by what became of them: kept, wrong, malformed, "
                                               "not traced, provider failure")
    cut: int = Field(description="kept rows whose trace was cut at the limits")


def _traces(items: list[PredictItem], box: Sandbox) -> dict[str, CallTrace]:
    """Each traceable item's trace by id; the calls of one version of code run together."""
    by_code: dict[str, list[PredictItem]] = {}
    for item in items:
        by_code.setdefault(item.code_hash, []).append(item)
    out: dict[str, CallTrace] = {}
    with box.session("predict explain") as session:
        for code_hash, group in by_code.items():
            language = language_of_files(group[0].files, group[0].task)
            if language is None:
                continue
            traces = language.trace_calls(group[0].files, [i.call for i in group], session, PAPER_TRACE_LIMITS,
                                          f"explain-{code_hash[:16]}")
            out.update({i.id: t for i, t in zip(group, traces, strict=True) if t is not None})
    return out


def explanation_and_answer(reply: str) -> tuple[str, str] | None:
    """A reply split into its explanation (between the tags) and what follows (the answer)."""
    _, sep, rest = reply.partition(EXPLANATION)
    explanation, sep2, answer = rest.partition(END)
    if not sep or not sep2 or not explanation.strip():
        return None
    return explanation.strip(), answer.strip()


def explain_item(item: PredictItem, trace: CallTrace, ask: Ask, name: str, model: str,
                 evaluate: Evaluate | None) -> tuple[str, SftRow | None]:
    """Ask for one explanation; the row when its answer is right, and what became of it."""
    *before, user = item_messages(item)
    shown = ASK.format(trace=render_trace(trace, item.files, PAPER_TRACE_LIMITS))
    reply = ask([m.model_dump() for m in before] + [{"role": "user", "content": f"{user.content}\n\n{shown}"}]).text
    split = explanation_and_answer(reply)
    if split is None:
        return "malformed", None
    explanation, answer = split
    judged = score(answer, item.call, item.expected, item.compare, evaluate=evaluate)
    if not judged.correct:
        return "malformed" if judged.malformed else "wrong", None
    asked = ChatMessage(role="user", content=f"{user.content}\n\n{REASON}")
    kept = ChatMessage(role="assistant", content=f"{explanation}\n\n{item_answer(item)}")
    return "kept", SftRow(task_id=f"{name}/{item.id}", source_task=item.task, messages=[*before, asked, kept],
                          provenance=TraceExplanation(item=item.id, model=model, events=len(trace.events),
                                                      cut=trace.cut))


def explain(config: ExplainConfig, *, sandbox: Sandbox | None = None,
            progress: Callable[[str], None] | None = None) -> Explained:
    spec = parse_model(config.model, config.api_base)
    if spec.builtin:
        raise BadInput(f"--model {spec.name} answers with code, not explanations; name a model that explains")
    _, items = read_set(config.items_root(), config.items, config.split)
    out = config.out or config.items_root() / config.items / EXPLAIN_FILE
    check_writable(out, "--out", is_file=True)
    check_access(spec)
    box = sandbox or make_sandbox(config.sandbox)
    traces = _traces(items, box)
    ask = asker(spec, retries=config.retries, timeout_s=config.timeout_s)
    counts: Counter[str] = Counter({"not traced": len(items) - len(traces)})
    rows: dict[str, SftRow] = {}
    lock = threading.Lock()
    sessions = Sessions(box) if executes(items) else None  # where CruxEval's rule evaluates an answer

    def one(item: PredictItem) -> None:
        try:
            what, row = explain_item(item, traces[item.id], ask, config.items, spec.name,
                                     sessions.evaluate if sessions is not None else None)
        except InfraError as exc:  # the provider kept failing, or the sandbox an answer runs in did
            what, row = f"{exc.kind.value} failure", None
        with lock:
            counts[what] += 1
            if row is not None:
                rows[item.id] = row
        if progress is not None:
            progress(what)

    try:
        with ThreadPoolExecutor(max_workers=config.workers) as pool:
            list(pool.map(one, [i for i in items if i.id in traces]))
    finally:
        if sessions is not None:
            sessions.close()
    kept = [rows[i.id] for i in items if i.id in rows]  # in the set's order, whatever order calls ended in
    write_jsonl(out, kept)
    return Explained(out=out, counts=dict(counts),
                     cut=sum(1 for r in kept if isinstance(r.provenance, TraceExplanation) and r.provenance.cut))
