"""The browser pages: my jobs, new report (gallery, data form), the template studio, a
job's page."""

from django.urls import path

from jobs.pages import dashboard, job_page, new_report, studio, usage

urlpatterns = [
    path("", dashboard.dashboard, name="home"),
    path("usage/", usage.usage, name="usage"),
    path("reports/new/", new_report.template_gallery, name="template-gallery"),
    path("reports/new/<slug:slug>/", new_report.report_new, name="report-new"),
    path(
        "templates/<slug:slug>/thumbnail.png",
        new_report.template_thumbnail_png,
        name="template-thumbnail",
    ),
    path("templates/new", studio.template_studio_new, name="template-studio-new"),
    path("templates/<slug:slug>/edit", studio.template_studio, name="template-studio"),
    path(
        "templates/<slug:slug>/form-pdf",
        studio.template_studio_form_upload,
        name="template-studio-form-upload",
    ),
    path("jobs/<uuid:job_id>/", job_page.job_page, name="job-page"),
    path("jobs/<uuid:job_id>/retry", job_page.job_retry_post, name="job-retry"),
    path("jobs/<uuid:job_id>/cancel", job_page.job_cancel_post, name="job-cancel-page"),
    path("jobs/<uuid:job_id>/download", job_page.job_download, name="job-download"),
]
