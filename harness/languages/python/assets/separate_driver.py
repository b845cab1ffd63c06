"""The harness's separation driver (languages/python/separate.py), run in the sandbox as the
runner: for each variant folder given (the correct solution first, then mutants of it), a
child process imports the module from that folder and calls each function on each input,
writing one JSON line per call to `out/<n>.jsonl`: the result's repr (cut) or the name of
the exception it raised. Standard library only."""

import ast
import json
import os
import subprocess
import sys

CALL_S = 2.0      # one variant's calls together, beyond this: a hang, which shows nothing
REPR = 2000       # characters of one result kept


def child(folder, module, inputs_path, out_path):
    sys.path.insert(0, folder)
    sys.setrecursionlimit(2000)
    with open(inputs_path) as f:
        inputs = json.load(f)
    try:
        mod = __import__(module)
    except BaseException as exc:  # noqa: BLE001
        mod, failed = None, type(exc).__name__
    with open(out_path, "w") as out:
        for function, arguments in inputs:
            if mod is None:
                got = "import:" + failed
            else:
                try:
                    args = ast.literal_eval(arguments)  # literal tuples the harness wrote
                    got = "=" + repr(getattr(mod, function)(*args))[:REPR]
                except BaseException as exc:  # noqa: BLE001
                    got = "raise:" + type(exc).__name__
            out.write(json.dumps([function, arguments, got]) + "\n")
            out.flush()


def main():
    module, inputs_path, out_dir, *folders = sys.argv[1:]
    os.makedirs(out_dir, exist_ok=True)
    for n, folder in enumerate(folders):
        out = os.path.join(out_dir, f"{n}.jsonl")
        try:
            subprocess.run([sys.executable, "-I", __file__, "--child", folder, module, inputs_path, out],
                           timeout=CALL_S, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=False)
        except subprocess.TimeoutExpired:
            with open(out, "a") as f:
                f.write(json.dumps(["", "", "timeout"]) + "\n")


if __name__ == "__main__":
    if sys.argv[1] == "--child":
        child(*sys.argv[2:6])
    else:
        main()
