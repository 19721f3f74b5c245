"""The keys page's form."""

from __future__ import annotations

from django import forms

EXPIRY_CHOICES = [("", "Never"), ("30", "In 30 days"), ("90", "In 90 days"), ("365", "In a year")]


class ApiKeyCreateForm(forms.Form):
    name = forms.CharField(max_length=100, required=False, label="Name (what uses this key)")
    expires = forms.TypedChoiceField(
        choices=EXPIRY_CHOICES, required=False, coerce=int, empty_value=None, label="Expires"
    )
