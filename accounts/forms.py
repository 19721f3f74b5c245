"""The keys page's form."""

from __future__ import annotations

from django import forms


class ApiKeyCreateForm(forms.Form):
    name = forms.CharField(max_length=100, required=False, label="Name (what uses this key)")
