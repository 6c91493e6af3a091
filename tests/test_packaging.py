"""Packaging: resources found from checkout, wheel and frozen layouts; the --self-test; the wheel's contents."""
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

from kiraos_desktop import selftest
from kiraos_desktop.core import resources
from kiraos_desktop.core.templates import TEMPLATE_NAMES
from pg_server import PASSWORD

REPO = Path(__file__).resolve().parent.parent
BUNDLED_SKILLS = sorted(p.name for p in (REPO / "skills").iterdir()
                        if p.is_dir() and not p.name.startswith(("_", ".")))
APP_ICON = "app.svg"


@pytest.fixture
def fresh_lookup():
    resources._data_root.cache_clear()
    yield
    resources._data_root.cache_clear()


def _fake_data_root(root: Path) -> Path:
    (root / "resources" / "templates").mkdir(parents=True)
    (root / "skills").mkdir()
    return root


# ---- resources ---------------------------------------------------------------------------

def test_source_checkout_finds_every_resource(fresh_lookup):
    assert resources.resources_dir() == REPO / "resources"
    assert sorted(p.name for p in resources.templates_dir().glob("*.j2")) == sorted(TEMPLATE_NAMES)
    assert (resources.icons_dir() / APP_ICON).is_file()
    assert resources.bundled_skills_dir() == REPO / "skills"
    assert BUNDLED_SKILLS
    for name in BUNDLED_SKILLS:
        assert (resources.bundled_skills_dir() / name / "manifest.json").is_file()
        assert (resources.bundled_skills_dir() / name / "instruction.md").is_file()


def test_frozen_location_comes_first(fresh_lookup, tmp_path, monkeypatch):
    frozen = _fake_data_root(tmp_path / "_internal")
    monkeypatch.setattr(sys, "_MEIPASS", str(frozen), raising=False)
    assert resources.templates_dir() == frozen / "resources" / "templates"
    assert resources.bundled_skills_dir() == frozen / "skills"


def test_wheel_location_comes_before_the_checkout(fresh_lookup, tmp_path, monkeypatch):
    package = tmp_path / "site-packages" / "kiraos_desktop"
    data = _fake_data_root(package / "_data")
    monkeypatch.setattr(resources, "_PACKAGE_DIR", package)
    assert resources.resources_dir() == data / "resources"
    assert resources.bundled_skills_dir() == data / "skills"


def test_no_resources_anywhere_is_a_clear_error(fresh_lookup, tmp_path, monkeypatch):
    monkeypatch.setattr(resources, "_PACKAGE_DIR", tmp_path / "nowhere" / "kiraos_desktop")
    with pytest.raises(FileNotFoundError, match="cannot find its resources"):
        resources.templates_dir()


# ---- the self-test -----------------------------------------------------------------------

def _run_self_test_process(tmp_path: Path, prelude: str = "") -> subprocess.CompletedProcess:
    env = dict(os.environ, TMPDIR=str(tmp_path), TEMP=str(tmp_path), TMP=str(tmp_path))
    env.pop("QT_QPA_PLATFORM", None)  # the self-test must choose offscreen by itself
    code = prelude + "from kiraos_desktop.cli import main\nraise SystemExit(main(['--self-test']))\n"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, encoding="utf-8",
                          env=env, cwd=tmp_path, timeout=180)


def test_self_test_passes_every_step(tmp_path, monkeypatch):
    # A database URL in the environment: the self-test still uses its own temporary SQLite database
    # (it never writes to the memory a URL names) and never shows the URL's password.
    monkeypatch.setenv("KIRAOS_DATABASE_URL", "postgresql://kira:Self-Test-Pw9@127.0.0.1:1/memory")
    result = _run_self_test_process(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Self-Test-Pw9" not in result.stdout + result.stderr
    passed = [line.split(":")[1].split("(")[0].strip() for line in result.stdout.splitlines()
              if line.startswith("self-test ok:")]
    assert passed == ["resources", "engine", "api", "health", "memory_update", "context", "recall", "skills",
                      "agent_skills", "templates", "mcp", "postgresql", "window", "shutdown"]
    assert "failed" not in result.stderr
    assert not list(tmp_path.glob("kiraos-selftest-*")), "the temporary data dir was left behind"


def test_self_test_without_stdout_or_stderr_writes_its_log(tmp_path):
    # What a windowed build on Windows gets: sys.stdout and sys.stderr are None.
    result = _run_self_test_process(tmp_path, "import sys\nsys.stdout = sys.stderr = None\n")
    log = (tmp_path / "kiraos-desktop-selftest.log").read_text(encoding="utf-8")
    assert result.returncode == 0, log + result.stderr
    assert result.stdout == ""
    assert "self-test ok: window" in log and "self-test ok: shutdown" in log


def test_a_failing_step_is_named_on_stderr_and_in_the_log(tmp_path, monkeypatch, capsys):
    def broken_context(self):
        raise selftest.StepFailed("context 'x', expected 'y'")

    monkeypatch.setattr(selftest.SelfTest, "check_context", broken_context)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    log = tmp_path / "selftest.log"
    assert selftest.run_self_test(log_path=log) == 1
    captured = capsys.readouterr()
    assert "self-test ok: memory_update" in captured.out
    assert "self-test failed at context: context 'x', expected 'y'" in captured.err
    assert "self-test failed at context" in log.read_text(encoding="utf-8")
    assert not list(tmp_path.glob("kiraos-selftest-*")), "the temporary data dir was left behind"


def test_a_crash_in_a_step_fails_with_its_exception(tmp_path, monkeypatch, capsys):
    def crash(self):
        raise KeyError("boom")

    monkeypatch.setattr(selftest.SelfTest, "check_health", crash)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert selftest.run_self_test(log_path=tmp_path / "selftest.log") == 1
    assert "self-test failed at health: KeyError: 'boom'" in capsys.readouterr().err
    assert "Traceback" in (tmp_path / "selftest.log").read_text(encoding="utf-8")


def test_postgresql_step_loads_the_driver_and_connects_when_given_a_server(pg_url, monkeypatch):
    import psycopg

    test = selftest.SelfTest(Path("."), None)
    monkeypatch.delenv(selftest.DATABASE_URL_VARIABLE, raising=False)
    assert test.check_postgresql().startswith(f"psycopg {psycopg.__version__} ({psycopg.pq.__impl__}), libpq ")
    monkeypatch.setenv(selftest.DATABASE_URL_VARIABLE, pg_url)
    assert "PostgreSQL" in test.check_postgresql().split("libpq", 1)[1]
    monkeypatch.setenv(selftest.DATABASE_URL_VARIABLE, pg_url.replace(f":{PASSWORD}@", ":wrong@"))
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        test.check_postgresql()


def test_postgresql_step_fails_without_a_compiled_libpq_wrapper(monkeypatch):
    import psycopg

    monkeypatch.setattr(psycopg.pq, "__impl__", "python")
    with pytest.raises(selftest.StepFailed, match="psycopg runs its python implementation"):
        selftest.SelfTest(Path("."), None).check_postgresql()


def test_window_step_fails_when_a_bundled_license_has_no_metadata(qapp, tmp_path, monkeypatch, capsys):
    from kiraos_desktop.ui import about_dialog

    real = about_dialog.bundled_licenses

    def without_peewee_metadata():
        return [about_dialog.LicenseInfo(i.component, "", i.license, "", False) if i.component == "peewee" else i
                for i in real()]

    monkeypatch.setattr(about_dialog, "bundled_licenses", without_peewee_metadata)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert selftest.run_self_test(log_path=tmp_path / "selftest.log") == 1
    assert "self-test failed at window: About dialog: no metadata (version, license) for peewee" in \
        capsys.readouterr().err


def test_window_step_fails_when_a_page_falls_back_to_a_placeholder(qapp, tmp_path, monkeypatch, capsys):
    from kiraos_desktop.ui import main_window

    monkeypatch.setattr(main_window.MainWindow, "_build_skills_page",
                        lambda self: main_window.placeholder_page("Skills", "not part of this build"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert selftest.run_self_test(log_path=tmp_path / "selftest.log") == 1
    assert "self-test failed at window: the Skills page shows a placeholder" in capsys.readouterr().err




# ---- what the frozen build leaves out ------------------------------------------------------

def test_mcp_serves_without_the_cryptography_package_the_frozen_build_leaves_out(tmp_path):
    # build.spec excludes cryptography and its runtime hook stands in for the names `mcp.server`
    # imports; a stand-in raises when used. MCP over HTTP (2025 and 2026 protocols) with the
    # stand-ins forced in place of the installed package:
    hook = REPO / "tools" / "pyinstaller" / "rthook_no_cryptography.py"
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(hook.parent)!r})\n"
        f"import {hook.stem} as hook\n"
        "assert hook.install(force=True)\n"
        "import pytest\n"
        "status = pytest.main(['-q', '-p', 'no:cacheprovider', 'tests/test_mcp_http.py',\n"
        "                      '-k', 'round_trip or 2026_protocol or context_resource'])\n"
        "assert getattr(sys.modules['cryptography'], hook.MARKER, False), 'the real cryptography got imported'\n"
        "raise SystemExit(status)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env,
                            timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "3 passed" in result.stdout


def test_cryptography_stand_ins_raise_when_used_and_hide_the_rest(tmp_path):
    hook = REPO / "tools" / "pyinstaller" / "rthook_no_cryptography.py"
    code = (
        f"import runpy\nhook = runpy.run_path({str(hook)!r})\nassert hook['install'](force=True)\n"
        "from cryptography.hazmat.primitives.ciphers.aead import AESGCM\n"
        "try:\n    AESGCM(bytes(32))\nexcept RuntimeError as exc:\n    print(exc)\n"
        "try:\n    from cryptography import x509\nexcept ModuleNotFoundError:\n    print('no x509')\n"
        "import jwt.algorithms\nprint('jwt crypto', jwt.algorithms.has_crypto)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "cryptography.AESGCM is not part of this build (the frozen app leaves the cryptography package out)",
        "no x509", "jwt crypto False"]


# ---- the wheel ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(REPO)],
                   check=True, timeout=600, capture_output=True)
    (found,) = out.glob("kiraos_desktop-*.whl")
    return found


@pytest.mark.packaging
def test_wheel_carries_templates_icons_and_skills(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    data = "kiraos_desktop/_data"
    for template in TEMPLATE_NAMES:
        assert f"{data}/resources/templates/{template}" in names
    assert f"{data}/resources/icons/{APP_ICON}" in names
    for skill in BUNDLED_SKILLS:
        assert f"{data}/skills/{skill}/manifest.json" in names
        assert f"{data}/skills/{skill}/instruction.md" in names
    assert f"{data}/resources/i18n/kiraos_desktop_zh_CN.qm" in names  # compiled by the build
    assert f"{data}/resources/i18n/kiraos_desktop_en.qm" in names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    assert not [n for n in names if n.startswith(("resources/", "skills/", "tests/"))]


@pytest.mark.packaging
def test_installed_wheel_finds_its_own_data(wheel, tmp_path):
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = ("import json\nfrom kiraos_desktop.core import resources as r\n"
            "print(json.dumps([str(r.templates_dir()), str(r.icons_dir()), str(r.bundled_skills_dir())]))")
    env = dict(os.environ, PYTHONPATH=str(site))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path,
                            check=True, timeout=60)
    data = site / "kiraos_desktop" / "_data"
    assert json.loads(result.stdout) == [str(data / "resources" / "templates"), str(data / "resources" / "icons"),
                                         str(data / "skills")]
