"""POST /api/v1/signing-certificates: a workspace's PKCS#12 uploaded once for sign steps;
GET lists them, DELETE /api/v1/signing-certificates/{id} revokes one;
GET/PUT /api/v1/workspace/sso: which email domains join the workspace by single sign-on."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api.serializers import (
    SigningCertificateCreateSerializer,
    SigningCertificateOutputSerializer,
    WorkspaceSsoSerializer,
)
from accounts.models import SigningCertificate
from accounts.signing_certificates import (
    signing_certificate_create,
    signing_certificate_revoke,
    signing_certificates_list,
)
from rendering.error_codes import ErrorCode
from rendering.errors import ApplicationError
from rendering.postprocess.signing import MAX_PKCS12_BYTES
from workspaces.current import actor_of, workspace_for
from workspaces.permissions import Action, is_api_key
from workspaces.selectors import workspace_sso
from workspaces.services import workspace_sso_set


class SigningCertificateCreateApi(APIView):
    """POST uploads one; GET lists them (one path)."""

    parser_classes = [MultiPartParser]

    @extend_schema(
        operation_id="signing_certificate_list",
        summary="List the workspace's signing certificates (owners and editors)",
        responses={200: SigningCertificateOutputSerializer(many=True)},
    )
    def get(self, request: Request) -> Response:
        workspace = workspace_for(request, Action.CERTIFICATE_MANAGE)
        certificates = signing_certificates_list(workspace=workspace)
        return Response(SigningCertificateOutputSerializer(certificates, many=True).data)

    @extend_schema(
        operation_id="signing_certificate_create",
        summary="Upload a PKCS#12 signing certificate for `sign` steps",
        request={"multipart/form-data": SigningCertificateCreateSerializer},
        responses={201: SigningCertificateOutputSerializer},
    )
    def post(self, request: Request) -> Response:
        workspace = workspace_for(request, Action.CERTIFICATE_MANAGE)
        serializer = SigningCertificateCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        upload = serializer.validated_data["pkcs12"]
        if upload.size > MAX_PKCS12_BYTES:
            raise ApplicationError(
                f"The PKCS#12 file is larger than {MAX_PKCS12_BYTES} bytes.",
                code=ErrorCode.TOO_LARGE,
                http_status=413,
            )
        certificate: SigningCertificate = signing_certificate_create(
            owner=request.user,
            workspace=workspace,
            name=serializer.validated_data["name"],
            pkcs12=upload.read(),
            password=serializer.validated_data["password"],
            by=actor_of(request),
        )
        return Response(
            SigningCertificateOutputSerializer(certificate).data, status=status.HTTP_201_CREATED
        )


class SigningCertificateRevokeApi(APIView):
    @extend_schema(
        operation_id="signing_certificate_revoke",
        summary="Revoke a signing certificate: its sealed key is deleted (owners and editors)",
        responses={204: None},
    )
    def delete(self, request: Request, certificate_id: str) -> Response:
        workspace = workspace_for(request, Action.CERTIFICATE_MANAGE)
        actor = actor_of(request)
        signing_certificate_revoke(workspace=workspace, certificate_id=certificate_id, by=actor)
        return Response(status=status.HTTP_204_NO_CONTENT)


class WorkspaceSsoApi(APIView):
    @extend_schema(
        operation_id="workspace_sso_get",
        summary="The email domains that join this workspace by single sign-on (owners)",
        responses=WorkspaceSsoSerializer,
    )
    def get(self, request: Request) -> Response:
        workspace = workspace_for(request, Action.SSO_MANAGE)
        return Response(WorkspaceSsoSerializer(workspace_sso(workspace=workspace)).data)

    @extend_schema(
        operation_id="workspace_sso_set",
        summary="Set the email domains that join this workspace by single sign-on (owners)",
        request=WorkspaceSsoSerializer,
        responses=WorkspaceSsoSerializer,
    )
    def put(self, request: Request) -> Response:
        workspace = workspace_for(request, Action.SSO_MANAGE)
        actor = actor_of(request)
        serializer = WorkspaceSsoSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        workspace_sso_set(
            workspace=workspace,
            domains=serializer.validated_data["domains"],
            role=serializer.validated_data["role"],
            # A key offers the domain of the person who made it.
            by=actor.user if is_api_key(actor) else actor,
        )
        return Response(WorkspaceSsoSerializer(workspace_sso(workspace=workspace)).data)
