"""Commands for serving: `harness serve` (start, status, stop) and `harness adapters`
(cards, and adding or dropping adapters on a running server)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from ..adapter_card import card_files, card_from_adapter, find_card, load_card, save_card, user_cards_dir, verify_card
from ..errors import BadInput, InfraError
from ..serve import protocol
from ..serve.endpoint import find_record, load_records
from ..serve.launch import ServeSettings, load_card_on_server, server_alive, start_server, stop_server, unload_from_server
from .app import app, console, err, handled
from .options import default, from_options

serve_app = typer.Typer(
    help="Serve a base model and LoRA adapters behind one OpenAI-compatible endpoint. "
    "`local/<adapter>` then names an adapter as a model, with no further flags."
)
adapters_app = typer.Typer(no_args_is_help=True, help="Adapter cards, and adapters on a running server.")
app.add_typer(serve_app, name="serve")
app.add_typer(adapters_app, name="adapters")


def _say(message: str) -> None:
    err.print(message, markup=False, highlight=False)


@serve_app.callback(invoke_without_command=True)
@handled
def serve(
    ctx: typer.Context,
    base: Optional[str] = typer.Option(None, help="base model: hub id or local folder"),
    adapter: List[str] = typer.Option([], help="adapter card name to serve (repeatable)"),
    backend: str = typer.Option(
        default(ServeSettings, "backend"), help="vllm, or local: the harness's transformers + peft server, for small "
        "models, development and machines without vLLM (CPU or GPU, one request at a time)"),
    port: int = typer.Option(default(ServeSettings, "port"), help="port to listen on"),
    host: str = typer.Option(default(ServeSettings, "host"), help="address to listen on"),
    gpus: int = typer.Option(default(ServeSettings, "gpus"), help="GPUs for vLLM (tensor-parallel size; passed to its container)"),
    served_name: Optional[str] = typer.Option(None, help="the base model's name on the endpoint (default: --base)"),
    max_lora_rank: Optional[int] = typer.Option(None, help="reserve room for adapters loaded later (default: largest served rank)"),
    max_loras: Optional[int] = typer.Option(None, help="vLLM: adapters in one batch (default: all served)"),
    max_cpu_loras: Optional[int] = typer.Option(None, help="vLLM: adapters cached in CPU memory (default: --max-loras)"),
    runtime: str = typer.Option(default(ServeSettings, "runtime"), help="vLLM: process (its own `vllm` executable), container, or auto"),
    vllm_bin: Optional[str] = typer.Option(None, help="the `vllm` executable of vLLM's own environment (or $HARNESS_VLLM)"),
    image: str = typer.Option(default(ServeSettings, "image"), help="vLLM container image for --runtime container"),
    device: str = typer.Option(default(ServeSettings, "device"), help="local backend: cpu, cuda, cuda:N or auto"),
    health_timeout: float = typer.Option(default(ServeSettings, "health_timeout_s"), help="seconds to wait for /health"),
):
    """Start a server in the background and record its endpoint."""
    if ctx.invoked_subcommand is not None:
        return
    if base is None:
        raise BadInput("--base is required to start a server (or: harness serve status | stop)")
    settings = from_options(ServeSettings, dict(
        backend=backend, port=port, host=host, gpus=gpus, served_name=served_name, max_lora_rank=max_lora_rank,
        max_loras=max_loras, max_cpu_loras=max_cpu_loras, runtime=runtime, vllm_bin=vllm_bin, image=image,
        device=device, health_timeout_s=health_timeout,
    ), {"health_timeout_s": "health_timeout"})
    record = start_server(settings.spec(base, adapter), settings.launch_options(), log=_say)
    served = ", ".join(record.adapters) or "no adapters"
    console.print(f"serving {record.served_name} ({served}) at {record.api_base} [{record.backend}, {record.runtime}]",
                  markup=False, highlight=False)


@serve_app.command("status")
@handled
def serve_status(as_json: bool = typer.Option(False, "--json", help="print the records and what each server answers")):
    """Show the recorded servers, whether they answer, and what they serve."""
    rows = []
    for record in load_records():
        alive = server_alive(record)
        try:
            models = [m["id"] for m in protocol.served_models(record.api_base, timeout_s=5.0)] if alive else []
            healthy = alive
        except InfraError:
            models, healthy = [], False
        rows.append((record, alive, healthy, models))
    if as_json:
        out = [{**r.model_dump(), "alive": a, "healthy": h, "models": m} for r, a, h, m in rows]
        sys.stdout.write(json.dumps(out, indent=2) + "\n")
        return
    if not rows:
        console.print("no server is recorded")
        return
    table = Table("port", "backend", "base", "adapters", "state", "api_base")
    for record, alive, healthy, models in rows:
        state = "healthy" if healthy else ("starting or stuck" if alive else "gone (stale record)")
        adapters = [m for m in models if m != record.served_name] if healthy else list(record.adapters)
        table.add_row(str(record.port), f"{record.backend}/{record.runtime}", record.served_name,
                      ", ".join(adapters) or "-", state, record.api_base)
    console.print(table)


@serve_app.command("stop")
@handled
def serve_stop(
    port: Optional[int] = typer.Option(None, help="which server, when several are recorded"),
    all_: bool = typer.Option(False, "--all", help="stop every recorded server"),
):
    """Stop a recorded server and drop its record."""
    records = load_records() if all_ else [find_record(port)]
    for record in records:
        was = stop_server(record)
        console.print(f"stopped the server on port {record.port}" if was else
                      f"the server on port {record.port} had already gone; record removed")


# ---- adapters ------------------------------------------------------------------------------------


@adapters_app.command("list")
@handled
def adapters_list(as_json: bool = typer.Option(False, "--json")):
    """List adapter cards (user cards shadow bundled ones)."""
    good, bad = [], []
    user = user_cards_dir()
    for name, path in card_files().items():
        try:
            good.append((load_card(path), "user" if path.parent == user else "bundled"))
        except BadInput as exc:
            bad.append(str(exc))
    if as_json:
        sys.stdout.write(json.dumps([{**c.model_dump(), "source": s} for c, s in good], indent=2) + "\n")
    elif good:
        table = Table("name", "base", "rank", "alpha", "trained on", "source", "path")
        for card, source in good:
            trained = str(len(card.training.trained_on_tasks)) + " tasks" if card.training else "-"
            table.add_row(card.name, card.base_model, str(card.rank), f"{card.alpha:g}", trained, source, card.path)
        console.print(table)
    elif not bad:
        console.print("no adapter cards (add one: harness adapters add PATH --name NAME --base BASE)")
    for line in bad:
        err.print(f"error: {line}", markup=False, highlight=False, soft_wrap=True)
    if bad:
        raise typer.Exit(2)


@adapters_app.command("show")
@handled
def adapters_show(name: str = typer.Argument(..., help="adapter card name")):
    """Print a card."""
    card, path = find_card(name)
    console.print(f"# {path}", markup=False, highlight=False)
    sys.stdout.write(card.to_toml())


@adapters_app.command("add")
@handled
def adapters_add(
    path: Path = typer.Argument(..., help="the adapter folder (peft: adapter_config.json + weights)"),
    name: str = typer.Option(..., help="the adapter's name: `local/NAME` as a model"),
    base: str = typer.Option(..., help="its base model: hub id or local folder"),
    force: bool = typer.Option(False, help="replace an existing user card of that name"),
):
    """Write a card for an adapter, read from its own files."""
    existing = card_files().get(name)
    if existing is not None and not force:
        raise BadInput(f"a card named {name!r} exists ({existing}); pass --force to replace it")
    card = card_from_adapter(path, name=name, base_model=base)
    written = save_card(card)
    console.print(f"added {name}: rank {card.rank}, alpha {card.alpha:g}, {card.dtype}, sha256 {card.sha256[:12]} -> {written}",
                  markup=False, highlight=False)


@adapters_app.command("verify")
@handled
def adapters_verify(name: str = typer.Argument(..., help="adapter card name")):
    """Recompute the weights' hash and check rank, alpha, targets and base against the card."""
    card, path = find_card(name)
    adapter_dir = verify_card(card, path)
    console.print(f"{name}: ok (sha256 {card.sha256[:12]}, {adapter_dir})", markup=False, highlight=False)


@adapters_app.command("load")
@handled
def adapters_load(
    name: str = typer.Argument(..., help="adapter card name"),
    port: Optional[int] = typer.Option(None, help="which server, when several are recorded"),
):
    """Add an adapter to the running server, without a restart."""
    card, path = find_card(name)
    record = find_record(port)
    console.print(load_card_on_server(card, path, record), markup=False, highlight=False)


@adapters_app.command("unload")
@handled
def adapters_unload(
    name: str = typer.Argument(..., help="served adapter name"),
    port: Optional[int] = typer.Option(None, help="which server, when several are recorded"),
):
    """Drop an adapter from the running server, without a restart."""
    console.print(unload_from_server(name, find_record(port)), markup=False, highlight=False)
