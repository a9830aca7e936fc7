#!/usr/bin/env bash
# The GRPO study of issue 13 (conf/experiment/cuad_grpo_study.yaml; experiments/cuad_search, "GRPO at study size"), run
# unattended: the learning-rate sweep on 64 validation questions, the rate its rule selects, then the seeds on the
# 128 held-out questions, then each completed job's record kept under experiments/cuad_search/results/ (to commit:
# a study outlives the machine it runs on) and the curves and the report over every seed kept there, whichever day
# it ran. Resumable: run it again after a kill and every job continues (resume=true: a completed job is skipped, a
# killed one continues from its newest GRPO checkpoint, which the study saves every step, and reuses the
# evaluations before GRPO that it recorded whole; the warm start is trained by the first job and cached for all
# the others).
#   scripts/cuad_grpo_study.sh                         # the whole study
#   SEEDS=0 scripts/cuad_grpo_study.sh                 # one seed at a time (then SEEDS=1, SEEDS=2), about 2 h each
#   LR=1e-06 SEEDS=1 scripts/cuad_grpo_study.sh        # a seed at the rate already picked, without the sweep
#   scripts/cuad_grpo_study.sh logger=none             # extra overrides go to every job
#   TASK=cuad_grpo_study_tiny scripts/cuad_grpo_study.sh model=tiny_random ...   # elsewhere: outputs/<TASK>/
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
SEEDS=${SEEDS:-0,1,2}
TASK=${TASK:-cuad_grpo_study}
study=outputs/$TASK/multiruns
records=experiments/cuad_search/results/$TASK

if [ -z "${LR:-}" ]; then
  "$PYTHON" train.py +experiment=cuad_grpo_study +sweep=cuad_grpo_lr task_name="$TASK" "$@"
  "$PYTHON" scripts/grpo_study.py keep "$study/lr_sweep" "$records/lr_sweep"
  LR=$("$PYTHON" scripts/grpo_study.py select "$study/lr_sweep")
  echo "learning rate selected on the validation slice: $LR"
fi
"$PYTHON" train.py -m +experiment=cuad_grpo_study algorithm.learning_rate="$LR" seed="$SEEDS" task_name="$TASK" "$@"
"$PYTHON" scripts/grpo_study.py keep "$study/seeds_lr$LR" "$records/seeds_lr$LR"
"$PYTHON" scripts/grpo_study.py curves "$records/seeds_lr$LR"
"$PYTHON" scripts/grpo_study.py deltas "$records/seeds_lr$LR"
"$PYTHON" scripts/report.py "$records/seeds_lr$LR" --metrics \
  eval_before/reward eval_warm/reward eval_after/reward delta_rl/reward \
  eval_warm/hit@8 eval_after/hit@8 delta_rl/hit@8 delta_rl/em delta_rl/f1 delta_rl/tool_call_rate
