"""The project's files as the archives list them, and the one date they give each."""
import os
from typing import List

# every entry dated the same, so one source makes one archive byte for byte (zip's dates begin in 1980)
DATE = (1980, 1, 1, 0, 0, 0)


def files_under(root: str, top: str) -> List[str]:
    """Every file under `top` (relative to root, '/'-separated, sorted), bytecode caches left out."""
    found = []
    for folder, dirs, files in os.walk(os.path.join(root, top)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for f in sorted(files):
            if not f.endswith((".pyc", ".pyo")):
                found.append(os.path.relpath(os.path.join(folder, f), root).replace(os.sep, "/"))
    return found
