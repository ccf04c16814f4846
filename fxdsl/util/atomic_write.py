"""Write a file so that readers see either the old or the whole new content."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write to a temp file in the same folder, then rename over `path`.

    Like a plain write, and unlike a bare rename: a symlink is written
    through (its target is replaced, the link stays); an existing file keeps
    its permission bits and a new one gets `0o666 & ~umask` (not mkstemp's
    0600); a path that is not a regular file (`/dev/null`, a FIFO) is
    written in place, since renaming over it would replace the device."""
    target = Path(os.path.realpath(path))
    mode = "wb" if isinstance(data, bytes) else "w"
    existing = target.stat() if target.exists() else None
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        with open(target, mode) as stream:
            stream.write(data)
        return
    if existing is not None:
        permissions = stat.S_IMODE(existing.st_mode)
    else:
        umask = os.umask(0)
        os.umask(umask)
        permissions = 0o666 & ~umask
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(fd, mode) as stream:
            os.fchmod(stream.fileno(), permissions)
            stream.write(data)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
