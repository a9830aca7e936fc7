"""Self-healing: failures found in EventLogs, corrected, retrained through the ``algorithm`` group, gated, deployed
with a backup and rolled back on regression (``pipeline=self_heal``, :mod:`agenttune.pipelines.self_heal`)."""
