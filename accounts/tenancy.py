"""Which tenant a request or a job counts against: the one answer every per-tenant limit
is keyed by. A tenant is a workspace: a team's members and keys share its rate limits,
key cap, stream slots, preview and callback budgets (and its turn in fair dispatch), so
one team cannot multiply them by having many members, nor one member crowd out the team.
"""

from __future__ import annotations

from typing import Any

from workspaces.models import Workspace
from workspaces.services import workspace_personal


def tenant_id_for(*, workspace: Workspace | int) -> int:
    """The tenant id of the workspace (the key of every per-tenant counter)."""
    return int(workspace) if isinstance(workspace, int) else int(workspace.pk)


def tenant_of_job(job: Any) -> int:
    """A job's tenant: its workspace (a job made before workspaces: its owner's own)."""
    if job.workspace_id is not None:
        return tenant_id_for(workspace=job.workspace_id)
    return tenant_id_for(workspace=workspace_personal(user=job.owner))
