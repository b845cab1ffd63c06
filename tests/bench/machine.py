"""What the whole machine spent, for benches that compare runs on a shared machine."""

from __future__ import annotations

import os
from pathlib import Path


def machine_cpu_s() -> float:
    """CPU seconds every process of this machine has used (user + system)."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    user, nice, system = (int(x) for x in fields[:3])
    return (user + nice + system) / os.sysconf("SC_CLK_TCK")
