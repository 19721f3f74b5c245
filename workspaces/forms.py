"""The new team workspace's form, the members page's forms, the sign-up form of an
invitation, and the workspace's single sign-on form (the email domains that join it, and
their role)."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User

from workspaces.models import Role


class WorkspaceCreateForm(forms.Form):
    name = forms.CharField(
        label="Name",
        max_length=200,
        help_text="Your team's name, e.g. Finance; you become its owner and invite the others.",
    )


class InviteForm(forms.Form):
    email = forms.EmailField(label="Email address")
    role = forms.ChoiceField(choices=Role.choices, initial=Role.REQUESTER)


class RoleForm(forms.Form):
    role = forms.ChoiceField(choices=Role.choices)


class InvitedSignUpForm(UserCreationForm[User]):
    """A new account for the invited address (the invitation names it)."""

    def __init__(self, *args: Any, email: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.instance.email = email


class WorkspaceSsoForm(forms.Form):
    domains = forms.CharField(
        required=False,
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3}),
        label="Email domains",
        help_text="One or more, separated by commas or new lines (example.com); empty: nobody "
        "joins by domain.",
    )
    role = forms.ChoiceField(
        choices=[(Role.REQUESTER, "Requester"), (Role.VIEWER, "Viewer")], label="They join as"
    )

    def clean_domains(self) -> list[str]:
        value: Any = self.cleaned_data["domains"]
        return [item for item in re.split(r"[\s,;]+", value) if item]
