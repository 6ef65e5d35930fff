"""The wheel: the packages and modules under src/ as they are, and its .dist-info (METADATA, WHEEL,
and RECORD with every other file's hash and size)."""
import base64
import csv
import hashlib
import io
import os
import zipfile
from typing import Dict, List

from .files import DATE, files_under
from .project import Project, core_metadata, file_name

TAG = "py3-none-any"  # pure Python, any Python 3


def dist_info(project: Project) -> str:
    return f"{file_name(project)}-{project['version']}.dist-info"


def dist_info_files(project: Project, root: str) -> Dict[str, bytes]:
    wheel = f"Wheel-Version: 1.0\nGenerator: aloft_build\nRoot-Is-Purelib: true\nTag: {TAG}\n"
    return {"METADATA": core_metadata(project, root).encode(), "WHEEL": wheel.encode()}


def write_dist_info(project: Project, root: str, directory: str) -> str:
    """The .dist-info pip reads before it asks for the wheel; its name."""
    name = dist_info(project)
    os.makedirs(os.path.join(directory, name))
    for file, data in dist_info_files(project, root).items():
        with open(os.path.join(directory, name, file), "wb") as f:
            f.write(data)
    return name


def package_files(root: str) -> List[str]:
    """src/'s packages (folders with an __init__.py) and modules; nothing else there (an old build's
    .egg-info, say) is installed."""
    src = os.path.join(root, "src")
    found: List[str] = []
    for entry in sorted(os.listdir(src)):
        if os.path.isfile(os.path.join(src, entry, "__init__.py")):
            found += files_under(root, f"src/{entry}")
        elif entry.endswith(".py"):
            found.append(f"src/{entry}")
    if not found:
        raise ValueError("src/ holds no package or module to build a wheel of")
    return found


def write_wheel(project: Project, root: str, directory: str) -> str:
    """Writes the wheel into `directory`; its file name."""
    contents: Dict[str, bytes] = {}
    for path in package_files(root):
        with open(os.path.join(root, path), "rb") as f:
            contents[path[len("src/"):]] = f.read()
    info = dist_info(project)
    for file, data in dist_info_files(project, root).items():
        contents[f"{info}/{file}"] = data
    record = io.StringIO()
    rows = csv.writer(record, lineterminator="\n")
    for name, data in contents.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        rows.writerow([name, f"sha256={digest}", len(data)])
    rows.writerow([f"{info}/RECORD", "", ""])
    contents[f"{info}/RECORD"] = record.getvalue().encode()

    wheel = f"{file_name(project)}-{project['version']}-{TAG}.whl"
    with zipfile.ZipFile(os.path.join(directory, wheel), "w") as archive:
        for name, data in contents.items():
            entry = zipfile.ZipInfo(name, DATE)
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, data)
    return wheel
