"""Chat templates with tool support.

SmolLM2's own template is ChatML without tools. TRL ships ``trl/chat_templates/qwen2_5.jinja``, a ChatML template
that renders tool schemas into the system prompt and tool calls as ``<tool_call>{json}</tool_call>``; setting it on
a ChatML tokenizer makes ``trl.chat_template_utils.supports_tool_calling`` true.
"""

from __future__ import annotations

from importlib import resources

TEMPLATES = {"qwen2_5": "qwen2_5.jinja"}


def tool_chat_template(name: str) -> str:
    """The text of a tool-calling chat template that TRL ships, by short name."""
    if name not in TEMPLATES:
        raise ValueError(f"Unknown chat template {name!r}; choose one of {sorted(TEMPLATES)} or 'native'.")
    return resources.files("trl").joinpath("chat_templates", TEMPLATES[name]).read_text()


def apply_chat_template(tokenizer, name: str) -> None:
    """Set the named template on ``tokenizer`` ('native' keeps the model's own)."""
    if name != "native":
        tokenizer.chat_template = tool_chat_template(name)
