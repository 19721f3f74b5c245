"""URLs of the schedules API, mounted under /api/v1/ (namespace "api") by config.urls."""

from django.urls import path

from schedules import api

urlpatterns = [
    path("schedules", api.ScheduleListCreateApi.as_view(), name="schedule-list"),
    path("schedules/<str:schedule_id>", api.ScheduleDetailApi.as_view(), name="schedule-detail"),
    path(
        "schedules/<str:schedule_id>/run", api.ScheduleRunNowApi.as_view(), name="schedule-run-now"
    ),
    path(
        "schedules/<str:schedule_id>/runs", api.ScheduleRunListApi.as_view(), name="schedule-runs"
    ),
]
