#!/usr/bin/env python3
"""Runs the fenced code blocks of README.md and docs/*.md, so that the docs
cannot drift from what the tools do (issue 15). Standard library only.

Conventions (checked for every block of every file, whatever runs):

* Every fence names what it holds: ```sh (commands, run), ```python (run),
  ```pycon (an interactive session, run with doctest), ```text (output,
  synopses, sample text: not run), ```c, ```c++, ```mlir, ... (not run).
  A bare ``` fence is an error.
* An HTML comment on the line directly before a fence marks the block:
    <!-- doc-test: skip (reason) -->       not run; the reason is required
    <!-- doc-test: requires FEATURE -->    run only where the lit feature
                                           (e.g. cuda-gpu, nvcc) is available
  Only runnable blocks (sh, python, pycon) take a mark.
* Every block runs on its own, in a fresh scratch directory holding the
  files the docs name (SCRATCH_FILES; copies of x.npy in shards/ and as
  day-1.npy, day-2.npy; x.npy as extra.csv) plus links to `test/` and
  `examples/` of the repository (do not write there), with build/bin first
  on PATH. sh blocks run under `bash -e -o pipefail` (a command expected to
  fail is written `cmd || test $? -eq 2`); python blocks with the given
  interpreter; pycon blocks through doctest (ELLIPSIS; a traceback's text
  must match).

Used by test/Docs/docs.test (lit: the sh blocks) and by
python-bindings/tests/test_docs.py (pytest: the python and pycon blocks,
where `import seqc` works).

  run_doc_blocks.py --root REPO --bin BUILD/bin --lang sh [--features a,b] [FILE.md ...]
"""
import argparse
import ast
import dataclasses
import os
import pathlib
import re
import shutil
import struct
import subprocess
import sys
import tempfile

# Generated from TableGen: their blocks are the generator's business.
GENERATED = {"docs/Dialect.md", "docs/Passes.md", "docs/CpuPasses.md"}
RUNNABLE = {"sh", "python", "pycon"}

# The files a doc block may name, made from test/fixtures (no TensorFlow needed).
SCRATCH_FILES = {
    "model.h5": "test/fixtures/seed_build.h5",            # LSTM(64) -> Dense(32) -> Dense(1), (?, 10, 12)
    "model.keras": "test/fixtures/seed_keras3.keras",     # the same model saved by Keras 3
    "model.json": "test/fixtures/seed_json.json",         # model.to_json()
    "weights.h5": "test/fixtures/seed_json.weights.h5",   # model.save_weights()
    "x.npy": "test/fixtures/seed_build.input.npy",        # (3, 10, 12) float32
    "expected.npy": "test/fixtures/seed_build.expected.npy",  # Keras' own output for x.npy
    "data.h5": "test/e2e/Inputs/seed_rows.h5",            # dataset /x: (7, 10, 12) float32
}
LINKED_DIRS = ["test", "examples"]
# Several inputs, for --run's directories, globs and CSV: copies of x.npy.
COPIES_OF_X = ["shards/part-0.npy", "shards/part-1.npy", "day-1.npy", "day-2.npy"]

FENCE = re.compile(r"^( {0,3})(```+|~~~+)\s*([^\s`]*)(.*)$")
MARK = re.compile(r"^\s*<!--\s*doc-test:\s*(.*?)\s*-->\s*$")


@dataclasses.dataclass
class Block:
    path: str       # relative to the repository root
    line: int       # 1-based line of the opening fence
    lang: str
    text: str
    skip: str = ""      # reason, when marked skip
    requires: tuple = ()

    @property
    def id(self):
        return f"{self.path}:{self.line}"


class DocError(Exception):
    pass


def doc_files(root):
    root = pathlib.Path(root)
    files = [root / "README.md"] + sorted((root / "docs").glob("*.md"))
    return [f for f in files if str(f.relative_to(root)) not in GENERATED]


def parse(path, root):
    """The fenced blocks of one Markdown file; DocError lists every
    convention the file breaks."""
    rel = str(pathlib.Path(path).resolve().relative_to(pathlib.Path(root).resolve()))
    lines = pathlib.Path(path).read_text().splitlines()
    blocks, errors = [], []
    i = 0
    pending = None  # (line number, mark text) of a doc-test comment
    while i < len(lines):
        line = lines[i]
        mark = MARK.match(line)
        if mark:
            if pending:
                errors.append(f"{rel}:{pending[0]}: doc-test mark not directly before a fence")
            pending = (i + 1, mark.group(1))
            i += 1
            continue
        if line.lstrip().startswith("<!--") and "doc-test" in line:
            errors.append(f"{rel}:{i + 1}: malformed doc-test mark: {line.strip()}")
        fence = FENCE.match(line)
        if not fence:
            if pending:
                errors.append(f"{rel}:{pending[0]}: doc-test mark not directly before a fence")
                pending = None
            i += 1
            continue
        indent, ticks, lang, _ = fence.groups()
        start = i + 1
        body = []
        i += 1
        while i < len(lines) and not re.match(rf"^ {{0,3}}{re.escape(ticks[0])}{{{len(ticks)},}}\s*$", lines[i]):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        if i == len(lines):
            errors.append(f"{rel}:{start}: fence never closed")
        i += 1
        block = Block(rel, start, lang.lower(), "\n".join(body) + "\n")
        if not lang:
            errors.append(f"{rel}:{start}: bare fence: say what the block is "
                          "(```sh, ```python, ```text, ```c, ```mlir, ...)")
        if pending:
            kind, _, arg = pending[1].partition(" ")
            arg = arg.strip()
            if block.lang not in RUNNABLE:
                errors.append(f"{rel}:{pending[0]}: doc-test mark on a ```{block.lang} block, which never runs")
            elif kind == "skip":
                reason = arg[1:-1].strip() if arg.startswith("(") and arg.endswith(")") else ""
                if not reason:
                    errors.append(f"{rel}:{pending[0]}: doc-test: skip needs a reason: skip (why)")
                block.skip = reason or "?"
            elif kind == "requires" and arg:
                block.requires = tuple(f.strip() for f in arg.split(",") if f.strip())
            else:
                errors.append(f"{rel}:{pending[0]}: unknown doc-test mark '{pending[1]}' "
                              "(known: skip (reason), requires FEATURE)")
            pending = None
        blocks.append(block)
    if pending:
        errors.append(f"{rel}:{pending[0]}: doc-test mark not directly before a fence")
    if errors:
        raise DocError("\n".join(errors))
    return blocks


def collect(root, files=None):
    """Every block of the given files (default: README.md and docs/*.md but
    the generated ones); DocError lists the convention errors of all files."""
    blocks, errors = [], []
    for f in files or doc_files(root):
        try:
            blocks += parse(f, root)
        except DocError as e:
            errors.append(str(e))
    if errors:
        raise DocError("\n".join(errors))
    return blocks


def prepare_scratch(directory, root):
    root = pathlib.Path(root)
    directory = pathlib.Path(directory)
    for name, source in SCRATCH_FILES.items():
        shutil.copyfile(root / source, directory / name)
    for name in LINKED_DIRS:
        os.symlink(root / name, directory / name)
    for name in COPIES_OF_X:
        (directory / name).parent.mkdir(exist_ok=True)
        shutil.copyfile(directory / "x.npy", directory / name)
    write_csv(directory / "x.npy", directory / "extra.csv")


def read_npy_f32(path):
    """(shape, values) of a little-endian float32 C-order .npy."""
    data = pathlib.Path(path).read_bytes()
    assert data[:6] == b"\x93NUMPY", path
    size_bytes = 2 if data[6] == 1 else 4
    header_len = int.from_bytes(data[8:8 + size_bytes], "little")
    header = ast.literal_eval(data[8 + size_bytes:8 + size_bytes + header_len].decode("latin1"))
    assert header["descr"] == "<f4" and not header["fortran_order"], path
    body = data[8 + size_bytes + header_len:]
    return header["shape"], struct.unpack(f"<{len(body) // 4}f", body)


def write_csv(npy, csv):
    """x.npy as CSV: a header line, then one sample (all its numbers) per line."""
    shape, values = read_npy_f32(npy)
    per_row = len(values) // shape[0]
    lines = [",".join(f"f{i}" for i in range(per_row))]
    for r in range(shape[0]):
        lines.append(",".join(repr(v) for v in values[r * per_row:(r + 1) * per_row]))
    pathlib.Path(csv).write_text("\n".join(lines) + "\n")


def environment(bin_dir):
    env = dict(os.environ)
    env["PATH"] = f"{os.path.abspath(bin_dir)}{os.pathsep}{env.get('PATH', '')}"
    return env


def run_block(block, root, bin_dir, python=sys.executable, timeout=600):
    """Runs one block in a fresh scratch directory. Returns (ok, output)."""
    with tempfile.TemporaryDirectory(prefix="seqc-doc-") as scratch:
        prepare_scratch(scratch, root)
        env = environment(bin_dir)
        if block.lang == "sh":
            cmd = ["bash", "-e", "-o", "pipefail", "-c", block.text]
        elif block.lang == "python":
            cmd = [python, "-c", block.text]
        elif block.lang == "pycon":
            cmd = [python, "-c", PYCON_RUNNER, block.id, block.text]
        else:
            raise ValueError(f"{block.id}: ```{block.lang} does not run")
        try:
            proc = subprocess.run(cmd, cwd=scratch, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            return False, f"timed out after {timeout} s\n{e.stdout or ''}"
        return proc.returncode == 0, proc.stdout


# doctest over one session, as a subprocess so that each block is on its own.
PYCON_RUNNER = r"""
import doctest, sys
name, text = sys.argv[1], sys.argv[2]
test = doctest.DocTestParser().get_doctest(text, {}, name, name, 0)
runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
runner.run(test)
sys.exit(1 if runner.failures else 0)
"""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", required=True, help="the repository")
    parser.add_argument("--bin", required=True, help="build/bin, put first on PATH")
    parser.add_argument("--lang", action="append", default=[],
                        help="run the blocks of this language (repeatable; default: sh)")
    parser.add_argument("--features", default="", help="available features, comma-separated (lit's)")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--list", action="store_true", help="list the blocks, run nothing")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args(argv)
    langs = set(args.lang or ["sh"])
    features = {f for f in args.features.replace(" ", ",").split(",") if f}
    try:
        blocks = collect(args.root, args.files)
    except DocError as e:
        print(e)
        print("doc blocks: convention errors (see test/Docs/run_doc_blocks.py)")
        return 1
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    for block in blocks:
        if block.lang not in langs:
            continue
        missing = [f for f in block.requires if f not in features]
        if args.list:
            print(f"{block.id} ```{block.lang}")
            continue
        if block.skip:
            print(f"SKIP {block.id} ({block.skip})")
            counts["skipped"] += 1
            continue
        if missing:
            print(f"UNSUPPORTED {block.id} (requires {', '.join(missing)})")
            counts["skipped"] += 1
            continue
        ok, output = run_block(block, args.root, args.bin, args.python)
        if ok:
            print(f"PASS {block.id}")
            counts["passed"] += 1
        else:
            counts["failed"] += 1
            print(f"FAIL {block.id} ```{block.lang}")
            print("  " + block.text.rstrip().replace("\n", "\n  "))
            print("  --- output ---")
            print("  " + output.rstrip().replace("\n", "\n  "))
    print(f"doc blocks ({', '.join(sorted(langs))}): {counts['passed']} passed, "
          f"{counts['failed']} failed, {counts['skipped']} skipped")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
