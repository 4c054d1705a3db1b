"""Code object URIs per the manual's BNF."""

import pytest

from amddbg.codeobj.uri import CodeObjectURI, parse_c_integer, parse_uri, percent_encode
from amddbg.errors import FormatError


@pytest.mark.parametrize("text,value", [("0x1F", 31), ("0X10", 16), ("017", 15), ("0", 0), ("4096", 4096)])
def test_c_integer_literals(text, value):
    assert parse_c_integer(text) == value


@pytest.mark.parametrize("text", ["08", "0x", "-1", "12a", ""])
def test_bad_integers(text):
    with pytest.raises(ValueError):
        parse_c_integer(text)


def test_file_uri_with_range_and_encoding():
    u = parse_uri("file:///tmp/my%20dir/a.out#offset=0x1000&size=010")
    assert (u.scheme, u.path, u.offset, u.size) == ("file", "/tmp/my dir/a.out", 0x1000, 8)
    assert parse_uri("file:///x/lib.so?offset=12&size=34").offset == 12


def test_file_uri_without_range_defaults():
    u = parse_uri("file:///opt/rocm/lib/libfoo.so")
    assert (u.offset, u.size) == (0, None)
    assert u.format() == "file:///opt/rocm/lib/libfoo.so"


def test_memory_uri():
    u = parse_uri("memory://1234#offset=0x7f0000001000&size=4096")
    assert (u.scheme, u.pid, u.offset, u.size) == ("memory", 1234, 0x7F0000001000, 4096)
    assert parse_uri(u.format()) == u


def test_percent_encoding_is_uppercase_and_covers_every_unsafe_byte():
    assert percent_encode("/a b/ü#&=.so") == "/a%20b/%C3%BC%23%26%3D.so"
    for path in ["/a b", "/x/#y", "/ü/é", "/a&b=c", "/100%"]:
        assert parse_uri(CodeObjectURI("file", path=path, offset=16, size=32).format()).path == path


@pytest.mark.parametrize("text", ["http://x", "memory://12", "memory://abc#offset=1&size=2", "file://",
                                  "file:///a%zz", "memory://1#offset=0x&size=1"])
def test_malformed_uris(text):
    with pytest.raises(FormatError):
        parse_uri(text)
