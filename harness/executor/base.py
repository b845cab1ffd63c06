"""What every executor gives the work it runs, and what every executor is.

A unit of work (a trial, a task's validation, a batch of candidates) is handed to a
`Slot`: one worker's place, with at most one sandbox session of its own kept from unit to
unit (a build tree kept warm is what makes the next unit cheap). Slots live on a `Host`,
the process that runs them: the driver's own (the local executor's threads) or a Ray
actor's on its node. A host keeps the warm things its units share, each made on first use
there (a sandbox session pool, Aider's driver processes, the gold server) and closed with
it; `stop` (Ctrl-C) ends what can be ended at once.

The work is a module-level function `work(unit, slot) -> result`, and units and results are
plain data: on Ray both travel between processes, and only the driver acts on the results
(`on_result`), so only the driver writes run folders."""

from __future__ import annotations

import threading
import traceback
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Sequence, TypeVar

from ..errors import BadInput, InfraError, InfraKind
from ..records import InfraFailure, Record
from ..sandbox.base import Sandbox, SandboxSession
from ..sandbox.pool import SessionPool

U = TypeVar("U")
R = TypeVar("R")
T = TypeVar("T")

Work = Callable[[U, "Slot"], R]
BAD_INPUT = "bad_input"  # a unit failure's kind when its work raised BadInput
# A unit that could not be run anywhere (its node died each time it was tried, or no node
# is left): the unit and why.
Lost = Callable[[U, str], None]


@dataclass
class UnitFailure:
    """What a unit's work raised, as that unit's result, typed: an infrastructure failure
    of its kind, bad input (kind `bad_input`), or a bug of the harness (kind harness: an
    exception nobody raised on purpose); with the error itself and where it was raised."""

    error: BaseException
    record: InfraFailure
    where: str = ""  # the traceback, as far as it is known

    @classmethod
    def of(cls, error: BaseException, where: str | None = None) -> "UnitFailure":
        where = where if where is not None else "".join(traceback.format_exception(error))
        if isinstance(error, BadInput):
            kind, message, attempts = BAD_INPUT, str(error), 1
        elif isinstance(error, InfraError):
            kind, message, attempts = error.kind.value, str(error), error.attempts
        else:
            kind, message, attempts = InfraKind.harness.value, f"{type(error).__name__}: {error}", 1
        return cls(error, InfraFailure(kind=kind, message=message[:2000], attempts=attempts), where)


Failed = Callable[[U, UnitFailure], None]


class SandboxFacts(Record):
    """What a run's results depend on of the sandbox that produced them (manifests, reports)."""

    backend: str
    isolation: str
    image: str | None = None
    image_digest: str | None = None

    @classmethod
    def of(cls, box: Sandbox, languages: Sequence[str] = ()) -> "SandboxFacts":
        """With the images of `languages` (built here if they are not yet)."""
        image, digest = box.image_facts(languages)
        return cls(backend=box.backend, isolation=box.isolation, image=image, image_digest=digest)


def _host_facts(host: "Host", languages: tuple[str, ...]) -> SandboxFacts:
    return SandboxFacts.of(host.box, languages)


class Host:
    """The warm things of one process that runs units, made on first use and closed with it."""

    def __init__(self, box: Sandbox, *, slots: int, in_driver: bool):
        self.box = box
        self.slots = slots            # slots this host runs at once
        self.in_driver = in_driver    # whether work here can write the driver's files itself
        self.cancel = threading.Event()
        self._kept: dict[Hashable, tuple[Any, Callable | None, Callable | None]] = {}
        self._lock = threading.Lock()

    def keep(self, key: Hashable, make: Callable[[], T], *, close: Callable[[T], None] | None = None,
             stop: Callable[[T], None] | None = None) -> T:
        """The thing kept under `key`, made by `make` the first time it is asked for.
        `close` ends it with the host (default: its `close()`), `stop` at Ctrl-C."""
        with self._lock:
            if key not in self._kept:
                self._kept[key] = (make(), close, stop)
            return self._kept[key][0]

    @property
    def sessions(self) -> SessionPool:
        """Sessions handed from one unit to the next and emptied between them (trials)."""
        return self.keep("sessions", lambda: SessionPool(self.box))

    def stop(self) -> None:
        """Ctrl-C: work that looks at `cancel` stops, and what can be ended now is."""
        self.cancel.set()
        with self._lock:
            kept = list(self._kept.values())
        for thing, _, stop in kept:
            if stop is not None:
                stop(thing)

    def close(self) -> None:
        """Close what was kept, the last made first (sessions after what used them)."""
        with self._lock:
            kept, self._kept = list(self._kept.values()), {}
        for thing, close, _ in reversed(kept):
            (close or type(thing).close)(thing)


class Slot:
    """One worker's place on a host: units run here one at a time, in a session kept for all
    of them (opened with the first unit that asks for one)."""

    def __init__(self, host: Host, number: int):
        self.host = host
        self.number = number
        self.label = "worker"  # what the current work calls itself (session labels)
        self._session: SandboxSession | None = None
        self._warm: tuple[Hashable, Callable[[SandboxSession], None]] | None = None

    def session(self, language: str | None = None) -> SandboxSession:
        """The slot's session; one of another language than `language` (when given) is
        closed first and a session of it opened (a container of its image)."""
        if self._session is not None and language is not None and self._session.language != language:
            self.close()
        if self._session is None:
            self._session = self.host.box.session(f"{self.label} #{self.number}", language)
        return self._session

    def warm_session(self, key: Hashable, free: Callable[[SandboxSession], None],
                     language: str | None = None) -> SandboxSession:
        """The slot's session of `language`, kept warm for `key` (a task's build tree); what
        it held warm for another key is freed first with the `free` given then: build space
        is a fixed-size tmpfs."""
        session = self.session(language)
        if self._warm is None or self._warm[0] != key:
            if self._warm is not None:
                self._warm[1](session)
            self._warm = (key, free)
        return session

    def close(self) -> None:
        session, self._session, self._warm = self._session, None, None
        if session is not None:
            session.close()


def next_unit(todo: list[int], keys: Sequence[Hashable] | None, key: Hashable | None) -> int:
    """Take the next unit for a slot from `todo` (indices, in order): the first of the
    slot's own affinity `key`, else the first."""
    if keys is not None and key is not None:
        for n, i in enumerate(todo):
            if keys[i] == key:
                return todo.pop(n)
    return todo.pop(0)


class Executor(ABC):
    """Runs units of work in slots: `local` (threads of this process) or `ray` (actors on a
    cluster's nodes)."""

    kind: str
    name: str             # as the run manifest records it
    slots: int            # units at once

    @property
    @abstractmethod
    def facts(self) -> SandboxFacts:
        """The sandbox every slot runs (its images: `facts_for`)."""

    def facts_for(self, languages: Sequence[str]) -> SandboxFacts:
        """The sandbox every slot runs, with the images of `languages`, each built on every
        host where it is not yet (the first use of a suite that needs it, before any unit
        runs); bad input where hosts disagree on them."""
        found = {f.model_dump_json(): f for f in self.each_host(_host_facts, tuple(sorted(set(languages))))}
        if len(found) > 1:
            raise BadInput("the executor's hosts run different sandbox images: " + " | ".join(sorted(found)))
        return next(iter(found.values()), self.facts)

    @abstractmethod
    def run(self, units: Sequence[U], work: Work, *, label: str, on_result: Callable[[U, R], None] | None = None,
            on_lost: Lost | None = None, on_failure: Failed | None = None,
            affinity: Callable[[U], Hashable] | None = None) -> None:
        """Run every unit, `on_result` in the driver as each one ends. `affinity` keys units
        that share warm state, so a slot takes the next of its own key first. A unit whose
        work raises is that unit's result: `on_failure` hears of it in the driver, typed
        (UnitFailure), and every other unit still runs and is delivered; without
        `on_failure`, the first failure is raised once every unit has ended. Ctrl-C stops
        every host and is raised once the units in flight have ended. A unit that cannot
        be run (a lost node, tried again elsewhere until it runs out of tries) goes to
        `on_lost`, or without one raises InfraError."""

    @abstractmethod
    def each_host(self, fn: Callable[..., T], *args: Any) -> list[T]:
        """`fn(host, *args)` once on every host, before any unit needs it (the Aider
        environment made where it will be used)."""

    @abstractmethod
    def limiter(self, name: str, per_minute: float):
        """One limiter of `per_minute` requests shared by every host (`wait()` before each
        request), for one provider's rate limit."""

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
