"""`harness predict explain`: trace explanations as training data (the self-execution
paper's NLEX). Each item of a prediction set whose code a language can trace (Python) and
whose call is one expression runs its call again in the sandbox under the line tracer (Language.trace_calls, within the
paper's limits: 10,000 line events, 1 MB of trace text; a longer run is cut and marked);
a model (litellm, any `--model` a run takes) is shown the item's prediction prompt with the
trace and asked to explain in words how the call runs, then to answer in the set's format.
The answer is compared with the item's observed value here, in the harness's process, by
the item's own rule (score.py); only explanations whose answer is right are kept, each as
an SFT row (training_files.SftRow): the item's prediction prompt without the trace, and the
explanation followed by the answer, so a model trained on it learns to reason through a
run it is not shown."""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Literal

from pydantic import Field

from ..curriculum.config import default_root
from ..errors import BadInput, ProviderFailure
from ..languages.language import PAPER_TRACE_LIMITS, CallTrace, render_trace
from ..languages.registry import language_of_files
from ..models import check_access, parse_model
from ..records import Record
from ..sandbox import Sandbox, make_sandbox
from ..training_files import ChatMessage, SftRow, TraceExplanation, write_jsonl
from .ask import Ask, asker
from .evaluate import read_set
from .items import PredictItem
from .prompt import answer_message, prompt_messages
from .score import score

EXPLAIN_FILE = "explain-sft.jsonl"

ASK = """Here is a trace of that call's run: each line of the code it ran, with the local names the line changed, \
then what the call returned or raised.
```
{trace}
```

Explain step by step, in words, how the call runs and why it ends as it does, as you would reason it out from the \
code alone: do not mention the trace. Then give the answer in the format above, as the last fenced block of your reply."""


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


def last_block(text: str) -> tuple[str, str] | None:
    """A reply split at its last fenced block: (what comes before, the block with its fences)."""
    close = text.rfind("```")
    start = text.rfind("```", 0, close) if close > 0 else -1
    if start < 0:
        return None
    return text[:start], text[start:close + 3]


def explain_item(item: PredictItem, trace: CallTrace, ask: Ask, name: str, model: str) -> tuple[str, SftRow | None]:
    """Ask for one explanation; the row when its answer is right, and what became of it."""
    prompt = prompt_messages(item.files, item.call, prelude=item.prelude)
    *before, user = prompt
    shown = ASK.format(trace=render_trace(trace, item.files, PAPER_TRACE_LIMITS))
    reply = ask([m.model_dump() for m in before] + [{"role": "user", "content": f"{user.content}\n\n{shown}"}]).text
    split = last_block(reply)
    if split is None:
        return "malformed", None
    explanation, block = split
    judged = score(block, item.call, item.expected, item.compare)
    if not judged.correct:
        return "malformed" if judged.malformed else "wrong", None
    if not explanation.strip():
        return "malformed", None  # an answer alone explains nothing
    answer = ChatMessage(role="assistant", content=f"{explanation.strip()}\n\n{answer_message(item.answer).content}")
    return "kept", SftRow(task_id=f"{name}/{item.id}", source_task=item.task, messages=[*prompt, answer],
                          provenance=TraceExplanation(item=item.id, model=model, events=len(trace.events),
                                                      cut=trace.cut))


def explain(config: ExplainConfig, *, sandbox: Sandbox | None = None,
            progress: Callable[[str], None] | None = None) -> Explained:
    spec = parse_model(config.model, config.api_base)
    if spec.builtin:
        raise BadInput(f"--model {spec.name} answers with code, not explanations; name a model that explains")
    _, items = read_set(config.items_root(), config.items, config.split)
    out = config.out or config.items_root() / config.items / EXPLAIN_FILE
    check_access(spec)
    traces = _traces(items, sandbox or make_sandbox(config.sandbox))
    ask = asker(spec, retries=config.retries, timeout_s=config.timeout_s)
    counts: Counter[str] = Counter({"not traced": len(items) - len(traces)})
    rows: dict[str, SftRow] = {}

    def one(item: PredictItem) -> None:
        try:
            what, row = explain_item(item, traces[item.id], ask, config.items, spec.name)
        except ProviderFailure:
            what, row = "provider failure", None
        counts[what] += 1
        if row is not None:
            rows[item.id] = row
        if progress is not None:
            progress(what)

    with ThreadPoolExecutor(max_workers=config.workers) as pool:
        list(pool.map(one, [i for i in items if i.id in traces]))
    kept = [rows[i.id] for i in items if i.id in rows]  # in the set's order, whatever order calls ended in
    write_jsonl(out, kept)
    return Explained(out=out, counts=dict(counts),
                     cut=sum(1 for r in kept if isinstance(r.provenance, TraceExplanation) and r.provenance.cut))
