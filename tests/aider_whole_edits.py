"""Run by the Aider environment's Python (stdlib + aider only): the edits Aider's own
whole-file coder takes from each answer. Reads a JSON list of cases from stdin, each
{"answer": text, "files": {chat file: its content}}, and prints one JSON list: per case
{"edits": [[file, content], ...]} in the order the coder applies them, or
{"malformed": message} when the coder rejects the answer."""

import json
import os
import sys
import tempfile


def main(answer_stream) -> None:
    from aider import models
    from aider.coders import Coder
    from aider.io import InputOutput

    models.model_info_manager._cache_loaded = True  # no metadata download
    model = models.Model("openai/whole-edits-reference")
    out = []
    for case in json.load(sys.stdin):
        with tempfile.TemporaryDirectory() as root:
            fnames = []
            for name, content in case["files"].items():
                path = os.path.join(root, name)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8", newline="") as f:
                    f.write(content)
                fnames.append(path)
            io = InputOutput(pretty=False, yes=True, fancy_input=False)
            coder = Coder.create(model, "whole", io, fnames=fnames, use_git=False, stream=False, map_tokens=0,
                                 auto_lint=False, suggest_shell_commands=False)
            coder.choose_fence()  # as every request does before the answer is read
            coder.partial_response_content = case["answer"]
            try:
                edits = coder.get_edits()
            except ValueError as exc:
                out.append({"malformed": str(exc)})
                continue
            out.append({"edits": [[fname, "".join(lines)] for fname, _source, lines in edits]})
    answer_stream.write(json.dumps(out))


if __name__ == "__main__":
    answer, sys.stdout = sys.stdout, sys.stderr  # whatever aider prints stays off the answer
    main(answer)
