"""URLs of the run pages, included at the root by config.urls."""

from django.urls import path

from runs import pages

urlpatterns = [
    path("runs/", pages.run_list_page, name="run-list"),
    path("runs/new/", pages.run_new, name="run-new"),
    path("runs/new/sample.csv", pages.run_sample_csv, name="run-sample-csv"),
    path("runs/<uuid:run_id>/", pages.run_page, name="run-page"),
    path("runs/<uuid:run_id>/retry", pages.run_retry_post, name="run-retry-page"),
    path("runs/<uuid:run_id>/download", pages.run_download, name="run-download-page"),
]
