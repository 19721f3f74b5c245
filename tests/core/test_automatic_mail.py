from core.automatic_mail import automatic_mail


def test_an_automatic_mail_says_so_first_then_names_what_it_is_about() -> None:
    message = automatic_mail(
        subject="Ready",
        body="It is ready.\n",
        to=["owner@example.com"],
        ids={"X-PDF-Job-Id": "j1", "X-PDF-Schedule-Id": "s1"},
    )
    assert (message.subject, message.body, message.to) == (
        "Ready",
        "It is ready.\n",
        ["owner@example.com"],
    )
    assert list(message.extra_headers.items()) == [
        ("Auto-Submitted", "auto-generated"),
        ("X-PDF-Job-Id", "j1"),
        ("X-PDF-Schedule-Id", "s1"),
    ]
    rendered = message.message()
    assert rendered["Auto-Submitted"] == "auto-generated"
    assert rendered["X-PDF-Schedule-Id"] == "s1"
