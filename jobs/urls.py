"""URLs of the integrator API, mounted under /api/v1/ by config.urls."""

from django.urls import path

from jobs import apis, sse

app_name = "api"

urlpatterns = [
    path("generate-pdf-async", apis.JobCreateApi.as_view(), name="job-create"),
    path("jobs", apis.JobListApi.as_view(), name="job-list"),
    path("jobs/<str:job_id>", apis.JobDetailApi.as_view(), name="job-detail"),
    path("jobs/<str:job_id>/cancel", apis.JobCancelApi.as_view(), name="job-cancel"),
    path("jobs/<str:job_id>/pdf", apis.JobPdfApi.as_view(), name="job-pdf"),
    path("jobs/<str:job_id>/events", sse.job_events, name="job-events"),
]
