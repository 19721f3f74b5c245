"""URLs of the schedules pages, included at the root by config.urls."""

from django.urls import path

from schedules import pages

urlpatterns = [
    path("schedules/", pages.schedule_list_page, name="schedules"),
    path("schedules/<uuid:schedule_id>/", pages.schedule_page, name="schedule-page"),
    path("schedules/<uuid:schedule_id>/pause", pages.schedule_pause_post, name="schedule-pause"),
    path("schedules/<uuid:schedule_id>/run", pages.schedule_run_post, name="schedule-run"),
]
