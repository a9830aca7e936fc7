"""Checks of a sweep's launcher, before any job starts or any folder is made; each failure is one line naming the
option and the fix (:class:`LaunchError`).

- :func:`check_launcher_choice` (``train.py``, on the command line, before Hydra composes): ``hydra/launcher=NAME``
  must name an option of the ``hydra/launcher`` group (the project's ``conf/hydra/launcher/*.yaml`` and those
  Hydra's plugins register), and the plugin behind ``ray`` or ``slurm`` must be installed (the ``scale`` extra);
- :func:`check_launcher` (the ``hydra.callbacks`` guard's ``on_multirun_start``, on the composed launcher): its
  ``_target_`` must import, and a Ray launcher's cluster address (``hydra.launcher.ray.init.address``, default
  ``$RAY_ADDRESS``) must answer.
"""

from __future__ import annotations

import importlib
import os
import re
import socket
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

from omegaconf import DictConfig, OmegaConf

SCALE_EXTRA = "pip install -e '.[scale]'"
# launcher option -> (the module its plugin installs, the package that provides it)
PLUGINS = {
    "ray": ("hydra_plugins.hydra_ray_launcher", "hydra-ray-launcher"),
    "slurm": ("hydra_plugins.hydra_submitit_launcher", "hydra-submitit-launcher"),
}
LAUNCHER_OVERRIDE = re.compile(r"^[+~]{0,2}hydra/launcher=(?P<name>.*)$")
CONNECT_TIMEOUT_S = 5.0


class LaunchError(ValueError):
    """A launcher that cannot run the sweep: unknown, not installed, or a cluster that does not answer."""


def launcher_choice(argv: Sequence[str]) -> str | None:
    """The launcher ``hydra/launcher=NAME`` picks on the command line (the last one given), or None."""
    names = [match["name"] for arg in argv if (match := LAUNCHER_OVERRIDE.match(arg))]
    return names[-1] if names else None


def launcher_options(conf_dir: str | os.PathLike) -> list[str]:
    """Every option of the ``hydra/launcher`` group: the config tree's and the installed plugins'."""
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    with initialize_config_dir(config_dir=str(Path(conf_dir).resolve()), version_base="1.3"):
        return list(GlobalHydra.instance().config_loader().get_group_options("hydra/launcher"))


def plugin_missing(name: str) -> str | None:
    """The package to install for launcher ``name`` when its plugin is absent, else None."""
    if name not in PLUGINS:
        return None
    module, package = PLUGINS[name]
    try:
        importlib.import_module(module)
    except ImportError:
        return package
    return None


def check_launcher_choice(argv: Sequence[str], conf_dir: str | os.PathLike) -> None:
    """Raise :class:`LaunchError` when ``argv`` picks a launcher that does not exist or is not installed."""
    name = launcher_choice(argv)
    if name is None:
        return
    if (package := plugin_missing(name)) is not None:
        raise LaunchError(f"hydra/launcher={name} needs {package}, which is not installed: {SCALE_EXTRA}")
    options = launcher_options(conf_dir)
    if name not in options:
        raise LaunchError(
            f"hydra/launcher={name} is unknown: choose one of {', '.join(options)} "
            f"(ray and slurm come with {SCALE_EXTRA}), or leave it out for the basic launcher (one job at a time)"
        )


def check_launcher(launcher: DictConfig) -> None:
    """Raise :class:`LaunchError` when the composed launcher's class does not import, or a Ray launcher's cluster
    address does not answer."""
    target = str(launcher.get("_target_", ""))
    module = target.rpartition(".")[0]
    try:
        importlib.import_module(module)
    except ImportError as error:
        package = next((pkg for mod, pkg in PLUGINS.values() if module.startswith(mod)), error.name)
        message = f"hydra.launcher._target_={target} cannot be imported: install {package} ({SCALE_EXTRA})"
        raise LaunchError(message) from None
    if "hydra_ray_launcher" in module:
        address = OmegaConf.select(launcher, "ray.init.address", default=None)
        check_ray_address(address or os.environ.get("RAY_ADDRESS"))


def check_ray_address(address: str | None) -> None:
    """Raise :class:`LaunchError` unless ``address`` (``ray://host:port``, ``host:port`` or ``auto``) answers; None,
    empty or ``local`` start a local Ray instance and pass."""
    if address in (None, "", "local"):
        return
    option = f"hydra.launcher.ray.init.address={address} (default $RAY_ADDRESS)"
    fix = (
        "start the cluster (`ray start --head` on its head node) and give its address, "
        "or leave RAY_ADDRESS unset for a local Ray instance"
    )
    if address == "auto":
        from ray._private.services import canonicalize_bootstrap_address_or_die

        try:
            canonicalize_bootstrap_address_or_die(address)
        except ConnectionError as error:
            raise LaunchError(f"{option}: {str(error).splitlines()[0]}; {fix}") from None
        return
    try:
        parts = urlsplit("//" + address.removeprefix("ray://"))
        host, port = parts.hostname, parts.port
    except ValueError:
        host = port = None
    if not host or not port:
        raise LaunchError(f"{option} is not an address: give ray://<head>:10001 or <head>:6379")
    try:
        socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise LaunchError(f"{option} is unreachable ({reason}): {fix}") from None
