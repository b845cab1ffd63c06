"""Fixtures for serving: a tiny random model with three LoRA adapters of different random
init (built once per session), a private state directory per test module, and helpers to
run the real `harness` command and to generate directly with transformers + peft."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

HARNESS = str(Path(sys.executable).parent / "harness")


@dataclass
class Tiny:
    base: Path
    adapters: dict[str, Path]


@pytest.fixture(scope="session")
def tiny(tmp_path_factory) -> Tiny:
    from tests.tinymodel import build_tiny_model, make_random_adapter

    root = tmp_path_factory.mktemp("tiny")
    base = build_tiny_model(root / "base")
    adapters = {name: make_random_adapter(base, root / "adapters" / name, seed=seed)
                for name, seed in (("alpha", 1), ("beta.v2", 2), ("gamma@iter3", 3))}
    return Tiny(base=base, adapters=adapters)


@pytest.fixture(scope="module")
def state_dir(tmp_path_factory):
    """Each module gets its own cards and endpoint records."""
    path = tmp_path_factory.mktemp("state")
    old = os.environ.get("HARNESS_STATE_DIR")
    os.environ["HARNESS_STATE_DIR"] = str(path)
    yield path
    if old is None:
        os.environ.pop("HARNESS_STATE_DIR", None)
    else:
        os.environ["HARNESS_STATE_DIR"] = old


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def harness(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([HARNESS, *args], capture_output=True, text=True, timeout=timeout, env=os.environ.copy())


class DirectPeft:
    """What transformers + peft answer without any server: the reference the served
    answers must equal token for token."""

    def __init__(self, base: Path):
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.base = base
        self.tokenizer = AutoTokenizer.from_pretrained(base)
        self.plain = AutoModelForCausalLM.from_pretrained(base).eval()

    def greedy(self, messages: list[dict], max_new_tokens: int, adapter: Path | None = None) -> tuple[list[int], str]:
        import torch
        from peft import PeftModel
        from transformers import AutoModelForCausalLM

        text = self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        ids = torch.tensor([self.tokenizer(text, add_special_tokens=False)["input_ids"]])
        model = self.plain
        if adapter is not None:
            model = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(self.base), adapter).eval()
        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # as the server does on a small machine: many threads only spin
        try:
            with torch.inference_mode():
                out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=False,
                                 max_new_tokens=max_new_tokens, eos_token_id=self.tokenizer.eos_token_id,
                                 pad_token_id=self.tokenizer.pad_token_id)
        finally:
            torch.set_num_threads(threads)
        new = out[0, ids.shape[1]:].tolist()
        return new, self.tokenizer.decode(new, skip_special_tokens=True)


@pytest.fixture(scope="session")
def direct(tiny) -> DirectPeft:
    return DirectPeft(tiny.base)
