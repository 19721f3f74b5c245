"""Shapes of the signing-certificates API: the upload in, its public facts out."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from core.api_fields import IsoDateTimeField
from rendering.postprocess.signing import MAX_PKCS12_BYTES


class SigningCertificateCreateSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(max_length=100, required=False, allow_blank=True, default="")
    pkcs12 = serializers.FileField(
        help_text=f"The .p12/.pfx file, at most {MAX_PKCS12_BYTES} bytes."
    )
    password = serializers.CharField(
        required=False, allow_blank=True, default="", trim_whitespace=False, write_only=True
    )


class SigningCertificateOutputSerializer(serializers.Serializer[Any]):
    """Never the file or its password: they stay sealed on the server."""

    id = serializers.UUIDField(source="public_id")
    name = serializers.CharField()
    subject = serializers.CharField()
    not_after = IsoDateTimeField()
    created_at = IsoDateTimeField()


class WorkspaceSsoSerializer(serializers.Serializer[Any]):
    """Who joins the workspace by single sign-on: people with a verified address at one of
    `domains`, in `role`."""

    workspace = serializers.CharField(read_only=True)
    domains = serializers.ListField(
        child=serializers.CharField(max_length=253),
        max_length=20,
        help_text="Bare domains (example.com), each your own email address's; [] stops joining.",
    )
    verified = serializers.ListField(
        child=serializers.CharField(),
        read_only=True,
        help_text="The domains an operator verified: only these join anyone.",
    )
    role = serializers.ChoiceField(choices=["requester", "viewer"])
