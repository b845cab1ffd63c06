"""The harness's trace driver (languages/python/trace.py), run in the sandbox as the runner
beside the correct solution: for each call given (a function of the solution's module and a
literal argument tuple), the lines of the module it runs, with the local names each line
changed, and what it returned or raised, one JSON line per call in `out`. Standard library
only; every count and length is cut."""

import ast
import json
import sys

LINES = 40        # line events of one call kept
VALUE = 80        # characters of one value's repr


def short(value):
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001
        text = "<" + type(value).__name__ + ">"
    return text if len(text) <= VALUE else text[:VALUE - 3] + "..."


def traced(mod, function, args):
    path = mod.__file__
    events, last = [], {}

    def tracer(frame, event, arg):
        if frame.f_code.co_filename != path:
            return None
        if event == "line" and len(events) < LINES:
            now = {k: short(v) for k, v in frame.f_locals.items()}
            changed = {k: v for k, v in now.items() if last.get((id(frame), k)) != v}
            for k, v in now.items():
                last[(id(frame), k)] = v
            events.append([frame.f_lineno, changed])
        return tracer

    sys.settrace(tracer)
    try:
        got = ["=", short(getattr(mod, function)(*args))]
    except Exception as exc:  # noqa: BLE001
        got = ["raise", type(exc).__name__]
    finally:
        sys.settrace(None)
    return events, got


def main():
    folder, module, calls_path, out_path = sys.argv[1:5]
    sys.path.insert(0, folder)
    mod = __import__(module)
    with open(calls_path) as f:
        calls = json.load(f)
    with open(out_path, "w") as out:
        for function, arguments in calls:
            events, got = traced(mod, function, ast.literal_eval(arguments))
            out.write(json.dumps([function, arguments, events, got]) + "\n")


if __name__ == "__main__":
    main()
