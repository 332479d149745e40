"""Writes the server directories ``ng_run`` starts the swe_env servers from.

NeMo Gym's launcher (``ng_run`` / ``gym env start``, 0.7) starts a server from a directory
``<server type>/<name>`` found under its search roots (``NEMO_GYM_EXTRA_ROOTS``, the working
directory, its install root) that holds a ``requirements.txt`` or ``pyproject.toml``, sets up a venv
there and runs the server's ``entrypoint``, a path relative to that directory (an absolute one fails
its assertion). This writes such a root::

    ROOT/resources_servers/swe_env/{app.py, requirements.txt, configs/swe_env.yaml}
    ROOT/responses_api_agents/swe_env_agent/{app.py, requirements.txt}
    ROOT/resources_servers/swe_env_simple/{app.py, requirements.txt, configs/swe_env_simple.yaml}

Usage: ``python -m swe_env.nemo_gym.layout ROOT [--requirement SPEC]``, then
``NEMO_GYM_EXTRA_ROOTS=ROOT ng_run "+config_paths=[resources_servers/swe_env/configs/swe_env.yaml,...]"``.
The requirement installed into those venvs is this package as it was installed here (its PEP 610
``direct_url.json``: a local directory, a wheel or a VCS URL), else ``--requirement``.
"""
from __future__ import annotations

import argparse
import json
import shutil
from importlib import metadata
from pathlib import Path
from typing import Optional

DISTRIBUTION = "swe-env-client"
CONFIG_DIR = Path(__file__).resolve().parent / "configs"
CONFIG = CONFIG_DIR / "swe_env.yaml"

SERVERS = {
    "resources_servers/swe_env": ("swe_env.nemo_gym.app", "SweEnvResourcesServer"),
    "responses_api_agents/swe_env_agent": ("swe_env.nemo_gym.agent", "SweEnvAgent"),
    "resources_servers/swe_env_simple": ("swe_env.nemo_gym.resources", "SweEnvSimpleResourcesServer"),
}
#: Each config file, and the server directory it goes into.
CONFIGS = {
    "swe_env.yaml": "resources_servers/swe_env/configs",
    "swe_env_simple.yaml": "resources_servers/swe_env_simple/configs",
}


def installed_requirement() -> Optional[str]:
    """This package as a requirement line pip can install again, from how it was installed."""
    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None
    text = dist.read_text("direct_url.json")
    if not text:
        return f"{DISTRIBUTION}=={dist.version}"
    url = json.loads(text)
    vcs = url.get("vcs_info")
    if vcs:
        return f"{DISTRIBUTION} @ {vcs['vcs']}+{url['url']}@{vcs.get('commit_id', '')}".rstrip("@")
    return f"{DISTRIBUTION} @ {url['url']}"


def write_root(root: str, requirement: Optional[str] = None) -> Path:
    requirement = requirement or installed_requirement()
    if not requirement:
        raise RuntimeError(f"{DISTRIBUTION} is not installed as a distribution: pass --requirement")
    base = Path(root).resolve()
    for relative, (module, cls) in SERVERS.items():
        directory = base / relative
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "app.py").write_text(
            f'"""Written by swe_env.nemo_gym.layout: ng_run runs this file in its own directory."""\n'
            f"from {module} import {cls}\n\nif __name__ == \"__main__\":\n    {cls}.run_webserver()\n"
        )
        (directory / "requirements.txt").write_text(requirement + "\n")
    for name, relative in CONFIGS.items():
        configs = base / relative
        configs.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(CONFIG_DIR / name, configs / name)
    return base


def main(argv: Optional[list] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root")
    parser.add_argument("--requirement", default=None, help=f"what the server venvs install (default: {DISTRIBUTION} as installed here)")
    args = parser.parse_args(argv)
    base = write_root(args.root, args.requirement)
    print(base / "resources_servers" / "swe_env" / "configs" / CONFIG.name)


if __name__ == "__main__":
    main()
