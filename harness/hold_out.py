"""Which suite tasks a `--hold-out` names (curriculum build, the loop, the bar): by slug or
as <suite>/<slug>. Ground floor: a rule on task IDs that every wing reads alike."""

from __future__ import annotations

from typing import Iterable


class HoldOut:
    """Suite tasks kept out of a curriculum, named by slug or as <suite>/<slug>."""

    def __init__(self, names: Iterable[str]):
        self.names = {n.strip() for n in names if n.strip()}

    def __contains__(self, task_id: str) -> bool:
        return task_id in self.names or task_id.split("/", 1)[-1] in self.names

    def unmatched(self, task_ids: Iterable[str]) -> list[str]:
        """The names that hold out none of these tasks (a typo holds out nothing)."""
        ids = list(task_ids)
        return sorted(n for n in self.names if not any(t in HoldOut([n]) for t in ids))
