"""The Snakemake profiles the package ships, installed where ``snakemake --profile NAME``
finds them (``$XDG_CONFIG_HOME/snakemake/NAME``, else ``~/.config/snakemake/NAME``).

Snakemake looks a profile name up in the working directory and its user and site config
folders, never inside an installed package; so ``rgt init`` installs them there, as ``make
profiles`` does for rgt's own repository, with the same code (the shipped
``profiles/install.py``): a profile of the user's with the same name is kept as it is, an
unedited older copy of rgt's is updated, nothing is deleted.
"""

from __future__ import annotations

from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path
from types import ModuleType

from rgt.base.shipped import shipped
from rgt.controller.profile import user_profile_dirs


def installer() -> ModuleType:
    """The shipped ``profiles/install.py`` (standard library only), as a module."""
    path = shipped("profiles", "install.py")
    spec = spec_from_file_location("rgt_profiles_install", path)
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def shipped_profiles() -> list[str]:
    """The names of the profiles the package ships."""
    return sorted(path.parent.name for path in shipped("profiles").glob("*/config.yaml"))


def install_profiles(home: Path | None = None) -> tuple[Path, dict[str, str]]:
    """Install every shipped profile under ``home`` (default: Snakemake's user profile
    folder): the folder and ``{name: installed | updated | unchanged | kept}``."""
    home = home or user_profile_dirs()[0]
    install = installer().install
    return home, {name: install(shipped("profiles", name), home / name)
                  for name in shipped_profiles()}
