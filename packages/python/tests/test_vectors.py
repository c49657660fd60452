"""The shared cross-language vectors (packages/vectors/keys.json), computed by the TypeScript
package: this package must derive exactly the same canonical form, key, ref, hash and bucket."""

import json
from datetime import datetime
from pathlib import Path

import pytest

from idem_guard import derive_key

VECTORS = Path(__file__).resolve().parents[2] / "vectors" / "keys.json"
CASES = json.loads(VECTORS.read_text(encoding="utf-8")) if VECTORS.exists() else []


@pytest.mark.skipif(not VECTORS.exists(), reason=f"{VECTORS} is not here (the package left the repository)")
@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_vector(case):
    derived = derive_key(
        case["tenant"],
        case["subject"],
        case["tool"],
        json.loads(case["argumentsJson"]),
        at=datetime.fromisoformat(case["at"]),
        window_seconds=case["windowSeconds"],
        scheme=case["scheme"],
        business_key=case.get("businessKey"),
        arguments_in_key=case.get("argumentsInKey", True),
    )
    assert {
        "canonical": derived.canonical,
        "key": derived.key,
        "ref": derived.ref,
        "argumentsSha256": derived.arguments_sha256,
        "bucket": derived.bucket,
    } == case["expected"]


def test_there_are_vectors_for_both_schemes():
    if not VECTORS.exists():
        pytest.skip(f"{VECTORS} is not here")
    assert {case["scheme"] for case in CASES} == {"python-json", "jcs"}
    assert len(CASES) >= 30


def test_there_are_vectors_where_the_business_key_alone_names_the_operation():
    if not VECTORS.exists():
        pytest.skip(f"{VECTORS} is not here")
    alone = [case for case in CASES if case.get("argumentsInKey") is False]
    assert len(alone) >= 3
    assert {case["subject"] is None for case in alone} == {True, False}
    assert any(not case["businessKey"].isascii() for case in alone)
