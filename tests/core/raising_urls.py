"""The service's URLs plus two API views that fail: a Django one and a DRF one."""

from django.http import HttpRequest, HttpResponse
from django.urls import path
from rest_framework.decorators import api_view, authentication_classes, permission_classes
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from config.urls import handler404, handler500
from config.urls import urlpatterns as service_urlpatterns

__all__ = ["handler404", "handler500", "urlpatterns"]


def django_boom(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug in a plain view")


@api_view(["GET"])
@authentication_classes([])
@permission_classes([AllowAny])
def drf_boom(request: Request) -> Response:
    raise RuntimeError("a bug in a DRF view")


urlpatterns = [
    path("api/v1/test-django-boom", django_boom),
    path("api/v1/test-drf-boom", drf_boom),
    *service_urlpatterns,
]
