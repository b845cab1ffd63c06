"""A tiny causal language model made on the spot: random weights from a config and a
byte-level BPE tokenizer trained on a small corpus, with a chat template, saved the way a
hub checkpoint is saved. Nothing can be downloaded on these machines, so tests of serving
and training use this in place of a real base model; the code paths they drive are the
real ones. `make_random_adapter` adds a peft LoRA adapter whose weights are random (peft
would otherwise start from an identity adapter), so two adapters answer differently."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence

from pydantic import BaseModel, ConfigDict

PAD, BOS_TURN, EOS_TURN = "<|pad|>", "<|im_start|>", "<|im_end|>"

# ChatML-style turns. The end-of-turn marker doubles as the end-of-sequence token, so a
# model that learns to close its turn stops generating there.
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


class TinyModelSpec(BaseModel):
    """The shape of the model. The defaults give about 100 K parameters, and a context
    long enough for an Aider prompt (positions are rotary, so length costs no weights)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    vocab_size: int = 512
    hidden_size: int = 64
    intermediate_size: int = 128
    num_layers: int = 2
    num_heads: int = 4
    num_kv_heads: int = 2
    max_position_embeddings: int = 8192
    # Written to generation_config.json; servers (vLLM and ours) take it as the default
    # number of new tokens when a request names none.
    max_new_tokens: int = 64
    seed: int = 0


def _default_corpus() -> list[str]:
    """Enough C++ and English for the BPE merges to look like code and prose."""
    cpp = [
        "#include <string>\n#include <vector>\n\nnamespace phone_number {\n",
        "class phone_number {\npublic:\n    explicit phone_number(const std::string& text);\n",
        "    std::string number() const;\nprivate:\n    std::string digits_;\n};\n",
        "int main() {\n    for (int i = 0; i < n; ++i) {\n        total += values[i];\n    }\n    return 0;\n}\n",
        "if (text.empty()) {\n    throw std::domain_error(\"empty input\");\n}\n",
        "std::vector<int> result;\nresult.push_back(static_cast<int>(c - '0'));\n",
        "auto it = std::find_if(s.begin(), s.end(), [](char c) { return std::isdigit(c); });\n",
    ]
    prose = [
        "Write the solution in the files given. Keep the function signatures as they are.\n",
        "The tests failed. Fix the code so that every test passes.\n",
        "Here is the updated file:\n\nphone_number.cpp\n```\n",
        "The quick brown fox jumps over the lazy dog. Numbers: 0123456789.\n",
    ]
    return (cpp + prose) * 20


def train_tokenizer(corpus: Iterable[str], vocab_size: int):
    """A byte-level BPE tokenizer (any text encodes, nothing is unknown) with the chat
    template and special tokens set, as a transformers fast tokenizer."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[PAD, BOS_TURN, EOS_TURN],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    core.train_from_iterator(corpus, trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, pad_token=PAD, eos_token=EOS_TURN)
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def build_tiny_model(out_dir: Path, spec: TinyModelSpec | None = None, corpus: Iterable[str] | None = None) -> Path:
    """Make and save a random Llama-architecture model with its tokenizer in `out_dir`.
    The same spec and corpus give the same weights and the same tokenizer."""
    import torch
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM

    spec = spec or TinyModelSpec()
    out_dir = Path(out_dir)
    tokenizer = train_tokenizer(list(corpus) if corpus is not None else _default_corpus(), spec.vocab_size)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=spec.hidden_size,
        intermediate_size=spec.intermediate_size,
        num_hidden_layers=spec.num_layers,
        num_attention_heads=spec.num_heads,
        num_key_value_heads=spec.num_kv_heads,
        max_position_embeddings=spec.max_position_embeddings,
        tie_word_embeddings=True,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
    )
    torch.manual_seed(spec.seed)
    model = LlamaForCausalLM(config)
    model.generation_config = GenerationConfig(
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        max_new_tokens=spec.max_new_tokens,
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    return out_dir


def make_random_adapter(
    base_dir: Path,
    out_dir: Path,
    *,
    seed: int,
    rank: int = 8,
    alpha: int = 16,
    target_modules: Sequence[str] = LORA_TARGETS,
    base_model_name: str | None = None,
) -> Path:
    """Save a LoRA adapter for the model in `base_dir` with random A and B matrices drawn
    from `seed`. `base_model_name` is what adapter_config.json records as the base
    (default: `base_dir` as given)."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    base = AutoModelForCausalLM.from_pretrained(base_dir)
    torch.manual_seed(seed)
    lora = LoraConfig(
        r=rank,
        lora_alpha=alpha,
        target_modules=list(target_modules),
        init_lora_weights=False,  # random B as well as A: not the identity adapter
        task_type="CAUSAL_LM",
    )
    model = get_peft_model(base, lora)
    model.peft_config["default"].base_model_name_or_path = base_model_name or str(base_dir)
    out_dir = Path(out_dir)
    model.save_pretrained(out_dir)
    return out_dir
