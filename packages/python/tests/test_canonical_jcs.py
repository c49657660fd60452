import pytest

from idem_guard import MAX_DEPTH, CanonicalJsonError, KeyInputError, canonical_jcs, ecmascript_number


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1"),
        (0.1, "0.1"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (123456789012345680000.0, "123456789012345680000"),
        (1e-7, "1e-7"),
        (1e-6, "0.000001"),
        (1.5e-7, "1.5e-7"),
        (-0.0, "0"),
        (0.0, "0"),
        (-1.25, "-1.25"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (2**53 + 1, "9007199254740992"),  # ints become the nearest double, as RFC 8785 says
        (12345678901234567890, "12345678901234567000"),
        (-(2**63), "-9223372036854776000"),
        (0.000001234, "0.000001234"),
        (333333333.3333333, "333333333.3333333"),
    ],
)
def test_numbers_are_written_as_ecmascript_writes_them(value, text):
    assert canonical_jcs(value) == text


def test_ecmascript_number_refuses_non_finite():
    with pytest.raises(ValueError):
        ecmascript_number(float("inf"))


def test_keys_are_sorted_by_utf16_code_units():
    # U+E000 is below U+1F600 as a code point, above it in UTF-16 (0xD83D 0xDE00).
    value = {"\ue000": 1, "😀": 2, "a": 3, "é": 4, "": 5}
    assert canonical_jcs(value) == '{"":5,"a":3,"é":4,"😀":2,"\ue000":1}'


def test_strings_carry_only_the_escapes_json_requires():
    value = '"\\/\b\f\n\r\t\u0000\u001f\u007f\u2028é中😀'
    assert canonical_jcs(value) == '"\\"\\\\/\\b\\f\\n\\r\\t\\u0000\\u001f\u007f\u2028é中😀"'


def test_literals_nesting_and_tuples():
    value = {"b": [True, False, None], "a": {"d": [], "c": {}}}
    assert canonical_jcs(value) == '{"a":{"c":{},"d":[]},"b":[true,false,null]}'
    assert canonical_jcs((1, "x")) == '[1,"x"]'


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"x": float("nan")}, 'Number nan is out of range for JCS (an IEEE 754 double) at $["x"]'),
        ([1, float("inf")], "Number inf is out of range for JCS (an IEEE 754 double) at $[1]"),
        ({"x": [10**400]}, 'Integer of 1329 bits is out of range for JCS (an IEEE 754 double) at $["x"][0]'),
        ({"x": "a\ud83d"}, 'String with a lone surrogate (JCS input must be I-JSON) at $["x"]'),
        ({"\udc00": 1}, 'String with a lone surrogate (JCS input must be I-JSON) at $["\\udc00"]'),
        ({1: "x"}, "Object key 1 is not a string (JSON object keys are strings) at $"),
        ({"s": {1, 2}}, 'Value of type set is not representable as JSON at $["s"]'),
    ],
)
def test_refuses_what_i_json_refuses(value, message):
    with pytest.raises(CanonicalJsonError) as raised:
        canonical_jcs(value)
    assert str(raised.value) == message
    assert isinstance(raised.value, KeyInputError)


def test_nesting_is_bounded():
    deep: list = []
    for _ in range(MAX_DEPTH - 1):
        deep = [deep]
    assert canonical_jcs(deep) == "[" * MAX_DEPTH + "]" * MAX_DEPTH
    with pytest.raises(CanonicalJsonError, match=f"Nesting deeper than {MAX_DEPTH} levels"):
        canonical_jcs([deep])
    cycle: list = []
    cycle.append(cycle)
    with pytest.raises(CanonicalJsonError):
        canonical_jcs(cycle)
