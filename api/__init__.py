"""codetest's HTTP service: FastAPI routes, API keys, admission control and metrics over the sandbox.

    from api import create_app, serve
    serve("127.0.0.1", 8080, "native")       # what `codetest serve` runs
"""

from .app import create_app
from .server import ConfigError, serve

__all__ = ["ConfigError", "create_app", "serve"]
