"""POST /api/v1/signing-certificates: a workspace's PKCS#12 uploaded once for sign steps."""

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
)
from accounts.models import SigningCertificate
from accounts.signing_certificates import signing_certificate_create
from rendering.error_codes import ErrorCode
from rendering.errors import ApplicationError
from rendering.postprocess.signing import MAX_PKCS12_BYTES
from workspaces.current import actor_of, workspace_current
from workspaces.permissions import Action, authorize


class SigningCertificateCreateApi(APIView):
    parser_classes = [MultiPartParser]

    @extend_schema(
        operation_id="signing_certificate_create",
        summary="Upload a PKCS#12 signing certificate for `sign` steps",
        request={"multipart/form-data": SigningCertificateCreateSerializer},
        responses={201: SigningCertificateOutputSerializer},
    )
    def post(self, request: Request) -> Response:
        workspace = workspace_current(request)
        authorize(actor_of(request), Action.CERTIFICATE_MANAGE, workspace)
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
        )
        return Response(
            SigningCertificateOutputSerializer(certificate).data, status=status.HTTP_201_CREATED
        )
