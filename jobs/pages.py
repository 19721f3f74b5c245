"""Browser pages of the jobs app."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from jobs.selectors import job_list, template_list_visible


def home(request: HttpRequest) -> HttpResponse:
    context = {}
    if request.user.is_authenticated:
        context = {
            "jobs": job_list(owner=request.user)[:20],
            "templates": template_list_visible(owner=request.user),
        }
    return render(request, "home.html", context)
