"""SCHEMA_SQL (the README's DDL) makes the same columns and constraints as the console's migrations."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from idem_guard import SCHEMA_SQL

README = Path(__file__).resolve().parents[1] / "README.md"

COLUMNS = """
SELECT table_name, column_name, data_type, is_nullable, collation_name, datetime_precision,
       replace(column_default, $1 || '.', '') AS column_default
FROM information_schema.columns
WHERE table_schema = $1 AND table_name IN ('idempotency', 'idempotency_event')
ORDER BY table_name, ordinal_position"""

CONSTRAINTS = """
SELECT t.relname AS table_name, c.contype, pg_get_constraintdef(c.oid) AS definition
FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
WHERE n.nspname = $1 AND t.relname IN ('idempotency', 'idempotency_event')
ORDER BY 1, 2, 3"""


def test_the_readme_shows_schema_sql_verbatim():
    assert SCHEMA_SQL in README.read_text(encoding="utf-8")


def test_schema_sql_matches_the_migrated_tables(with_pool):
    async def scenario(pool):
        if not await pool.fetchval("SELECT to_regclass('_prisma_migrations') IS NOT NULL"):
            pytest.skip("this database's tables were not made by the console's migrations: nothing to compare with")
        migrated = await pool.fetchval("SELECT current_schema()")
        schema = f"idem_schema_check_{uuid.uuid4().hex[:8]}"
        async with pool.acquire() as connection:
            await connection.execute(f'CREATE SCHEMA "{schema}"')
            try:
                async with connection.transaction():
                    await connection.execute(f'SET LOCAL search_path TO "{schema}"')
                    await connection.execute(SCHEMA_SQL)
                for query in (COLUMNS, CONSTRAINTS):
                    ours = [dict(r) for r in await connection.fetch(query, schema)]
                    theirs = [dict(r) for r in await connection.fetch(query, migrated)]
                    assert ours == theirs
            finally:
                await connection.execute(f'DROP SCHEMA "{schema}" CASCADE')

    with_pool(scenario)
