# Sourced by .ci/run (bash, set -euo pipefail): a redis-server of the run's
# own for the tests of ./redisbroker.
#
#   source .ci/redis.sh      installs the Debian package redis-server if it
#                            is missing, starts redis-server on 127.0.0.1 on
#                            the first free port of 6390-6399 (no persistence,
#                            daemonized, pid file and log in a temp dir),
#                            waits until it answers PING, and exports
#                            REDIS_ADDR=127.0.0.1:PORT.
#   redis_stop               stops that server and removes its temp dir.
#                            Idempotent; safe in an EXIT trap.
#
# The tests read REDIS_ADDR; under CI=true they fail when it is unset or
# unreachable. The restart test also runs redis-server itself (from PATH).

redis_start() {
  REDIS_CI_PORT=
  if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
    echo "== installing redis-server (Debian package)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  fi
  local port
  for port in 6390 6391 6392 6393 6394 6395 6396 6397 6398 6399; do
    # A port something answers on is not ours: never use another's server.
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      REDIS_CI_PORT=$port
      break
    fi
  done
  if [ -z "${REDIS_CI_PORT:-}" ]; then
    echo "redis.sh: no free port in 6390-6399" >&2
    return 1
  fi
  REDIS_CI_DIR=$(mktemp -d)
  redis-server --port "$REDIS_CI_PORT" --bind 127.0.0.1 --protected-mode yes \
    --save '' --appendonly no --dir "$REDIS_CI_DIR" \
    --daemonize yes --pidfile "$REDIS_CI_DIR/redis.pid" --logfile "$REDIS_CI_DIR/redis.log"
  local i
  for i in $(seq 1 100); do
    if [ "$(redis-cli -h 127.0.0.1 -p "$REDIS_CI_PORT" ping 2>/dev/null)" = "PONG" ]; then
      export REDIS_ADDR="127.0.0.1:$REDIS_CI_PORT"
      echo "== redis-server $(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p') on $REDIS_ADDR"
      return 0
    fi
    sleep 0.1
  done
  echo "redis.sh: redis-server did not answer on port $REDIS_CI_PORT; its log:" >&2
  cat "$REDIS_CI_DIR/redis.log" >&2 || true
  redis_stop
  return 1
}

redis_stop() {
  if [ -n "${REDIS_CI_DIR:-}" ]; then
    if [ -f "$REDIS_CI_DIR/redis.pid" ]; then
      local pid i
      pid=$(cat "$REDIS_CI_DIR/redis.pid")
      kill "$pid" 2>/dev/null || true
      for i in $(seq 1 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
      done
      kill -9 "$pid" 2>/dev/null || true
    fi
    rm -rf "$REDIS_CI_DIR"
  fi
  REDIS_CI_DIR=
  unset REDIS_ADDR
}

redis_start
