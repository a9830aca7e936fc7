"""agenttune: run, log, train, evaluate and improve tool-using LLM agents."""

import logging


class _NoKernelHubNotice(logging.Filter):
    """bitsandbytes' CPU backend logs a warning when the optional ``kernels`` package (which fetches kernels from
    the Hugging Face Hub at run time) is absent, then runs its own CPU code. Nothing here downloads at run time, so
    that one expected message is dropped; every other bitsandbytes message still shows."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "from kernels-community" not in record.getMessage()


logging.getLogger("bitsandbytes.backends.cpu.ops").addFilter(_NoKernelHubNotice())
