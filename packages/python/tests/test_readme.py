"""The README's Python, run: the quickstart against the database, the key example line by line.
Its FastMCP example needs the MCP SDK, which cannot be installed here (the README says so): it is
only compiled."""

from __future__ import annotations

import json
import re
from pathlib import Path

from idem_guard import in_flight_message

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def block(name: str) -> str:
    match = re.search(rf"<!-- {name}:start -->\n```python\n(.*?)```\n<!-- {name}:end -->", README, re.DOTALL)
    assert match, f"the README has no {name} block"
    return match.group(1)


def test_the_key_example_says_what_derive_key_returns():
    # Lines like `d.key        # '3ee7…'` state a value; the rest is code to run first.
    code, checks = [], []
    for line in block("keys").splitlines():
        expression, _, expected = line.partition("  # ")
        if expected and re.fullmatch(r"[a-z_.]+ *", expression):
            checks.append((expression.strip(), expected))
        else:
            code.append(line)
    namespace: dict = {}
    exec("\n".join(code), namespace)  # noqa: S102 - our own README
    assert len(checks) == 3
    for expression, expected in checks:
        assert eval(expression, namespace) == eval(expected), expression  # noqa: S307


def test_the_quickstart_charges_once(database_url, tenant, monkeypatch, capsys):
    # Its own tenant, so a second run within 15 minutes is not a replay of the first.
    code = block("quickstart").replace('tenant="acme"', f'tenant="{tenant}"')
    assert tenant in code
    monkeypatch.setenv("DATABASE_URL", database_url)
    exec(compile(code, "README.md quickstart", "exec"), {"__name__": "__main__"})  # noqa: S102
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4 and lines[3] == "charges: 1"
    outcomes = sorted(line.split(" ", 2)[0] for line in lines[:2])
    assert outcomes == ["executed", "in_flight"]
    executed = next(line for line in lines[:2] if line.startswith("executed False "))
    in_flight = next(line for line in lines[:2] if line.startswith("in_flight True "))
    receipt = json.loads(executed.removeprefix("executed False "))
    ref = receipt["charge_id"].removeprefix("ch_")  # the processor saw the key
    assert in_flight.startswith(f"in_flight True {in_flight_message('A charge', ref, 'get_charge_status')[:60]}")
    assert f"(ref {ref}" in in_flight
    assert lines[2].startswith("replayed False ") and json.loads(lines[2].removeprefix("replayed False ")) == receipt


def test_the_fastmcp_example_compiles():
    code = block("fastmcp")
    compile(code, "README.md FastMCP example", "exec")
    for needed in ("clientInfo", "isError=result.is_error", "idempotentHint=True", "text=result.text"):
        assert needed in code
