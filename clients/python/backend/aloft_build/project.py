"""The [project] table of pyproject.toml, checked, and the core metadata it makes (METADATA in a
wheel, PKG-INFO in an sdist: metadata version 2.1, PEP 566, the first with a Markdown description)."""
import os
import re
from typing import Any, Dict

from .toml_subset import loads

Project = Dict[str, Any]
# the keys this backend writes into the metadata; any other is refused rather than left out
STRINGS = ("name", "version", "description", "readme", "requires-python")
LISTS = ("dependencies", "classifiers")
NAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?")


def read_project(root: str) -> Project:
    with open(os.path.join(root, "pyproject.toml"), encoding="utf-8") as f:
        project = loads(f.read()).get("project")
    if not isinstance(project, dict):
        raise ValueError("pyproject.toml has no [project] table")
    for key, value in project.items():
        if key in STRINGS:
            ok = isinstance(value, str) and one_line(value)
        elif key in LISTS:
            ok = isinstance(value, list) and all(one_line(v) for v in value)
        elif key == "optional-dependencies":
            ok = isinstance(value, dict) and all(isinstance(v, list) and all(one_line(d) for d in v)
                                                 for v in value.values())
        else:
            raise ValueError(f"pyproject.toml: [project] {key} is not written by aloft_build")
        if not ok:
            raise ValueError(f"pyproject.toml: [project] {key} is not what the metadata takes (one-line text)")
    for key in ("name", "version"):
        if key not in project:
            raise ValueError(f"pyproject.toml: [project] has no {key}")
    if NAME.fullmatch(project["name"]) is None:
        raise ValueError(f"pyproject.toml: [project] name {project['name']!r} is not a distribution name")
    return project


def one_line(value: str) -> bool:
    # a metadata field is one line: a line break would begin another field
    return "\n" not in value and "\r" not in value


def file_name(project: Project) -> str:
    """The name as wheel and sdist file names spell it: aloft-client -> aloft_client."""
    return re.sub(r"[-_.]+", "_", project["name"]).lower()


def core_metadata(project: Project, root: str) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project['version']}"]
    if "description" in project:
        lines.append(f"Summary: {project['description']}")
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Classifier: {c}" for c in project.get("classifiers", [])]
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    for extra, needs in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f"Requires-Dist: {requirement(d, extra)}" for d in needs]
    body = ""
    if "readme" in project:
        lines.append(f"Description-Content-Type: {content_type(project['readme'])}")
        with open(os.path.join(root, project["readme"]), encoding="utf-8") as f:
            body = "\n" + f.read()
    return "\n".join(lines) + "\n" + body


def requirement(needs: str, extra: str) -> str:
    """A dependency of an extra: its marker joined to the requirement's own, if it has one."""
    spec, _, marker = needs.partition(";")
    condition = f'extra == "{extra}"'
    return f"{spec.strip()}; ({marker.strip()}) and {condition}" if marker.strip() else f"{spec.strip()}; {condition}"


def content_type(readme: str) -> str:
    types = {".md": "text/markdown", ".rst": "text/x-rst", ".txt": "text/plain"}
    suffix = os.path.splitext(readme)[1].lower()
    if suffix not in types:
        raise ValueError(f"pyproject.toml: [project] readme {readme!r}: not .md, .rst or .txt")
    return types[suffix]

