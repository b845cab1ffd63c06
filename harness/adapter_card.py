"""Adapter cards (`adapters/<name>.toml`): what a LoRA adapter is and everything needed to
trust a result from it. Rank, alpha, target modules and dtype are read from the adapter's
own files, never retyped; the sha256 covers its weight files, so a card whose adapter was
overwritten is caught. Adapters trained here carry their training manifest (parent,
iteration, dataset hash, the task IDs trained on, config, source run), which reports read
to flag training overlap.

User cards live in `<state_dir>/adapters/`; cards shipped with the harness in the bundled
`adapters/` folder. A user card shadows a bundled card of the same name."""

from __future__ import annotations

import datetime
import json
import os
import re
import struct
from pathlib import Path
from typing import Any

import tomli_w
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import BadInput, invalid
from .fs import atomic_write, read_toml
from .hashing import hash_paths
from .paths import bundled_dir, state_dir

SCHEMA_VERSION = 1
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]*$")
WEIGHT_SUFFIXES = (".safetensors", ".bin")
# safetensors' dtype codes, named the way torch and vLLM name them
_DTYPES = {"F16": "float16", "BF16": "bfloat16", "F32": "float32", "F64": "float64", "F8_E4M3": "float8_e4m3fn"}


class TrainingManifest(BaseModel):
    """Where an adapter trained here came from."""

    model_config = ConfigDict(extra="forbid")

    parent: str | None = None
    iteration: int | None = None
    dataset_hash: str | None = None
    trained_on_tasks: list[str] = Field(default_factory=list)
    config: dict[str, Any] = Field(default_factory=dict)
    source_run: str | None = None


class AdapterCard(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCHEMA_VERSION
    name: str
    base_model: str
    path: str
    rank: int = Field(gt=0)
    alpha: int | float
    target_modules: list[str]
    dtype: str
    sha256: str
    training: TrainingManifest | None = None
    # The last day of the base model's training data (its model card's), which the adapter
    # inherits: reports compare it with each task's date (report/scope.py).
    training_cutoff: datetime.date | None = None

    def adapter_dir(self, card_file: Path | None = None) -> Path:
        """The adapter folder; a relative path is relative to the card's own folder (so a
        bundled card can point next to itself)."""
        path = Path(os.path.expanduser(self.path))
        if not path.is_absolute() and card_file is not None:
            path = card_file.parent / path
        return path

    def to_toml(self) -> str:
        return tomli_w.dumps(self.model_dump(mode="json", exclude_none=True))


def check_name(name: str) -> str:
    if not NAME_RE.match(name):
        raise BadInput(f"adapter name {name!r}: use letters, digits and . _ @ - (not starting with a symbol)")
    return name


# ---- reading an adapter folder ---------------------------------------------------------


def read_adapter_config(adapter_dir: Path) -> dict[str, Any]:
    cfg = Path(adapter_dir) / "adapter_config.json"
    if not cfg.is_file():
        raise BadInput(f"{adapter_dir}: no adapter_config.json (not a peft adapter folder)")
    try:
        data = json.loads(cfg.read_text())
    except json.JSONDecodeError as exc:
        raise BadInput(f"{cfg}: not valid JSON ({exc.msg})") from None
    if data.get("peft_type", "LORA") != "LORA":
        raise BadInput(f"{cfg}: peft_type is {data.get('peft_type')!r}, only LORA adapters are served")
    return data


def weight_files(adapter_dir: Path) -> list[str]:
    names = sorted(p.name for p in Path(adapter_dir).iterdir() if p.is_file() and p.name.endswith(WEIGHT_SUFFIXES))
    if not names:
        raise BadInput(f"{adapter_dir}: no adapter weight files (*.safetensors or *.bin)")
    return names


def weights_sha256(adapter_dir: Path) -> str:
    return hash_paths(Path(adapter_dir), weight_files(adapter_dir))


def weights_dtype(adapter_dir: Path) -> str:
    """The dtype of the adapter's tensors, from the safetensors header (8-byte length, then
    JSON), so no tensor is loaded. A legacy .bin adapter says nothing without unpickling."""
    for name in weight_files(adapter_dir):
        if not name.endswith(".safetensors"):
            continue
        with open(Path(adapter_dir) / name, "rb") as fh:
            (length,) = struct.unpack("<Q", fh.read(8))
            header = json.loads(fh.read(length))
        codes = {v["dtype"] for k, v in header.items() if k != "__metadata__"}
        if len(codes) == 1:
            code = codes.pop()
            return _DTYPES.get(code, code.lower())
        return "mixed:" + ",".join(sorted(_DTYPES.get(c, c.lower()) for c in codes))
    return "unknown"


def same_base(card_base: str, recorded: str | None, adapter_dir: Path) -> bool:
    """peft records the base as it was named when training; a local path may have been
    given relative to wherever training ran, so paths count as the same when they resolve
    to the same folder."""
    if not recorded or recorded == card_base:
        return True
    here = Path(os.path.expanduser(card_base)).resolve()
    for root in (Path.cwd(), Path(adapter_dir)):
        candidate = (root / os.path.expanduser(recorded)).resolve()
        if candidate.exists() and candidate == here:
            return True
    return False


def card_from_adapter(
    adapter_dir: Path, *, name: str, base_model: str, training: TrainingManifest | None = None
) -> AdapterCard:
    """A card describing the adapter in `adapter_dir`, read from its files."""
    adapter_dir = Path(adapter_dir).resolve()
    if not adapter_dir.is_dir():
        raise BadInput(f"{adapter_dir}: not a folder")
    cfg = read_adapter_config(adapter_dir)
    recorded = cfg.get("base_model_name_or_path")
    if not same_base(base_model, recorded, adapter_dir):
        raise BadInput(f"adapter {name}: its adapter_config.json names base {recorded!r}, not {base_model!r}")
    targets = cfg.get("target_modules")
    if isinstance(targets, str):  # peft allows a regex here
        targets = [targets]
    try:
        return AdapterCard(
            name=check_name(name),
            base_model=base_model,
            path=str(adapter_dir),
            rank=cfg["r"],
            alpha=cfg["lora_alpha"],
            target_modules=sorted(targets or []),
            dtype=weights_dtype(adapter_dir),
            sha256=weights_sha256(adapter_dir),
            training=training,
        )
    except KeyError as exc:
        raise BadInput(f"{adapter_dir}/adapter_config.json: missing {exc.args[0]!r}") from None


# ---- card files --------------------------------------------------------------------------


def user_cards_dir() -> Path:
    path = state_dir() / "adapters"
    path.mkdir(parents=True, exist_ok=True)
    return path


def load_card(card_file: Path) -> AdapterCard:
    """Read and validate one card; any defect is one line of BadInput naming the file."""
    card_file = Path(card_file)
    data = read_toml(card_file)
    version = data.get("schema_version", SCHEMA_VERSION)
    if version != SCHEMA_VERSION:
        raise BadInput(f"{card_file}: schema_version {version}, this harness reads {SCHEMA_VERSION}")
    try:
        card = AdapterCard.model_validate(data)
    except ValidationError as exc:
        raise invalid(exc, str(card_file)) from None
    check_name(card.name)
    if card.name != card_file.stem:
        raise BadInput(f"{card_file}: card names adapter {card.name!r}; the file must be {card.name}.toml")
    return card


def card_files() -> dict[str, Path]:
    """Every card by name; user cards shadow bundled ones."""
    found: dict[str, Path] = {}
    for folder in (bundled_dir("adapters"), user_cards_dir()):
        if folder.is_dir():
            for f in sorted(folder.glob("*.toml")):
                found[f.stem] = f
    return found


def find_card(name: str) -> tuple[AdapterCard, Path]:
    path = card_files().get(name)
    if path is None:
        raise BadInput(f"no adapter card named {name!r} (see `harness adapters list`)")
    return load_card(path), path


def save_card(card: AdapterCard, folder: Path | None = None) -> Path:
    """Write the card as `<folder>/<name>.toml` (default: the user's cards), atomically."""
    folder = Path(folder) if folder is not None else user_cards_dir()
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{check_name(card.name)}.toml"
    atomic_write(target, card.to_toml().encode())
    return target


def write_card(
    adapter_dir: Path,
    *,
    name: str,
    base_model: str,
    training: TrainingManifest | None = None,
    folder: Path | None = None,
) -> Path:
    """Describe an adapter and save its card: what `harness adapters add` and training
    checkpoints call."""
    return save_card(card_from_adapter(adapter_dir, name=name, base_model=base_model, training=training), folder)


def verify_card(card: AdapterCard, card_file: Path | None = None) -> Path:
    """Recompute what the card claims from the adapter's files; raise BadInput on the first
    difference. Returns the adapter folder."""
    adapter_dir = card.adapter_dir(card_file)
    if not adapter_dir.is_dir():
        raise BadInput(f"adapter {card.name}: folder {adapter_dir} is gone")
    cfg = read_adapter_config(adapter_dir)
    recorded = cfg.get("base_model_name_or_path")
    if not same_base(card.base_model, recorded, adapter_dir):
        raise BadInput(f"adapter {card.name}: card says base {card.base_model!r}, adapter_config.json says {recorded!r}")
    for field, key in (("rank", "r"), ("alpha", "lora_alpha")):
        if cfg.get(key) != getattr(card, field):
            raise BadInput(f"adapter {card.name}: card says {field} {getattr(card, field)}, adapter_config.json says {cfg.get(key)}")
    targets = cfg.get("target_modules")
    targets = sorted([targets] if isinstance(targets, str) else targets or [])
    if targets != sorted(card.target_modules):
        raise BadInput(f"adapter {card.name}: target modules differ from adapter_config.json ({', '.join(targets)})")
    actual = weights_sha256(adapter_dir)
    if actual != card.sha256:
        raise BadInput(f"adapter {card.name}: weights changed since the card was written (sha256 {actual[:12]}, card {card.sha256[:12]})")
    return adapter_dir
