"""Not part of the test command: every request Aider's driver sends a scripted model in one
`--agent aider-polyglot` run and one `--agent aider-whole` run of sum-of-squares (the
answers of tests/agents/test_aider_polyglot.py: a broken round that draws auto-lint's follow-ups and
history summaries, then the fix), written as JSON with the chat's files in name order (Aider
lists them in the order of a set of absolute paths). Run it on two checkouts and compare the
files: a change that leaves Aider's behaviour alone leaves the requests byte for byte the
same; only the endpoint's port and the checkout's path in the manifests differ.

    cd CHECKOUT && .venv/bin/python tests/bench/capture_aider_requests.py SCRATCH_DIR OUT.json
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path.cwd()))

from harness.run import run  # noqa: E402
from harness.run.config import RunConfig  # noqa: E402
from harness.store import PROFILE_FILE  # noqa: E402
from tests.conftest import GOLDEN  # noqa: E402
from tests.scripted_model import Script, ScriptedModel  # noqa: E402
from tests.test_aider_polyglot import BROKEN, FIXED, checkout  # noqa: E402

AGENTS = ("aider-polyglot", "aider-whole")


def in_name_order(body: dict) -> dict:
    def normal(m: dict) -> dict:
        content = m.get("content")
        if m.get("role") == "user" and str(content).startswith("I have *added these files to the chat*"):
            header, *files = re.split(r"\n(?=\S+\n```\n)", content)
            return {**m, "content": [header, *sorted(files)]}
        return m
    return {**body, "messages": [normal(m) for m in body.get("messages", [])]}


def main(scratch: Path, out: Path) -> None:
    shutil.rmtree(scratch, ignore_errors=True)
    suite = scratch / "suite"
    shutil.copytree(GOLDEN / "sum-of-squares", suite / "sum-of-squares")
    (suite / "suite.toml").write_text('name = "mini"\nversion = "0.1"\nlanguage = "cpp"\nimage = "harness-cpp"\n'
                                      'tasks = ["sum-of-squares"]\n')
    captured = {}
    for agent in AGENTS:
        with ScriptedModel({"polyglot": Script([BROKEN] * 4, then=FIXED)}) as model:
            run(RunConfig(suite=str(suite), models=["openai/polyglot"], api_base=model.api_base, trials=1, workers=1,
                          agent=agent, aider_checkout=checkout(scratch), runs_dir=scratch / "runs", run_id=agent))
            captured[agent] = {"requests": [in_name_order(b) for b in model.requests["polyglot"]],
                               "summaries": [in_name_order(b) for b in model.summaries],
                               "preflights": model.preflights}
        run_dir = scratch / "runs" / agent
        captured[agent]["manifest_configs"] = json.loads((run_dir / "manifest.json").read_text())["configs"]
        captured[agent]["profile"] = json.loads((run_dir / PROFILE_FILE).read_text())
    out.write_text(json.dumps(captured, indent=1, sort_keys=True))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
