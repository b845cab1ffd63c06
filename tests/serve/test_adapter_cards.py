"""Adapter cards: read from the adapter's own files, trusted only while the weights still
hash the same, and every defect one line with exit code 2."""

from __future__ import annotations

import json
import shutil

import pytest

from harness.adapter_card import (
    TrainingManifest,
    card_from_adapter,
    find_card,
    load_card,
    save_card,
    verify_card,
    write_card,
)
from harness.errors import BadInput
from tests.tinymodel import LORA_TARGETS, build_tiny_model, make_random_adapter

from .conftest import harness


def test_tiny_model_is_reproducible_and_has_a_chat_template(tmp_path, tiny):
    again = build_tiny_model(tmp_path / "again")
    assert (again / "model.safetensors").read_bytes() == (tiny.base / "model.safetensors").read_bytes()
    assert (again / "tokenizer.json").read_bytes() == (tiny.base / "tokenizer.json").read_bytes()

    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny.base)
    prompt = tok.apply_chat_template([{"role": "user", "content": "int main() {}"}], tokenize=False, add_generation_prompt=True)
    assert prompt == "<|im_start|>user\nint main() {}<|im_end|>\n<|im_start|>assistant\n"
    assert tok.decode(tok("std::string ünïcode")["input_ids"]) == "std::string ünïcode"  # byte-level: nothing unknown
    model = AutoModelForCausalLM.from_pretrained(tiny.base)
    assert 50_000 < model.num_parameters() < 500_000
    assert model.config.eos_token_id == tok.eos_token_id == tok.convert_tokens_to_ids("<|im_end|>")


def test_card_reads_the_adapter_files(tiny):
    card = card_from_adapter(tiny.adapters["alpha"], name="alpha", base_model=str(tiny.base))
    assert (card.rank, card.alpha, card.dtype) == (8, 16, "float32")
    assert card.target_modules == sorted(LORA_TARGETS)
    assert card.path == str(tiny.adapters["alpha"].resolve())
    other = card_from_adapter(tiny.adapters["beta.v2"], name="beta.v2", base_model=str(tiny.base))
    assert len(card.sha256) == 64 and card.sha256 != other.sha256


def test_card_round_trips_with_its_training_manifest(tmp_path, tiny):
    manifest = TrainingManifest(parent="alpha", iteration=3, dataset_hash="ab" * 32,
                                trained_on_tasks=["phone-number", "clock"], config={"lr": 1e-4, "steps": 40},
                                source_run="run-20260101")
    path = write_card(tiny.adapters["gamma@iter3"], name="gamma@iter3", base_model=str(tiny.base),
                      training=manifest, folder=tmp_path)
    assert path.name == "gamma@iter3.toml"
    card = load_card(path)
    assert card.training == manifest
    assert card.training.trained_on_tasks == ["phone-number", "clock"]
    assert verify_card(card, path) == tiny.adapters["gamma@iter3"].resolve()


def test_verify_catches_changed_weights(tmp_path, tiny):
    adapter = shutil.copytree(tiny.adapters["alpha"], tmp_path / "alpha")
    path = write_card(adapter, name="alpha", base_model=str(tiny.base), folder=tmp_path / "cards")
    weights = adapter / "adapter_model.safetensors"
    data = bytearray(weights.read_bytes())
    data[-1] ^= 0xFF
    weights.write_bytes(bytes(data))
    with pytest.raises(BadInput, match="weights changed since the card was written"):
        verify_card(load_card(path), path)


def test_verify_catches_a_retyped_rank(tmp_path, tiny):
    path = write_card(tiny.adapters["alpha"], name="alpha", base_model=str(tiny.base), folder=tmp_path)
    path.write_text(path.read_text().replace("rank = 8", "rank = 16"))
    with pytest.raises(BadInput, match="card says rank 16, adapter_config.json says 8"):
        verify_card(load_card(path), path)


def test_adapter_made_for_another_base_is_refused(tmp_path, tiny):
    other_base = build_tiny_model(tmp_path / "other", corpus=["something else entirely"] * 10)
    adapter = make_random_adapter(other_base, tmp_path / "foreign", seed=5)
    with pytest.raises(BadInput, match="names base"):
        card_from_adapter(adapter, name="foreign", base_model=str(tiny.base))


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda t: t.replace('sha256 = "', 'checksum = "'), "sha256: missing"),
        (lambda t: "\n".join(line for line in t.splitlines() if not line.startswith("base_model")), "base_model: missing"),
        (lambda t: t.replace("rank = 8", "rank = 0"), "rank: input should be greater than 0"),
        (lambda t: t.replace('name = "alpha"', 'name = "other"'), "the file must be other.toml"),
        (lambda t: t + "\n[[[", "not valid TOML"),
    ],
)
def test_bad_cards_are_one_line_of_bad_input(tmp_path, tiny, edit, message):
    path = write_card(tiny.adapters["alpha"], name="alpha", base_model=str(tiny.base), folder=tmp_path)
    path.write_text(edit(path.read_text()))
    with pytest.raises(BadInput) as caught:
        load_card(path)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_cli_add_list_show_verify(state_dir, tiny):
    add = harness("adapters", "add", str(tiny.adapters["alpha"]), "--name", "alpha", "--base", str(tiny.base))
    assert add.returncode == 0, add.stderr
    card, path = find_card("alpha")
    assert path.parent == state_dir / "adapters"

    again = harness("adapters", "add", str(tiny.adapters["alpha"]), "--name", "alpha", "--base", str(tiny.base))
    assert again.returncode == 2 and again.stderr.count("\n") == 1 and "--force" in again.stderr

    listed = harness("adapters", "list", "--json")
    assert listed.returncode == 0
    assert [(c["name"], c["rank"], c["source"]) for c in json.loads(listed.stdout)] == [("alpha", 8, "user")]

    shown = harness("adapters", "show", "alpha")
    assert shown.returncode == 0 and f'sha256 = "{card.sha256}"' in shown.stdout
    assert harness("adapters", "verify", "alpha").returncode == 0

    # A card whose hash no longer matches: verify says so in one line, exit 2.
    save_card(card.model_copy(update={"sha256": "0" * 64}))
    bad = harness("adapters", "verify", "alpha")
    assert bad.returncode == 2 and bad.stderr.startswith("error: adapter alpha: weights changed")
    assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr

    # A card missing a field: listing shows the error line and exits 2.
    path.write_text("\n".join(line for line in path.read_text().splitlines() if not line.startswith("rank")))
    broken = harness("adapters", "list")
    assert broken.returncode == 2 and "rank: missing" in broken.stderr and "Traceback" not in broken.stderr

    unknown = harness("adapters", "verify", "nope")
    assert unknown.returncode == 2 and "no adapter card named 'nope'" in unknown.stderr
