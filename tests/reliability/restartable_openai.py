"""The FakeOpenAI server, able to stop and come back on the same port (clients keep one base URL)."""
from __future__ import annotations

import threading
from http.server import ThreadingHTTPServer

from tests.support.openai_server import FakeOpenAI


class RestartableOpenAI(FakeOpenAI):
    def __init__(self) -> None:
        super().__init__()
        self.port = self._server.server_address[1]
        self.running = False

    def start(self) -> RestartableOpenAI:
        if self._thread.ident is not None:  # a thread runs once: a restart needs a new server and thread
            self._server = ThreadingHTTPServer(("127.0.0.1", self.port), self._handler())
            self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        self.running = True
        return self

    def stop(self) -> None:
        """Really gone: the port refuses connections until `start`."""
        if self.running:
            self.__exit__(None, None, None)
            self.running = False
