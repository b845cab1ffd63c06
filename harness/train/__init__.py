"""Fine-tuning LoRA adapters: a whole-file SFT warm start and GRPO rewarded by the
verifiers, on TRL and peft. Every adapter a run publishes has a card, so it is served and
evaluated like any other model."""
