"""A sweep's launcher is checked before any job starts or any folder is made: an unknown launcher, a launcher whose
plugin is not installed and a Ray cluster that does not answer each stop with one line naming the option and fix."""

from __future__ import annotations

import importlib
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from agenttune import launch_checks
from agenttune.config import repo_root
from agenttune.launch_checks import LaunchError, check_launcher, check_launcher_choice, check_ray_address

ROOT = Path(repo_root())
RAY_LAUNCHER = "hydra_plugins.hydra_ray_launcher.ray_launcher.RayLauncher"


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_unknown_launcher_names_the_options_and_the_extra():
    with pytest.raises(LaunchError) as caught:
        check_launcher_choice(["+sweep=dpo_grid_smoke", "hydra/launcher=rey"], ROOT / "conf")
    message = str(caught.value)
    assert message.startswith("hydra/launcher=rey is unknown: choose one of basic, ") and "\n" not in message
    assert "ray" in message.split("choose one of ")[1] and "pip install -e '.[scale]'" in message
    check_launcher_choice(["+sweep=dpo_grid_smoke"], ROOT / "conf")  # no launcher given: nothing to check


def test_a_launcher_whose_plugin_is_missing_names_the_package(monkeypatch):
    real_import = importlib.import_module

    def without_ray_plugin(name, *args):
        if name.startswith("hydra_plugins.hydra_ray_launcher"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, *args)

    monkeypatch.setattr(launch_checks.importlib, "import_module", without_ray_plugin)
    with pytest.raises(LaunchError, match=r"^hydra/launcher=ray needs hydra-ray-launcher, .*\[scale\]"):
        check_launcher_choice(["hydra/launcher=ray"], ROOT / "conf")
    with pytest.raises(
        LaunchError, match=r"^hydra.launcher._target_=.*RayLauncher cannot be imported: install hydra-ray"
    ):
        check_launcher(OmegaConf.create({"_target_": RAY_LAUNCHER}))


def test_a_ray_address_must_answer(monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    port = closed_port()
    for address in (f"ray://127.0.0.1:{port}", f"127.0.0.1:{port}"):
        with pytest.raises(LaunchError) as caught:
            check_ray_address(address)
        message = str(caught.value)
        assert message.startswith(f"hydra.launcher.ray.init.address={address} ") and "unreachable" in message
        assert "ray start --head" in message and "\n" not in message
    with pytest.raises(LaunchError, match="is not an address"):
        check_ray_address("ray://head-without-port")
    with socket.create_server(("127.0.0.1", 0)) as server:  # a cluster that answers passes
        check_ray_address(f"ray://127.0.0.1:{server.getsockname()[1]}")
    for local in (None, "", "local"):
        check_ray_address(local)


def test_the_ray_launchers_address_defaults_to_the_environment(monkeypatch):
    pytest.importorskip("hydra_plugins.hydra_ray_launcher", reason="needs the scale extra")
    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{closed_port()}")
    with pytest.raises(LaunchError, match="unreachable"):
        check_launcher(OmegaConf.create({"_target_": RAY_LAUNCHER, "ray": {"init": {"address": None}}}))


@pytest.mark.parametrize(
    ("launcher", "env", "expected"),
    [
        ("hydra/launcher=nope", {}, "error: hydra/launcher=nope is unknown"),
        (
            "hydra/launcher=ray",
            {"RAY_ADDRESS": "ray://127.0.0.1:{port}"},
            "error: hydra.launcher.ray.init.address=",
        ),
    ],
)
def test_train_py_stops_with_one_line_and_makes_no_sweep_folder(tmp_path, launcher, env, expected):
    pytest.importorskip(
        "hydra_plugins.hydra_ray_launcher", reason="needs the scale extra: pip install -e '.[scale]'"
    )
    env = {key: value.format(port=closed_port()) for key, value in env.items()}
    sweep_dir = tmp_path / "sweep"
    done = subprocess.run(
        [sys.executable, "train.py", "+sweep=dpo_grid_smoke", launcher, f"hydra.sweep.dir={sweep_dir}"],
        cwd=ROOT,
        env={**os.environ, "WANDB_MODE": "offline", **env},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(expected) and "Traceback" not in done.stderr
    assert not sweep_dir.exists(), "no sweep folder is made for a sweep that cannot launch"
