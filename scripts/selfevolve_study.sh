#!/usr/bin/env bash
# The self-evolution study on one BFCL multi-turn category or one tau2 domain, run unattended: distil the oracle
# into the student (+experiment=bfcl_distill or tau2_distill), then the whole method from that student over seeds
# (+experiment=bfcl_toolgraph_dpo or tau2_toolgraph_dpo: baseline / ToolGraph / ToolGraph + DPO on the same test
# tasks, paired deltas with 95% intervals), then the report over seeds (scripts/report.py: one row with the
# interval over seeds and tasks; report.json holds its numbers). Resumable: run it again after a kill and every
# job continues (resume=true: a completed job is skipped, a killed one continues from its newest checkpoint; each
# attempt gets its own timestamped folder beside the earlier ones, where resume looks).
#   scripts/selfevolve_study.sh                                   # BFCL multi_turn_base, seeds 0,1,2
#   DOMAIN=multi_turn_miss_func SEEDS=0 scripts/selfevolve_study.sh
#   BENCHMARK=tau2 DOMAIN=retail scripts/selfevolve_study.sh benchmark.num_eval=0   # every test task of the domain
#   TASK=bfcl_study_tiny scripts/selfevolve_study.sh model=tiny_random ...   # extra overrides go to every job
# STUDENT_ARGS and METHOD_ARGS (space-separated overrides) go to the student's job or the method's jobs alone:
#   BENCHMARK=tau2 DOMAIN=retail STUDENT_ARGS="algorithm.max_steps=36" \
#     METHOD_ARGS="algorithm.max_steps=4 algorithm.save_steps=2" scripts/selfevolve_study.sh benchmark.num_eval=0
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
BENCHMARK=${BENCHMARK:-bfcl}
SEEDS=${SEEDS:-0,1,2}
read -ra student_args <<< "${STUDENT_ARGS:-}"
read -ra method_args <<< "${METHOD_ARGS:-}"
case "$BENCHMARK" in
  bfcl)
    DOMAIN=${DOMAIN:-multi_turn_base}
    jobs=(benchmark.category="$DOMAIN")
    scores=(avg_reward turn_accuracy)  # BFCL's verdict, and its share of turns passed
    ;;
  tau2)
    DOMAIN=${DOMAIN:-airline}
    jobs=("benchmark.domains=[$DOMAIN]")
    scores=(avg_reward)
    ;;
  *) echo "BENCHMARK must be bfcl or tau2, not '$BENCHMARK'" >&2; exit 2 ;;
esac
TASK=${TASK:-${BENCHMARK}_selfevolve_study}
students=outputs/$TASK/$DOMAIN/student
seeds=outputs/$TASK/$DOMAIN/seeds
now='${now:%Y-%m-%d_%H-%M-%S}'

"$PYTHON" train.py +experiment="${BENCHMARK}_distill" "${jobs[@]}" task_name="$TASK" resume=true \
  hydra.run.dir="$students/$now" "$@" "${student_args[@]}"
student=$(ls -d "$PWD/$students"/*/checkpoints/final | sort | tail -n 1)  # the completed student
"$PYTHON" train.py -m +experiment="${BENCHMARK}_toolgraph_dpo" "${jobs[@]}" task_name="$TASK" \
  init_from="$student" seed="$SEEDS" resume=true hydra.sweep.dir="$seeds" "hydra.sweep.subdir=\${hydra.job.num}_$now" "$@" "${method_args[@]}"
metrics=()
for score in "${scores[@]}"; do
  metrics+=(eval/baseline/$score eval/toolgraph/$score eval/toolgraph_dpo/$score)
  metrics+=("eval/toolgraph/$DOMAIN/delta/$score" "eval/toolgraph_dpo/$DOMAIN/delta/$score")
  metrics+=("eval/toolgraph_dpo/$DOMAIN/minus_toolgraph/$score")  # what DPO added to ToolGraph
done
"$PYTHON" scripts/report.py "$seeds" --metrics "${metrics[@]}"
