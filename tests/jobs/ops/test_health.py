"""/livez and /readyz of the web role: each check by name, a failing or hanging one named."""

from __future__ import annotations

import json
import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from django.test import Client

from tests.moto_s3 import moto_s3, s3_client

CHECKS = {"database", "broker", "redis", "storage", "renderer"}


def s3_storage(endpoint: str, bucket: str, *, key: str = "testing", secret: str = "testing"):  # noqa: S107 - moto's test keys
    return {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": bucket,
            "endpoint_url": endpoint,
            "region_name": "us-east-1",
            "access_key": key,
            "secret_key": secret,
            "file_overwrite": True,
        },
    }


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A port that accepts connections and never answers: a hung server."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        sock.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(sock.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield sock.getsockname()[1]
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    sock.close()


def test_livez_touches_nothing():
    # No database marker: any query would raise; no Redis or storage either.
    response = Client().get("/livez")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.mark.django_db(transaction=True)
def test_readyz_names_every_check_and_answers_200():
    response = Client().get("/readyz")
    body = response.json()
    assert response.status_code == 200, body
    assert body["status"] == "ok"
    assert set(body["checks"]) == CHECKS
    assert all(check["ok"] for check in body["checks"].values())


@pytest.mark.django_db(transaction=True)
def test_readyz_is_503_naming_redis_and_the_broker_when_they_are_down(settings):
    settings.REDIS_URL = "redis://127.0.0.1:9/0"
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:9/0"
    response = Client().get("/readyz")
    checks = response.json()["checks"]
    assert response.status_code == 503
    assert not checks["redis"]["ok"]
    assert not checks["broker"]["ok"]
    assert checks["database"]["ok"]
    assert checks["storage"]["ok"]


@pytest.mark.django_db(transaction=True)
def test_a_hanging_broker_is_reported_within_the_deadline(settings, silent_server):
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{silent_server}/0"
    settings.HEALTH_CHECK_TIMEOUT_SECONDS = 1.0
    response = Client().get("/readyz")
    broker = response.json()["checks"]["broker"]
    assert response.status_code == 503
    assert not broker["ok"]
    assert broker["ms"] < 4000  # the probe answered, the hung server did not hold it


@pytest.mark.django_db(transaction=True)
def test_a_missing_chromium_makes_the_renderer_not_ready(settings, tmp_path):
    settings.CHROMIUM_PATH = str(tmp_path / "no-chromium")
    response = Client().get("/readyz")
    renderer = response.json()["checks"]["renderer"]
    assert response.status_code == 503
    assert "CHROMIUM_PATH" in renderer["detail"]


@pytest.mark.django_db(transaction=True)
def test_readyz_names_the_office_renderer_where_libreoffice_is_installed(settings, tmp_path):
    installed = Client().get("/readyz").json()["checks"]["renderer"]["detail"]
    assert "LibreOffice (office) at /usr/bin/soffice" in installed
    settings.OFFICE_PATH = str(tmp_path / "no-soffice")
    response = Client().get("/readyz")
    detail = response.json()["checks"]["renderer"]["detail"]
    assert response.status_code == 200  # optional: only office conversions need it
    assert "no LibreOffice" in detail
    assert "apt-get install libreoffice-writer-nogui" in detail


@pytest.mark.process  # a moto_server of its own
@pytest.mark.django_db(transaction=True)
def test_a_bucket_that_does_not_exist_is_a_readiness_error(settings, tmp_path):
    # What the bucket answers is under test, not the deadline: a busy machine took more
    # than the 3 s default to make the first S3 client and answered "no answer within 3 s".
    settings.HEALTH_CHECK_TIMEOUT_SECONDS = 30
    with moto_s3(tmp_path / "moto.log") as endpoint:
        s3_client(endpoint).create_bucket(Bucket="reports-here")
        settings.STORAGES = {**settings.STORAGES, "reports": s3_storage(endpoint, "reports-here")}
        ok = Client().get("/readyz")
        assert ok.status_code == 200, ok.json()
        assert s3_client(endpoint).list_objects_v2(Bucket="reports-here")["KeyCount"] == 0

        settings.STORAGES = {**settings.STORAGES, "reports": s3_storage(endpoint, "no-such-bucket")}
        response = Client().get("/readyz")
    storage = response.json()["checks"]["storage"]
    assert response.status_code == 503
    assert storage["detail"] == (
        "the bucket 'no-such-bucket' does not exist (AWS_STORAGE_BUCKET_NAME)"
    )


@pytest.mark.process  # a moto_server of its own
@pytest.mark.django_db(transaction=True)
def test_a_bucket_that_refuses_writes_is_a_readiness_error(settings, tmp_path):
    # What the bucket answers is under test, not the deadline: a busy machine took more
    # than the 3 s default to make the first S3 client and answered "no answer within 3 s".
    settings.HEALTH_CHECK_TIMEOUT_SECONDS = 30
    # moto enforces IAM after its first few calls: a reader's key may list, not write.
    env = {**os.environ, "INITIAL_NO_AUTH_ACTION_COUNT": "5"}
    with moto_s3(tmp_path / "moto.log", env=env) as endpoint:
        s3_client(endpoint).create_bucket(Bucket="read-only-reports")
        iam = boto3.client(
            "iam",
            endpoint_url=endpoint,
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )
        iam.create_user(UserName="reader")
        policy = {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Action": ["s3:GetObject", "s3:ListBucket"], "Resource": "*"}
            ],
        }
        iam.put_user_policy(UserName="reader", PolicyName="ro", PolicyDocument=json.dumps(policy))
        key = iam.create_access_key(UserName="reader")["AccessKey"]
        reader = s3_client(endpoint, key=key["AccessKeyId"], secret=key["SecretAccessKey"])
        assert reader.list_objects_v2(Bucket="read-only-reports")["KeyCount"] == 0
        settings.STORAGES = {
            **settings.STORAGES,
            "reports": s3_storage(
                endpoint,
                "read-only-reports",
                key=key["AccessKeyId"],
                secret=key["SecretAccessKey"],
            ),
        }
        response = Client().get("/readyz")
    storage = response.json()["checks"]["storage"]
    assert response.status_code == 503
    assert storage["detail"].startswith(
        "the bucket 'read-only-reports' refuses writes (AccessDenied)"
    )


@pytest.fixture
def probe_objects(settings, tmp_path) -> Path:
    """Reports stored in a folder of the test's; the folder the readiness probe writes in."""
    settings.STORAGES = {
        **settings.STORAGES,
        "reports": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path / "reports")},
        },
    }
    return tmp_path / "reports" / "_health"


def test_a_probe_object_left_by_an_outage_is_deleted_by_the_next_good_probe(
    probe_objects, monkeypatch
):
    from django.core.files.storage import FileSystemStorage, storages

    from jobs import readiness

    left = probe_objects

    def refuse(self, name):
        raise OSError("the store went away")

    # The store goes away between the probe's write and its delete: the probe fails...
    with monkeypatch.context() as outage:
        outage.setattr(FileSystemStorage, "delete", refuse)
        with pytest.raises(OSError, match="went away"):
            readiness.check_storage()
    assert len(list(left.iterdir())) == 1
    # ...and the next probe that finds it back deletes its own object and the one left.
    assert isinstance(storages["reports"], FileSystemStorage)
    readiness.check_storage()
    assert list(left.iterdir()) == []
    assert readiness._undeleted == set()


def test_a_probe_object_whose_write_lost_its_answer_is_deleted_by_the_next_good_probe(
    probe_objects, monkeypatch
):
    """The store stored the object and went away before it answered: the probe fails, and
    the object it could not know it wrote is deleted once the store is back (a whole run's
    S3 outage test once found one left in the bucket)."""
    from django.core.files.storage import FileSystemStorage

    from jobs import readiness

    left = probe_objects
    saves = FileSystemStorage.save

    def stored_then_lost(self, name, content, max_length=None):
        saves(self, name, content, max_length=max_length)
        raise OSError("the store went away before it answered")

    with monkeypatch.context() as outage:
        outage.setattr(FileSystemStorage, "save", stored_then_lost)
        with pytest.raises(OSError, match="went away"):
            readiness.check_storage()
    assert len(list(left.iterdir())) == 1
    readiness.check_storage()
    assert list(left.iterdir()) == []
    assert readiness._undeleted == set()
