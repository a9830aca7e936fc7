"""Where an agent's actions run: the Harness protocol, the tool registry, the code sandbox and the harnesses.

- :mod:`~agenttune.harness.protocol`: ``Harness``, ``StepResult``, ``EpisodeDone``.
- :mod:`~agenttune.harness.tools`: ``ToolRegistry`` (schemas from typed callables, TOOL_CALL -> TOOL_RESULT).
- :mod:`~agenttune.harness.sandbox`: ``Sandbox`` and its ``python_exec`` tool (a confined child process: namespaces,
  no network, no host files, limits; :mod:`~agenttune.harness.confine` sets it up).
- :mod:`~agenttune.harness.tools_harness`: ``ToolsHarness`` (``harness=tools``).
- :mod:`~agenttune.harness.search_corpus`: ``SearchCorpusHarness`` (``harness=search_corpus``).
- :mod:`~agenttune.harness.stateful_tools`: ``StatefulToolsHarness`` (``harness=stateful_tools``: methods of stateful
  classes built per task, several user turns; BFCL multi-turn tasks through :mod:`~agenttune.harness.bfcl`).
- :mod:`~agenttune.harness.recorded_turns`: ``RecordedTurnHarness`` (a recorded conversation up to one assistant turn,
  for on-policy training on recorded data).
- :mod:`~agenttune.harness.conformance`: ``check_harness``, the rules every harness passes.
"""
