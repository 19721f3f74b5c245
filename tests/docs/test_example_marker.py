"""The examples harness finds exactly the marked blocks, in any .md file, and refuses a
marker it cannot honour (tests/docs/test_examples.py runs what it finds)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.examples import ExampleError, all_examples, examples_in
from tests.processes import BASE_DIR

PAGE = """# A page

```sh
echo not marked
```

<!-- example -->
```sh
echo one
```

<!-- example creates=out.pdf stdout=done stdout="all good" timeout=30 -->
```python
print("done")
```

- in a list:

    <!-- example -->
    ```bash
    echo indented
    ```

<!-- example -->
````sh
cat <<'END'
```
END
````

How to mark one, shown and not run:

````markdown
<!-- example -->
```sh
echo shown only
```
````
"""


def test_only_marked_blocks_are_found_with_their_options(tmp_path: Path):
    page = tmp_path / "page.md"
    page.write_text(PAGE)
    found = examples_in(page)
    assert [(e.runner, e.code) for e in found] == [
        ("bash", "echo one\n"),
        ("python", 'print("done")\n'),
        ("bash", "echo indented\n"),
        ("bash", "cat <<'END'\n```\nEND\n"),
    ]
    assert found[0].line == 8
    assert (found[1].creates, found[1].stdout, found[1].timeout) == (
        ("out.pdf",),
        ("done", "all good"),
        30.0,
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("<!-- example -->\nsome prose\n", "must be followed by a ``` fence"),
        ("<!-- example -->\n```json\n{}\n```\n", "not json"),
        ("<!-- example -->\n```\necho\n```\n", "not an unnamed language"),
        ("<!-- example -->\n```sh\necho\n", "never closed"),
        ("<!-- example out=x -->\n```sh\necho\n```\n", "unknown example option"),
    ],
)
def test_a_marker_that_cannot_run_is_an_error_naming_the_line(tmp_path: Path, text, message):
    page = tmp_path / "bad.md"
    page.write_text(text)
    with pytest.raises(ExampleError, match=message) as raised:
        examples_in(page)
    assert f"{page}:1" in str(raised.value)


def test_every_md_file_is_searched_but_not_the_virtualenv_or_var(tmp_path: Path):
    for name in ("README.md", "docs/guide/deep/page.md", ".venv/lib/x.md", "var/log/y.md"):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("<!-- example -->\n```sh\necho hi\n```\n")
    found = {e.label(tmp_path) for e in all_examples(tmp_path)}
    assert found == {"README.md:2", "docs/guide/deep/page.md:2"}


def test_the_first_pdf_page_and_the_marker_page_have_runnable_examples():
    labels = [e.label(BASE_DIR) for e in all_examples(BASE_DIR)]
    first_pdf = [x for x in labels if x.startswith("docs/getting-started/first-pdf-examples.md")]
    assert len(first_pdf) >= 5
    assert any(x.startswith("docs/development/examples.md") for x in labels)
