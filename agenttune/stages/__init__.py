"""The stages every job is made of, over any benchmark: :mod:`~agenttune.stages.policy` (loading, training and
saving the policy) and :mod:`~agenttune.stages.phases` (playing and scoring episodes, an evaluation phase, teacher
distillation, on-policy training, paired comparisons). The pipelines (:mod:`agenttune.pipelines`), the workflows'
nodes (:mod:`agenttune.workflows.nodes`) and the self-healing rounds (:mod:`agenttune.selfheal.heal`) compose them.
"""
