"""`python -m harness.train sft|dpo|grpo ...`: the training commands alone, for launchers that
start a module in every process (`accelerate launch -m harness.train grpo ...`)."""

from ..cli.train import train_app

train_app(prog_name="harness train")
