"""manage.py seed_demo: a fresh database ends with a demo user who can sign in."""

from __future__ import annotations

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.management import call_command

from reports.models import ReportTemplate


@pytest.fixture(autouse=True)
def var_dir(settings, tmp_path):
    settings.VAR_DIR = tmp_path


@pytest.mark.django_db
def test_seed_demo_on_an_empty_database_lets_demo_sign_in():
    assert not get_user_model().objects.exists()
    call_command("seed_demo")
    assert authenticate(username="demo", password="demo") is not None
    assert ReportTemplate.objects.filter(owner=None).count() == 3


@pytest.mark.django_db
def test_seed_demo_sets_the_password_of_a_demo_user_without_one():
    get_user_model().objects.create(username="demo", password="")
    call_command("seed_demo")
    assert authenticate(username="demo", password="demo") is not None


@pytest.mark.django_db
def test_seed_demo_keeps_a_password_someone_chose():
    user = get_user_model().objects.create(username="demo")
    user.set_password("chosen by me")
    user.save()
    call_command("seed_demo")
    assert authenticate(username="demo", password="demo") is None
    assert authenticate(username="demo", password="chosen by me") is not None
