"""No input file may kill the interpreter: hostile files raise seqc.Error
(test/Frontend/Inputs/hostile holds them; test/Frontend/hostile.test checks
the same files through seq-compile)."""
import os
import subprocess
import sys

import pytest

import seqc
from conftest import FIXTURES

HOSTILE = FIXTURES.parent / "Frontend" / "Inputs" / "hostile"


@pytest.mark.parametrize("name,message", [
    ("external_storage.h5", "keeps its data in an external file ('/proc/self/environ')"),
    ("external_link.h5", "is an external link to another file"),
    ("huge_declared.h5", "declares 4000000000000 bytes of data"),
    ("deep_json.h5", "nests JSON deeper than 256 levels"),
    ("duplicate_config.keras", "zip member 'config.json' appears twice"),
    ("alignment_zero.mlir", "declares alignment 0"),
])
def test_hostile_file_raises(name, message):
    with pytest.raises(seqc.Error, match=message.replace("(", r"\(").replace(")", r"\)")):
        seqc.load(str(HOSTILE / name))


@pytest.mark.parametrize("fault", ["crash", "oom", "hang"])
def test_reader_failure_leaves_the_interpreter_alive(fault):
    # In a fresh interpreter, so that the fault switch reaches only it.
    code = (
        "import seqc, sys\n"
        "try:\n"
        f"    seqc.load({str(FIXTURES / 'seed_build.h5')!r})\n"
        "except seqc.Error as e:\n"
        "    print('raised:', e)\n"
        "print('alive')\n")
    env = dict(os.environ, SEQC_INJECT_READER_FAULT=fault, SEQC_READER_TIMEOUT="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "the HDF5 library" in out.stdout and "(the file is corrupt or hostile)" in out.stdout
    assert out.stdout.rstrip().endswith("alive")


def test_names_from_the_file_stay_one_inert_line():
    # A layer named "evil\n\x1b[31mred": the message is one line, escaped as
    # seq-compile prints it.
    with pytest.raises(seqc.Error) as raised:
        seqc.load(str(HOSTILE / "control_name.h5"))
    message = str(raised.value)
    assert "\n" not in message and "\x1b" not in message, repr(message)
    assert r"layer 'evil\n\x1b[31mred' (Dropout)" in message
