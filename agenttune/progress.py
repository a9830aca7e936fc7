"""Progress bars on the long work a person waits for: building a retrieval index, question synthesis, teacher,
evaluation and tau2 episodes, report building. They are tqdm bars, drawn only when someone watches: stderr is a
terminal, ``CI`` is unset and ``TQDM_DISABLE`` is unset; logs, pipes and CI get none.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import Any

from tqdm.auto import tqdm


def progress_enabled() -> bool:
    """Whether bars are drawn: stderr is a terminal, not in CI (``CI`` set), not switched off (``TQDM_DISABLE``)."""
    if os.environ.get("CI") or os.environ.get("TQDM_DISABLE"):
        return False
    return sys.stderr.isatty()


def progress(iterable: Iterable[Any] | None = None, enabled: bool = True, **options: Any) -> tqdm:
    """A tqdm bar over ``iterable`` (or updated by hand: ``total=``) that draws only when :func:`progress_enabled`
    (and ``enabled``); ``options`` go to tqdm (``desc``, ``unit``, ``total``)."""
    return tqdm(iterable, disable=not (enabled and progress_enabled()), **options)
