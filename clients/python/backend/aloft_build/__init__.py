"""aloft_build: the PEP 517 build backend of aloft-client, pyproject.toml's `build-backend`. It builds
the wheel (and an sdist) from this folder with the standard library alone, so pip's isolated build
has nothing to fetch and `pip install ./clients/python` works offline with any Python 3.9+ (why
not setuptools: clients/python/README.md). Each hook runs in the project's folder (PEP 517)."""
import os
from typing import Any, Optional

from .project import read_project
from .sdist import write_sdist
from .wheel import write_dist_info, write_wheel


def build_wheel(wheel_directory: str, config_settings: Any = None, metadata_directory: Optional[str] = None) -> str:
    # the metadata is made again from the same pyproject.toml: it is what metadata_directory holds
    return write_wheel(read_project(os.getcwd()), os.getcwd(), wheel_directory)


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Any = None) -> str:
    return write_dist_info(read_project(os.getcwd()), os.getcwd(), metadata_directory)


def build_sdist(sdist_directory: str, config_settings: Any = None) -> str:
    return write_sdist(read_project(os.getcwd()), os.getcwd(), sdist_directory)
