"""compose.yaml runs the roles the image names, with the settings production reads."""

from __future__ import annotations

from pathlib import Path

import yaml

from config.entrypoint import ROLES

ROOT = Path(__file__).resolve().parents[2]
# What production reads (the "names the checks use").
SETTINGS = {
    "DJANGO_SECRET_KEY",
    "DJANGO_ALLOWED_HOSTS",
    "METRICS_TOKEN",
    "PDF_CERTIFICATE_KEY",
    "DATABASE_URL",
    "REDIS_URL",
    "CELERY_BROKER_URL",
    "DJANGO_SECURE_SSL_REDIRECT",
    "AWS_STORAGE_BUCKET_NAME",
    "AWS_S3_ENDPOINT_URL",
    "AWS_S3_REGION_NAME",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
}


def test_compose_runs_every_role_of_the_image_with_production_settings():
    services = yaml.safe_load((ROOT / "compose.yaml").read_text())["services"]
    for role in ROLES:
        service = services[role]
        assert service["build"] == "."
        assert service["command"] == [role]
        assert set(service["environment"]) >= SETTINGS
    assert {"postgres", "redis", "minio"} <= set(services)
    # Everything but release waits for release (migrations) to have succeeded.
    for role in set(ROLES) - {"release"}:
        assert services[role]["depends_on"]["release"]["condition"] == (
            "service_completed_successfully"
        )
