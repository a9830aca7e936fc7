"""Generation backends behind one interface: transformers (batched), vLLM, OpenAI-compatible HTTP, scripted."""

from agenttune.engines.base import Engine, Generation
from agenttune.engines.factory import build_engine
from agenttune.engines.tool_calls import ParseError, parse_assistant_text

__all__ = ["Engine", "Generation", "ParseError", "build_engine", "parse_assistant_text"]
