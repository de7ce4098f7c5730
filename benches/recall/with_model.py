"""What the benchmarks with a model share: a virtualenv to run in (holding
benches/recall/requirements.txt, numpy and tokenizers, unless told otherwise), and the tests'
embedding model (multilingual-e5-small), written as the tests write it."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
VENV = ROOT / "target" / "bench-recall" / "venv"


def in_venv(script, venv=VENV, requirements=ROOT / "benches" / "recall" / "requirements.txt"):
    """Runs `script` again in the virtualenv `venv`, made and filled with `requirements`
    first, unless it already runs there."""
    python = venv / "bin" / "python"
    if Path(sys.prefix).resolve() == venv.resolve():
        return
    if not python.exists():
        venv.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    "-r", str(requirements)], check=True)
    os.execv(str(python), [str(python), script, *sys.argv[1:]])


def default_model():
    """The tests' model's directory (scripts/lib/multilingual-model.sh fetches, checks and
    writes it)."""
    fetched = subprocess.run(
        ["bash", "-c", "source scripts/lib/multilingual-model.sh && fetch_multilingual_model >&2"
                       " && echo \"$KIOKU_TEST_MULTILINGUAL_MODEL\""],
        cwd=ROOT, stdout=subprocess.PIPE, text=True, check=True)
    return fetched.stdout.strip()
