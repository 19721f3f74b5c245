from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView

from core.api_pagination import paginated


class _Name(serializers.Serializer[Any]):
    name = serializers.SerializerMethodField()

    def get_name(self, user: User) -> str:
        return f"{self.context.get('prefix', '')}{user.username}"


@pytest.mark.django_db
def test_a_page_is_its_rows_through_the_item_serializer_with_the_context() -> None:
    for name in ("a", "b", "c"):
        User.objects.create(username=name)
    rows = User.objects.order_by("username")
    request = Request(APIRequestFactory().get("/things", {"limit": 2, "offset": 1}))

    answer = paginated(request, APIView(), rows, _Name, context={"prefix": "user "})
    assert answer.data["count"] == 3
    assert answer.data["results"] == [{"name": "user b"}, {"name": "user c"}]
    assert answer.data["previous"] is not None
    assert answer.data["next"] is None

    # No context: the serializer's own empty one.
    plain = paginated(request, APIView(), rows, _Name)
    assert plain.data["results"] == [{"name": "b"}, {"name": "c"}]
