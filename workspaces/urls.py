"""The workspace switcher, a new team workspace, the owners' pages of a workspace, and its
single sign-on page."""

from django.urls import path

from workspaces import member_pages, pages, views

urlpatterns = [
    path("workspaces/switch", views.workspace_switch_post, name="workspace-switch"),
    path("workspaces/new/", views.workspace_new_page, name="workspace-new"),
    path("audit/", pages.audit_log, name="audit-log"),
    path("members/", member_pages.members, name="members"),
    path("members/<int:user_id>/role", member_pages.member_role, name="member-role"),
    path("members/<int:user_id>/remove", member_pages.member_remove, name="member-remove"),
    path("members/<int:user_id>/transfer", member_pages.member_transfer, name="member-transfer"),
    path(
        "invitations/<int:invitation_id>/withdraw",
        member_pages.invitation_withdraw_view,
        name="invitation-withdraw",
    ),
    path("invitations/<str:token>/", member_pages.invitation_accept_view, name="invitation-accept"),
    path("workspace/sso/", views.workspace_sso_page, name="workspace-sso-page"),
]
