"""The members page's forms, and the sign-up form of an invitation."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm

from workspaces.models import Role


class InviteForm(forms.Form):
    email = forms.EmailField(label="Email address")
    role = forms.ChoiceField(choices=Role.choices, initial=Role.REQUESTER)


class RoleForm(forms.Form):
    role = forms.ChoiceField(choices=Role.choices)


class InvitedSignUpForm(UserCreationForm):
    """A new account for the invited address (the invitation names it)."""

    def __init__(self, *args: Any, email: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.instance.email = email
