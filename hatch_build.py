"""The wheel's build hook: compile the engine (mypyc) and the C core into it.

``python -m build`` builds the sdist and then a wheel from it; this hook runs
for the wheel (not for editable installs, which ``./setup`` compiles in place).
It calls ``scripts/build_native.py`` to compile into a scratch directory and
adds the built modules, plus ``kozyr/_native_build.json`` (the SHA-256 of each
compiled source, which the stale-build check of an installed wheel compares),
to the wheel, which becomes a platform wheel.  Without a working compiler the
wheel stays pure Python: the same code runs, slower (docs/library.md).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
import traceback
from pathlib import Path
from typing import Any

from hatchling.builders.config import BuilderConfig
from hatchling.builders.hooks.plugin.interface import BuildHookInterface


def _build_native(root: Path) -> Any:
    spec = importlib.util.spec_from_file_location(
        "kozyr_build_native", root / "scripts" / "build_native.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class NativeBuildHook(BuildHookInterface[BuilderConfig]):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        if os.environ.get("KOZYR_PURE_PYTHON"):
            self.app.display_info("kozyr: KOZYR_PURE_PYTHON is set: a pure-Python wheel")
            return
        self._scratch = Path(tempfile.mkdtemp(prefix="kozyr-wheel-"))
        try:
            built = _build_native(Path(self.root)).build_for_wheel(self._scratch)
        except BaseException as exc:  # no compiler, mypyc missing...: pure Python
            if isinstance(exc, KeyboardInterrupt):
                raise
            self.app.display_warning(
                "kozyr: compiling the engine and the core failed; building a pure-Python "
                f"wheel (the same code, slower): {type(exc).__name__}: {exc}"
            )
            self.app.display_debug(traceback.format_exc())
            return
        for path in built:
            build_data["force_include"][str(path)] = str(path.relative_to(self._scratch))
        build_data["pure_python"] = False
        build_data["infer_tag"] = True

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        scratch = getattr(self, "_scratch", None)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
