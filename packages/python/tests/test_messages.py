import pytest

from idem_guard import (
    EVENT_KINDS,
    OutcomeUnknownError,
    arguments_mismatch_message,
    in_flight_message,
    outcome_unknown_message,
)


def test_in_flight_message():
    assert in_flight_message("A charge", "3ee70cf28873", "get_charge_status") == (
        "A charge with these exact details is already in progress (ref 3ee70cf28873). "
        "Do not submit it again; call get_charge_status with this ref."
    )


def test_arguments_mismatch_message():
    assert arguments_mismatch_message("A charge", "3f9a1c2b7d4e", "get_charge_status") == (
        "A charge with this business key was already submitted with other arguments (ref 3f9a1c2b7d4e); "
        "this call was refused and not performed. Do not repeat it with the same business key; "
        "use a new one (such as a new order id) for a different operation, "
        "or call get_charge_status with this ref to see the first."
    )


def test_the_event_kinds_are_the_typescript_package_s():
    assert EVENT_KINDS == ("replay_served", "in_flight_rejected", "outcome_unknown", "arguments_mismatch")


def test_outcome_unknown_message():
    assert outcome_unknown_message("processor", "A charge", "3ee70cf28873", "get_charge_status", 30_000) == (
        "The processor did not answer within 30 s. A charge may or may not have been taken; "
        "ref 3ee70cf28873 is recorded. Call get_charge_status with this ref before doing anything else. "
        "Do not retry this call."
    )
    assert outcome_unknown_message("carrier", "A shipment", "abc", "get_shipment").startswith(
        "The carrier did not answer in time. A shipment may or may not"
    )


@pytest.mark.parametrize(
    ("waited_ms", "shown"),
    [
        (0, "0.0"),
        (250, "0.3"),  # toFixed rounds the tie away from zero; Python's :.1f would say 0.2
        (1_500, "1.5"),
        (2_049, "2.0"),
        (9_950, "9.9"),  # 9.95 is 9.9499… as a double
        (9_999, "10.0"),
        (10_000, "10"),
        (10_500, "11"),  # Math.round takes ties up
        (30_000, "30"),
        (12_345_678, "12346"),
    ],
)
def test_seconds_are_formatted_as_the_typescript_package_formats_them(waited_ms, shown):
    assert f"within {shown} s." in outcome_unknown_message("processor", "A charge", "r", "t", waited_ms)


def test_outcome_unknown_error_keeps_its_message_and_wait():
    error = OutcomeUnknownError("no answer after 30 s", 30_000)
    assert str(error) == "no answer after 30 s"
    assert error.waited_ms == 30_000
    assert OutcomeUnknownError("x").waited_ms is None
