"""The harness's trace driver (languages/python/trace.py), run in the sandbox as the runner
beside the code it traces: each call given (an expression, evaluated in a namespace holding
the names the folder's top-level modules define) is run under sys.settrace, and the lines
of those modules it runs are recorded, each with the local names it changed, then what the
call returned or raised; one JSON line per call in `out`. Recording stops, and the call is
marked cut, at `events` lines or `chars` characters of records, whichever comes first (the
call itself runs on, untraced). Standard library only; every count and length is cut."""

import json
import os
import sys

VALUE = 80        # characters of one value's repr


def short(value):
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001
        text = "<" + type(value).__name__ + ">"
    return text if len(text) <= VALUE else text[:VALUE - 3] + "..."


def traced(paths, namespace, expression, max_events, max_chars):
    events, last, state = [], {}, {"chars": 0, "cut": False}

    def tracer(frame, event, arg):
        if state["cut"] or frame.f_code.co_filename not in paths:
            return None
        if event == "line":
            now = {k: short(v) for k, v in frame.f_locals.items()}
            changed = {k: v for k, v in now.items() if last.get((id(frame), k)) != v}
            for k, v in now.items():
                last[(id(frame), k)] = v
            record = [paths[frame.f_code.co_filename], frame.f_lineno, changed]
            state["chars"] += len(json.dumps(record))
            if len(events) >= max_events or state["chars"] > max_chars:
                state["cut"] = True
                return None
            events.append(record)
        return tracer

    sys.settrace(tracer)
    try:
        got = ["=", short(eval(expression, dict(namespace)))]
    except Exception as exc:  # noqa: BLE001
        got = ["raise", type(exc).__name__]
    finally:
        sys.settrace(None)
    return events, got, state["cut"]


def main():
    folder, calls_path, out_path, max_events, max_chars = sys.argv[1:6]
    sys.path.insert(0, folder)
    namespace, paths = {}, {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            mod = __import__(name[:-3])
            paths[mod.__file__] = name
            namespace.update({k: v for k, v in vars(mod).items() if not k.startswith("__")})
    with open(calls_path) as f:
        calls = json.load(f)
    with open(out_path, "w") as out:
        for expression in calls:
            events, got, cut = traced(paths, namespace, expression, int(max_events), int(max_chars))
            out.write(json.dumps([events, got, cut]) + "\n")


if __name__ == "__main__":
    main()
