# Sourced by scripts: installs the Firestore emulator the tests use (tests/firestore-emulator,
# pinned and patched), starts it on a free loopback port, exports FIRESTORE_EMULATOR_HOST, and
# stops it when the calling script exits. The one shell launcher: Rust code that needs an emulator
# of its own (tests that stop it, the benchmark harness) starts it with tests/common/emulator.rs.

install_firestore_emulator() {
  npm ci --prefix tests/firestore-emulator --no-audit --no-fund --loglevel=error >&2
}

start_firestore_emulator() {
  local dir=tests/firestore-emulator fifo word address
  install_firestore_emulator
  # Its first line is `listening <host:port>`, once it accepts connections.
  fifo=$(mktemp -u)
  mkfifo "$fifo"
  node "$dir/server.js" 0 >"$fifo" 2>&1 &
  emulator_pid=$!
  trap 'kill "$emulator_pid" 2>/dev/null || true' EXIT
  exec 3<"$fifo"
  rm "$fifo"
  if ! read -r -t 60 word address <&3 || [ "$word" != listening ]; then
    echo "the Firestore emulator did not start: $word $address" >&2
    return 1
  fi
  cat <&3 >&2 &
  export FIRESTORE_EMULATOR_HOST=$address
}
