"""Signing certificates: a PKCS#12 checked on upload (password, validity), sealed with
Fernet at rest, unsealed only in the worker that signs. Each belongs to a workspace."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import SigningCertificate
from core.errors import NotFound
from core.uuids import uuid_or_none
from rendering.error_codes import ErrorCode
from rendering.errors import ApplicationError, RenderError
from rendering.postprocess.signing import pkcs12_inspect
from rendering.postprocess.steps import sign_certificate_ids
from workspaces.audit import AuditAction, audit_record


def _fernet() -> Fernet:
    key = settings.PDF_CERTIFICATE_KEY
    if not key:  # a key of its own, derived, so the secret key itself never seals data
        digest = hashlib.sha256(f"signing-certificates:{settings.SECRET_KEY}".encode()).digest()
        key = base64.urlsafe_b64encode(digest).decode()
    return Fernet(key)


def secret_seal(text: str) -> str:
    """A secret a job or template keeps at rest (an encrypt step's passwords), sealed with
    the certificates' key so one key rotation covers every stored secret."""
    return _fernet().encrypt(text.encode("utf-8")).decode("ascii")


def secret_unseal(token: str) -> str:
    try:
        return _fernet().decrypt(token.encode("ascii")).decode("utf-8")
    except InvalidToken:
        raise RenderError(
            "A stored secret cannot be unsealed (PDF_CERTIFICATE_KEY changed); submit it again."
        ) from None


def signing_certificate_create(
    *, owner: Any, workspace: Any, name: str, pkcs12: bytes, password: str, by: Any = None
) -> SigningCertificate:
    """Store the workspace's certificate sealed; 400 for a wrong password or an expired one.
    The caller has authorized Action.CERTIFICATE_MANAGE on the workspace. `by` is who the
    audit log names (a person or a key; `owner` when not given)."""
    facts = pkcs12_inspect(pkcs12, password)
    fernet = _fernet()
    with transaction.atomic():
        certificate = SigningCertificate.objects.create(
            user=owner,
            workspace=workspace,
            name=name.strip()[:100] or facts.subject[:100],
            subject=facts.subject[:500],
            not_after=facts.not_after,
            sealed_pkcs12=fernet.encrypt(pkcs12),
            sealed_password=fernet.encrypt(password.encode("utf-8")),
        )
        audit_record(
            workspace=workspace,
            actor=by if by is not None else owner,
            action=AuditAction.CERTIFICATE_UPLOADED,
            target=certificate,
            target_type="certificate",
            target_id=str(certificate.public_id),
            target_repr=certificate.name,
            changes={
                "subject": certificate.subject,
                "not_after": certificate.not_after.isoformat(),
            },
        )
    return certificate


def signing_certificates_list(*, workspace: Any) -> list[SigningCertificate]:
    """The workspace's certificates, newest first, expired ones included (the caller
    authorized Action.CERTIFICATE_MANAGE); only their public facts are ever shown."""
    return list(SigningCertificate.objects.filter(workspace=workspace).order_by("-created_at"))


def _workspace_certificate(
    workspace: Any, certificate_id: str, rows: QuerySet[SigningCertificate]
) -> SigningCertificate:
    """The workspace's certificate among `rows`; another workspace's, or a malformed id,
    is a 404 like a missing one."""
    parsed = uuid_or_none(certificate_id)
    found = rows.filter(workspace=workspace, public_id=parsed).first() if parsed else None
    if found is None:
        raise NotFound(f"No signing certificate {certificate_id} was found.")
    return found


def signing_certificate_revoke(*, workspace: Any, certificate_id: str, by: Any) -> None:
    """Delete the workspace's certificate with its sealed key and password, audited as
    certificate.revoked; from then on a sign step naming it is refused (404) at submit,
    at template save and in the worker. Another workspace's is a 404 like a missing one.
    The caller authorized Action.CERTIFICATE_MANAGE on the workspace."""
    with transaction.atomic():
        found = _workspace_certificate(
            workspace, certificate_id, SigningCertificate.objects.select_for_update()
        )
        audit_record(
            workspace=workspace,
            actor=by,
            action=AuditAction.CERTIFICATE_REVOKED,
            target_type="certificate",
            target_id=str(found.public_id),
            target_repr=found.name,
            changes={"subject": found.subject, "not_after": found.not_after.isoformat()},
        )
        found.delete()


def signing_certificate_get(*, workspace: Any, certificate_id: str) -> SigningCertificate:
    """The workspace's certificate, still valid; another workspace's is a 404 like a
    missing one (the caller authorized its action on `workspace`)."""
    found = _workspace_certificate(workspace, certificate_id, SigningCertificate.objects.all())
    if found.not_after <= timezone.now():
        raise ApplicationError(
            f"The signing certificate {certificate_id} expired on {found.not_after:%Y-%m-%d}; "
            "upload a valid one.",
            code=ErrorCode.CERTIFICATE_EXPIRED,
        )
    return found


def signing_certificates_check(*, workspace: Any, steps: list[dict[str, Any]]) -> None:
    """Every certificate the `sign` steps name is the workspace's own and still valid (a
    404 / 400 otherwise): what a template save and a submit both ask."""
    for certificate_id in sign_certificate_ids(steps):
        signing_certificate_get(workspace=workspace, certificate_id=certificate_id)


def signing_certificate_unseal(certificate: SigningCertificate) -> tuple[bytes, str]:
    """The PKCS#12 and its password, for the sign step only."""
    fernet = _fernet()
    try:
        data = fernet.decrypt(bytes(certificate.sealed_pkcs12))
        password = fernet.decrypt(bytes(certificate.sealed_password)).decode("utf-8")
    except InvalidToken:
        raise RenderError(
            "The signing certificate cannot be unsealed (PDF_CERTIFICATE_KEY changed); "
            "upload it again."
        ) from None
    return data, password
