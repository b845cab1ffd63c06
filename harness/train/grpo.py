"""`harness train grpo`: GRPO on a LoRA adapter with TRL's GRPOTrainer, rewarded by each
prompt's environment (environments.py: repair tasks by the verifier, output predictions by
the exact-match rule), prompts drawn across environments by weight (schedule.py). One
update = one generation batch of `prompts_per_step x samples_per_prompt` completions, split
into micro-batches by gradient accumulation; every `checkpoint_every` updates the adapter
is published as NAME@iterK with its card; `resume` continues from the trainer's last
checkpoint.

The one addition to TRL's loop is where judging starts: right after generation
(`_verifying_grpo_trainer`), in a background thread, so the sandbox builds while the
trainer runs the reference model's forward pass; the reward call then waits only for the
rest. Generation itself cannot overlap verification in TRL's on-policy loop: the next batch
is sampled from the policy that this batch's rewards update."""

from __future__ import annotations

import time
from pathlib import Path

from rich.console import Console

from ..errors import BadInput
from .checkpoints import TrainRun, TrainRunManifest, iteration_name
from .config import TrainConfig, common_trainer_args, resolve_device, use_bf16, world_size
from .environments import load_training_data, make_judges, schedule
from .model import base_ref, init_adapter_dir, load_tokenizer, policy, quiet_and_synchronised
from .multiturn import ENVIRONMENT as RLEF, PublicTests, turns_text
from .rewards import GrpoReward, completion_text
from .steplog import EndRecord, StartRecord, StepTimers, append, grpo_line, grpo_step_builder, read_log, truncate_after


# TRL's private surface, in this function only; checked against trl 1.16.0 (the version
# pyproject pins). TRL has no public hook between generating a batch and scoring it: reward
# functions, async ones included, are called after the reference model's forward pass, and
# the experimental `rollout_func` replaces generation itself. Starting verification at
# generation therefore overrides two private GRPOTrainer methods:
# `_generate_and_score_completions(inputs)`, the one place that sees the batch's dataset
# rows (their environments and targets), and `_generate(prompts)`, whose return tuple
# holds the prompt ids, completion ids, TRL's tool mask, the decoded completions and the
# sampling log-probabilities at indices 0 to 4. The second turn of an rlef exchange is
# generated with `_generate_single_turn(prompt_ids, images, multimodal_fields, n)`.
_PROMPT_IDS, _COMPLETION_IDS, _MASK, _GENERATED_COMPLETIONS, _LOGPROBS = range(5)


def _second_turns(trainer, out: tuple, rows: list[dict], public: PublicTests) -> tuple:
    """`out` of TRL's `_generate` with each rlef row's exchange in place of its first answer:
    first answer, feedback (masked from the loss), second answer; its completion text is the
    answers as the judge reads them (multiturn.turns_text). A first answer that passed every
    public test is the whole exchange."""
    at = [i for i, row in enumerate(rows) if row["environment"] == RLEF]
    if not at:
        return out
    parts = list(out)
    prompt_ids, completion_ids, completions = parts[_PROMPT_IDS], parts[_COMPLETION_IDS], parts[_GENERATED_COMPLETIONS]
    mask = parts[_MASK] or [[1] * len(ids) for ids in completion_ids]
    logprobs = parts[_LOGPROBS]
    answers = {i: [completion_text(completions[i])] for i in at}
    messages = public.feedback([answers[i][0] for i in at], [rows[i]["target"] for i in at])
    again = [(i, m) for i, m in zip(at, messages, strict=True) if m is not None]
    turns = [_feedback_ids(trainer.processing_class, rows[i]["prompt"], answers[i][0], completion_ids[i], m)
             for i, m in again]
    if again:
        seconds, second_logprobs = trainer._generate_single_turn(
            [prompt_ids[i] + completion_ids[i] + turn for (i, _), turn in zip(again, turns, strict=True)], None, {}, 1)
        for n, ((i, _), turn) in enumerate(zip(again, turns, strict=True)):
            second = list(seconds[n])
            completion_ids[i] = completion_ids[i] + turn + second
            mask[i] = mask[i] + [0] * len(turn) + [1] * len(second)
            if logprobs is not None:
                logprobs[i] = logprobs[i] + [0.0] * len(turn) + list(second_logprobs[n])
            answers[i].append(trainer.processing_class.decode(second, skip_special_tokens=True))
    for i in at:
        text = turns_text(answers[i])
        completions[i] = [{"role": "assistant", "content": text}] if isinstance(completions[i], list) else text
    parts[_MASK] = mask
    return tuple(parts)


def _feedback_ids(tokenizer, prompt: list[dict], answer: str, answer_ids: list[int], message: str) -> list[int]:
    """The tokens between a first answer and the second: its end, the feedback turn, the
    assistant's next turn opening, as the chat template writes them."""
    chat = [*prompt, {"role": "assistant", "content": answer}]
    before = tokenizer.apply_chat_template(chat, tokenize=True, return_dict=False)
    after = tokenizer.apply_chat_template([*chat, {"role": "user", "content": message}], tokenize=True,
                                          add_generation_prompt=True, return_dict=False)
    # The answer's turn ends at its end-of-sequence token, where generation stopped.
    eos = tokenizer.eos_token_id
    ends = [k for k, t in enumerate(before) if t == eos]
    before = before[:ends[-1] + 1] if ends else before
    if after[:len(before)] != before:
        raise BadInput("the base model's chat template does not extend a conversation by appending to it: "
                       "it cannot train the rlef environment")
    return ([] if answer_ids[-1:] == [eos] else [eos]) + after[len(before):]


def _verifying_grpo_trainer():
    """GRPOTrainer that hands each training batch's completions to the judges as soon as
    they are generated, and times generation."""
    # trl is the train extra's: imported when training starts
    from trl import GRPOTrainer

    class VerifyingGRPOTrainer(GRPOTrainer):
        def __init__(self, *args, reward: GrpoReward, timers: StepTimers, public: PublicTests, **kwargs):
            # args never hold reward_funcs: the one caller passes keywords only
            super().__init__(*args, reward_funcs=[reward], **kwargs)  # type: ignore[misc]
            self._reward = reward
            self._timers = timers
            self._public = public
            self._batch_inputs = None

        def _generate_and_score_completions(self, inputs):
            self._batch_inputs = inputs
            try:
                return super()._generate_and_score_completions(inputs)
            finally:
                self._batch_inputs = None

        def _generate(self, prompts):
            started = time.perf_counter()
            out = super()._generate(prompts)
            if self._batch_inputs is not None:
                rows = self._batch_inputs
                out = _second_turns(self, out, rows, self._public)
                self._reward.submit(out[_GENERATED_COMPLETIONS], [x["environment"] for x in rows],
                                    [x["target"] for x in rows])
            self._timers.gen_seconds += time.perf_counter() - started
            return out

    return VerifyingGRPOTrainer


def grpo_args(config: TrainConfig, output_dir: Path, device: str, bf16: bool):
    # trl is the train extra's: imported when training starts
    from trl import GRPOConfig

    g, rt = config.grpo, config.runtime
    per_update = g.micro_batch_size * world_size()
    if g.global_batch % per_update:
        raise BadInput(f"grpo: {g.prompts_per_step} prompts x {g.samples_per_prompt} samples = {g.global_batch} "
                       f"completions per update is not a multiple of micro_batch_size x devices = {per_update}")
    vllm: dict = {}
    if rt.generation != "transformers":
        try:
            import vllm as _vllm  # noqa: F401
        except ImportError:
            raise BadInput(f"runtime.generation is {rt.generation} but vLLM is not installed in this environment") from None
        vllm = {"use_vllm": True, "vllm_mode": rt.generation.removeprefix("vllm-"), **rt.vllm}
    return GRPOConfig(
        **common_trainer_args(g, rt, output_dir, device, bf16),
        per_device_train_batch_size=g.micro_batch_size,
        gradient_accumulation_steps=g.global_batch // per_update,
        num_generations=g.samples_per_prompt,
        max_steps=g.updates,
        beta=g.beta,
        loss_type=g.loss_type,
        scale_rewards=g.scale_rewards,
        num_iterations=g.num_iterations,
        epsilon=g.epsilon,
        temperature=g.temperature,
        top_p=g.top_p,
        max_completion_length=g.max_completion_length,
        mask_truncated_completions=g.mask_truncated_completions,
        # The dataset is the run's schedule, already drawn in order (schedule.py).
        shuffle_dataset=False,
        save_strategy="steps",
        save_steps=rt.checkpoint_every,
        save_total_limit=rt.keep_trainer_checkpoints,
        remove_unused_columns=False,
        **vllm,
    )


def _publisher(run: TrainRun, main: bool):
    # transformers is the train extra's: imported when training starts
    from transformers import TrainerCallback

    class Publish(TrainerCallback):
        """Each trainer checkpoint is also published as NAME@iterK with its card."""

        def on_save(self, args, state, control, model=None, **kwargs):
            if main:
                run.publish(model, iteration_name(run.manifest.name, state.global_step), state.global_step)

        def on_train_begin(self, args, state, control, model=None, **kwargs):
            # A kill after the trainer wrote a checkpoint but before on_save published it
            # leaves that iteration unpublished; resumed from it, its weights are the model's now.
            name = iteration_name(run.manifest.name, state.global_step)
            if main and state.global_step > 0 and name not in run.published():
                run.publish(model, name, state.global_step)

    return Publish()


def train_grpo(
    *,
    out: str,
    data: list[str] | None = None,
    base: str | None = None,
    config: TrainConfig | None = None,
    init_adapter: str | None = None,
    runs_dir: Path = Path("runs"),
    resume: bool = False,
    console: Console | None = None,
) -> TrainRun:
    """Run GRPO on the data sets `data` (curricula or output-prediction sets) and publish
    its adapters; returns the run. With `resume`, the run named `out` continues from its
    last checkpoint with its own config, base, data and starting adapter (any of these
    given must match what it started with)."""
    # datasets, transformers and the step logger's torch are the train extra's: imported when training starts
    from datasets import Dataset

    from .step_callback import StepLogger

    console = console or Console(stderr=True)
    if resume:
        run = TrainRun.open(runs_dir, out)
        m = run.manifest
        if m.kind != "grpo":
            raise BadInput(f"{run.root}: an {m.kind} run; only grpo runs resume")
        if base is not None and base_ref(base) != m.base_model:
            raise BadInput(f"{run.root}: the run trains {m.base_model}, not {base_ref(base)}")
        if init_adapter is not None and init_adapter != m.init_adapter:
            raise BadInput(f"{run.root}: the run started from adapter {m.init_adapter}, not {init_adapter}")
        base, init_adapter, config = m.base_model, m.init_adapter, m.config
        source = load_training_data(data or m.data)
        if source.dataset_hash != m.dataset_hash:
            raise BadInput(f"{run.root}: the training data changed since the run started (dataset hash differs)")
    else:
        if not data or base is None or config is None:
            raise BadInput("grpo needs a curriculum, a base model and a config (or --resume)")
        base = base_ref(base)
        source = load_training_data(data)
        run = TrainRun.new(runs_dir, TrainRunManifest(
            kind="grpo", name=out, base_model=base, init_adapter=init_adapter, data=source.data,
            curriculum=str(source.curriculum) if source.curriculum else None, dataset_hash=source.dataset_hash,
            trained_on_tasks=source.trained_on_tasks, config=config))
    # Everything that can be refused is checked before the run folder exists.
    if RLEF in source.environments and (world_size() > 1 or config.runtime.generation != "transformers"):
        # Its second turns are generated only where a batch holds rlef rows: a collective
        # generation (vLLM's server, several processes) would wait on processes that never call it.
        raise BadInput(f"the {RLEF} environment trains in one process with runtime.generation = transformers")
    adapter_dir = init_adapter_dir(init_adapter, base) if init_adapter else None
    checkpoint = run.last_checkpoint() if resume else None
    device = resolve_device(config.runtime)
    bf16 = use_bf16(config.runtime, device)
    args = grpo_args(config, run.trainer_dir, device, bf16)
    g = config.grpo
    rows = schedule(source, g.shares(), g.updates * g.prompts_per_step, config.runtime.seed)
    reward = GrpoReward(make_judges(source, config.runtime), g.reward_scales())
    main = quiet_and_synchronised(args)
    if main:
        if not resume:
            run.write()
        mix = ", ".join(f"{name} {len(env.records)} prompts over {len(env.tasks)} tasks"
                        for name, env in source.environments.items())
        console.print(f"grpo {out}: {mix}, base {base}"
                      f"{', from adapter ' + init_adapter if init_adapter else ''}, {device}{' bf16' if bf16 else ''}",
                      markup=False, highlight=False)
        console.print_json(config.model_dump_json())
        if resume:  # the updates after the last checkpoint are done again
            truncate_after(run.log_path, checkpoint[1] if checkpoint else 0)
        append(run.log_path, StartRecord(run=run.manifest, resumed_from_step=checkpoint[1] if checkpoint else None))

    tokenizer = load_tokenizer(base)
    model, peft_config = policy(base, bf16, adapter_dir, config.lora)
    timers = StepTimers()
    publish = _publisher(run, main)
    trainer = _verifying_grpo_trainer()(
        model=model, args=args, train_dataset=Dataset.from_list(rows),
        processing_class=tokenizer, peft_config=peft_config, reward=reward, timers=timers,
        public=PublicTests(config.runtime),
        callbacks=[StepLogger(run.log_path, console, f"grpo {out}", grpo_step_builder(reward, timers), grpo_line, main),
                   publish],
    )
    from transformers import PrinterCallback

    trainer.remove_callback(PrinterCallback)
    started = time.perf_counter()
    try:
        trainer.train(resume_from_checkpoint=str(checkpoint[0]) if checkpoint else None)
    finally:
        reward.close()
    if main:
        final = run.publish(trainer.model, out, trainer.state.global_step)
        steps = [r for r in read_log(run.log_path) if r.get("kind") == "step"]
        summary = {k: steps[-1][k] for k in ("reward_mean", "pass_rate", "malformed_rate")} if steps else {}
        adapters = run.published()
        append(run.log_path, EndRecord(steps=trainer.state.global_step, seconds=round(time.perf_counter() - started, 3),
                                       adapters=adapters, summary=summary))
        console.print(f"grpo {out}: {trainer.state.global_step} updates; adapters {', '.join(adapters)}; card {final}",
                      markup=False, highlight=False)
    return run
