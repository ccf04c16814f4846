"""`write_atomic` (fxdsl-opt -o, the kernel cache, bench reports) behaves
like a plain write where a bare rename would not: through symlinks, keeping
permissions, and in place for FIFOs and devices."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

from fxdsl.util.atomic_write import write_atomic


def test_writes_and_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    write_atomic(target, "one\n")
    write_atomic(target, b"two\n")
    assert target.read_text() == "two\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_symlink_is_written_through(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_atomic(link, "new\n")
    assert link.is_symlink()
    assert real.read_text() == "new\n"


def test_existing_permissions_are_kept(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    target.chmod(0o640)
    write_atomic(target, "new\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_new_file_gets_the_umask_mode(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "new.txt", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o640


def test_fifo_is_written_in_place(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[str] = []
    reader = threading.Thread(
        target=lambda: received.append(fifo.read_text()), daemon=True
    )
    reader.start()
    write_atomic(fifo, "through the pipe\n")
    reader.join(timeout=10)
    assert received == ["through the pipe\n"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)
