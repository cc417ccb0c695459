"""What a submission prints: a pipe the grader drains into a file the submission never holds.

The submission's stdout and stderr are the write end of a pipe, made afresh at every start; a
thread of the grader reads the other end into a file without a name in the grader's scratch
folder, keeping the first `limit` bytes; past them the pipe is closed, and a print fails, as a
write past the file-size limit does. The submission holds no descriptor of that file, so it
cannot read back what it printed (through fd 1, or by opening /proc/self/fd/1) before a restart
to learn what happened to it, or to forge a reply from it: a pipe opened again for reading
gives at most what it has just printed and the grader has not read yet.
"""

from __future__ import annotations

import contextlib
import os
import select
import tempfile
import threading
from pathlib import Path


class Output:
    """The file a submission's prints go to, fed through a fresh pipe per process start."""

    def __init__(self, scratch: Path, limit: int) -> None:
        self.limit = limit
        self._file = tempfile.TemporaryFile(dir=scratch)  # noqa: SIM115 - closed in close()
        self._size = 0
        self._lock = threading.Lock()
        self._pipes: list[int] = []  # read ends still drained

    def pipe(self) -> int:
        """A new pipe's write end for the process starting (the caller closes it once it is
        passed on); a thread reads the other end until every writer has closed it."""
        read_end, write_end = os.pipe()
        os.set_blocking(read_end, False)
        with self._lock:
            self._pipes.append(read_end)
        threading.Thread(target=self._drain, args=(read_end,), daemon=True).start()
        return write_end

    def _drain(self, read_end: int) -> None:
        while self._take(read_end):
            with contextlib.suppress(OSError, ValueError):
                select.select([read_end], [], [], 1.0)

    def _take(self, read_end: int) -> bool:
        """Keep what `read_end` holds now; False once it is closed (the writers all gone, or
        the output closed)."""
        with self._lock:
            if read_end not in self._pipes:
                return False
            while True:
                try:
                    chunk = os.read(read_end, 65536)
                except BlockingIOError:
                    return True
                except OSError:
                    chunk = b""
                kept = chunk[: max(0, self.limit - self._size)]
                if kept and self._file is not None:
                    os.pwrite(self._file.fileno(), kept, self._size)
                    self._size += len(kept)
                if not chunk or self._size >= self.limit:  # full: its next print fails (EPIPE)
                    self._pipes.remove(read_end)
                    os.close(read_end)
                    return False

    def text(self, limit: int) -> str:
        """The first `limit` bytes printed so far, as text, what is still in the pipes included."""
        for read_end in list(self._pipes):
            self._take(read_end)
        with self._lock:
            if self._file is None:
                return ""
            return os.pread(self._file.fileno(), limit, 0).decode("utf-8", "replace")

    def close(self) -> None:
        """Stop draining and delete the file."""
        with self._lock:
            for read_end in self._pipes:
                os.close(read_end)
            self._pipes.clear()
            if self._file is not None:
                self._file.close()
                self._file = None
