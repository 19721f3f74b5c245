"""The keys page's form."""

from __future__ import annotations

from django import forms

EXPIRY_CHOICES = [("", "Never"), ("30", "In 30 days"), ("90", "In 90 days"), ("365", "In a year")]


class ApiKeyCreateForm(forms.Form):
    name = forms.CharField(max_length=100, required=False, label="Name (what uses this key)")
    expires = forms.TypedChoiceField(
        choices=EXPIRY_CHOICES, required=False, coerce=int, empty_value=None, label="Expires"
    )


class NotificationPreferencesForm(forms.Form):
    email_job_finished = forms.BooleanField(
        required=False, label="Email me when a job I requested completes or fails"
    )
    browser_job_finished = forms.BooleanField(
        required=False, label="Show a notice on any page of this site when one of my jobs ends"
    )
    email_api_jobs = forms.BooleanField(
        required=False, label="Email me about the jobs my API keys submit too"
    )


class EmailChangeForm(forms.Form):
    email = forms.EmailField(max_length=254, label="Email address")
