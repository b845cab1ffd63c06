"""Output prediction (issue 19): items of (C++ code, a call) -> the value the program
produces, observed in the sandbox through the probe.

    items.py    the records: an item, its provenance, the set's manifest, export rows
    prompt.py   the prompt and the answer format, stated once (render and read back)
    score.py    a prediction scored: the exact-match rule, +1 / -1 (the GRPO environment's reward)
    config.py   what a build is asked (PredictBuildConfig)
    build.py    `harness predict build`: versions of code observed, deduplicated, split"""
