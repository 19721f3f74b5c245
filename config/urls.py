"""Root URLconf: only includes each app's URLs, the admin, and the generated API schema."""

from csp.constants import UNSAFE_INLINE
from csp.decorators import csp_update
from django.contrib import admin
from django.templatetags.static import static
from django.urls import URLResolver, include, path, re_path
from django.views.generic import RedirectView
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)


def _apps(*urlconfs: str) -> list[URLResolver]:
    """Each app's own URLconf, included at the root of where it is mounted, in order."""
    return [path("", include(urlconf)) for urlconf in urlconfs]


# One "api" namespace for the whole /api/v1/, whichever app owns the route.
api_v1 = _apps(
    "jobs.api.urls",
    "runs.urls",
    "schedules.urls",
    "reports.api.urls",
    "accounts.api.urls",
    "workspaces.api.urls",
)

# The API docs bundles inject <style> elements and Redoc starts a blob: worker; their
# scripts still come only from our static files (the split Swagger view has no inline one).
docs_csp = csp_update({"style-src": [UNSAFE_INLINE], "worker-src": ["blob:"]})
# Redoc's sidebar always shows its maker's logo from their CDN (no setting turns it off).
redoc_csp = csp_update(
    {"style-src": [UNSAFE_INLINE], "worker-src": ["blob:"], "img-src": ["https://cdn.redoc.ly"]}
)

urlpatterns = [
    *_apps(
        "jobs.pages.urls",
        "runs.page_urls",
        "schedules.page_urls",
        "accounts.urls",
        "workspaces.urls",
        "jobs.ops.urls",
        # Other services' routes (Gotenberg, jsreport, DocRaptor) onto our jobs.
        "dropins.urls",
    ),
    # Schedules moved from the jobs app to their own (issue 40): operators' bookmarks of
    # their admin pages keep working.
    re_path(
        r"^admin/jobs/(?P<model>schedule|schedulerun)/(?P<rest>.*)$",
        RedirectView.as_view(url="/admin/schedules/%(model)s/%(rest)s", query_string=True),
    ),
    path("admin/", admin.site.urls),
    # Browsers ask for /favicon.ico on pages without an icon link (the admin's).
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"), permanent=True)),
    path("api/v1/", include((api_v1, "api"))),
    path("api/v1/schema", SpectacularAPIView.as_view(), name="schema"),
    path(
        "api/v1/docs",
        docs_csp(SpectacularSwaggerSplitView.as_view(url_name="schema")),
        name="api-docs",
    ),
    path(
        "api/v1/redoc", redoc_csp(SpectacularRedocView.as_view(url_name="schema")), name="api-redoc"
    ),
]

handler404 = "core.http_errors.not_found"
handler500 = "core.http_errors.server_error"
