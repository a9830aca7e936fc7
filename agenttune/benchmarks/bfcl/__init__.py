"""BFCL multi-turn: BFCL's tasks and tool classes (``bfcl-eval``) as a benchmark scored by BFCL's own checker
(:mod:`agenttune.benchmarks.bfcl.benchmark`)."""
