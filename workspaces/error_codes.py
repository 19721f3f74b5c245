"""The workspaces app's error codes: members, invitations, SSO domains."""

from __future__ import annotations

from rendering.error_codes import CodeEnum


class WorkspaceErrorCode(CodeEnum):
    WORKSPACE_EXISTS = ("workspace_exists", 409, False, "Choose another workspace name.")
    INVALID_WORKSPACE_NAME = (
        "invalid_workspace_name",
        400,
        False,
        "Give the workspace a name with at least one letter or digit.",
    )
    LAST_OWNER = (
        "last_owner",
        400,
        False,
        "Make another member an owner first (or transfer ownership), then retry.",
    )
    INVITATION_INVALID = (
        "invitation_invalid",
        410,
        False,
        "Ask a workspace owner to send you a new invitation.",
    )
    ALREADY_MEMBER = (
        "already_member",
        409,
        False,
        "They are in the workspace already; change their role instead.",
    )
    INVALID_SSO_DOMAIN = (
        "invalid_sso_domain",
        400,
        False,
        "Give bare domain names (example.com) of your own email address, and the role "
        "requester or viewer.",
    )
    SSO_DOMAIN_TAKEN = (
        "sso_domain_taken",
        409,
        False,
        "A domain joins one workspace only: remove it from the other one first.",
    )
