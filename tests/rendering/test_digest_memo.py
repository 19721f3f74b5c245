"""The memo of checks and parses kept by their input's digest (rendering.digest_memo)."""

from __future__ import annotations

from rendering.digest_memo import DigestMemo, digest_of


def test_parts_are_told_apart_by_where_each_ends():
    assert digest_of("ab", "c") != digest_of("a", "bc")
    assert digest_of("ab", "c") == digest_of(b"ab", b"c")


def test_the_least_recently_used_entry_goes_first():
    memo: DigestMemo[int] = DigestMemo(2)
    a, b, c = (digest_of(name) for name in "abc")
    memo.put(a, 1)
    memo.put(b, 2)
    assert memo.get(a) == 1  # a is now the most recently used
    memo.put(c, 3)
    assert b not in memo
    assert memo.get(a) == 1
    assert memo.get(c) == 3
    memo.clear()
    assert a not in memo
