"""Each new engine end to end: a template saved over HTTP (checked there), previewed with
its sample data, its JSON Schema enforced at submit, and rendered by a real Celery worker;
the PDF's text is read back."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import pdf_text
from tests.e2e.conftest import wait_for_status

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]
TERMINAL = {"completed", "failed", "cancelled"}

# The same report in each engine: a heading with the customer, a line per item, escaping.
SOURCES = {
    "liquid": "<h1>Invoice for {{ customer }}</h1>"
    "{% for item in items %}<p>{{ item.name | upcase }} x{{ item.qty }}</p>{% endfor %}",
    "django": "<h1>Invoice for {{ customer }}</h1>"
    "{% for item in items %}<p>{{ item.name|upper }} x{{ item.qty }}</p>{% endfor %}",
    "mustache": "<h1>Invoice for {{customer}}</h1>{{#items}}<p>{{name}} x{{qty}}</p>{{/items}}",
    "ejs": "<h1>Invoice for <%= customer %></h1>"
    "<% items.forEach(function (item) { %><p><%= item.name.toUpperCase() %> x<%= item.qty %></p>"
    "<% }) %>",
}
SCHEMA = {
    "type": "object",
    "required": ["customer", "items"],
    "properties": {"customer": {"type": "string"}, "items": {"type": "array"}},
}


@pytest.mark.parametrize("engine", sorted(SOURCES))
def test_a_template_of_each_engine_saves_previews_and_renders_in_a_worker(http, engine):
    slug = f"engine-{engine}"
    created = http.post(
        "/api/v1/templates",
        json={
            "name": f"Invoice ({engine})",
            "slug": slug,
            "engine": engine,
            "html": SOURCES[engine],
            "schema": SCHEMA,
            "sample_data": {"customer": "Sample Co", "items": [{"name": "pen", "qty": 1}]},
        },
    )
    assert created.status_code == 201, created.text
    assert created.json()["engine"] == engine

    preview = http.post(f"/api/v1/templates/{slug}/preview", json={})
    assert preview.status_code == 200, preview.text
    assert preview.content.startswith(b"\x89PNG")

    refused = http.post("/api/v1/generate-pdf-async", json={"template": slug, "data": {}})
    assert refused.status_code == 400, refused.text
    assert "customer" in refused.json()["error"]

    data = {"customer": "Ada & Co", "items": [{"name": "widget", "qty": 3}]}
    submitted = http.post("/api/v1/generate-pdf-async", json={"template": slug, "data": data})
    assert submitted.status_code == 202, submitted.text
    job = wait_for_status(http, submitted.json()["status_url"], until=TERMINAL, timeout=120)
    assert job["status"] == "completed", job
    text = pdf_text(httpx.get(job["pdf_url"], timeout=30).content)[1]
    assert "Invoice for Ada & Co" in text
    assert "x3" in text
    assert ("WIDGET" if engine != "mustache" else "widget") in text
