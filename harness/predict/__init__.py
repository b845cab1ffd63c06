"""Output prediction (issue 19): items of (C++ code, a call) -> the value the program
produces, observed in the sandbox through the probe.

    items.py    the records: an item, its provenance, the set's manifest, export rows
    prompt.py   the prompt and the answer format, stated once (render and read back)
    score.py    a prediction scored: the exact-match rule, +1 / -1 (predict eval, the GRPO reward)
    config.py   what a build and an eval are asked (PredictBuildConfig, PredictEvalConfig)
    build.py    `harness predict build`: versions of code observed, deduplicated, split
    ask.py      one chat completion through litellm, retried (predict eval, select's judge)
    evaluate.py `harness predict eval`: a model's predictions scored, written as a run folder
    breakdown.py a prediction run's accuracy by source kind and task"""
