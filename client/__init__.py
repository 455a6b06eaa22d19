"""codetest's Python SDK: a small httpx client for the service, sync and async.

    from client import Client
    with Client("http://127.0.0.1:8080") as c:
        c.run("python", "print(input())", [{"stdin": "hi\n", "expected_stdout": "hi\n"}])["verdict"]

It imports neither ``sandbox`` nor ``api``: a trainer machine installs the client alone
(``pip install codetest[client]``). Responses are the service's JSON as plain dicts.
"""

from .aio import AsyncClient
from .errors import APIError, CodetestError, ConnectionFailed, DeadlineExceeded
from .sync import Client

__all__ = ["APIError", "AsyncClient", "Client", "CodetestError", "ConnectionFailed", "DeadlineExceeded"]
