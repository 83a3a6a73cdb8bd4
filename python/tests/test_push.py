# SPDX-License-Identifier: Apache-2.0
"""The push API from Python: Stripper and AsyncStripper give the bytes and
report strip() gives on the same input, whatever the writes' sizes; a real
aiohttp server strips a chunked upload as it arrives, with its memory flat,
and returns the report to the client; a broken dump raises strip()'s Error."""
import asyncio
import io
import os

import pytest

from conftest import ART, JVM, JVM7, JVM_GZ, ROOT

import hprofstrip

FRESH = os.path.join(ROOT, "build", "fresh", "jvm-30mb.hprof")


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _reference(data, **kw):
    out = io.BytesIO()
    report = hprofstrip.strip(io.BytesIO(data), out, **kw)
    return out.getvalue(), report


def _same_report(got, ref):
    for key in ("exit_status", "error", "counters"):
        assert got[key] == ref[key], key
    assert got["output"]["sha256"] == ref["output"]["sha256"]
    assert got["input"]["sha256"] == ref["input"]["sha256"]


@pytest.mark.parametrize("path", [JVM, ART, JVM_GZ])
@pytest.mark.parametrize("size", [1, 3, 4093, 65536, 1 << 20])
def test_writes_of_any_size_give_strips_bytes(path, size):
    data = _read(path)
    if size == 1 and len(data) > 1 << 21:
        data = _read(JVM7)  # a million one-byte calls is enough
    ref, ref_report = _reference(data)
    out = io.BytesIO()
    with hprofstrip.Stripper(out) as s:
        view = memoryview(data)
        for i in range(0, len(data), size):
            s.write(view[i:i + size])
    assert out.getvalue() == ref
    _same_report(s.report, ref_report)


def test_a_path_output_as_the_command_writes_it(tmp_path, cli):
    data = _read(JVM_GZ)
    dst = tmp_path / "out.hprof.zst"
    with hprofstrip.Stripper(str(dst), preset="privacy", histogram=True) as s:
        for i in range(0, len(data), 100_000):
            s.write(data[i:i + 100_000])
    assert s.report["exit_status"] == 0 and s.report["output"]["name"] == str(dst)
    assert s.report["histogram"]
    want = tmp_path / "cli.hprof.zst"
    cli(JVM_GZ, "-p", "privacy", "-o", str(want))
    assert dst.read_bytes() == want.read_bytes()


def test_a_broken_dump_raises_and_leaves_no_output(tmp_path):
    head = _read(JVM)[:31]  # the file header; then STRINGs shorter than an id
    bad = bytes([1, 0, 0, 0, 0, 0, 0, 0, 3]) + b"abc"
    dst = tmp_path / "out.hprof"
    s = hprofstrip.Stripper(str(dst), buffer=64)
    s.write(head)
    with pytest.raises(hprofstrip.Error) as e:
        for _ in range(100_000):  # far more than the buffer: the run stops first
            s.write(bad * 100)
    assert e.value.status == "malformed" and e.value.exit_status == 1
    assert "STRING record has length 3" in e.value.message
    assert not dst.exists() and os.listdir(tmp_path) == []
    with pytest.raises(ValueError):
        s.write(b"x")


def test_an_exception_abandons_the_run(tmp_path):
    dst = tmp_path / "out.hprof"
    with pytest.raises(KeyError):
        with hprofstrip.Stripper(str(dst)) as s:
            s.write(_read(JVM)[:100_000])
            raise KeyError("the upload broke")
    assert os.listdir(tmp_path) == []


def _rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def _upload(path, dst, chunk=65536):
    """Serves one aiohttp app on a free port, POSTs `path` to it with a
    chunked body (the client sends it piece by piece, as it reads it), and
    returns what the server answered: the report, and how it saw the
    upload. The server strips with AsyncStripper as the body arrives."""
    web = pytest.importorskip("aiohttp.web")
    aiohttp = pytest.importorskip("aiohttp")

    async def upload(request):
        rss, pieces, got = [], 0, 0  # (bytes received, RSS KiB) at each piece
        async with hprofstrip.AsyncStripper(dst) as s:
            async for piece in request.content.iter_any():
                await s.write(piece)
                pieces += 1
                got += len(piece)
                rss.append((got, _rss_kib()))
        return web.json_response({"report": s.report, "pieces": pieces, "rss": rss,
                                  "chunked": request.headers.get("Transfer-Encoding")})

    async def body():
        with open(path, "rb") as f:
            while True:
                piece = f.read(chunk)
                if not piece:
                    return
                yield piece
                await asyncio.sleep(0)  # the server's turn: it strips as it comes

    async def main():
        app = web.Application(client_max_size=1 << 20)
        app.router.add_post("/strip", upload)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        try:
            async with aiohttp.ClientSession() as session:
                async with session.post(f"http://127.0.0.1:{port}/strip", data=body()) as r:
                    assert r.status == 200, await r.text()
                    return await r.json()
        finally:
            await runner.cleanup()

    return asyncio.run(main())


@pytest.mark.parametrize("path", [JVM, JVM_GZ])
def test_an_aiohttp_server_strips_a_chunked_upload(tmp_path, path):
    dst = str(tmp_path / "out.hprof")
    answer = _upload(path, dst)
    assert answer["chunked"] == "chunked"
    assert answer["pieces"] > 1
    ref, ref_report = _reference(_read(path))
    with open(dst, "rb") as f:
        assert f.read() == ref
    _same_report(answer["report"], ref_report)
    assert answer["report"]["output"]["name"] == dst


def test_the_servers_memory_stays_flat(tmp_path):
    """A 30 MB upload: once the library's working set is made (its
    buffers, the strings it holds), the server's memory stays where it is
    while the remaining three quarters of the upload go through."""
    if not os.path.exists(FRESH):
        pytest.skip(f"{FRESH} is not made (make {os.path.relpath(FRESH, ROOT)})")
    size = os.path.getsize(FRESH)
    answer = _upload(FRESH, os.devnull, chunk=1 << 16)
    assert answer["report"]["exit_status"] == 0
    assert answer["report"]["input"]["hprof_bytes"] == size
    rss = answer["rss"]
    at_quarter = max(kib for got, kib in rss if got <= size // 4)
    growth = (max(kib for _, kib in rss) - at_quarter) * 1024
    # 22 MB more pushed; what the filter still holds for the rest of the
    # dump (strings whose user comes late) is a few MiB at most
    assert growth < 8 << 20, f"RSS grew {growth} bytes over the last {size * 3 // 4} bytes"


def test_the_readmes_python_examples_run(tmp_path, monkeypatch):
    """Every ```python block of python/README.md runs as written (the push
    section's too), in a directory holding the app.hprof and app.hprof.gz
    they name; the push outputs are strip()'s bytes."""
    import re
    import shutil
    from conftest import decompress_zstd
    with open(os.path.join(ROOT, "python", "README.md"), encoding="utf-8") as f:
        blocks = re.findall(r"^```python\n(.*?)^```", f.read(), re.S | re.M)
    assert len(blocks) >= 2
    shutil.copy(JVM, tmp_path / "app.hprof")
    shutil.copy(JVM_GZ, tmp_path / "app.hprof.gz")
    monkeypatch.chdir(tmp_path)
    for block in blocks:
        exec(compile(block, "python/README.md", "exec"), {"__name__": "readme"})
    assert any("Stripper(" in b for b in blocks) and any("AsyncStripper(" in b for b in blocks)
    for name, preset in (("app-push.hprof.zst", "default"), ("app-upload.hprof.zst", "privacy")):
        assert decompress_zstd(name) == _reference(_read(JVM), preset=preset)[0], name
