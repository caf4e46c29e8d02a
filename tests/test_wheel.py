"""The wheel (issue 28): ``python -m build`` makes a wheel with the compiled
engine and C core, which installs into a fresh virtual environment and gives a
working ``kozyr`` and ``import kozyr`` with no warnings.

Slow by nature (a mypyc compile, a venv, an install: about two to three
minutes on the 2-core machine), so it builds once per module, and the tests
that need the built wheel are marked slow: ``./test -m slow tests/test_wheel.py``
(the two about the build hook run by default).  It builds
without isolation (the dev extra pins hatchling, mypy and setuptools as
``[build-system]`` does), so it needs no download of build tools; installing
the wheel's dependencies uses pip's cache or PyPI.  Skipped without a C
compiler (the wheel would be pure Python: see test_the_hook_falls_back...).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path
from typing import Any

import pytest

from kozyr.bench.launch import listening_port
from kozyr.bots.native import MODULES as BOTS_MODULES
from kozyr.engine.native import MODULES as ENGINE_MODULES

ROOT = Path(__file__).resolve().parents[1]
HAS_CC = any(shutil.which(cc) for cc in (os.environ.get("CC", "cc"), "cc", "gcc"))
needs_cc = pytest.mark.skipif(not HAS_CC, reason="no C compiler: the wheel would be pure Python")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Build the sdist and the wheel from it, and install the wheel in a fresh venv."""
    out = tmp_path_factory.mktemp("wheel")
    dist = out / "dist"
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    wheels = list(dist.glob("kozyr-*.whl"))
    assert len(wheels) == 1, wheels
    venv = out / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    proc = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "--quiet", str(wheels[0])],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {"wheel": wheels[0], "venv": venv, "home": out / "home"}


def _run(
    built: dict[str, Path], *argv: str | Path, **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KOZYR_HOME": str(built["home"])}
    env.pop("PYTHONPATH", None)
    return subprocess.run(
        [str(a) for a in argv],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=built["home"].parent,
        env=env,
        **kwargs,
    )


IMPORT_CHECK = """
import json, kozyr, kozyr.engine, kozyr.bots, kozyr.core, kozyr.cli.main
print(json.dumps({
    "engine": kozyr.engine.native.COMPILED,
    "search": kozyr.bots.SEARCH_COMPILED,
    "core": kozyr.core.AVAILABLE,
    "where": kozyr.__file__,
}))
"""


@needs_cc
@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_the_wheel_holds_the_compiled_modules_and_the_web_client(built):
    assert built["wheel"].name.startswith("kozyr-0.1.0-cp3")  # a platform wheel
    names = set(zipfile.ZipFile(built["wheel"]).namelist())
    so = {n for n in names if n.endswith(".so")}
    for package, modules in (("engine", ENGINE_MODULES), ("bots", BOTS_MODULES)):
        for m in modules:
            assert any(n.startswith(f"kozyr/{package}/{m}.") for n in so), (package, m)
    assert any(n.startswith("kozyr/core/_core.") for n in so)
    assert any(n.startswith("kozyr/_native__mypyc.") for n in so)
    assert "kozyr/_native_build.json" in names
    assert "kozyr/web/static/index.html" in names
    assert "kozyr/py.typed" in names  # PEP 561: its types reach other programs
    assert not [n for n in names if n.endswith((".c", ".h"))]


@needs_cc
@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_the_installed_wheel_imports_compiled_with_no_warning(built):
    python = built["venv"] / "bin" / "python"
    built["home"].mkdir(exist_ok=True)
    proc = _run(built, python, "-W", "error", "-c", IMPORT_CHECK)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    found = json.loads(proc.stdout)
    assert found["engine"] and found["search"] and found["core"]
    assert found["where"].startswith(str(built["venv"]))


@needs_cc
@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_install_times_do_not_warn_but_an_edited_source_does(built):
    """Sources newer than their compiled modules (as an install may leave them)
    are fine; a source whose content changed after the build warns."""
    python = built["venv"] / "bin" / "python"
    built["home"].mkdir(exist_ok=True)
    site = Path(json.loads(_run(built, python, "-c", IMPORT_CHECK).stdout)["where"]).parent
    later = time.time() + 100
    for source in site.rglob("*.py"):
        os.utime(source, (later, later))
    proc = _run(built, python, "-W", "error", "-c", IMPORT_CHECK)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    state = site / "engine" / "state.py"
    original = state.read_bytes()
    try:
        state.write_bytes(original + b"\n# edited after the build\n")
        proc = _run(built, python, "-c", "import kozyr.engine")
        assert "RuntimeWarning" in proc.stderr and "state" in proc.stderr, proc.stderr
    finally:
        state.write_bytes(original)


@needs_cc
@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_kozyr_replay_and_play_work_from_the_wheel(built):
    kozyr = built["venv"] / "bin" / "kozyr"
    built["home"].mkdir(exist_ok=True)
    proc = _run(built, kozyr, "replay", ROOT / "examples" / "short-game.json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["state"]["result"] == {"durak": 1}
    proc = _run(
        built, kozyr, "play", "--players", "2", "--seed", "1", "--level", "4", input="?\nq\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert "North (level 4)" in proc.stdout and "You left the game" in proc.stdout


@needs_cc
@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_kozyr_serve_from_the_wheel_serves_the_web_client(built):
    kozyr = built["venv"] / "bin" / "kozyr"
    home = built["home"]
    home.mkdir(exist_ok=True)
    env = {**os.environ, "KOZYR_HOME": str(home)}
    env.pop("PYTHONPATH", None)
    server = subprocess.Popen(
        [str(kozyr), "serve", "--port", "0", "--db", f"sqlite:///{home / 'serve.db'}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=home,
        env=env,
    )
    try:
        port = None
        deadline = time.monotonic() + 60
        assert server.stdout is not None
        while port is None and time.monotonic() < deadline:
            line = server.stdout.readline()
            if not line:
                break
            port = listening_port(line)
        assert port is not None, "the server never said it was listening"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as reply:
            page = reply.read().decode()
        assert reply.status == 200 and "<html" in page.lower()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=10) as reply:
            assert reply.status == 200
    finally:
        server.terminate()
        server.wait(timeout=30)
        if server.stdout is not None:
            server.stdout.close()


def test_the_hook_falls_back_to_pure_python_when_compiling_fails(tmp_path, monkeypatch):
    """Without a compiler (here: a build that raises) the hook leaves the wheel
    pure Python instead of failing the install: the sdist still installs."""
    pytest.importorskip("hatchling")
    spec = importlib.util.spec_from_file_location("kozyr_hatch_build", ROOT / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    hook_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook_module)

    class Failing:
        @staticmethod
        def build_for_wheel(into: Path) -> list[Path]:
            raise RuntimeError("error: command 'cc' failed: No such file or directory")

    class App:
        def __init__(self) -> None:
            self.warnings: list[str] = []

        def display_warning(self, text: str) -> None:
            self.warnings.append(text)

        def display_debug(self, text: str) -> None:
            pass

        def display_info(self, text: str) -> None:
            pass

    monkeypatch.setattr(hook_module, "_build_native", lambda root: Failing)
    app = App()
    hook = hook_module.NativeBuildHook(str(ROOT), {}, None, None, str(tmp_path), "wheel", app=app)
    build_data: dict[str, Any] = {"force_include": {}, "pure_python": True}
    hook.initialize("standard", build_data)
    assert build_data == {"force_include": {}, "pure_python": True}
    assert app.warnings and "pure-Python wheel" in app.warnings[0]
    hook.initialize("editable", build_data)  # ./setup compiles in place: nothing to do
    assert build_data == {"force_include": {}, "pure_python": True}


def test_a_wheel_judges_staleness_by_content_not_by_time(tmp_path):
    """With the manifest an installed wheel carries, a source newer than its
    compiled module is current if its content is what was compiled, and stale
    if not; without the manifest (a checkout) times decide, as before."""
    import hashlib

    from kozyr import core
    from kozyr.engine import native

    package = tmp_path / "kozyr"
    engine = package / "engine"
    engine.mkdir(parents=True)
    (package / "core").mkdir()
    source = engine / "state.py"
    source.write_text("x = 1\n")
    built = engine / "state.cpython-311-x86_64-linux-gnu.so"
    built.write_bytes(b"")
    os.utime(built, (1_000, 1_000))
    os.utime(source, (2_000, 2_000))
    assert native.stale_modules(engine, ["state"]) == ["state"]  # a checkout: times
    digest = hashlib.sha256(b"x = 1\n").hexdigest()
    (package / native.MANIFEST).write_text(json.dumps({"sources": {"engine/state.py": digest}}))
    assert native.stale_modules(engine, ["state"]) == []  # a wheel: same content
    source.write_text("x = 2\n")
    assert native.stale_modules(engine, ["state"]) == ["state"]
    (package / "core" / "_core.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")
    assert core.stale_sources(package / "core") == []  # a wheel ships no C sources


CONSUMER = """
from kozyr.engine.rules import Rules

rules = Rules(players=2)
players: str = rules.players
"""


def test_other_programs_type_check_against_the_package(tmp_path):
    """The package says it is typed (PEP 561's ``py.typed``), so a program that
    imports it, type-checked outside this repository, gets kozyr's own types:
    here a wrong one is caught instead of the import being skipped as untyped."""
    consumer = tmp_path / "consumer.py"
    consumer.write_text(CONSUMER)
    env = {**os.environ}
    env.pop("PYTHONPATH", None)
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"), str(consumer)],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=tmp_path,
        env=env,
    )
    assert "import-untyped" not in proc.stdout, proc.stdout
    assert 'expression has type "int", variable has type "str"' in proc.stdout, proc.stdout
    assert proc.returncode == 1
