# Sourced by scripts: the release binary built exactly as the image builds it, and a free
# loopback port to start it on.

# Runs the Dockerfile's own `cargo build --release` line.
build_release() {
  local build
  build=$(sed -n 's/^RUN \(\([A-Z_]*=[^ ]* \)*cargo build --release.*\)$/\1/p' Dockerfile)
  [ -n "$build" ] || { echo "no cargo build line in the Dockerfile" >&2; return 1; }
  echo "+ $build" >&2
  # `env`, for the settings the line starts with.
  env $build
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
