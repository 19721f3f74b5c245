"""URLs of the runs API, mounted under /api/v1/ (namespace "api") by config.urls."""

from django.urls import path

from runs import api, live

urlpatterns = [
    path("generate-pdf-batch", api.JobBatchCreateApi.as_view(), name="job-batch-create"),
    path("runs", api.RunListCreateApi.as_view(), name="run-create"),
    path("runs/<str:run_id>", api.RunDetailApi.as_view(), name="run-detail"),
    path("runs/<str:run_id>/retry-failed", api.RunRetryFailedApi.as_view(), name="run-retry"),
    path("runs/<str:run_id>/download", api.RunDownloadApi.as_view(), name="run-download"),
    path("runs/<str:run_id>/events", live.run_events, name="run-events"),
]
