# SPDX-License-Identifier: Apache-2.0
"""Every option of hprof-strip(1) that strip() or audit() takes as a
keyword, run both ways on the same fixture: the same output bytes, the
same exit status. (python/README.md maps each option to its keyword, and
says why the few without one have none.)"""
import io
import json
import os
import subprocess

import pytest

from conftest import ART, JVM, JVM7, cli_path, read, temps


def same_bytes(hs, cli, tmp_path, cli_args, src, **kw):
    """hprof-strip CLI_ARGS SRC -o A and strip(SRC, B, **kw): A == B."""
    a, b = tmp_path / "cli.hprof", tmp_path / "py.hprof"
    cli(*cli_args, "-o", str(a), str(src))
    report = hs.strip(src, b, **kw)
    assert read(a) == read(b)
    return report


@pytest.mark.parametrize("preset", [None, "privacy"])
def test_to_jvm(hs, cli, tmp_path, preset):
    args = ["--to-jvm"] + (["-p", preset] if preset else [])
    report = same_bytes(hs, cli, tmp_path, args, ART, to_jvm=True, preset=preset)
    assert report["exit_status"] == 0
    assert read(tmp_path / "py.hprof").startswith(b"JAVA PROFILE 1.0.2\0")
    if preset is None:
        # --to-jvm alone: preset none, nothing else changed; the default
        # preset without it
        plain = tmp_path / "plain.hprof"
        hs.strip(ART, plain)
        assert read(plain) != read(tmp_path / "py.hprof")


def test_to_jvm_with_rules_keeps_the_default_preset(hs, cli, tmp_path):
    rules = "keep-field java.lang.String.hash\n"
    (tmp_path / "r.rules").write_text(rules)
    same_bytes(hs, cli, tmp_path, ["--to-jvm", "-r", str(tmp_path / "r.rules")], ART,
               to_jvm=True, rules=rules)


def test_repack(hs, cli, tmp_path):
    # a 1.0.1 dump comes out as 1.0.2, re-encoded though nothing changes
    same_bytes(hs, cli, tmp_path, ["--repack", "-p", "none"], JVM7, repack=True, preset="none")
    assert read(tmp_path / "py.hprof") != read(JVM7)


@pytest.mark.parametrize("dump", [ART, JVM])
def test_obfuscate_names_to_a_path(hs, cli, tmp_path, dump):
    cli("-p", "privacy", "--obfuscate-names", str(tmp_path / "cli.map"),
        "-o", str(tmp_path / "cli.hprof"), str(dump))
    report = hs.strip(dump, tmp_path / "py.hprof", preset="privacy",
                      obfuscate_names=tmp_path / "py.map")
    assert report["exit_status"] == 0
    assert read(tmp_path / "cli.hprof") == read(tmp_path / "py.hprof")
    assert read(tmp_path / "cli.map") == read(tmp_path / "py.map")
    assert read(tmp_path / "py.map")  # a mapping was written
    # private, as the command makes it
    assert os.stat(tmp_path / "py.map").st_mode & 0o077 == 0
    # and it restores the names: mapping= as --mapping
    back_cli, back_py = tmp_path / "back-cli.hprof", tmp_path / "back-py.hprof"
    cli("-p", "none", "--mapping", str(tmp_path / "cli.map"), "-o", str(back_cli),
        str(tmp_path / "cli.hprof"))
    hs.strip(tmp_path / "py.hprof", back_py, preset="none", mapping=tmp_path / "py.map")
    assert read(back_cli) == read(back_py)


def test_obfuscate_names_to_a_file_object(hs, cli, tmp_path):
    cli("--obfuscate-names", str(tmp_path / "cli.map"), "-o", str(tmp_path / "cli.hprof"),
        str(JVM))
    mapping, out = io.BytesIO(), io.BytesIO()
    hs.strip(JVM, out, obfuscate_names=mapping)
    assert out.getvalue() == read(tmp_path / "cli.hprof")
    assert mapping.getvalue() == read(tmp_path / "cli.map")


def test_obfuscate_names_refuses_an_existing_file_before_the_run(hs, tmp_path):
    (tmp_path / "old.map").write_bytes(b"mine")
    with pytest.raises(hs.UsageError) as e:
        hs.strip(JVM, tmp_path / "out.hprof", obfuscate_names=tmp_path / "old.map")
    assert (e.value.status, e.value.exit_status) == ("usage", 2)
    assert read(tmp_path / "old.map") == b"mine"
    assert sorted(os.listdir(tmp_path)) == ["old.map"]


def test_obfuscate_names_left_out_of_a_failed_run(hs, tmp_path):
    cut = tmp_path / "cut.hprof"
    cut.write_bytes(read(JVM)[:200000])
    with pytest.raises(hs.Error):
        hs.strip(cut, tmp_path / "out.hprof", obfuscate_names=tmp_path / "o.map")
    assert sorted(os.listdir(tmp_path)) == ["cut.hprof"]


def test_max_held(hs, cli, tmp_path):
    same_bytes(hs, cli, tmp_path, ["-p", "privacy", "--max-held", "64M"], ART,
               preset="privacy", max_held=64 << 20)
    # below what the run needs: both stop, exit 5, nothing left
    p = cli("-p", "privacy", "--max-held", "4K", "-o", str(tmp_path / "small-cli.hprof"),
            str(ART), check=False)
    assert p.returncode == 5
    with pytest.raises(hs.Error) as e:
        hs.strip(ART, tmp_path / "small-py.hprof", preset="privacy", max_held=4096)
    assert (e.value.status, e.value.exit_status) == ("limit", 5)
    assert not (tmp_path / "small-py.hprof").exists() and temps(tmp_path) == []
    with pytest.raises(ValueError):
        hs.strip(ART, tmp_path / "x.hprof", max_held=0)
    with pytest.raises(TypeError):
        hs.strip(ART, tmp_path / "x.hprof", max_held="1G")


def test_spill_after(hs, cli, tmp_path):
    # privacy on an Android dump holds instances for their class: past 1 KiB
    # they go to the spill file, the output the same
    report = same_bytes(hs, cli, tmp_path, ["-p", "privacy", "--spill-after", "1K"], ART,
                        preset="privacy", spill_after=1024)
    assert report["counters"]["instance_bytes_spilled_peak"] > 0


def test_timeout(hs, cli, tmp_path):
    same_bytes(hs, cli, tmp_path, ["--timeout", "600"], JVM, timeout=600)
    # a deadline passed at once: the run stops (within a MiB of input),
    # exit 124, the output removed, the report saying so
    p = cli("--timeout", "0.000000001", "-o", str(tmp_path / "late-cli.hprof"), str(JVM),
            check=False)
    assert p.returncode == 124
    with pytest.raises(hs.Error) as e:
        hs.strip(JVM, tmp_path / "late-py.hprof", timeout=1e-9)
    assert (e.value.status, e.value.exit_status, e.value.retryable) == ("timeout", 124, True)
    assert e.value.report["exit_status"] == 124
    assert e.value.report["error"]["status"] == "timeout"
    assert not (tmp_path / "late-py.hprof").exists() and temps(tmp_path) == []
    with pytest.raises(hs.Error) as e:
        hs.audit(JVM, timeout=1e-9)
    assert e.value.exit_status == 124
    for bad in (-1, 604801, float("nan")):
        with pytest.raises(ValueError):
            hs.strip(JVM, tmp_path / "x.hprof", timeout=bad)


def test_salvage_and_histogram_as_the_command(hs, cli, tmp_path):
    cut = tmp_path / "cut.hprof"
    cut.write_bytes(read(JVM)[:2000000])
    p = cli("--salvage", "-o", str(tmp_path / "cli.hprof"), str(cut), check=False)
    assert p.returncode == 6
    report = hs.strip(cut, tmp_path / "py.hprof", salvage=True)
    assert report["exit_status"] == 6
    assert read(tmp_path / "cli.hprof") == read(tmp_path / "py.hprof")
    stats = tmp_path / "cli.json"
    cli("--histogram", "--stats-file", str(stats), "-o", str(tmp_path / "h-cli.hprof"), str(JVM))
    (tmp_path / "h").mkdir()
    report = same_bytes(hs, cli, tmp_path / "h", ["--histogram"], JVM, histogram=True)
    assert report["histogram"] == json.loads(stats.read_text())["histogram"]


def test_audit_many(hs, cli, tmp_path):
    clean = tmp_path / "clean.hprof"
    hs.strip(JVM, clean, preset="privacy")
    missing = tmp_path / "missing.hprof"
    srcs = [JVM, clean, ART, missing]
    results = hs.audit_many(srcs, jobs=2)
    assert len(results) == 4
    for src, r in zip(srcs[:3], results[:3]):
        p = subprocess.run([cli_path(), "-q", "--audit", "--stats-file", str(tmp_path / "a.json"),
                            str(src)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        ref = json.loads((tmp_path / "a.json").read_text())
        assert r["exit_status"] == p.returncode == ref["exit_status"]
        assert r["audit"]["clean"] == ref["audit"]["clean"]
        assert r["audit"]["findings"] == ref["audit"]["findings"]
    assert [r["exit_status"] for r in results[:3]] == [7, 0, 7]
    assert isinstance(results[3], hs.NotFoundError) and isinstance(results[3], FileNotFoundError)
    # the command's worst exit status over the same files
    p = subprocess.run([cli_path(), "-q", "--audit", *map(str, srcs)], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    assert p.returncode == hs.worst_exit_status(results) == 4
    assert hs.worst_exit_status(results[:3]) == 7
    assert hs.worst_exit_status([]) == 0


def test_print_rules(hs):
    for name in ("none", "default", "privacy", "android-app"):
        p = subprocess.run([cli_path(), "--print-rules", name], stdout=subprocess.PIPE,
                           check=True, text=True)
        assert hs.preset_rules(name) == p.stdout
    p = subprocess.run([cli_path(), "--print-rules"], stdout=subprocess.PIPE, check=True,
                       text=True)
    listed = [line.split()[0] for line in p.stdout.splitlines()[:-1]]
    assert list(hs.presets()) == listed
    with pytest.raises(hs.UsageError):
        hs.preset_rules("nosuch")


@pytest.mark.parametrize("compress,flag", [(None, []), ("zstd", ["-z"])])
def test_strip_many_into_a_directory(hs, cli, tmp_path, compress, flag):
    """-o DIR FILE... -j 2: the same names, the same bytes, the same worst
    exit status, going on after a failure and refusing a second input of
    one output name."""
    cut = tmp_path / "cut.hprof"
    cut.write_bytes(read(JVM)[:200000])
    (tmp_path / "gz").mkdir()
    twin = tmp_path / "gz" / "jvm17-64bit.hprof.gz"  # JVM's output name again
    twin.write_bytes(b"")
    srcs = [str(JVM), str(ART), str(cut), os.path.join(os.path.dirname(JVM),
                                                       "jvm17-jcmd-gz1.hprof.gz"), str(twin)]
    a, b = tmp_path / "cli", tmp_path / "py"
    a.mkdir()
    b.mkdir()
    p = subprocess.run([cli_path(), "-q", *flag, "-j", "2", "-o", str(a), *srcs],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    results = hs.strip_many(srcs, b, jobs=2, compress=compress)
    assert p.returncode == hs.worst_exit_status(results)
    assert sorted(os.listdir(a)) == sorted(os.listdir(b))
    for name in os.listdir(a):
        assert read(a / name) == read(b / name), name
    assert [hs.output_name(s, b, compress) for s in srcs[:2]] == \
        [str(b / ("jvm17-64bit.hprof" + (".zst" if compress else ""))),
         str(b / ("android-art2025-ahat-test-dump.hprof" + (".zst" if compress else "")))]
    assert results[0]["exit_status"] == results[1]["exit_status"] == results[3]["exit_status"] == 0
    assert isinstance(results[2], hs.Error) and results[2].exit_status == 3
    assert isinstance(results[4], hs.UsageError)


@pytest.mark.parametrize("private", [False, True])
def test_strip_many_makes_a_missing_directory(hs, cli, tmp_path, private):
    """A missing out_dir is made as the command makes -o DIR (#55): parents
    and all, 0700 when an input is private, else 0777 less the umask; a
    name that reads as a dump's, or one under a file, is refused."""
    src = tmp_path / "in.hprof"
    src.write_bytes(read(JVM))
    src.chmod(0o600 if private else 0o644)
    a, b = tmp_path / "cli" / "x" / "y", tmp_path / "py" / "x" / "y"
    p = subprocess.run([cli_path(), "-q", "-o", str(a), str(src), str(src)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    results = hs.strip_many([str(src), str(src)], b)
    assert p.returncode == hs.worst_exit_status(results) == 2  # the second: the same name
    assert read(a / "in.hprof") == read(b / "in.hprof")
    for d in ("", "x", "x/y"):
        mode = os.stat(tmp_path / "py" / d).st_mode & 0o777
        assert mode == os.stat(tmp_path / "cli" / d).st_mode & 0o777, d
        if private:
            assert mode == 0o700, d
    with pytest.raises(hs.UsageError):
        hs.strip_many([str(src)], tmp_path / "new.hprof.zst")
    assert not (tmp_path / "new.hprof.zst").exists()
    with pytest.raises(hs.UsageError):  # the command's exit 2 too
        hs.strip_many([str(src)], src / "sub")
    if os.geteuid() != 0:  # root makes it anyway
        (tmp_path / "ro").mkdir(mode=0o500)
        with pytest.raises(hs.Error) as e:
            hs.strip_many([str(src)], tmp_path / "ro" / "sub")
        assert e.value.exit_status == 4 and not isinstance(e.value, hs.UsageError)


@pytest.mark.parametrize("name", ["x.hprof.7z", "out.xz", "x.zstd"])
def test_strip_many_refuses_a_compressed_name_as_the_command(hs, cli, tmp_path, name):
    """-o DIR with a compression's suffix, one written here or not (.7z,
    .xz: the library's table, hs_compression_foreign_of_path), reads as a
    dump's name: refused, nothing made, by the command as here (#55)."""
    src = tmp_path / "in.hprof"
    src.write_bytes(read(JVM))
    p = subprocess.run([cli_path(), "-q", "-o", str(tmp_path / name), str(src), str(src)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.returncode == 2 and not (tmp_path / name).exists()
    with pytest.raises(hs.UsageError):
        hs.strip_many([str(src), str(src)], tmp_path / name)
    assert not (tmp_path / name).exists()


def test_output_name_asks_the_library(hs):
    """output_name() drops the suffix the library's codec table names and
    adds the one it gives the compression, as the command's -o DIR."""
    assert hs.output_name("/d/a.hprof.zstd", "o") == os.path.join("o", "a.hprof")
    assert hs.output_name("a.gz", "o", compress="zstd") == os.path.join("o", "a.hprof.zst")
    assert hs.output_name("a.hprof.xz", "o", compress="gzip") == os.path.join(
        "o", "a.hprof.xz.hprof.gz")


def test_an_input_message_under_a_long_path_is_whole(hs, tmp_path):
    """hs_error holds 320 bytes: a path past them is said whole
    (hs_input_open_path_ex), for an xz file and a directory (#55)."""
    d = tmp_path
    for _ in range(7):
        d = d / ("d" * 60)
    d.mkdir(parents=True)
    xz = d / "x.hprof.xz"
    xz.write_bytes(b"\xfd7zXZ\x00 and more")
    with pytest.raises(hs.Error) as e:
        hs.strip(str(xz), tmp_path / "o.hprof")
    assert str(e.value).startswith(f"{xz}: ") and "xz -dc" in str(e.value), str(e.value)
    with pytest.raises(hs.Error) as e:
        hs.strip(str(d), tmp_path / "o.hprof")
    assert str(e.value) == f"{d}: {os.strerror(21)}"
