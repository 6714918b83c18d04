"""A real Chroma server (``chroma run``) in a child process, for tests and the load benchmark.

:class:`ChromaServer` starts ``chroma run --path PATH --host 127.0.0.1 --port PORT``, waits until
its heartbeat answers, and stops it by its pid. :meth:`ChromaServer.restart` starts a new server
on the same path and port (what an operator does after a crash), so that clients created
before keep working.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import Any

__all__ = ["ChromaServer", "chroma_command", "free_port"]

HOST = "127.0.0.1"
_START_TIMEOUT = 60.0  # seconds; a cold start takes about 1 s, a loaded 2-core machine longer
_STOP_TIMEOUT = 15.0


def free_port() -> int:
    """A TCP port that was free on 127.0.0.1 a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def chroma_command() -> list[str]:
    """How to run the ``chroma`` CLI of the running interpreter's environment."""
    beside = Path(sys.executable).parent / "chroma"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("chroma")
    if found:
        return [found]
    # The console script only calls chromadb.cli.cli.app(), which reads sys.argv.
    code = "import sys; from chromadb.cli.cli import app; sys.argv[0] = 'chroma'; app()"
    return [sys.executable, "-c", code]


class ChromaServer:
    """One ``chroma run`` child process serving the folder ``path``.

    Args:
        path: The server's persistence folder (created if needed); its log goes beside it.
        port: The port to listen on (default: a free one).
        loaded_indexes: At most this many HNSW indexes kept loaded (four open files each),
            written to a config file beside ``path`` (``chroma run CONFIG_PATH``); ``None``:
            the server's default (65,536: every collection it has touched stays loaded).

    Use :meth:`start` / :meth:`stop` (or ``with``); :attr:`pid` is the server's pid while it
    runs.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        port: int | None = None,
        *,
        loaded_indexes: int | None = None,
    ) -> None:
        self.path = Path(path)
        self.loaded_indexes = loaded_indexes
        self.port = free_port() if port is None else port
        self.host = HOST
        self._process: subprocess.Popen[bytes] | None = None
        self._log = self.path.parent / f"{self.path.name}.chroma-{self.port}.log"

    @property
    def address(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://{self.host}:{self.port}"

    @property
    def pid(self) -> int | None:
        """The server's pid, or ``None`` when it is not running."""
        return None if self._process is None else self._process.pid

    def client(self) -> Any:
        """A ``chromadb.HttpClient`` for this server (telemetry off)."""
        import chromadb
        from chromadb.config import Settings

        return chromadb.HttpClient(
            host=self.host, port=self.port, settings=Settings(anonymized_telemetry=False)
        )

    def start(self, timeout: float = _START_TIMEOUT) -> ChromaServer:
        """Start the server and wait until its heartbeat answers.

        Raises:
            RuntimeError: It exited or did not answer within ``timeout`` seconds (with its log).
        """
        if self._process is not None:
            raise RuntimeError(f"the server at {self.address} is running already")
        self.path.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, ANONYMIZED_TELEMETRY="False")
        with self._log.open("ab") as log:
            self._process = subprocess.Popen(
                [*chroma_command(), "run", *self._where()],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,  # a Ctrl-C in the test run does not hit it twice
            )
        deadline = time.monotonic() + timeout
        while True:
            if self._process.poll() is not None:
                code = self._process.returncode
                self._process = None
                raise RuntimeError(f"chroma run exited with {code}:\n{self.log_tail()}")
            if self._alive():
                return self
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"chroma run did not answer in {timeout} s:\n{self.log_tail()}")
            time.sleep(0.05)  # polling for the server to accept connections

    def _where(self) -> list[str]:
        """``chroma run``'s arguments: the folder, host and port, or a config file saying
        them and the index cache's size."""
        if self.loaded_indexes is None:
            return ["--path", str(self.path), "--host", self.host, "--port", str(self.port)]
        config = self.path.parent / f"{self.path.name}.chroma-{self.port}.yaml"
        config.write_text(
            f"persist_path: {json.dumps(str(self.path))}\n"
            f"listen_address: {json.dumps(self.host)}\n"
            f"port: {self.port}\n"
            "segment_manager:\n"
            "  hnsw_index_pool_cache_config:\n"
            "    memory:\n"
            f"      capacity: {int(self.loaded_indexes)}\n",
            encoding="utf-8",
        )
        return [str(config)]

    def _alive(self) -> bool:
        url = f"{self.address}/api/v2/heartbeat"
        try:
            with urllib.request.urlopen(url, timeout=1.0) as response:
                return bool(response.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Stop the server by its pid (``SIGKILL`` if it ignores ``sig`` for 15 s). Idempotent."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            try:
                os.kill(process.pid, sig)
                process.wait(timeout=_STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                os.kill(process.pid, signal.SIGKILL)
                process.wait()
            except ProcessLookupError:  # it died on its own meanwhile
                process.wait()

    def kill(self) -> None:
        """Stop the server with ``SIGKILL`` (a crash: no shutdown work)."""
        self.stop(signal.SIGKILL)

    def restart(self) -> ChromaServer:
        """Stop the server if it runs, then start a new one on the same path and port."""
        self.stop()
        return self.start()

    def log_tail(self, chars: int = 4000) -> str:
        """The end of the server's log."""
        try:
            return self._log.read_text(errors="replace")[-chars:]
        except OSError:
            return "(no log)"

    def __enter__(self) -> ChromaServer:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
