"""Shared fixtures. The database tests need PostgreSQL: IDEM_TEST_DATABASE_URL names a database
they may write to (tests/integration/python-guard.test.ts creates a fresh migrated one). A
database without the tables gets them from idem_guard.SCHEMA_SQL, the README's DDL."""

from __future__ import annotations

import asyncio
import os
import uuid
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

import pytest

DATABASE_URL_VARIABLE = "IDEM_TEST_DATABASE_URL"


@dataclass(frozen=True)
class Caller:
    """Who is calling, as a server learns it from the verified token and the MCP handshake."""

    tenant: str
    subject: str | None
    client: str | None = None


@pytest.fixture(scope="session")
def database_url() -> str:
    url = os.environ.get(DATABASE_URL_VARIABLE)
    if not url:
        pytest.skip(f"{DATABASE_URL_VARIABLE} is not set: the database tests need a PostgreSQL database to write to")
    import asyncpg

    from idem_guard import SCHEMA_SQL

    async def prepare() -> None:
        connection = await asyncpg.connect(url)
        try:
            if await connection.fetchval("SELECT to_regclass('idempotency') IS NULL"):
                await connection.execute(SCHEMA_SQL)
        finally:
            await connection.close()

    asyncio.run(prepare())
    return url


@pytest.fixture
def with_pool(database_url: str) -> Callable[[Callable[[Any], Awaitable[Any]]], Any]:
    """``with_pool(scenario)`` runs ``await scenario(pool)`` on a fresh event loop and asyncpg pool."""
    import asyncpg

    def run(scenario: Callable[[Any], Awaitable[Any]], **pool_options: Any) -> Any:
        async def main() -> Any:
            pool = await asyncpg.create_pool(database_url, min_size=1, max_size=4, **pool_options)
            try:
                return await scenario(pool)
            finally:
                await pool.close()

        return asyncio.run(main())

    return run


@pytest.fixture
def tenant() -> str:
    """A tenant no other test writes under, so keys and rows never collide between tests or runs."""
    return f"pytest-{uuid.uuid4().hex[:12]}"
