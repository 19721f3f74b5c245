"""The drop-in routes, each under its service's prefix (config.urls mounts them at the
root): /gotenberg/…, /jsreport/…, /docraptor/…, then the service's own paths."""

from django.urls import include, path

from dropins import docraptor, gotenberg, jsreport
from dropins import gotenberg_pdfengines as pdfengines
from dropins.gotenberg_office import GotenbergLibreOfficeApi

gotenberg_urls = [
    path("forms/chromium/convert/html", gotenberg.GotenbergHtmlApi.as_view(), name="html"),
    path("forms/chromium/convert/url", gotenberg.GotenbergUrlApi.as_view(), name="url"),
    path(
        "forms/chromium/convert/markdown",
        gotenberg.GotenbergMarkdownApi.as_view(),
        name="markdown",
    ),
    *[
        path(f"forms/pdfengines/{route}", view.as_view(), name=f"pdfengines-{name}")
        for route, name, view in (
            ("merge", "merge", pdfengines.GotenbergMergeApi),
            ("split", "split", pdfengines.GotenbergSplitApi),
            ("flatten", "flatten", pdfengines.GotenbergFlattenApi),
            ("encrypt", "encrypt", pdfengines.GotenbergEncryptApi),
            ("rotate", "rotate", pdfengines.GotenbergRotateApi),
            ("stamp", "stamp", pdfengines.GotenbergStampApi),
            ("watermark", "watermark", pdfengines.GotenbergWatermarkApi),
            ("metadata/read", "metadata-read", pdfengines.GotenbergMetadataReadApi),
            ("metadata/write", "metadata-write", pdfengines.GotenbergMetadataWriteApi),
        )
    ],
    path("forms/libreoffice/convert", GotenbergLibreOfficeApi.as_view(), name="libreoffice"),
]

jsreport_urls = [
    path("api/report", jsreport.JsreportReportApi.as_view(), name="report"),
    path("reports/<str:report_id>/status", jsreport.JsreportStatusApi.as_view(), name="status"),
    path("reports/<str:report_id>/content", jsreport.JsreportContentApi.as_view(), name="content"),
]

docraptor_urls = [
    path("docs", docraptor.DocraptorDocCreateApi.as_view(), name="docs"),
    path("async_docs", docraptor.DocraptorAsyncDocCreateApi.as_view(), name="async-docs"),
    path("status/<str:status_id>", docraptor.DocraptorStatusApi.as_view(), name="status"),
    path("download/<str:download_id>", docraptor.DocraptorDownloadApi.as_view(), name="download"),
]

urlpatterns = [
    path("gotenberg/", include((gotenberg_urls, "gotenberg"))),
    path("jsreport/", include((jsreport_urls, "jsreport"))),
    path("docraptor/", include((docraptor_urls, "docraptor"))),
]
