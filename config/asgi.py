"""ASGI entry point: HTTP (including SSE) through Django, WebSockets through Channels."""

import contextvars
import gc
import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

from core.asgi_handler import application as django_application

# Sets Django up before consumers are imported. Django's handler, serving a sync view and
# its middleware in one thread hop (core/asgi_handler.py).
django_asgi_app = django_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.db import database_sync_to_async  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402
from django.urls import get_resolver  # noqa: E402

from accounts.authentication import asgi_caller_is_known  # noqa: E402
from core.body_limit import BodyLimitMiddleware  # noqa: E402
from jobs.live.routing import websocket_urlpatterns as job_sockets  # noqa: E402
from runs.live import websocket_urlpatterns as run_sockets  # noqa: E402

websocket_urlpatterns = [*job_sockets, *run_sockets]

application = ProtocolTypeRouter(
    {
        # Bodies are capped before Django spools them; past a sign-in form's size, only a
        # caller with a valid key or session may send one at all.
        "http": BodyLimitMiddleware(
            django_asgi_app,
            max_bytes=settings.REQUEST_MAX_BODY_BYTES,
            anonymous_max_bytes=settings.REQUEST_MAX_ANONYMOUS_BODY_BYTES,
            is_known=database_sync_to_async(asgi_caller_is_known),
        ),
        # Origin is checked in the consumer: API-key clients send none, browsers must match.
        "websocket": AuthMiddlewareStack(URLRouter(websocket_urlpatterns)),
    }
)

# Once in every web process, whatever server imported this module (config.web's uvicorn
# workers, a gunicorn worker, the tests): build the URLconf now, which imports every view
# (the first request did it: ~190 modules, 20k objects, 150 ms), then move everything
# loaded so far out of the cyclic garbage collector. Each full collection walked the ~180k
# objects Django and the apps leave behind, 70-120 ms on an idle core and 120-340 ms beside
# the renders, with every request in that process waiting: the tail of submit latency
# (docs/benchmarks/index.md, 2026-12-07). Frozen, a collection walks what requests make.
# Built in a context of its own: each URL resolver marks itself `populating` in an asgiref
# Local, a context variable, and ~40 of them left in this context went into every request's
# copy of it, where asgiref re-homed and set each one again at every thread hop (a tenth of
# a submit's CPU). The indexes the build makes are on the resolvers, shared all the same.
contextvars.copy_context().run(lambda: get_resolver().reverse_dict)
gc.collect()
gc.freeze()
