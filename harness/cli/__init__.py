"""The `harness` command: one module per area, each a Typer sub-app or a few commands
registered on the root app in `register`."""

from __future__ import annotations

import signal

from .app import app
from . import sandbox as _sandbox  # noqa: F401  (registers its commands)
from . import serve as _serve  # noqa: F401
from . import report as _report  # noqa: F401
from . import suite as _suite  # noqa: F401
from . import pool as _pool  # noqa: F401
from . import run as _run  # noqa: F401
from . import train as _train  # noqa: F401
from . import verify as _verify  # noqa: F401
from . import curriculum as _curriculum  # noqa: F401
from . import loop as _loop  # noqa: F401
from . import view as _view  # noqa: F401
from . import predict as _predict  # noqa: F401
from . import select as _select  # noqa: F401
from . import tests as _tests  # noqa: F401
from . import schema as _schema  # noqa: F401


def main() -> None:
    # A polite kill gets the same cleanup as Ctrl-C: sandboxes closed, nothing half-written.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    app()
