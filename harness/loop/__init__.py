"""`harness loop`: the closed loop. Evaluate the current model on a suite, build a repair
curriculum from what it failed, train GRPO from the current adapter, evaluate the new
checkpoint on the same suite, and again, keeping a lineage of every checkpoint.

Each stage calls the function its own command calls: `harness run` (run.run),
`harness curriculum build|synth` (curriculum.build_from_runs, curriculum.synthesize),
`harness train grpo` (train.grpo.train_grpo, which publishes NAME@iterK cards), and
`harness serve` (serve.launch.start_server / stop_server) around every evaluation, so the
GPU is free while training. What the loop adds is the order of the stages, resumption
after a crash, the lineage record, and the pre-registered bar (harness.bar).

    <runs>/loops/<id>/lineage.json        Lineage: the config and one record per iteration
    <runs>/loops/<id>/curricula/<name>/   the curricula (suites) the loop built
    <runs>/<id>-eval<K>/                  iteration K's evaluation (an ordinary run)
    <runs>/train/<id>-it<K>/              iteration K's training run; its adapter is <id>-it<K>

Iteration 0 evaluates the starting model (the base, or --init-adapter). Iteration K >= 1
builds its curriculum from iteration K-1's evaluation, trains adapter <id>-it<K> from
iteration K-1's adapter, evaluates it, and checks the bar against iteration K-1.

Resumption: lineage.json is rewritten after every stage; a stage that was cut short is run
again through its own resumption (a run's `--resume` reruns only unfinished trials, a
training run continues from its last checkpoint, a curriculum is written whole or not at
all), and a server the loop started and could not stop is stopped first.

    config.py        LoopConfig: the options and --config file, checked before any work
    lineage.py       the lineage record and where loops live; reports read it
    orchestrator.py  Loop: runs the stages in order and resumes them

Nothing here imports the orchestrator, so reading a lineage never loads the stages'
machinery."""
