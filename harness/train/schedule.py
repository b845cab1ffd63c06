"""Which prompts a GRPO run samples, in order: the curriculum of a run that mixes
environments. Each prompt's environment is drawn with probability proportional to its
weight; within an environment, rows are taken in seeded shuffled passes (every row once
per pass), so a small environment is repeated, never skipped, and a large one is not
sampled twice before every row has been seen once.

The schedule is fixed before training from the seed alone: the trainer then reads it in
order (TRL's own shuffle is off), a resumed run samples what the first one would have,
and the count of prompts per environment can be checked without a model."""

from __future__ import annotations

import random
from collections.abc import Mapping

from ..errors import BadInput


def resolve_weights(sizes: Mapping[str, int], weights: Mapping[str, float]) -> dict[str, float]:
    """The sampling weight of each environment with data. Without shares every row is
    equally likely (the environments in proportion to their rows); shares, when given,
    name exactly the environments the run has data for."""
    if not weights:
        return {env: float(n) for env, n in sizes.items()}
    missing = sorted(set(weights) - set(sizes))
    if missing:
        raise BadInput(f"grpo.environments gives {missing[0]} a share but no {missing[0]} data was given "
                       f"(data for: {', '.join(sorted(sizes))})")
    unweighted = sorted(set(sizes) - set(weights))
    if unweighted:
        raise BadInput(f"grpo.environments gives no share to {unweighted[0]}, whose data was given")
    return {env: float(weights[env]) for env in sizes}


def draw(sizes: Mapping[str, int], weights: Mapping[str, float], n: int, seed: int) -> list[tuple[str, int]]:
    """`n` prompts as (environment, row index), in the order they are trained on."""
    envs = sorted(sizes)
    rng = random.Random(f"{seed}:grpo-schedule")
    chosen = rng.choices(envs, weights=[weights[e] for e in envs], k=n)
    passes: dict[str, list[int]] = {e: [] for e in envs}
    out = []
    for env in chosen:
        if not passes[env]:
            passes[env] = rng.sample(range(sizes[env]), sizes[env])
        out.append((env, passes[env].pop()))
    return out
