"""The repair curriculum: failed trajectories (or mutants of references) become repair
exercises, validated in the sandbox, each written as an ordinary Task with its provenance,
and exported for training.

    candidates.py   where candidates come from: run folders, mutants
    taxonomy.py     the kind of each failure, and whether two reports fail alike
    normalize.py    near-duplicates: normal forms of code and their hash
    validation.py   the sandbox checks, in parallel
    exports.py      repair task folders, the suite, sft.jsonl and grpo.jsonl
    config.py       what a curriculum is built with: settings, build's and synth's configs
    build.py        the two commands' work: build (from runs) and synth (from mutants)
    records.py      what is written: manifest, repair records, candidates
"""

from .build import Built, build_from_runs, synthesize
from .config import BuildConfig, CurriculumSettings, SynthConfig, default_root
from .taxonomy import FailureKind, classify

__all__ = ["BuildConfig", "Built", "CurriculumSettings", "FailureKind", "SynthConfig", "build_from_runs", "classify",
           "default_root", "synthesize"]
