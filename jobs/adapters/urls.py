"""The drop-in routes, each under its service's prefix (config.urls mounts them at the
root): /gotenberg/…, /jsreport/…, /docraptor/…, then the service's own paths."""

from django.urls import include, path

from jobs.adapters import gotenberg

gotenberg_urls = [
    path("forms/chromium/convert/html", gotenberg.GotenbergHtmlApi.as_view(), name="html"),
    path("forms/chromium/convert/url", gotenberg.GotenbergUrlApi.as_view(), name="url"),
    path(
        "forms/chromium/convert/markdown",
        gotenberg.GotenbergMarkdownApi.as_view(),
        name="markdown",
    ),
]

urlpatterns = [
    path("gotenberg/", include((gotenberg_urls, "gotenberg"))),
]
