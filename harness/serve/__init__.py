"""Serving a base model and LoRA adapters behind one OpenAI-compatible endpoint, with vLLM
(its own environment or container) or the harness's local transformers + peft server.
`resolve_adapter_endpoint` is how `local/<adapter>` becomes a litellm model and api_base."""

from .endpoint import resolve_adapter_endpoint

__all__ = ["resolve_adapter_endpoint"]
