"""The local executor: worker threads of this process, each a slot of the one host (this
process) over the caller's sandbox. The work is in the sandbox and the agent's processes,
so threads are enough to keep every core busy."""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Any, Callable, Hashable, Iterable, Iterator, Sequence

from ..sandbox.base import Sandbox, SandboxSession
from .base import Executor, Failed, Host, Lost, R, SandboxFacts, Slot, T, U, UnitFailure, Work, next_unit
from .pace import Limiter

NAME = "local thread pool"


class LocalExecutor(Executor):
    kind = "local"
    name = NAME

    def __init__(self, box: Sandbox, workers: int):
        self.slots = max(1, workers)
        self.host = Host(box, slots=self.slots, in_driver=True)
        self._slots = [Slot(self.host, n) for n in range(self.slots)]
        self._last: dict[int, Hashable] = {}  # each slot's last affinity key, from run to run
        self._facts: SandboxFacts | None = None

    @property
    def facts(self) -> SandboxFacts:
        if self._facts is None:
            self._facts = SandboxFacts.of(self.host.box)
        return self._facts

    def run(self, units: Sequence[U], work: Work, *, label: str, on_result: Callable[[U, R], None] | None = None,
            on_lost: Lost | None = None, on_failure: Failed | None = None,
            affinity: Callable[[U], Hashable] | None = None) -> None:
        # Nothing here is lost, so `on_lost` never runs.
        units = list(units)
        keys = [affinity(u) for u in units] if affinity is not None else None
        todo = list(range(len(units)))
        failures: list[UnitFailure] = []
        errors: list[BaseException] = []  # of the driver's own callbacks: those end the run
        stop = threading.Event()
        taking, delivered = threading.Lock(), threading.Lock()

        def worker(slot: Slot, ended: threading.Event) -> None:
            slot.label = label
            try:
                while not stop.is_set():
                    with taking:
                        if not todo:
                            return
                        i = next_unit(todo, keys, self._last.get(slot.number))
                        if keys is not None:
                            self._last[slot.number] = keys[i]
                    try:
                        got = work(units[i], slot)
                    except Exception as exc:  # noqa: BLE001  that unit's result, typed
                        failure = UnitFailure.of(exc)
                        with delivered:
                            failures.append(failure)
                            if on_failure is not None:
                                on_failure(units[i], failure)
                        continue
                    if on_result is not None:
                        with delivered:
                            on_result(units[i], got)
            except BaseException as exc:  # noqa: BLE001  (raised again in the caller's thread)
                errors.append(exc)
                stop.set()
            finally:
                ended.set()

        # Ctrl-C (and SIGTERM where the CLI made it one) is taken as a flag while this run lasts,
        # not as an exception at whatever line the main thread is on: raised inside a thread's
        # start, it would leave before the units in flight had given their sessions back. Ended
        # threads are waited for on events, not Thread.join: a join that Ctrl-C interrupts
        # (Python 3.11) can mark a thread that is still running as ended.
        ends = [threading.Event() for _ in self._slots[:max(1, min(self.slots, len(units)))]]
        with _ctrl_c_as_flag() as interrupted:
            for slot, ended in zip(self._slots, ends):
                threading.Thread(target=worker, args=(slot, ended), daemon=True).start()
            for ended in ends:
                while not ended.wait(0.2) and not interrupted.is_set():
                    pass
            if interrupted.is_set():
                stop.set()
                self.host.stop()
                for ended in ends:  # a second Ctrl-C, under the caller's own handler, abandons this wait
                    while not ended.wait(0.2):
                        pass
                raise KeyboardInterrupt
        if errors:
            raise errors[0]
        if failures and on_failure is None:
            raise failures[0].error

    def each_host(self, fn: Callable[..., T], *args: Any) -> list[T]:
        return [fn(self.host, *args)]

    def limiter(self, name: str, per_minute: float) -> Limiter:
        return self.host.keep(("limiter", name), lambda: Limiter(per_minute), close=lambda _: None)

    def close(self) -> None:
        for slot in self._slots:
            slot.close()
        self.host.close()


@contextmanager
def _ctrl_c_as_flag() -> Iterator[threading.Event]:
    """An event set by the first SIGINT, or SIGTERM, that would have raised KeyboardInterrupt;
    the handlers before it come back at that signal (so a second one acts as before) and
    when the block ends. Outside the main thread no signal arrives, and nothing is changed."""
    interrupted = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield interrupted
        return
    taken = [s for s in (signal.SIGINT, signal.SIGTERM) if signal.getsignal(s) is signal.default_int_handler]

    def restore() -> None:
        for s in taken:
            signal.signal(s, signal.default_int_handler)

    def flag(signum: int, frame: object) -> None:
        restore()
        interrupted.set()

    for s in taken:
        signal.signal(s, flag)
    try:
        yield interrupted
    finally:
        restore()


def work_in_sessions(box: Sandbox, units: Iterable[U], handle: Callable[[U, SandboxSession], None], *,
                     workers: int, label: str) -> None:
    """Hand `units` out, in order, to `workers` threads, each with a session of its own for
    every unit it takes (opened with its first unit) and closed when no unit is left: for
    work whose results stay in this process."""
    units = list(units)
    with LocalExecutor(box, min(workers, len(units) or 1)) as executor:
        executor.run(units, lambda unit, slot: handle(unit, slot.session()), label=label)
