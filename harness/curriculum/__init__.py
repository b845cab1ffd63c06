"""The repair curriculum: failed trajectories (or mutants of references) become repair
exercises, validated in the sandbox, each written as an ordinary Task with its provenance,
and exported for training.

    candidates.py   where candidates come from: run folders, mutants
    taxonomy.py     the kind of each failure, and whether two reports fail alike
    normalize.py    near-duplicates: normal forms of code and their hash
    validation.py   the sandbox checks, in parallel
    exports.py      repair task folders, the suite, sft.jsonl and grpo.jsonl
    build.py        the two commands' work: build (from runs) and synth (from mutants)
    records.py      what is written: manifest, repair records, candidates
"""

from .build import BuildConfig, Built, SynthConfig, build_from_runs, default_root, synthesize
from .taxonomy import FailureKind, classify

__all__ = ["BuildConfig", "Built", "FailureKind", "SynthConfig", "build_from_runs", "classify", "default_root",
           "synthesize"]
