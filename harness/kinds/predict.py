"""Output prediction: predict what a call of some code produces (predict/). Its tasks are
output-prediction task folders (predict/build.py), and a model answers each with one
completion, asked directly and judged by the rule its item carries (predict/score.py: the
exact-match rule, or CruxEval's, which evaluates the answer in the sandbox): by
`harness predict eval` and the GRPO environment `predict`, never by `harness run`. It is
not a trial kind: a trial's agent edits files over rounds of test feedback, while a
prediction is one answer with no workspace and no feedback."""

from __future__ import annotations

from ..predict.items import GRPO_FILE
from .base import Kind


class PredictKind(Kind):
    name = "predict"
    task_kind = "output-prediction"
    grpo_file = GRPO_FILE
