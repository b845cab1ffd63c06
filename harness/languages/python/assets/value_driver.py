"""The harness's value driver (languages/python/expression.py), run in the sandbox as the
runner in a process of its own: one Python expression (a model's prediction) evaluated in a
namespace of builtins alone, its value written as one call record of the probe's schema
(the encoder of languages/python/probe/runtime.py, whose source comes in beside it) to the
file named in the payload. The payload is JSON on standard input. Whatever the expression
does to this process reaches only the record of its own value, which the harness reads
with the schema's bounds and compares in its own process."""

import json
import sys


def main():
    payload = json.loads(sys.stdin.buffer.read())
    tools = {"__name__": "_harness_encoder"}
    exec(compile(payload["runtime"], "runtime.py", "exec"), tools)
    encoder = tools["Encoder"](payload["bounds"], lambda value: False, repr)
    out = open(payload["out"], "w", encoding="ascii")
    sys.stdin = None
    try:
        value = eval(compile(payload["expression"], "<prediction>", "eval"), {"__name__": "_prediction"})
        record = {"o": [{"v": encoder.value(value)}]}
    except BaseException as exc:  # the expression's own failure is its outcome
        record = {"o": [{"x": tools["exception_name"](exc)}]}
    out.write(encoder.record(record) + "\n")
    out.close()


main()
