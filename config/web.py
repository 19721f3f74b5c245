"""The web process: check the configuration for the address it binds, then run uvicorn.

`python -m config.web` reads HOST, PORT and WEB_CONCURRENCY; the Procfile and `make run`
start the web server this way so that an unsafe configuration never listens publicly.
"""

from __future__ import annotations

import os

import django
import uvicorn

from config.env import env_int, env_str
from config.safety import check_deployment
from config.startup import refuse_bad_configuration


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    host = env_str("HOST", "127.0.0.1") or "127.0.0.1"
    with refuse_bad_configuration("web"):
        django.setup()
        check_deployment(bind_host=host)
    uvicorn.run(
        "config.asgi:application",
        host=host,
        port=env_int("PORT", 8000, minimum=1),
        workers=env_int("WEB_CONCURRENCY", 1, minimum=1),
        proxy_headers=True,
    )


if __name__ == "__main__":
    main()
