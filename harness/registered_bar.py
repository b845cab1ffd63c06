"""A bar registered before the run: `harness preregister` writes it with its hash and time,
`harness run --preregistered FILE` checks it and records it in the manifest before the first
trial, and `harness compare` judges it, saying when it was registered. A bar given only at
compare time is judged too, but is said to be post hoc."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from pydantic import ValidationError

from .errors import BadInput, invalid
from .fs import check_writable, write_record
from .hashing import sha256_json
from .records import BarMetric, BarRegistration, RegisteredBar

# What each metric is called in a sentence (report/metrics.py NAMES for the written suites').
METRIC_NAMES: dict[str, str] = {"solved": "tasks solved", "valid": "valid", "kill_rate": "kill rate",
                                "assertion_accuracy": "assertion accuracy"}
ROUND_NAMES = {1: "round 1", 2: "within two rounds"}


def bar_hash(bar: BarRegistration) -> str:
    return sha256_json(bar.model_dump(mode="json"))


def register(metric: BarMetric, base: str, new: str, delta: float, round_no: int = 2,
             hypothesis: str | None = None, now: datetime | None = None) -> RegisteredBar:
    """The bar, stamped with the time (UTC) and hashed."""
    if base == new:
        raise BadInput(f"BASE and NEW are the same configuration ({base})")
    stamp = (now or datetime.now(timezone.utc)).astimezone(timezone.utc).isoformat(timespec="milliseconds")
    try:
        bar = BarRegistration(metric=metric, base=base, new=new, delta=delta, round=round_no,
                              hypothesis=hypothesis or None, registered_at=stamp)
    except ValidationError as exc:
        raise invalid(exc, flags={"base": "base", "new": "new", "delta": "delta", "round": "round"}) from None
    return RegisteredBar(bar=bar, sha256=bar_hash(bar))


def write_registration(registration: RegisteredBar, path: Path) -> Path:
    path = Path(path)
    if path.exists():
        # A registration is written once: overwriting one would let a bar be moved after the fact.
        raise BadInput(f"{path} exists: a registration is never overwritten; write a new file")
    check_writable(path, "--out", is_file=True)
    write_record(path, registration)
    return path


def check_intact(registration: RegisteredBar, where: str) -> None:
    """The bar hashes to what was written with it, and its time is a time."""
    if bar_hash(registration.bar) != registration.sha256:
        raise BadInput(f"{where}: the registered bar does not match its hash (changed after it was registered)")
    registered_time(registration.bar, where)


def registered_time(bar: BarRegistration, where: str = "registration") -> datetime:
    try:
        stamp = datetime.fromisoformat(bar.registered_at)
    except ValueError:
        raise BadInput(f"{where}: registered_at {bar.registered_at!r} is not a time") from None
    if stamp.tzinfo is None:
        raise BadInput(f"{where}: registered_at {bar.registered_at!r} has no time zone")
    return stamp


def read_registration(path: Path) -> RegisteredBar:
    """A registration file, checked: readable, of this schema, its hash intact, and
    registered before now (a bar dated later than the run that records it was not first)."""
    path = Path(path)
    if not path.is_file():
        raise BadInput(f"{path}: no such registration file (write one with `harness preregister`)")
    try:
        registration = RegisteredBar.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        raise invalid(exc, str(path)) from None
    check_intact(registration, str(path))
    if registered_time(registration.bar, str(path)) > datetime.now(timezone.utc):
        raise BadInput(f"{path}: registered_at {registration.bar.registered_at} is later than now")
    return registration


def describe(bar: BarRegistration) -> str:
    """The bar in one line, for messages."""
    return (f"{bar.new} gains at least {bar.delta:g} {METRIC_NAMES[bar.metric]} over {bar.base} "
            f"{ROUND_NAMES[bar.round]}")
