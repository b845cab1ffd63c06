"""Loading what is trained: the base model in the precision the device supports, its
tokenizer with its own chat template, and the LoRA config from the settings (or an
existing adapter to continue from)."""

from __future__ import annotations

import os
from pathlib import Path

from ..adapter_card import find_card, verify_card
from ..errors import BadInput
from .config import LoraSettings


def base_ref(base: str) -> str:
    """A local base model as an absolute path (cards and adapter configs must name it the
    same way from any working directory); a hub id as given."""
    path = Path(os.path.expanduser(base))
    return str(path.resolve()) if path.exists() else base


def load_tokenizer(base: str):
    # transformers is the train extra's: imported when training starts
    from transformers import AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(base)
    except OSError as exc:
        raise BadInput(f"base model {base!r}: {exc}".splitlines()[0]) from None
    if not tokenizer.chat_template:
        raise BadInput(f"base model {base!r} has no chat template; training uses the model's own template")
    if tokenizer.pad_token is None:
        # Padding positions are masked out of every loss; the end-of-sequence token is what
        # instruction-tuned models conventionally pad with.
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


def load_base(base: str, bf16: bool):
    # torch and transformers are the train extra's: imported when training starts
    import torch
    from transformers import AutoModelForCausalLM

    try:
        return AutoModelForCausalLM.from_pretrained(base, dtype=torch.bfloat16 if bf16 else torch.float32)
    except OSError as exc:
        raise BadInput(f"base model {base!r}: {exc}".splitlines()[0]) from None


def lora_config(settings: LoraSettings):
    # peft is the train extra's: imported when training starts
    from peft import LoraConfig

    return LoraConfig(
        r=settings.rank,
        lora_alpha=settings.alpha,  # type: ignore[arg-type]  # peft annotates int but only divides it by r
        lora_dropout=settings.dropout,
        target_modules=settings.target_modules,
        task_type="CAUSAL_LM",
    )


def init_adapter_dir(name: str, base: str) -> Path:
    """The folder of the adapter a run continues from, by card name; its card must name
    the same base model and still match its weights."""
    card, card_file = find_card(name)
    if base_ref(card.base_model) != base:
        raise BadInput(f"adapter {name} was trained on {card.base_model!r}, not {base!r}")
    return verify_card(card, card_file)


def load_trainable_adapter(model, adapter_dir: Path):
    # peft is the train extra's: imported when training starts
    from peft import PeftModel

    return PeftModel.from_pretrained(model, str(adapter_dir), is_trainable=True)


def quiet_and_synchronised(args) -> bool:
    """Silence the libraries' own progress output (the trainers print theirs) and wait until
    every process has checked the run before the main one claims it. True on the main
    process."""
    # the train extra's packages: imported when training starts
    import datasets
    from accelerate import PartialState
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    datasets.disable_progress_bars()
    PartialState().wait_for_everyone()
    return args.process_index == 0


def policy(base: str, bf16: bool, adapter_dir: Path | None, lora: LoraSettings):
    """The model to train and the peft config the trainer wraps it with: the base with a new
    LoRA adapter (the config), or the base with the adapter in `adapter_dir` to continue
    (no config: it is already a peft model)."""
    model = load_base(base, bf16)
    if adapter_dir is not None:
        return load_trainable_adapter(model, adapter_dir), None
    return model, lora_config(lora)
