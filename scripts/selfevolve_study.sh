#!/usr/bin/env bash
# The self-evolution study on a BFCL multi-turn category, run unattended: distil the oracle into the student
# (+experiment=bfcl_distill), then the whole method from that student over seeds (+experiment=bfcl_toolgraph_dpo:
# baseline / ToolGraph / ToolGraph + DPO on the same test tasks, paired deltas with 95% intervals), then the report
# over seeds (scripts/report.py: one row with the interval over seeds and tasks). Resumable: run it again after a
# kill and every job continues (resume=true: a completed job is skipped, a killed one continues from its newest
# checkpoint; each attempt gets its own timestamped folder beside the earlier ones, where resume looks).
#   scripts/selfevolve_study.sh                                   # multi_turn_base, seeds 0,1,2
#   CATEGORY=multi_turn_miss_func SEEDS=0 scripts/selfevolve_study.sh
#   TASK=bfcl_study_tiny scripts/selfevolve_study.sh model=tiny_random ...   # extra overrides go to every job
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
CATEGORY=${CATEGORY:-multi_turn_base}
SEEDS=${SEEDS:-0,1,2}
TASK=${TASK:-bfcl_selfevolve_study}
students=outputs/$TASK/$CATEGORY/student
seeds=outputs/$TASK/$CATEGORY/seeds
now='${now:%Y-%m-%d_%H-%M-%S}'

"$PYTHON" train.py +experiment=bfcl_distill benchmark.category="$CATEGORY" task_name="$TASK" resume=true \
  hydra.run.dir="$students/$now" "$@"
student=$(ls -d "$PWD/$students"/*/checkpoints/final | sort | tail -n 1)  # the completed student
"$PYTHON" train.py -m +experiment=bfcl_toolgraph_dpo benchmark.category="$CATEGORY" task_name="$TASK" \
  init_from="$student" seed="$SEEDS" resume=true hydra.sweep.dir="$seeds" "hydra.sweep.subdir=\${hydra.job.num}_$now" "$@"
metrics=()
for score in avg_reward turn_accuracy; do  # BFCL's verdict, and its share of turns passed
  metrics+=(eval/baseline/$score eval/toolgraph/$score eval/toolgraph_dpo/$score)
  metrics+=("eval/toolgraph/$CATEGORY/delta/$score" "eval/toolgraph_dpo/$CATEGORY/delta/$score")
done
"$PYTHON" scripts/report.py "$seeds" --metrics "${metrics[@]}"
