"""Which bar `harness compare` judges, and what it may call it: the bar NEW's run recorded
before its first trial (`harness run --preregistered`), checked and dated, or a bar given at
compare time, which is judged the same way but called post hoc, never pre-registered."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..errors import BadInput
from ..outcomes import ConfigInfo
from ..records import RunRegistration
from ..registered_bar import ROUND_NAMES, check_intact, registered_time
from .options import ReportOptions

POST_HOC = "Bar given at compare time, not registered before the run (post hoc)"
REGISTERED = "Registered bar"


@dataclass
class BarInForce:
    """The options with the registered bar in them, the rule's label, and what the lead says
    of where the bar came from before its rule."""

    opts: ReportOptions
    label: str
    lines: list[str]
    registration: RunRegistration | None = None


def bar_in_force(base: ConfigInfo, new: ConfigInfo, opts: ReportOptions) -> BarInForce:
    """The bar NEW's run registered, where it did (a compare-time bar must then say the same,
    and BASE and NEW must be its configs); else the compare-time bar, labelled post hoc."""
    held = new.preregistered
    lines = []
    if base.preregistered is not None and (held is None or base.preregistered.registration.sha256
                                           != held.registration.sha256):
        # BASE's run registered a bar about its own configs: another comparison's.
        lines.append(f"{base.name}'s run records a registered bar of its own ({base.preregistered.path}), "
                     "not judged here: it is NEW's run's bar that is judged.")
    if held is None:
        return BarInForce(opts, POST_HOC, lines if opts.bar is not None else [])
    reg = held.registration
    bar, where = reg.bar, f"the registered bar of {new.name}'s run ({held.path})"
    check_intact(reg, where)
    given = (base.run_config or base.name, new.run_config or new.name)
    if given[1] != bar.new and given != (bar.new, bar.base):
        # Another comparison of configs of the same run: the bar is not about it, and it
        # must not be passed off as registered for it.
        lines.append(f"{new.name}'s run registered a bar of {bar.new} against {bar.base} ({held.path}), not "
                     "about this comparison: it is not judged here.")
        return BarInForce(opts, POST_HOC, lines)
    if given != (bar.base, bar.new):
        raise BadInput(f"{where} compares BASE {bar.base} with NEW {bar.new}; this comparison is "
                       f"{given[0]} against {given[1]}")
    if opts.bar is not None and opts.bar != bar.delta:
        raise BadInput(f"--pre-registered-bar {opts.bar:g}: {where} is {bar.delta:g}; a bar is not changed after "
                       "the run (drop the option to judge the registered one)")
    if opts.metric is not None and opts.metric != bar.metric:
        raise BadInput(f"--metric {opts.metric}: {where} judges {bar.metric}")
    if opts.round is not None and opts.round != bar.round:
        raise BadInput(f"--round {opts.round}: {where} is judged {ROUND_NAMES[bar.round]}")
    if opts.cohort is not None:
        raise BadInput(f"{where} cannot be judged on a selected cohort (--cohort): its intervals are not valid")
    registered = registered_time(bar, where)
    first = _first_trial(new, where)
    if registered >= first:
        raise BadInput(f"{where} was registered at {bar.registered_at}, not before {new.name}'s first trial at "
                       f"{new.first_trial_at}")
    after = f"before the first trial of {new.name} at {new.first_trial_at}"
    if base.first_trial_at is not None:
        before_base = registered < _first_trial(base, where)
        after += (f" and of {base.name} at {base.first_trial_at}" if before_base else
                  f"; {base.name}'s trials began earlier, at {base.first_trial_at} (a baseline run before it)")
    lines.append(f"{REGISTERED} (sha256 {reg.sha256[:12]}, checked; {held.path}): registered at {bar.registered_at}, "
                 f"{after}; recorded in the run's manifest at {held.recorded_at}."
                 + (f" Hypothesis: {bar.hypothesis}" if bar.hypothesis else ""))
    judged = opts.model_copy(update={"bar": bar.delta, "metric": None if bar.metric == "solved" else bar.metric,
                                     "round": bar.round if bar.round == 1 else opts.round})
    return BarInForce(judged, REGISTERED, lines, held)


def _first_trial(info: ConfigInfo, where: str) -> datetime:
    if info.first_trial_at is None:
        raise BadInput(f"{where}: {info.name} records no trial start, so the bar cannot be shown to come first")
    return datetime.fromisoformat(info.first_trial_at)
