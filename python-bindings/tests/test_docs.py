"""The ```python and ```pycon blocks of README.md and docs/*.md run, each on
its own in a scratch directory with the files the docs name, with this
interpreter (where `import seqc` is the installed module). The runner and its
conventions are test/Docs/run_doc_blocks.py, which the lit suite uses for the
```sh blocks (test/Docs/docs.test).

Blocks marked `<!-- doc-test: requires ray -->` (docs/Scale.md) run here too,
```sh ones included, where this environment has Ray: lit runs before the
project's environment (build/venv) is set up, so it has no feature "ray" and
lists them as unsupported."""
import importlib.util
import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "test" / "Docs"))
import run_doc_blocks  # noqa: E402

# Not build/bin of a particular build: the Python blocks need no tool, but a
# block that shells out finds them where scripts/build.sh puts them.
BIN = ROOT / "build" / "bin"
# The features this environment gives blocks (lit's names).
FEATURES = {"ray"} if importlib.util.find_spec("ray") else set()
BLOCKS = [b for b in run_doc_blocks.collect(ROOT)
          if b.lang in ("python", "pycon") or (b.lang == "sh" and b.requires == ("ray",))]


def test_there_are_python_blocks():
    assert any(b.path == "README.md" for b in BLOCKS)
    assert any(b.path == "docs/Python.md" for b in BLOCKS)


def block_param(block):
    """A block that starts a local Ray cluster runs on the pytest worker that
    runs test_ray.py (run-tests.sh's --dist loadgroup), never beside another
    cluster."""
    marks = [pytest.mark.xdist_group("ray")] if "ray" in block.requires else []
    return pytest.param(block, marks=marks, id=block.id)


@pytest.mark.parametrize("block", [block_param(b) for b in BLOCKS])
def test_doc_block(block):
    if block.skip:
        pytest.skip(block.skip)
    if "ray" in block.requires and "ray" not in FEATURES:
        pytest.skip("requires ray, which this environment does not have "
                    "(python-bindings/requirements-ray.txt)")
    if set(block.requires) - FEATURES:
        pytest.skip(f"requires {', '.join(block.requires)} (lit features; not checked here)")
    # seq-compile --ray hands over to this Python, which has seqc and ray.
    os.environ["SEQC_PYTHON"] = sys.executable
    ok, output = run_doc_blocks.run_block(block, ROOT, BIN, python=sys.executable)
    assert ok, f"{block.id} failed:\n{block.text}\n--- output ---\n{output}"
