"""The workspaces app's error codes (members, invitations, SSO domains): each with its HTTP
status and what a person should do about it, as rendering.error_codes gives its own
(docs/reference/errors.md)."""

from __future__ import annotations

from enum import StrEnum

from rendering.error_codes import CodeInfo


class WorkspaceErrorCode(StrEnum):
    WORKSPACE_EXISTS = "workspace_exists"
    INVALID_WORKSPACE_NAME = "invalid_workspace_name"
    LAST_OWNER = "last_owner"
    INVITATION_INVALID = "invitation_invalid"
    ALREADY_MEMBER = "already_member"
    INVALID_SSO_DOMAIN = "invalid_sso_domain"
    SSO_DOMAIN_TAKEN = "sso_domain_taken"


CODES: dict[WorkspaceErrorCode, CodeInfo] = {
    WorkspaceErrorCode.WORKSPACE_EXISTS: CodeInfo(409, False, "Choose another workspace name."),
    WorkspaceErrorCode.INVALID_WORKSPACE_NAME: CodeInfo(
        400, False, "Give the workspace a name with at least one letter or digit."
    ),
    WorkspaceErrorCode.LAST_OWNER: CodeInfo(
        400, False, "Make another member an owner first (or transfer ownership), then retry."
    ),
    WorkspaceErrorCode.INVITATION_INVALID: CodeInfo(
        410, False, "Ask a workspace owner to send you a new invitation."
    ),
    WorkspaceErrorCode.ALREADY_MEMBER: CodeInfo(
        409, False, "They are in the workspace already; change their role instead."
    ),
    WorkspaceErrorCode.INVALID_SSO_DOMAIN: CodeInfo(
        400,
        False,
        "Give bare domain names (example.com) of your own email address, and the role "
        "requester or viewer.",
    ),
    WorkspaceErrorCode.SSO_DOMAIN_TAKEN: CodeInfo(
        409, False, "A domain joins one workspace only: remove it from the other one first."
    ),
}
