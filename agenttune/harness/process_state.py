"""Process-global state that in-process tools can change: module globals, ``os.environ`` and the working folder.

A tool that runs in the harness's process can rebind or mutate a global of its module, set an environment
variable or ``chdir``; without care the next episode starts from what the last one left. :class:`ProcessState`
records those three things and puts them back:

* **module globals** of the named modules: every name that is not a dunder. Values are deep-copied when
  captured and again when restored, so in-place changes (a list appended to, a dict updated) are undone as well
  as rebinding; names added after the capture are deleted. Modules, classes and functions are kept by
  reference (code, not state), and so is any value that cannot be deep-copied (a lock, an open file): for those
  only rebinding is undone.

Limits: state outside these three (other modules' globals, class attributes, files on disk, C extension state,
threads a tool started) is not covered; a tool that needs that isolation runs in a subprocess
(:mod:`agenttune.harness.sandbox`). Harnesses that run episodes at the same time in one process share this
state while they run: the guarantee is between episodes, not between concurrent ones.
"""

from __future__ import annotations

import copy
import importlib
import os
import types
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

_CODE = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType)


def _copy(value: Any) -> Any:
    """A deep copy of a data value; code and values that cannot be copied come back as themselves."""
    if isinstance(value, _CODE):
        return value
    try:
        return copy.deepcopy(value)
    except Exception:  # an uncopyable value (lock, file, generator): restoring can only rebind it
        return value


@dataclass(frozen=True)
class ProcessState:
    """Module globals, environment variables and working folder at one moment (see the module docstring).

    >>> import os
    >>> before = ProcessState.capture([])
    >>> os.environ["AGENTTUNE_DOCTEST"] = "1"
    >>> before.restore()
    >>> "AGENTTUNE_DOCTEST" in os.environ
    False
    """

    modules: dict[str, dict[str, Any]]  # module name -> its copied namespace, dunders left out
    environ: dict[str, str]
    cwd: str

    @classmethod
    def capture(cls, module_names: Iterable[str]) -> ProcessState:
        """Record the globals of ``module_names`` (imported if needed), ``os.environ`` and the working folder."""
        modules = {}
        for name in dict.fromkeys(module_names):
            namespace = vars(importlib.import_module(name))
            modules[name] = {
                key: _copy(value) for key, value in namespace.items() if not key.startswith("__")
            }
        return cls(modules=modules, environ=dict(os.environ), cwd=os.getcwd())

    def restore(self) -> None:
        """Put every recorded global, environment variable and the working folder back; the record stays usable."""
        for name, saved in self.modules.items():
            namespace = vars(importlib.import_module(name))
            for key in [k for k in namespace if not k.startswith("__") and k not in saved]:
                del namespace[key]
            namespace.update({key: _copy(value) for key, value in saved.items()})
        for key in [k for k in os.environ if k not in self.environ]:
            del os.environ[key]
        for key, value in self.environ.items():
            if os.environ.get(key) != value:
                os.environ[key] = value
        if os.getcwd() != self.cwd:
            os.chdir(self.cwd)

    def __deepcopy__(self, memo: dict[int, Any]) -> ProcessState:
        """Itself: a record is never changed after capture (``restore`` copies out of it)."""
        return self
