"""tinygrad's mock GPU on amdpcode (issue 13): ``test/backend/test_dtype_alu.py`` of the tinygrad
snapshot in ``../shared/tinygrad`` runs through the pytest plugin on RDNA 3 (skipped, with the
reason, when the snapshot or Debian's libllvm22 is missing). Failures other than the known ones
below fail this test; so does a run that passes nothing."""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile

import pytest

from amdpcode.tinygrad import write_kfd_header

ROOT = pathlib.Path(__file__).resolve().parents[2]
TARBALL = ROOT.parent / "shared" / "tinygrad" / "tinygrad-a9069c177a-src.tar.gz"

# Known differences from tinygrad's own emulator (none now); each entry would say what is known
# of the cause.
KNOWN_FAILURES: set = set()


def _llvm():
  try:
    out = subprocess.run(["dpkg", "-L", "libllvm22"], capture_output=True, text=True).stdout
  except OSError:
    return None
  return next((l for l in out.splitlines() if l.endswith("libLLVM.so.22.1")), None)


@pytest.mark.skipif(not TARBALL.exists(), reason=f"tinygrad snapshot not found at {TARBALL}")
@pytest.mark.skipif(_llvm() is None, reason="Debian's libllvm22 (package llvm-22) is not installed")
@pytest.mark.skipif(os.environ.get("AMDPCODE_TINYGRAD") != "1",
                    reason="long (minutes): run with AMDPCODE_TINYGRAD=1 (.ci/run does)")
def test_tinygrad_dtype_alu_rdna3(tmp_path):
  with tarfile.open(TARBALL) as t: t.extractall(tmp_path)
  tree = next(p for p in tmp_path.iterdir() if (p / "tinygrad").is_dir())
  write_kfd_header(tree)
  env = dict(os.environ, DEV="MOCK+AMD:LLVM", LLVM_PATH=_llvm(), PYTHONPATH=str(tree))
  # tinygrad's CPU device (the reference side of some tests) runs `clang`; Debian's clang-22
  # package installs only `clang-22`.
  if shutil.which("clang") is None and shutil.which("clang-22") is not None:
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "clang").symlink_to(shutil.which("clang-22"))
    env["PATH"] = f"{tmp_path / 'bin'}{os.pathsep}{env.get('PATH', '')}"
  # A fixed hypothesis seed keeps this run reproducible (AMDPCODE_HYPOTHESIS_SEED overrides it;
  # other seeds explore other inputs).
  seed = os.environ.get("AMDPCODE_HYPOTHESIS_SEED", "0")
  r = subprocess.run([sys.executable, "-m", "pytest", "-p", "amdpcode.tinygrad", "-p", "no:cacheprovider",
                      f"--hypothesis-seed={seed}", "test/backend/test_dtype_alu.py", "-q", "-rf"],
                     cwd=tree, env=env, capture_output=True, text=True, timeout=3600)
  out = r.stdout + r.stderr
  failed = set(re.findall(r"^FAILED \S+::(\w+)", out, re.M))
  passed = re.search(r"(\d+) passed", out)
  assert passed and int(passed.group(1)) > 0, out[-3000:]
  assert "amdpcode:" in out and " 0 launches" not in out, out[-3000:]
  assert failed <= KNOWN_FAILURES, f"new failures {sorted(failed - KNOWN_FAILURES)}:\n{out[-5000:]}"
  assert r.returncode in (0, 1), out[-3000:]
