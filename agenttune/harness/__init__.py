"""Where an agent's actions run: the Harness protocol, the tool registry, the code sandbox and the harnesses.

- :mod:`~agenttune.harness.protocol`: ``Harness``, ``StepResult``, ``EpisodeDone``.
- :mod:`~agenttune.harness.tools`: ``ToolRegistry`` (schemas from typed callables, TOOL_CALL -> TOOL_RESULT).
- :mod:`~agenttune.harness.sandbox`: ``Sandbox`` and its ``python_exec`` tool (child process, time and memory limits).
- :mod:`~agenttune.harness.tools_harness`: ``ToolsHarness`` (``harness=tools``).
- :mod:`~agenttune.harness.search_corpus`: ``SearchCorpusHarness`` (``harness=search_corpus``).
- :mod:`~agenttune.harness.conformance`: ``check_harness``, the rules every harness passes.
"""
