"""Decision workflows: typed YAML graphs (the ``workflow`` config group) compiled into ``langgraph`` StateGraphs.

- :mod:`~agenttune.workflows.spec`: the typed schema and the checks run when the config is composed;
- :mod:`~agenttune.workflows.expressions`: conditions through a safe expression evaluator (``simpleeval``);
- :mod:`~agenttune.workflows.nodes`: what each node kind does; :mod:`~agenttune.workflows.graph`: the compiled graph;
- :mod:`~agenttune.workflows.audit`: the audit log (an EventLog file: append-only, redacted, attributed);
- :mod:`~agenttune.workflows.datasets`: SFT, DPO and RL rows projected from the audit log alone;
- :mod:`~agenttune.workflows.tools`, :mod:`~agenttune.workflows.kyc`: toolsets and input sets of tool nodes.

``python train.py pipeline=workflow workflow=<name>`` runs one (:mod:`agenttune.pipelines.workflow`).
"""
