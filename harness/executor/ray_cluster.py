"""The Ray executor: slots are Ray actors placed by Ray's scheduler on nodes that declare a
`sandbox` resource (a Docker engine and the sandbox image, or whatever backend the run asks
for), one actor per slot, each reserving `slot_cpus` CPUs and one `sandbox`. An actor is a
host of its own: its sandbox backend, session pool, Aider environment and gold server are
made on its node on first use, and stay warm for every unit it runs.

The driver hands a unit to an idle slot (one of the unit's own affinity key first, so a
task's build tree stays warm), gets the result back and alone acts on it, so run folders
are written by the driver only, exactly as the local executor has them written.

Faults: a slot whose actor or node dies costs its unit that attempt, and the unit is tried
again in another slot (up to `ATTEMPTS` times, then `on_lost`); a result is taken from one
attempt only, so none is duplicated or lost. Ctrl-C stops every slot (its agents killed,
its trials ending as interrupted and delivered), then every slot closes its sessions and
removes the containers of slots that died on its machine, and the actors are killed."""

from __future__ import annotations

import math
import os
import re
import signal
import socket
import threading
import time
import uuid
from typing import Any, Callable, Hashable, Sequence

from .. import __version__
from ..errors import BadInput, HarnessError, InfraError, InfraKind
from ..hashing import sha256_bytes
from ..sandbox import SandboxLimits, make_sandbox
from ..sandbox.docker import DockerSandbox, reap_orphans
from ..task import Task
from .base import Executor, Failed, Host, Lost, R, SandboxFacts, Slot, T, U, UnitFailure, Work, next_unit
from .pace import Pace
from .shipping import landed_task, task_payload

try:
    import ray
    from ray.exceptions import ObjectLostError, RayActorError, RayTaskError
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
except ImportError:  # pragma: no cover - the message is what a user without the extra sees
    raise BadInput("--executor ray needs Ray: pip install 'coding-harness[ray]'") from None

ATTEMPTS = 3          # tries of one unit before it counts as lost
STARTUP_S = 180.0     # for every slot to start (a node's first sandbox, the image check)
STOP_S = 60.0         # after Ctrl-C, for the units in flight to end and be delivered
CLOSE_S = 120.0       # for every slot to close its sessions
# The driver's provider credentials go to every slot: a hosted model's Aider reads its
# keys from the environment of the node it runs on.
_CREDENTIALS = re.compile(r"(_API_KEY|_API_BASE|_API_VERSION|_BASE_URL)$"
                          r"|^AWS_(ACCESS_KEY_ID|SECRET_ACCESS_KEY|SESSION_TOKEN|REGION_NAME)$")


def _ship_tasks() -> None:
    ray.util.register_serializer(Task, serializer=task_payload, deserializer=landed_task)


@ray.remote(concurrency_groups={"control": 1})
class _SlotActor:
    """One slot on its node; `stop` and `close` run beside the work (their own thread)."""

    def __init__(self, sandbox: str, limits: SandboxLimits | None, env: dict[str, str]):
        os.environ.update(env)
        _ship_tasks()
        self.sandbox, self.limits = sandbox, limits
        self.host: Host | None = None
        self.slot: Slot | None = None

    def describe(self) -> dict:
        try:
            box = make_sandbox(self.sandbox, self.limits, notice=lambda _: None)
        except HarnessError as exc:
            return {"host": socket.gethostname(), "error": str(exc)}
        self.host = Host(box, slots=1, in_driver=False)
        self.slot = Slot(self.host, 0)
        return {"host": socket.gethostname(), "pid": os.getpid(), "version": __version__,
                "node": ray.get_runtime_context().get_node_id(), "facts": SandboxFacts.of(box)}

    def work(self, fn: Work, unit: Any, label: str) -> Any:
        assert self.slot is not None  # the driver has every slot describe() itself before any work
        self.slot.label = label
        return fn(unit, self.slot)

    def on_host(self, fn: Callable, args: tuple) -> Any:
        return fn(self.host, *args)

    @ray.method(concurrency_group="control")
    def stop(self) -> None:
        if self.host is not None:
            self.host.stop()

    @ray.method(concurrency_group="control")
    def close(self) -> None:
        if self.host is None or self.slot is None:  # describe() sets both or neither
            return
        self.slot.close()
        self.host.close()
        box = self.host.box
        if box.backend == "docker":
            assert isinstance(box, DockerSandbox)
            reap_orphans(box.client)  # those of slots that died on this machine


@ray.remote(num_cpus=0)
class _PaceActor:
    def __init__(self, per_minute: float):
        self.pace = Pace(per_minute)

    def reserve(self) -> float:
        return self.pace.reserve(time.time())


class ClusterLimiter:
    """A provider's pace, kept by one actor for every node."""

    def __init__(self, actor):
        self.actor = actor

    def wait(self) -> None:
        time.sleep(ray.get(self.actor.reserve.remote()))


def _reachable(address: str) -> None:
    """A host:port that refuses connections is one line now, not minutes of Ray's retries."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise BadInput(f"--ray-address {address!r}: give host:port, ray://host:port or auto")
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as exc:
        raise BadInput(f"cannot reach the Ray cluster at {address}: {exc.strerror or exc}") from None


def _connect(address: str | None) -> bool:
    """Join the cluster (True) unless this process already has (a driver inside a Ray job)."""
    if ray.is_initialized():
        return False
    address = address or os.environ.get("RAY_ADDRESS") or "auto"
    if address != "auto":
        _reachable(address)
    polite = signal.getsignal(signal.SIGTERM)
    try:
        ray.init(address=address, logging_level="ERROR", log_to_driver=False, configure_logging=False)
    except Exception as exc:  # noqa: BLE001  Ray refuses in many ways (no cluster, no client package)
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise BadInput(f"cannot join the Ray cluster ({address}): {first}") from None
    if threading.current_thread() is threading.main_thread():
        # Ray's own SIGTERM handler ends the driver at once; the harness's (cli.main) gives a
        # polite kill Ctrl-C's cleanup: every node stopped, no container left.
        signal.signal(signal.SIGTERM, polite)
    return True


def _slots_of(nodes: list[dict], slot_cpus: float) -> int:
    """Slots the alive nodes have room for: one per `sandbox`, as their CPUs allow."""
    total = 0
    for n in nodes:
        res = n.get("Resources", {})
        if n.get("Alive") and res.get("sandbox", 0) >= 1:
            total += min(int(res["sandbox"]), int(math.floor(res.get("CPU", 0) / slot_cpus + 1e-9)))
    return total


class RayExecutor(Executor):
    kind = "ray"

    def __init__(self, settings, *, sandbox: str, limits: SandboxLimits | None, workers: int | None, share: int = 1,
                 notice: Callable[[str], None] | None = None):
        self.notice = notice or (lambda _: None)
        self._joined = _connect(settings.address)
        try:
            self._start(settings, sandbox, limits, workers, share)
        except BaseException:
            self.close()
            raise

    @property
    def facts(self) -> SandboxFacts:
        return self._facts

    def _start(self, settings, sandbox, limits, workers, share) -> None:
        _ship_tasks()
        self._limiters: list = []
        self._live: list = []
        room = _slots_of(ray.nodes(), settings.slot_cpus)
        if room == 0:
            raise BadInput(f"the Ray cluster has no node with a `sandbox` resource and {settings.slot_cpus:g} free CPUs "
                           "(start nodes with --resources '{\"sandbox\": N}')")
        count = max(1, min(workers or room, room // max(1, share) or 1))
        env = {k: v for k, v in os.environ.items() if _CREDENTIALS.search(k)}
        # @ray.remote made these classes ActorClasses; ray's annotations keep them plain classes
        actors = [_SlotActor.options(num_cpus=settings.slot_cpus, resources={"sandbox": 1},  # type: ignore[attr-defined]
                                     max_restarts=0, max_task_retries=0).remote(sandbox, limits, env) for _ in range(count)]
        refs = {a.describe.remote(): a for a in actors}
        ready, late = ray.wait(list(refs), num_returns=len(refs), timeout=STARTUP_S)
        described = []
        for ref in ready:
            try:
                described.append((refs[ref], ray.get(ref)))
            except RayActorError as exc:
                raise InfraError(InfraKind.node, f"a slot of the Ray cluster failed to start: {exc}") from None
        for ref in late:
            ray.kill(refs[ref])
        if not described:
            raise BadInput(f"no slot of the Ray cluster started within {STARTUP_S:.0f} s (are its resources taken?)")
        broken = [d for _, d in described if "error" in d]
        if broken:
            raise BadInput(f"node {broken[0]['host']}: {broken[0]['error']}")
        versions = {d["version"] for _, d in described}
        if versions != {__version__}:
            raise BadInput(f"the Ray cluster's nodes run harness {', '.join(sorted(versions))}; "
                           f"this driver runs {__version__}")
        facts = {d["facts"].model_dump_json() for _, d in described}
        if len(facts) > 1:
            raise BadInput("the Ray cluster's nodes have different sandboxes (backend, image or digest): "
                           + " | ".join(sorted(facts)))
        if late:
            self.notice(f"notice: {len(late)} of {count} Ray slots did not start within {STARTUP_S:.0f} s; "
                        f"running on {len(described)}")
        self._live = [a for a, _ in described]
        self._last: dict[Any, Hashable] = {}  # each slot's last affinity key, from run to run
        self._facts: SandboxFacts = described[0][1]["facts"]
        self.slots = len(self._live)
        nodes = len({d["node"] for _, d in described})
        self.name = f"ray cluster ({nodes} node{'s' if nodes > 1 else ''}, {settings.slot_cpus:g} CPU per slot)"
        self._namespace = f"harness-{uuid.uuid4().hex[:12]}"

    # --- running units ----------------------------------------------------------------

    def run(self, units: Sequence[U], work: Work, *, label: str, on_result: Callable[[U, R], None] | None = None,
            on_lost: Lost | None = None, on_failure: Failed | None = None,
            affinity: Callable[[U], Hashable] | None = None) -> None:
        units = list(units)
        keys = [affinity(u) for u in units] if affinity is not None else None
        todo = list(range(len(units)))
        tries = [0] * len(units)
        idle = list(self._live)
        flying: dict[Any, tuple[Any, int]] = {}
        error: BaseException | None = None       # ends the handing out: no slot is left
        first_failure: UnitFailure | None = None  # a unit's own, raised at the end without on_failure

        def lose(i: int, why: str) -> None:
            nonlocal error
            if on_lost is not None:
                on_lost(units[i], why)
            elif error is None:
                error = InfraError(InfraKind.node, why, attempts=tries[i])

        def failed(i: int, exc: RayTaskError) -> None:
            nonlocal first_failure
            failure = UnitFailure.of(_cause(exc), where=str(exc))
            if on_failure is not None:
                on_failure(units[i], failure)
            elif first_failure is None:
                first_failure = failure

        try:
            while todo or flying:
                while error is None and todo and idle:
                    actor = idle.pop()
                    i = next_unit(todo, keys, self._last.get(actor))
                    flying[actor.work.remote(work, units[i], label)] = (actor, i)
                    if keys is not None:
                        self._last[actor] = keys[i]
                if not flying:
                    for i in todo if error is None else ():
                        lose(i, "no slot of the Ray cluster is left")
                    break
                done, _ = ray.wait(list(flying), num_returns=1, timeout=0.5)
                for ref in done:
                    actor, i = flying.pop(ref)
                    try:
                        got = ray.get(ref)
                    except (RayActorError, ObjectLostError) as exc:
                        self._lost(actor, idle)
                        tries[i] += 1
                        why = f"its Ray slot died ({type(exc).__name__}), {tries[i]} time(s)"
                        if tries[i] < ATTEMPTS:
                            self.notice(f"notice: {label}: a unit's slot died; running it again elsewhere")
                            todo.insert(0, i)
                        else:
                            lose(i, why)
                        continue
                    except RayTaskError as exc:
                        idle.append(actor)
                        failed(i, exc)
                        continue
                    idle.append(actor)
                    if on_result is not None:
                        on_result(units[i], got)
        except BaseException:
            self._interrupt(flying, units, on_result)
            raise
        if error is not None:
            raise error
        if first_failure is not None:
            raise first_failure.error

    def _lost(self, actor, idle: list) -> None:
        if actor in self._live:
            self._live.remove(actor)
        if actor in idle:
            idle.remove(actor)
        try:
            ray.kill(actor)  # a slot cut off from the driver stops holding its resources
        except Exception:
            pass

    def _interrupt(self, flying: dict, units: list, on_result) -> None:
        """Ctrl-C (or an error of the driver's own): every slot stops, the units in flight
        end soon after and are delivered as they ended."""
        for actor in self._live:
            actor.stop.remote()
        deadline = time.monotonic() + STOP_S
        while flying and time.monotonic() < deadline:
            done, _ = ray.wait(list(flying), num_returns=1, timeout=max(0.0, deadline - time.monotonic()))
            for ref in done:
                _, i = flying.pop(ref)
                try:
                    got = ray.get(ref)
                except Exception:
                    continue
                if on_result is not None:
                    on_result(units[i], got)
        for ref in flying:
            ray.cancel(ref)

    def each_host(self, fn: Callable[..., T], *args: Any) -> list[T]:
        refs = [a.on_host.remote(fn, args) for a in self._live]
        try:
            return ray.get(refs)
        except RayTaskError as exc:
            raise _cause(exc) from None
        except (RayActorError, ObjectLostError) as exc:
            raise InfraError(InfraKind.node, f"a slot of the Ray cluster died while getting ready: {exc}") from None

    def limiter(self, name: str, per_minute: float) -> ClusterLimiter:
        # On the driver's node: the pace lives as long as the run does.
        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=True)
        actor = _PaceActor.options(name=f"pace-{sha256_bytes(name.encode())[:16]}",  # type: ignore[attr-defined]  # an ActorClass: see _start
                                   namespace=self._namespace, get_if_exists=True, scheduling_strategy=here).remote(per_minute)
        self._limiters.append(actor)
        return ClusterLimiter(actor)

    def close(self) -> None:
        live, self._live = getattr(self, "_live", []), []
        if live:
            try:
                ray.wait([a.close.remote() for a in live], num_returns=len(live), timeout=CLOSE_S)
            except Exception:
                pass
        for actor in live + getattr(self, "_limiters", []):
            try:
                ray.kill(actor)
            except Exception:
                pass
        if self._joined and ray.is_initialized():
            ray.shutdown()
        self._joined = False


def _cause(exc: "RayTaskError") -> BaseException:
    """What the work raised, as it raised it (a BadInput stays one line of bad input)."""
    cause = getattr(exc, "cause", None)
    return cause if isinstance(cause, BaseException) else exc
