"""Settings shared by every environment, split by concern; anything deployment-specific
comes from the environment. Importing them starts no server; the one side effect makes
Django's and DRF's generic classes subscriptable at run time (django-stubs-ext)."""

import django_stubs_ext
from rest_framework.fields import Field

from config.settings.api import *
from config.settings.core import *
from config.settings.data import *
from config.settings.logs import *
from config.settings.ops import *
from config.settings.pdf import *
from config.settings.quotas import *
from config.settings.schedules import *
from config.settings.security import *
from config.settings.sso import *
from config.settings.workers import *

# ModelAdmin[PdfJob], ModelForm[Template], Serializer[Any]: the generic parameters mypy --strict
# asks for also work at run time (Field is the base of every DRF serializer and field).
django_stubs_ext.monkeypatch(extra_classes=[Field])
