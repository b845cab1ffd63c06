"""litellm as the harness imports it: on first use (its import takes seconds, which runs
that never call a model directly should not pay), with its bundled price table instead of
the one it would fetch from GitHub, and without its debug banners."""

from __future__ import annotations

import os


def litellm():
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm as module  # heavy: see the module's docstring

    module.suppress_debug_info = True
    return module
