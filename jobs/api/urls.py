"""URLs of the jobs API, mounted under /api/v1/ (namespace "api") by config.urls. No trailing
slashes; core.api_paths answers the slashed spelling the same."""

from django.urls import path

from jobs.api import convert, views
from jobs.live import sse

urlpatterns = [
    path("generate-pdf-async", views.JobCreateApi.as_view(), name="job-create"),
    path("convert", convert.JobConvertApi.as_view(), name="job-convert"),
    path("jobs", views.JobListApi.as_view(), name="job-list"),
    path("jobs/events", sse.owner_job_events, name="owner-job-events"),  # before jobs/<id>
    path("jobs/<str:job_id>", views.JobDetailApi.as_view(), name="job-detail"),
    path("jobs/<str:job_id>/cancel", views.JobCancelApi.as_view(), name="job-cancel"),
    path("jobs/<str:job_id>/retry", views.JobRetryApi.as_view(), name="job-retry"),
    path("jobs/<str:job_id>/pdf", views.JobPdfApi.as_view(), name="job-pdf"),
    path("jobs/<str:job_id>/deliveries", views.JobDeliveryListApi.as_view(), name="job-deliveries"),
    path("jobs/<str:job_id>/events", sse.job_events, name="job-events"),
    path("usage", views.UsageApi.as_view(), name="usage"),
]
