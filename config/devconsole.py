"""What `make run` says on the console: the port check before anything starts, and the short
summary printed once everything answers (the processes' own output goes to var/log/)."""

from __future__ import annotations

import errno
import os
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

_BOLD, _DIM, _GREEN, _RED, _RESET = "\033[1m", "\033[2m", "\033[32m", "\033[31m", "\033[0m"


def use_colour(stream: TextIO) -> bool:
    """Colour for a person at a terminal; never in a pipe or a log, nor with NO_COLOR."""
    return stream.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def _paint(text: str, code: str, colour: bool) -> str:
    return f"{code}{text}{_RESET}" if colour else text


def port_taken(host: str, port: int) -> bool:
    """True when something already listens on host:port (bound as uvicorn binds it)."""
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        return False  # the web process reports a host it cannot resolve itself
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except OSError as exc:
            return exc.errno in (errno.EADDRINUSE, errno.EACCES)
    return False


def free_port_after(host: str, port: int, tries: int = 50) -> int | None:
    return next((p for p in range(port + 1, port + 1 + tries) if not port_taken(host, p)), None)


def port_problem(host: str, port: int, variable: str) -> str | None:
    """The message for a port that is taken, naming the variable that chooses another."""
    if not port_taken(host, port):
        return None
    other = free_port_after(host, port)
    example = f" (e.g. {variable}={other} make run)" if other else ""
    return (
        f"port {port} on {host} is already in use (another `make run`?); "
        f"set {variable} to a free port{example}"
    )


@dataclass(frozen=True)
class Summary:
    url: str
    username: str
    password: str
    api_key: str
    key_file: Path
    log_dir: Path
    mail_dir: Path
    processes: tuple[str, ...]
    verbose: bool

    def lines(self, *, colour: bool) -> list[str]:
        def label(text: str) -> str:
            return _paint(f"  {text:<9}", _DIM, colour)

        logs = (
            "on this console (VERBOSE=1)"
            if self.verbose
            else f"{_shown(self.log_dir)}/{{{','.join(self.processes)}}}.log"
            " (VERBOSE=1 make run shows them here)"
        )
        return [
            "",
            _paint("  PDF reports is running", _BOLD + _GREEN, colour),
            f"{label('Open')}{_paint(self.url, _BOLD, colour)}",
            f"{label('Sign in')}{self.username} / {self.password}"
            " (a local demo account; see /account/)",
            f"{label('API key')}{self.api_key} (in {_shown(self.key_file)})",
            f"{label('API docs')}{self.url}api/v1/docs",
            f"{label('Mail')}saved in {_shown(self.mail_dir)}/, not sent",
            f"{label('Logs')}{logs}",
            f"{label('Stop')}Ctrl-C",
            "",
        ]


def _shown(path: Path) -> str:
    """A path as the person typed the command: relative to where they are, if inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def say(message: str, *, error: bool = False) -> None:
    """One line from the devstack itself (errors in red when at a terminal)."""
    stream = sys.stderr if error else sys.stdout
    text = _paint(f"devstack: {message}", _RED, error and use_colour(stream))
    print(text, file=stream, flush=True)
