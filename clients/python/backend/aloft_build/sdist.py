"""The sdist: what builds the wheel again (pyproject.toml, the readme, this backend, src/ and the
tests) under one folder, with the core metadata as PKG-INFO."""
import calendar
import gzip
import io
import os
import tarfile

from .files import DATE, files_under
from .project import Project, core_metadata, file_name

FOLDERS = ("backend", "src", "tests")


def write_sdist(project: Project, root: str, directory: str) -> str:
    """Writes the sdist into `directory`; its file name."""
    base = f"{file_name(project)}-{project['version']}"
    paths = ["pyproject.toml"] + ([project["readme"]] if "readme" in project else [])
    for folder in FOLDERS:
        paths += files_under(root, folder)
    contents = {"PKG-INFO": core_metadata(project, root).encode()}
    for path in paths:
        with open(os.path.join(root, path), "rb") as f:
            contents[path] = f.read()

    sdist = f"{base}.tar.gz"
    with open(os.path.join(directory, sdist), "wb") as out:
        with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0) as packed:
            with tarfile.open(fileobj=packed, mode="w", format=tarfile.PAX_FORMAT) as archive:
                for path, data in contents.items():
                    entry = tarfile.TarInfo(f"{base}/{path}")
                    entry.size, entry.mode, entry.mtime = len(data), 0o644, calendar.timegm(DATE + (0, 0, 0))
                    archive.addfile(entry, io.BytesIO(data))
    return sdist
