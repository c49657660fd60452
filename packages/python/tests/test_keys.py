import hashlib
import json
from datetime import datetime, timedelta, timezone

import pytest

from idem_guard import DEFAULT_WINDOW_SECONDS, DerivedKey, KeyInputError, derive_key, ref_of

AT = datetime(2026, 3, 1, 12, 0, 0, tzinfo=timezone.utc)  # unix 1772366400 = 900 × 1969296
START = 1772366400
ARGS = {"amount_cents": 24000, "card": "c_71"}


def key(**overrides):
    options = {"tenant": "acme", "subject": "user_42", "tool": "charge_card", "arguments": ARGS, "at": AT}
    options.update(overrides)
    return derive_key(**options)


def test_the_hand_checked_key():
    assert key() == DerivedKey(
        key="3ee70cf2887316521387af129388be54fa510dba3674e93b7387992a6b19bb50",
        ref="3ee70cf28873",
        canonical='{"amount_cents":24000,"card":"c_71"}',
        material='acme|user_42|charge_card|{"amount_cents":24000,"card":"c_71"}|1969296',
        bucket="1969296",
        scheme="python-json",
        arguments_sha256=hashlib.sha256(b'{"amount_cents":24000,"card":"c_71"}').hexdigest(),
    )


def test_is_the_reference_writers_formula():
    arguments = {"card": "c_71", "amount_cents": 24000, "note": "café ☕"}
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"))
    material = f"acme|user_42|charge_card|{canonical}|{START // 900}"
    assert key(arguments=arguments, at=START).key == hashlib.sha256(material.encode()).hexdigest()


def test_two_orderings_of_one_object_give_one_key_and_a_penny_another():
    assert key(arguments={"card": "c_71", "amount_cents": 24000}).key == key().key
    assert key(arguments={"card": "c_71", "amount_cents": 24001}).key != key().key


def test_at_may_be_seconds_or_an_aware_datetime_in_any_zone():
    assert key(at=START).key == key().key
    assert key(at=float(START) + 0.75).key == key().key
    assert key(at=AT.astimezone(timezone(timedelta(hours=-5)))).key == key().key


def test_default_at_is_now(monkeypatch):
    monkeypatch.setattr("time.time", lambda: START + 12.5)
    assert key(at=None).bucket == str(START // 900)


def test_bucket_edges():
    assert DEFAULT_WINDOW_SECONDS == 900
    assert key(at=START).bucket == str(START // 900)
    assert key(at=START + 899.999).key == key(at=START).key
    assert key(at=AT + timedelta(seconds=899, microseconds=999_999)).key == key(at=START).key
    assert key(at=START + 900).key != key(at=START).key
    assert key(at=START, window_seconds=60).bucket == str(START // 60)
    # int(time.time()) truncates toward zero before flooring: -900.5 s is -900 s, bucket -1 (not -2).
    assert key(at=-900.5).bucket == "-1"
    assert key(at=-901).bucket == "-2"
    epoch = datetime(1970, 1, 1, tzinfo=timezone.utc)
    assert key(at=epoch - timedelta(seconds=900.5)).bucket == "-1"
    assert key(at=epoch - timedelta(seconds=901)).bucket == "-2"


def test_a_missing_subject_is_pythons_none():
    d = key(subject=None)
    assert d.material.startswith("acme|None|charge_card|")
    assert d.key != key().key
    assert d.key == key(subject="None").key  # exactly what the writer's f-string does


def test_a_business_key_replaces_the_time_bucket():
    a = key(business_key="order_9001")
    assert a.bucket == "order_9001"
    assert a.material.endswith("|order_9001")
    assert key(business_key="order_9001", at=datetime(2027, 1, 1, tzinfo=timezone.utc)).key == a.key
    assert key(business_key="order_9002").key != a.key


SHIP = {"order_id": "o_1", "service": "express"}


def test_arguments_in_key_false_hashes_the_business_key_alone():
    d = key(tool="ship_order", arguments=SHIP, business_key="order:o_1", arguments_in_key=False)
    assert d == DerivedKey(
        key=hashlib.sha256(b"acme|user_42|ship_order|order:o_1").hexdigest(),
        ref=hashlib.sha256(b"acme|user_42|ship_order|order:o_1").hexdigest()[:12],
        canonical='{"order_id":"o_1","service":"express"}',
        material="acme|user_42|ship_order|order:o_1",
        bucket="order:o_1",
        scheme="python-json",
        # Still the canonical arguments' hash: what tells the operation's calls apart.
        arguments_sha256=hashlib.sha256(b'{"order_id":"o_1","service":"express"}').hexdigest(),
    )
    other = key(
        tool="ship_order",
        arguments={**SHIP, "service": "standard"},
        business_key="order:o_1",
        arguments_in_key=False,
        at=AT + timedelta(days=3),
        window_seconds=60,
        scheme="jcs",
    )
    assert other.key == d.key and other.arguments_sha256 != d.arguments_sha256
    assert key(tool="ship_order", arguments=SHIP, business_key="order:o_2", arguments_in_key=False).key != d.key
    none = key(subject=None, tool="ship_order", arguments=SHIP, business_key="commande:é📦", arguments_in_key=False)
    assert none.material == "acme|None|ship_order|commande:é📦"
    assert none.key == hashlib.sha256("acme|None|ship_order|commande:é📦".encode("utf-8")).hexdigest()


def test_arguments_in_key_true_is_the_default_and_changes_nothing():
    default = key(tool="ship_order", arguments=SHIP, business_key="order:o_1")
    assert default.material == 'acme|user_42|ship_order|{"order_id":"o_1","service":"express"}|order:o_1'
    assert key(tool="ship_order", arguments=SHIP, business_key="order:o_1", arguments_in_key=True) == default
    assert key(arguments_in_key=True) == key()


def test_jcs_canonicalises_differently_and_hashes_utf8():
    arguments = {"name": "café", "qty": 1.0}
    python, jcs = key(arguments=arguments), key(arguments=arguments, scheme="jcs")
    assert python.canonical == '{"name":"caf\\u00e9","qty":1.0}'
    assert jcs.canonical == '{"name":"café","qty":1}'
    assert jcs.scheme == "jcs"
    material = f"acme|user_42|charge_card|{jcs.canonical}|1969296"
    assert jcs.key == hashlib.sha256(material.encode("utf-8")).hexdigest()
    assert jcs.arguments_sha256 == hashlib.sha256(jcs.canonical.encode("utf-8")).hexdigest()


def test_ref_is_the_first_twelve_hex_digits():
    assert ref_of("3ee70cf2887316521387af129388be54fa510dba3674e93b7387992a6b19bb50") == "3ee70cf28873"
    assert key().ref == key().key[:12]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"window_seconds": 0}, "window: expected a positive whole number of seconds (got 0)"),
        ({"window_seconds": -60}, "window: expected a positive whole number of seconds (got -60)"),
        ({"window_seconds": 1.5}, "window: expected a positive whole number of seconds (got 1.5)"),
        # A float window would change the bucket's text ("1969296.0"), so even 900.0 is refused.
        ({"window_seconds": 900.0}, "window: expected a positive whole number of seconds (got 900.0)"),
        ({"window_seconds": True}, "window: expected a positive whole number of seconds (got True)"),
        ({"window_seconds": 2**53}, "window: expected a positive whole number of seconds (got 9007199254740992)"),
        ({"scheme": "sha1"}, 'scheme: expected python-json or jcs (got "sha1")'),
        ({"business_key": ""}, "business_key: must not be empty (omit it to use the time bucket)"),
        ({"business_key": 9001}, "business_key: expected a string (got 9001)"),
        ({"tenant": "acme\ud800"}, "tenant: contains a lone surrogate, which is not encodable as UTF-8"),
        ({"subject": "\udc00x"}, "subject: contains a lone surrogate, which is not encodable as UTF-8"),
        ({"tool": "charge\ud83d"}, "tool: contains a lone surrogate, which is not encodable as UTF-8"),
        ({"business_key": "o\udfff"}, "business_key: contains a lone surrogate, which is not encodable as UTF-8"),
        (
            {"arguments_in_key": False},
            "arguments_in_key: False needs a business_key (without arguments or a business key,"
            " every call of the tool in a time bucket would share one key)",
        ),
        ({"arguments_in_key": "no", "business_key": "o_1"}, "arguments_in_key: expected True or False (got 'no')"),
        ({"arguments_in_key": 0, "business_key": "o_1"}, "arguments_in_key: expected True or False (got 0)"),
        ({"tenant": None}, "tenant: expected a string (got None)"),
        ({"at": datetime(2026, 3, 1)}, "at: expected a timezone-aware datetime (a naive one has no fixed instant)"),
        ({"at": float("nan")}, "at: not a valid date"),
        ({"at": "2026-03-01"}, "at: expected a datetime or Unix seconds (got '2026-03-01')"),
        (
            {"arguments": {"when": AT}},
            "arguments: not representable as JSON (Object of type datetime is not JSON serializable)",
        ),
    ],
)
def test_refuses_bad_input_naming_the_field(overrides, message):
    with pytest.raises(KeyInputError) as raised:
        key(**overrides)
    assert str(raised.value) == message
    assert isinstance(raised.value, ValueError)


def test_python_json_keeps_what_json_dumps_writes():
    # Lone surrogates in the arguments are fine here: ensure_ascii escapes them, as Python does.
    assert key(arguments={"s": "\ud83d"}).canonical == '{"s":"\\ud83d"}'
    assert key(arguments={"x": float("nan")}).canonical == '{"x":NaN}'
    assert key(arguments={"n": 12345678901234567890, "f": 1e21}).canonical == '{"f":1e+21,"n":12345678901234567890}'
