# SPDX-License-Identifier: Apache-2.0
"""audit(): the verdict in the report (exit_status 0 clean, 7 findings),
an exception only when the run fails."""
import io
import json

import pytest

from conftest import JVM, JVM_GZ, read


def test_privacy_output_is_clean(hs, tmp_path):
    out = tmp_path / "shared.hprof.zst"
    hs.strip(JVM_GZ, out, preset="privacy")
    report = hs.audit(out)
    assert report["mode"] == "audit"
    assert report["exit_status"] == 0
    assert report["audit"]["clean"] is True
    assert report["audit"]["findings"] == []
    assert report["output"] is None


def test_raw_dump_has_findings(hs, cli):
    report = hs.audit(JVM)
    assert report["exit_status"] == 7
    assert report["error"] is None
    a = report["audit"]
    assert a["clean"] is False
    assert a["nonzero_array_bytes"] > 0 and a["findings"]
    assert {f["kind"] for f in a["findings"]} >= {"array", "field"}


def test_same_verdict_as_cli(hs, cli, tmp_path):
    p = cli("--audit", JVM, "--stats-file", str(tmp_path / "r.json"), check=False)
    assert p.returncode == 7
    theirs = json.loads(read(tmp_path / "r.json"))
    assert hs.audit(JVM)["audit"] == theirs["audit"]


def test_file_object(hs):
    report = hs.audit(io.BytesIO(read(JVM_GZ)))
    assert report["exit_status"] == 7
    assert report["audit"]["clean"] is False


def test_broken_input_raises(hs, tmp_path):
    cut = tmp_path / "cut.hprof"
    cut.write_bytes(read(JVM)[:100000])
    with pytest.raises(hs.Error) as e:
        hs.audit(cut)
    assert e.value.status == "truncated"
    assert e.value.exit_status == 3
    assert e.value.report["mode"] == "audit"
