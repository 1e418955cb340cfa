"""Whether the client of a request has gone: long work stops instead of finishing for nobody.

Only where the server hands us the connection (gunicorn's workers put it in the WSGI
environ); elsewhere (runserver, tests' client) the answer is always "still there".
"""
from __future__ import annotations

import socket
from collections.abc import Callable

from django.http import HttpRequest


def client_gone(request: HttpRequest) -> bool:
    """True once the peer has closed its side: a peek at the socket reads end-of-file (a request
    body already read, nothing pipelined after it)."""
    sock = request.META.get("gunicorn.socket")
    if not isinstance(sock, socket.socket):
        return False
    try:
        return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False  # nothing to read: the client is waiting for the answer
    except OSError:
        return True  # reset by the peer


def gone_check(request: HttpRequest) -> Callable[[], bool]:
    return lambda: client_gone(request)
