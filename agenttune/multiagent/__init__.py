"""Multi-agent rollouts: policies and rubric judges in a langgraph graph compiled into GRPO's rollout function
(:mod:`agenttune.multiagent.graph`)."""
