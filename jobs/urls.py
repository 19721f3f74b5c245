"""URLs of the integrator API, mounted under /api/v1/ by config.urls. No trailing slashes;
jobs.api_paths answers the slashed spelling the same."""

from django.urls import path

from jobs import apis, sse, template_apis

app_name = "api"

urlpatterns = [
    path("generate-pdf-async", apis.JobCreateApi.as_view(), name="job-create"),
    path("jobs", apis.JobListApi.as_view(), name="job-list"),
    path("jobs/events", sse.owner_job_events, name="owner-job-events"),  # before jobs/<id>
    path("jobs/<str:job_id>", apis.JobDetailApi.as_view(), name="job-detail"),
    path("jobs/<str:job_id>/cancel", apis.JobCancelApi.as_view(), name="job-cancel"),
    path("jobs/<str:job_id>/pdf", apis.JobPdfApi.as_view(), name="job-pdf"),
    path("jobs/<str:job_id>/events", sse.job_events, name="job-events"),
    path("templates", template_apis.TemplateListCreateApi.as_view(), name="template-list"),
    path(
        "templates/<slug:slug>", template_apis.TemplateDetailApi.as_view(), name="template-detail"
    ),
    path(
        "templates/<slug:slug>/restore",
        template_apis.TemplateRestoreApi.as_view(),
        name="template-restore",
    ),
    path(
        "templates/<slug:slug>/versions",
        template_apis.TemplateVersionListApi.as_view(),
        name="template-versions",
    ),
    path(
        "templates/<slug:slug>/preview",
        template_apis.TemplatePreviewApi.as_view(),
        name="template-preview",
    ),
]
