"""The decorator against PostgreSQL: the double-call test from the reference text, then what each
branch writes. Every test writes under its own tenant (the ``tenant`` fixture)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from datetime import datetime, timedelta, timezone

import pytest

from conftest import Caller
from idem_guard import (
    KeyInputError,
    OutcomeUnknownError,
    arguments_mismatch_message,
    derive_key,
    idempotent,
    in_flight_message,
)

ARGS = {"card": "c_71", "amount_cents": 24000}
CANONICAL = '{"amount_cents":24000,"card":"c_71"}'
CLIENT = "claude-code 1.2.0"


class Processor:
    """A payment processor stub that counts its charges and takes its time over each."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.references: list[str] = []

    async def charge(self, *, card: str, amount_cents: int, reference: str) -> dict:
        self.references.append(reference)
        await asyncio.sleep(self.delay)
        number = len(self.references)
        return {"charge_id": f"ch_{number}", "card": card, "amount_cents": amount_cents, "status": "succeeded"}


def charge_tool(pool, processor: Processor, **options):
    @idempotent(
        tool="charge_card",
        status_tool="get_charge_status",
        pool=pool,
        tenant=lambda caller: caller.tenant,
        subject=lambda caller: caller.subject,
        client=lambda caller: caller.client,
        noun="A charge",
        upstream="processor",
        **options,
    )
    async def charge_card(arguments: dict, *, key: str, ref: str) -> dict:
        return await processor.charge(card=arguments["card"], amount_cents=arguments["amount_cents"], reference=key)

    return charge_card


async def row_of(pool, key: str):
    return await pool.fetchrow(
        "SELECT tenant, subject, tool, status, response::text AS response, arguments_sha256, created_at, updated_at"
        " FROM idempotency WHERE key = $1",
        key,
    )


async def events_of(pool, key: str) -> list[tuple]:
    rows = await pool.fetch(
        "SELECT kind, tenant, tool, detail::text AS detail, client FROM idempotency_event WHERE key = $1 ORDER BY id",
        key,
    )
    return [
        (r["kind"], r["tenant"], r["tool"], None if r["detail"] is None else json.loads(r["detail"]), r["client"])
        for r in rows
    ]


def test_the_double_call_charges_once(with_pool, tenant):
    async def scenario(pool):
        processor = Processor(delay=0.5)
        charge_card = charge_tool(pool, processor)
        caller = Caller(tenant, "user_42", CLIENT)
        # Two concurrent calls (one with its keys the other way round: the same operation).
        results = await asyncio.gather(
            charge_card(caller, dict(ARGS)), charge_card(caller, {"amount_cents": 24000, "card": "c_71"})
        )
        executed, in_flight = sorted(results, key=lambda result: result.outcome)
        assert (executed.outcome, in_flight.outcome) == ("executed", "in_flight")
        assert len(processor.references) == 1
        key = executed.key
        assert processor.references == [key]  # the key went upstream as its idempotency reference
        assert in_flight.key == key and in_flight.ref == key[:12]
        assert in_flight.message == in_flight_message("A charge", key[:12], "get_charge_status")
        assert f"(ref {key[:12]})" in in_flight.message
        assert in_flight.text == in_flight.message and in_flight.is_error and in_flight.status == "in_progress"
        assert executed.response["charge_id"] == "ch_1" and not executed.is_error
        assert json.loads(executed.text) == executed.response

        # A sequential repeat: the stored response, no second charge.
        replayed = await charge_card(caller, dict(ARGS))
        assert replayed.outcome == "replayed" and not replayed.is_error
        assert replayed.key == key and replayed.response == executed.response
        assert json.loads(replayed.text) == executed.response
        assert len(processor.references) == 1

        row = await row_of(pool, key)
        assert (row["tenant"], row["subject"], row["tool"]) == (tenant, "user_42", "charge_card")
        assert row["status"] == "completed"
        assert row["arguments_sha256"] == hashlib.sha256(CANONICAL.encode()).hexdigest()
        assert json.loads(row["response"]) == executed.response
        assert row["updated_at"] is not None and row["updated_at"] >= row["created_at"]
        assert await events_of(pool, key) == [
            ("in_flight_rejected", tenant, "charge_card", {"status": "in_progress"}, CLIENT),
            ("replay_served", tenant, "charge_card", None, CLIENT),
        ]

    with_pool(scenario)


def test_the_key_and_created_at_come_from_the_clock(with_pool, tenant):
    at = datetime(2026, 3, 1, 12, 0, 0, tzinfo=timezone.utc)

    async def scenario(pool):
        charge_card = charge_tool(pool, Processor(), clock=lambda: at, window_seconds=60)
        result = await charge_card(Caller(tenant, None), ARGS)
        expected = derive_key(tenant, None, "charge_card", ARGS, at=at, window_seconds=60)
        assert (result.outcome, result.key) == ("executed", expected.key)
        row = await row_of(pool, result.key)
        assert row["created_at"] == at and row["updated_at"] == at
        assert row["subject"] is None

    with_pool(scenario)


def test_an_unknown_outcome_leaves_the_claim_in_flight(with_pool, tenant):
    async def scenario(pool):
        calls = []

        @idempotent(tool="charge_card", status_tool="get_charge_status", pool=pool, tenant=lambda c: c.tenant,
                    subject=lambda c: c.subject, client=lambda c: c.client, noun="A charge", upstream="processor")
        async def charge_card(arguments: dict, *, key: str, ref: str) -> dict:
            calls.append(key)
            raise OutcomeUnknownError("no answer from the processor after 30 s", 30_000)

        caller = Caller(tenant, "user_42", CLIENT)
        result = await charge_card(caller, ARGS)
        ref = result.key[:12]
        assert result.outcome == "outcome_unknown" and result.is_error and result.response is None
        assert result.message == (
            f"The processor did not answer within 30 s. A charge may or may not have been taken; ref {ref} is"
            " recorded. Call get_charge_status with this ref before doing anything else. Do not retry this call."
        )
        assert result.text == result.message
        row = await row_of(pool, result.key)
        assert (row["status"], row["response"], row["updated_at"]) == ("in_progress", None, None)
        assert await events_of(pool, result.key) == [
            ("outcome_unknown", tenant, "charge_card", {"reason": "no answer from the processor after 30 s"}, CLIENT)
        ]
        # The retry the message forbids is still safe: it is told the charge is in flight.
        again = await charge_card(caller, ARGS)
        assert again.outcome == "in_flight" and len(calls) == 1

    with_pool(scenario)


def test_an_unknown_outcome_without_a_wait_says_in_time(with_pool, tenant):
    async def scenario(pool):
        @idempotent(tool="create_shipment", status_tool="get_shipment", pool=pool, tenant=lambda c: c.tenant,
                    noun="A shipment", upstream="carrier", record_events=False)
        async def create_shipment(arguments: dict, *, key: str, ref: str) -> dict:
            raise OutcomeUnknownError("carrier timeout")

        result = await create_shipment(Caller(tenant, None), {"parcel": "p_1"})
        assert result.message.startswith("The carrier did not answer in time. A shipment may or may not")
        assert await events_of(pool, result.key) == []

    with_pool(scenario)


def test_any_other_error_propagates_and_leaves_a_stuck_claim(with_pool, tenant):
    async def scenario(pool):
        @idempotent(tool="charge_card", status_tool="get_charge_status", pool=pool, tenant=lambda c: c.tenant)
        async def charge_card(arguments: dict, *, key: str, ref: str) -> dict:
            raise RuntimeError("the processor client crashed")

        with pytest.raises(RuntimeError, match="the processor client crashed"):
            await charge_card(Caller(tenant, "user_42"), ARGS)
        key = derive_key(tenant, None, "charge_card", ARGS).key
        row = await row_of(pool, key)
        assert (row["status"], row["response"]) == ("in_progress", None)
        assert await events_of(pool, key) == []

    with_pool(scenario)


def test_a_business_key_replaces_the_bucket(with_pool, tenant):
    now = [datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)]

    async def scenario(pool):
        processor = Processor()
        charge_card = charge_tool(pool, processor, business_key=lambda args: args["order_id"], clock=lambda: now[0])
        caller = Caller(tenant, "user_42")
        first = await charge_card(caller, {**ARGS, "order_id": "order_9001"})
        now[0] += timedelta(days=2)  # far beyond any time bucket
        second = await charge_card(caller, {**ARGS, "order_id": "order_9001"})
        assert (first.outcome, second.outcome) == ("executed", "replayed")
        assert first.key == derive_key(tenant, "user_42", "charge_card", {**ARGS, "order_id": "order_9001"},
                                       business_key="order_9001").key
        assert len(processor.references) == 1

    with_pool(scenario)


def ship_tool(pool, shipped: list[str]):
    """A tool keyed by a business key (the order id); ``shipped`` lists the keys it ran for."""

    @idempotent(
        tool="ship_order",
        status_tool="get_shipment",
        pool=pool,
        tenant=lambda caller: caller.tenant,
        subject=lambda caller: caller.subject,
        client=lambda caller: caller.client,
        noun="A shipment",
        upstream="carrier",
        business_key=lambda args: f"order:{args['order_id']}",
    )
    async def ship_order(arguments: dict, *, key: str, ref: str) -> dict:
        shipped.append(key)
        return {"tracking": f"trk_{key[:6]}"}

    return ship_order


def ship_key(tenant: str, arguments: dict):
    return derive_key(tenant, "user_42", "ship_order", arguments, business_key=f"order:{arguments['order_id']}")


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_a_business_key_holding_other_arguments_is_refused_not_replayed(with_pool, tenant):
    arguments = {"order_id": "o_7", "service": "express"}
    derived = ship_key(tenant, arguments)
    stored = sha256('{"order_id":"o_7","service":"ground"}')

    async def scenario(pool):
        # What the key finds when an operation under this order id was recorded with other
        # arguments (another writer, an earlier deploy): the same key, another arguments_sha256.
        await pool.execute(
            "INSERT INTO idempotency (key, tenant, subject, tool, status, response, arguments_sha256)"
            " VALUES ($1, $2, 'user_42', 'ship_order', 'completed', '{\"tracking\": \"trk_ground\"}', $3)",
            derived.key,
            tenant,
            stored,
        )
        shipped: list[str] = []
        ship_order = ship_tool(pool, shipped)
        caller = Caller(tenant, "user_42", CLIENT)
        result = await ship_order(caller, arguments)
        assert result.outcome == "arguments_mismatch" and result.is_error
        assert (result.key, result.ref, result.response, result.status) == (derived.key, derived.ref, None, None)
        assert result.message == arguments_mismatch_message("A shipment", derived.ref, "get_shipment")
        assert result.text == result.message and "trk_ground" not in result.text
        assert shipped == []
        row = await row_of(pool, derived.key)
        assert (row["status"], json.loads(row["response"]), row["arguments_sha256"]) == (
            "completed",
            {"tracking": "trk_ground"},
            stored,
        )
        assert derived.arguments_sha256 == sha256('{"order_id":"o_7","service":"express"}')
        assert await events_of(pool, derived.key) == [
            ("arguments_mismatch", tenant, "ship_order", {"stored": stored, "call": derived.arguments_sha256}, CLIENT)
        ]
        # A claim still in flight under that key is refused the same way, not called "these exact details".
        await pool.execute("UPDATE idempotency SET status = 'in_progress', response = NULL WHERE key = $1", derived.key)
        again = await ship_order(caller, arguments)
        assert (again.outcome, again.message) == ("arguments_mismatch", result.message)
        assert shipped == []

    with_pool(scenario)


def test_a_row_without_arguments_sha256_is_replayed_or_in_flight_as_before(with_pool, tenant):
    arguments = {"order_id": "o_8", "service": "ground"}
    derived = ship_key(tenant, arguments)

    async def scenario(pool):
        # A writer that fills no optional column: its row must never be taken for another operation.
        await pool.execute(
            "INSERT INTO idempotency (key, tenant, status, response)"
            " VALUES ($1, $2, 'completed', '{\"tracking\": \"trk_theirs\"}')",
            derived.key,
            tenant,
        )
        shipped: list[str] = []
        ship_order = ship_tool(pool, shipped)
        caller = Caller(tenant, "user_42", CLIENT)
        replayed = await ship_order(caller, arguments)
        assert (replayed.outcome, replayed.response) == ("replayed", {"tracking": "trk_theirs"})
        assert not replayed.is_error
        await pool.execute("UPDATE idempotency SET status = 'in_progress', response = NULL WHERE key = $1", derived.key)
        in_flight = await ship_order(caller, arguments)
        assert in_flight.outcome == "in_flight"
        assert in_flight.message == in_flight_message("A shipment", derived.ref, "get_shipment")
        assert shipped == []
        assert [event[0] for event in await events_of(pool, derived.key)] == ["replay_served", "in_flight_rejected"]

    with_pool(scenario)


def test_the_same_order_with_the_same_arguments_is_still_a_replay(with_pool, tenant):
    async def scenario(pool):
        shipped: list[str] = []
        ship_order = ship_tool(pool, shipped)
        caller = Caller(tenant, "user_42")
        first = await ship_order(caller, {"order_id": "o_9", "service": "ground"})
        again = await ship_order(caller, {"service": "ground", "order_id": "o_9"})
        assert (first.outcome, again.outcome, again.response) == ("executed", "replayed", first.response)
        assert len(shipped) == 1
        row = await row_of(pool, first.key)
        assert row["arguments_sha256"] == ship_key(tenant, {"order_id": "o_9", "service": "ground"}).arguments_sha256

    with_pool(scenario)


def order_tool(pool, shipped: list[str], **options):
    """ship_order keyed by its order id, with ``options`` (``arguments_in_key``); ``shipped`` lists
    the services its handler ran for."""

    @idempotent(
        tool="ship_order",
        status_tool="get_shipment",
        pool=pool,
        tenant=lambda caller: caller.tenant,
        subject=lambda caller: caller.subject,
        client=lambda caller: caller.client,
        noun="A shipment",
        upstream="carrier",
        business_key=lambda args: f"order:{args['order_id']}",
        **options,
    )
    async def ship_order(arguments: dict, *, key: str, ref: str) -> dict:
        shipped.append(arguments["service"])
        return {"tracking": f"trk_{key[:8]}", "service": arguments["service"]}

    return ship_order


EXPRESS = {"order_id": "o_1", "service": "express"}
STANDARD = {"order_id": "o_1", "service": "standard"}


def test_a_business_key_that_names_the_operation_refuses_other_arguments(with_pool, tenant):
    # arguments_in_key=False, rows the guard wrote itself: one shipment per order.
    async def scenario(pool):
        shipped: list[str] = []
        ship_order = order_tool(pool, shipped, arguments_in_key=False)
        caller = Caller(tenant, "user_42", CLIENT)
        first = await ship_order(caller, EXPRESS)
        assert first.outcome == "executed" and shipped == ["express"]
        assert first.key == hashlib.sha256(f"{tenant}|user_42|ship_order|order:o_1".encode()).hexdigest()

        other = await ship_order(caller, STANDARD)
        assert (other.outcome, other.key, other.ref) == ("arguments_mismatch", first.key, first.ref)
        assert other.response is None
        assert other.is_error and other.message == arguments_mismatch_message("A shipment", first.ref, "get_shipment")
        assert shipped == ["express"]  # the handler did not run
        row = await row_of(pool, first.key)
        assert (row["status"], json.loads(row["response"]), row["arguments_sha256"]) == (
            "completed",
            first.response,
            sha256('{"order_id":"o_1","service":"express"}'),
        )
        events = await events_of(pool, first.key)
        assert [e[0] for e in events] == ["arguments_mismatch"]
        detail = events[0][3]
        assert set(detail) == {"stored", "call"}
        assert all(re.fullmatch(r"[0-9a-f]{64}", detail[side]) for side in ("stored", "call"))
        assert detail["stored"] != detail["call"]
        assert detail == {
            "stored": sha256('{"order_id":"o_1","service":"express"}'),
            "call": sha256('{"order_id":"o_1","service":"standard"}'),
        }
        assert events[0][1:3] == (tenant, "ship_order") and events[0][4] == CLIENT

        again = await ship_order(caller, {"service": "express", "order_id": "o_1"})
        assert (again.outcome, again.key, again.response) == ("replayed", first.key, first.response)
        assert shipped == ["express"]
        assert [e[0] for e in await events_of(pool, first.key)] == ["arguments_mismatch", "replay_served"]
        assert await pool.fetchval("SELECT count(*) FROM idempotency WHERE tenant = $1", tenant) == 1

    with_pool(scenario)


def test_by_default_the_arguments_are_in_the_key_and_other_arguments_execute(with_pool, tenant):
    # The difference: the same order id with other arguments is a second key, and a second shipment.
    async def scenario(pool):
        for run, options in enumerate(({}, {"arguments_in_key": True})):
            shipped: list[str] = []
            ship_order = order_tool(pool, shipped, **options)
            caller = Caller(f"{tenant}-{run}", "user_42")
            first = await ship_order(caller, EXPRESS)
            other = await ship_order(caller, STANDARD)
            assert (first.outcome, other.outcome) == ("executed", "executed")
            assert other.key != first.key and shipped == ["express", "standard"]
            assert await events_of(pool, first.key) == [] and await events_of(pool, other.key) == []
            assert (await ship_order(caller, EXPRESS)).outcome == "replayed"

    with_pool(scenario)


def test_arguments_in_key_false_needs_a_business_key():
    message = (
        "arguments_in_key: False needs a business_key (without arguments or a business key,"
        " every call of the tool in a time bucket would share one key)"
    )
    with pytest.raises(KeyInputError) as raised:
        idempotent(tool="t", status_tool="s", pool=None, tenant=lambda c: c, arguments_in_key=False)
    assert str(raised.value) == message
    with pytest.raises(KeyInputError, match="arguments_in_key: expected True or False \\(got 'no'\\)"):
        idempotent(tool="t", status_tool="s", pool=None, tenant=lambda c: c, arguments_in_key="no")


def test_a_call_whose_business_key_gives_none_is_refused_before_the_claim():
    shipped: list[str] = []
    # No database is reached: pool=None would fail on any query.
    ship_order = idempotent(
        tool="ship_order",
        status_tool="get_shipment",
        pool=None,
        tenant=lambda caller: caller.tenant,
        business_key=lambda args: args.get("order_id"),
        arguments_in_key=False,
    )(lambda arguments, *, key, ref: shipped.append(key))
    with pytest.raises(KeyInputError, match="arguments_in_key: False needs a business_key"):
        asyncio.run(ship_order(Caller("acme", None), {"service": "express"}))
    assert shipped == []


def test_an_outcome_an_operator_already_recorded_is_not_overwritten(with_pool, tenant):
    async def scenario(pool):
        @idempotent(tool="charge_card", status_tool="get_charge_status", pool=pool, tenant=lambda c: c.tenant)
        async def charge_card(arguments: dict, *, key: str, ref: str) -> dict:
            await pool.execute(
                "UPDATE idempotency SET status = 'completed', response = '{\"by\": \"operator\"}' WHERE key = $1", key
            )
            return {"charge_id": "ch_late"}

        result = await charge_card(Caller(tenant, None), ARGS)
        assert result.outcome == "executed"
        assert json.loads((await row_of(pool, result.key))["response"]) == {"by": "operator"}

    with_pool(scenario)


async def wait_for_a_lock_wait(pool) -> None:
    for _ in range(500):
        if await pool.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        ):
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the guarded call never waited on the other writer's row")


def test_a_writer_that_commits_while_our_insert_waits_is_read_by_the_second_look_up(with_pool, tenant):
    at = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
    key = derive_key(tenant, "user_42", "charge_card", ARGS, at=at).key

    async def scenario(pool):
        races = []
        processor = Processor()
        charge_card = charge_tool(pool, processor, clock=lambda: at, on_race=lambda: races.append(1))
        async with pool.acquire() as other:
            transaction = other.transaction()
            await transaction.start()
            await other.execute(
                "INSERT INTO idempotency (key, tenant, status) VALUES ($1, $2, 'in_progress')", key, tenant
            )
            call = asyncio.ensure_future(charge_card(Caller(tenant, "user_42"), ARGS))
            await wait_for_a_lock_wait(pool)
            await transaction.commit()
            result = await call
        # The claim statement's snapshot could not see the row; the second SELECT did.
        assert races == [1]
        assert (result.outcome, result.status) == ("in_flight", "in_progress")
        assert processor.references == []

    with_pool(scenario)


def test_a_row_deleted_between_the_two_statements_is_claimed_again(with_pool, tenant):
    at = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
    key = derive_key(tenant, "user_42", "charge_card", ARGS, at=at).key

    async def scenario(pool):
        races = []

        async def release() -> None:  # an operator releases the row just then
            races.append(1)
            await pool.execute("DELETE FROM idempotency WHERE key = $1", key)

        processor = Processor()
        charge_card = charge_tool(pool, processor, clock=lambda: at, on_race=release)
        async with pool.acquire() as other:
            transaction = other.transaction()
            await transaction.start()
            await other.execute(
                "INSERT INTO idempotency (key, tenant, status) VALUES ($1, $2, 'in_progress')", key, tenant
            )
            call = asyncio.ensure_future(charge_card(Caller(tenant, "user_42"), ARGS))
            await wait_for_a_lock_wait(pool)
            await transaction.commit()
            result = await call
        assert races == [1]
        assert result.outcome == "executed" and processor.references == [key]
        assert (await row_of(pool, key))["status"] == "completed"

    with_pool(scenario)


def test_a_jsonb_codec_on_the_pool_changes_nothing(with_pool, tenant):
    async def init(connection) -> None:
        await connection.set_type_codec("jsonb", encoder=json.dumps, decoder=json.loads, schema="pg_catalog")

    async def scenario(pool):
        processor = Processor()
        charge_card = charge_tool(pool, processor)
        caller = Caller(tenant, "user_42", CLIENT)
        first = await charge_card(caller, ARGS)
        second = await charge_card(caller, ARGS)
        assert second.outcome == "replayed" and second.response == first.response
        assert json.loads((await row_of(pool, first.key))["response"]) == first.response
        assert await events_of(pool, first.key) == [("replay_served", tenant, "charge_card", None, CLIENT)]

    with_pool(scenario, init=init)


def test_a_response_that_is_a_json_string_or_null_round_trips(with_pool, tenant):
    async def scenario(pool):
        answers = iter(["sent", None])

        @idempotent(tool="send_email", status_tool="get_email", pool=pool, tenant=lambda c: c.tenant)
        async def send_email(arguments: dict, *, key: str, ref: str):
            return next(answers)

        for to in ("a@example.com", "b@example.com"):
            first = await send_email(Caller(tenant, None), {"to": to})
            again = await send_email(Caller(tenant, None), {"to": to})
            assert (again.outcome, again.response, again.text) == ("replayed", first.response, first.text)
        assert first.text == "null"

    with_pool(scenario)


def test_bad_configuration_is_refused_when_decorating():
    with pytest.raises(ValueError, match="window: expected a positive whole number of seconds"):
        idempotent(tool="t", status_tool="s", pool=None, tenant=lambda c: c, window_seconds=0)
    with pytest.raises(ValueError, match='scheme: expected python-json or jcs \\(got "md5"\\)'):
        idempotent(tool="t", status_tool="s", pool=None, tenant=lambda c: c, scheme="md5")
