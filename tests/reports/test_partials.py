"""Which templates an include names: the workspace's own, at their published versions,
found transitively; missing, foreign, other-engine, cyclic and too many are template
errors naming the slug, at save and at publish."""

from __future__ import annotations

import pytest

from rendering.engines.partials import MAX_DEPTH
from rendering.errors import TemplateSyntaxError
from reports.partials import MAX_PARTIALS, partials_sources, template_partials_resolve
from reports.services import (
    template_create,
    template_draft_save,
    template_publish,
    template_rollback,
    template_update,
)
from tests.factories import UserFactory
from workspaces.services import workspace_personal

pytestmark = pytest.mark.django_db


def _template(user, slug, html, engine="liquid"):
    return template_create(owner=user, name=slug, slug=slug, html=html, engine=engine)


def test_includes_resolve_transitively_to_the_published_versions(user):
    small = _template(user, "small", "<small>v1</small>")
    _template(user, "terms", "<p>Terms {% render 'small' %}</p>")
    template_draft_save(template=small, by=user, html="<small>draft</small>")  # not published
    found = template_partials_resolve(
        workspace=workspace_personal(user=user), engine="liquid", html="{% render 'terms' %}"
    )
    assert sorted(found) == ["small", "terms"]
    assert partials_sources(found)["small"] == "<small>v1</small>"
    assert found["small"].pk == small.published_version_id


def test_another_workspaces_template_is_not_found(user):
    _template(UserFactory(), "terms", "<p>theirs</p>")
    with pytest.raises(TemplateSyntaxError, match="no template 'terms' to include"):
        template_partials_resolve(
            workspace=workspace_personal(user=user), engine="liquid", html="{% render 'terms' %}"
        )


def test_a_partial_of_another_engine_is_an_error_naming_it(user):
    _template(user, "terms", "<p>{{t}}</p>", engine="handlebars")
    with pytest.raises(TemplateSyntaxError, match="partial 'terms' uses the handlebars engine"):
        _template(user, "invoice", "{% render 'terms' %}")


def test_save_refuses_a_missing_slug_and_a_template_including_itself(user):
    with pytest.raises(TemplateSyntaxError, match="no template 'nope' to include"):
        _template(user, "invoice", "{% render 'nope' %}")
    with pytest.raises(TemplateSyntaxError, match=r"'invoice' includes itself \(invoice ->"):
        _template(user, "invoice", "<p>{% include 'invoice' %}</p>")
    invoice = _template(user, "invoice", "<p>ok</p>")
    with pytest.raises(TemplateSyntaxError, match="'invoice' includes itself"):
        template_draft_save(template=invoice, by=user, html="{% render 'invoice' %}")


def test_save_and_publish_refuse_a_cycle_through_another_template(user):
    a = _template(user, "a", "<p>a</p>")
    b = _template(user, "b", "{% render 'a' %}")
    with pytest.raises(TemplateSyntaxError, match=r"'a' includes itself \(a -> b -> a\)"):
        template_draft_save(template=a, by=user, html="{% render 'b' %}")
    with pytest.raises(TemplateSyntaxError, match="includes itself"):
        template_update(template=a, by=user, html="{% render 'b' %}")
    template_update(template=b, by=user, html="<p>b</p>")  # version 2 includes nothing
    a = template_draft_save(template=a, by=user, html="{% render 'b' %}")
    template_publish(template=a, by=user)
    # Version 1 of b included 'a', which now includes b: publishing it again is refused.
    with pytest.raises(TemplateSyntaxError, match=r"'b' includes itself \(b -> a -> b\)"):
        template_rollback(template=b, number=1, by=user)
    b.refresh_from_db()
    assert b.html == "<p>b</p>"


def test_depth_and_count_are_bounded(user):
    for i in range(MAX_DEPTH + 1):
        _template(user, f"p{i}", f"{{% render 'p{i - 1}' %}}" if i else "end")
    with pytest.raises(TemplateSyntaxError, match=f"deeper than {MAX_DEPTH}"):
        _template(user, "deep", f"{{% render 'p{MAX_DEPTH}' %}}")
    for i in range(MAX_PARTIALS + 1):
        _template(user, f"w{i}", "x")
    wide = "".join(f"{{% render 'w{i}' %}}" for i in range(MAX_PARTIALS + 1))
    with pytest.raises(TemplateSyntaxError, match=f"at most {MAX_PARTIALS} templates"):
        _template(user, "wide", wide)
