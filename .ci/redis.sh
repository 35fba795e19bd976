# Sourced by .ci/run (bash, set -euo pipefail): the redis-servers of the
# run's own for the tests of ./redisbroker, all on 127.0.0.1, no persistence,
# daemonized, with pid files and logs in one temp dir.
#
#   source .ci/redis.sh      installs the Debian packages redis-server and
#                            openssl if they are missing (as root, or
#                            through sudo; starting the servers needs no
#                            root), then starts and waits for
#     a plain node           on the first free port of 6390-6399, exported as
#                            REDIS_ADDR=127.0.0.1:PORT;
#     a Redis Cluster        of three masters (no replicas) on free ports of
#                            6400-6479 (their cluster bus ports, +10000, free
#                            too), joined with redis-cli --cluster create and
#                            waited for until every node says
#                            cluster_state:ok, exported as
#                            REDIS_CLUSTER_ADDRS=127.0.0.1:P1,127.0.0.1:P2,...;
#     a TLS-only node        (--port 0) on a free port of 6480-6499 whose
#                            default user is off and whose one broker user
#                            may run only the commands the broker needs, on
#                            the test prefixes' keys and channels (the list
#                            is redisbroker's package doc; see users.acl
#                            below), exported as REDIS_TLS_ADDR, REDIS_TLS_CA
#                            (the PEM file of the CA that signed the server's
#                            certificate for IP 127.0.0.1, made here with
#                            openssl), REDIS_TLS_USER, REDIS_TLS_PASSWORD; and
#                            an admin user for the tests' own inspection
#                            (REDIS_TLS_ADMIN_USER, REDIS_TLS_ADMIN_PASSWORD).
#   redis_stop               stops every one of them and removes the temp
#                            dir. Idempotent; safe in an EXIT trap.
#
# The tests read these variables; under CI=true they fail when one is unset
# or its server does not answer. The failure tests (a node killed, a
# failover, a restart) start redis-servers of their own (from PATH).

# redis_free_port LO HI [BUS]: sets REDIS_CI_PORT to the first port of
# LO..HI that nothing listens on (with BUS, whose port+10000 is free too),
# not already taken by this script. A port something answers on is not ours: never use
# another's server.
redis_free_port() {
  local lo=$1 hi=$2 bus=${3:-} p
  for p in $(seq "$lo" "$hi"); do
    case " ${REDIS_CI_TAKEN:-} " in *" $p "*) continue ;; esac
    if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then continue; fi
    if [ -n "$bus" ] && (exec 3<>"/dev/tcp/127.0.0.1/$((p + 10000))") 2>/dev/null; then continue; fi
    REDIS_CI_TAKEN="${REDIS_CI_TAKEN:-} $p"
    REDIS_CI_PORT=$p
    return 0
  done
  echo "redis.sh: no free port in $lo-$hi" >&2
  return 1
}

# redis_run NAME ARGS...: starts a daemonized redis-server with its pid
# file, log and dir in $REDIS_CI_DIR/NAME.
redis_run() {
  local name=$1
  shift
  mkdir -p "$REDIS_CI_DIR/$name"
  redis-server --bind 127.0.0.1 --protected-mode yes \
    --save '' --appendonly no --dir "$REDIS_CI_DIR/$name" \
    --daemonize yes --pidfile "$REDIS_CI_DIR/$name/redis.pid" --logfile "$REDIS_CI_DIR/$name/redis.log" \
    "$@"
}

# redis_wait NAME CMD...: waits until CMD prints PONG (about 10 s).
redis_wait() {
  local name=$1 i
  shift
  for i in $(seq 1 100); do
    if [ "$("$@" ping 2>/dev/null)" = "PONG" ]; then return 0; fi
    sleep 0.1
  done
  echo "redis.sh: redis-server $name did not answer; its log:" >&2
  cat "$REDIS_CI_DIR/$name/redis.log" >&2 || true
  return 1
}

# redis_install PACKAGE...: installs Debian packages with apt-get, as root
# or through sudo.
redis_install() {
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    if ! command -v sudo >/dev/null; then
      echo "redis.sh: $* missing, and neither root nor sudo is available to install them (apt-get install $*)" >&2
      return 1
    fi
    sudo=sudo
  fi
  echo "== installing $* (Debian packages)"
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

redis_start() {
  if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
    redis_install redis-server || return 1
  fi
  if ! command -v openssl >/dev/null; then
    redis_install openssl || return 1
  fi
  REDIS_CI_DIR=$(mktemp -d)
  REDIS_CI_TAKEN=
  local version
  version=$(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p')

  # The plain node.
  local port
  redis_free_port 6390 6399 || { redis_stop; return 1; }
  port=$REDIS_CI_PORT
  redis_run plain --port "$port"
  redis_wait plain redis-cli -h 127.0.0.1 -p "$port" || { redis_stop; return 1; }
  export REDIS_ADDR="127.0.0.1:$port"
  echo "== redis-server $version on $REDIS_ADDR"

  # The cluster: three masters, every slot, no replicas.
  local addrs=() p
  for _ in 1 2 3; do
    redis_free_port 6400 6479 bus || { redis_stop; return 1; }
    p=$REDIS_CI_PORT
    redis_run "cluster-$p" --port "$p" --cluster-enabled yes \
      --cluster-config-file nodes.conf --cluster-node-timeout 5000
    addrs+=("127.0.0.1:$p")
  done
  for a in "${addrs[@]}"; do
    redis_wait "cluster-${a##*:}" redis-cli -h 127.0.0.1 -p "${a##*:}" || { redis_stop; return 1; }
  done
  if ! redis-cli --cluster create "${addrs[@]}" --cluster-replicas 0 --cluster-yes >"$REDIS_CI_DIR/cluster-create.log" 2>&1; then
    echo "redis.sh: redis-cli --cluster create failed:" >&2
    cat "$REDIS_CI_DIR/cluster-create.log" >&2
    redis_stop
    return 1
  fi
  local ok i
  for i in $(seq 1 200); do
    ok=0
    for a in "${addrs[@]}"; do
      if redis-cli -h 127.0.0.1 -p "${a##*:}" cluster info 2>/dev/null | grep -q '^cluster_state:ok'; then
        ok=$((ok + 1))
      fi
    done
    [ "$ok" = "${#addrs[@]}" ] && break
    sleep 0.1
  done
  if [ "$ok" != "${#addrs[@]}" ]; then
    echo "redis.sh: the cluster never reached cluster_state:ok:" >&2
    redis-cli -h 127.0.0.1 -p "${addrs[0]##*:}" cluster info >&2 || true
    redis_stop
    return 1
  fi
  REDIS_CLUSTER_ADDRS=$(IFS=,; echo "${addrs[*]}")
  export REDIS_CLUSTER_ADDRS
  echo "== redis-server $version cluster of three masters on $REDIS_CLUSTER_ADDRS"

  # The TLS-only node with ACL users. A CA and a server certificate for IP
  # 127.0.0.1, made here, valid for two days.
  local tls=$REDIS_CI_DIR/tls
  mkdir -p "$tls"
  if ! (
    set -e
    cd "$tls"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
      -keyout ca.key -out ca.crt -days 2 -subj "/CN=ocpgen CI Redis CA" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
      -keyout server.key -out server.csr -subj "/CN=127.0.0.1"
    printf '%s\n' "subjectAltName=IP:127.0.0.1" "basicConstraints=critical,CA:FALSE" \
      "keyUsage=critical,digitalSignature" "extendedKeyUsage=serverAuth" >server.ext
    openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
      -out server.crt -days 2 -extfile server.ext
    chmod 600 ca.key server.key
  ) >"$REDIS_CI_DIR/openssl.log" 2>&1; then
    echo "redis.sh: openssl failed:" >&2
    cat "$REDIS_CI_DIR/openssl.log" >&2
    redis_stop
    return 1
  fi
  local user=ocp-broker pass admin=ocp-ci-admin adminpass
  pass=$(openssl rand -hex 24)
  adminpass=$(openssl rand -hex 24)
  # The broker user: redisbroker.ACLCommands (a test checks this list
  # against it) and no other, on the keys and channels of the default prefix and the tests'
  # prefixes ({ocptest-...}) only. go-redis opens each connection with HELLO
  # (which authenticates), names it with CLIENT SETNAME when asked, and
  # tells its library with CLIENT SETINFO (Redis 7.2 and later; a refusal
  # is ignored).
  local setinfo=
  case "$version" in 6.* | 7.0.* | 7.1.*) ;; *) setinfo=" +client|setinfo" ;; esac
  cat >"$tls/users.acl" <<EOF
user default off resetkeys resetchannels -@all
user $user on >$pass resetkeys ~{ocp-confirm}:* ~{ocptest-* resetchannels &{ocp-confirm}:* &{ocptest-* -@all +hello +ping +client|setname +cluster|slots +command$setinfo +evalsha +eval +script|load +hmget +zrangebyscore +publish +subscribe +time +exists +hset +pexpire +zadd +zrem +zremrangebyscore +del
user $admin on >$adminpass ~* &* +@all
EOF
  chmod 600 "$tls/users.acl"
  redis_free_port 6480 6499 || { redis_stop; return 1; }
  port=$REDIS_CI_PORT
  redis_run tls --port 0 --tls-port "$port" \
    --tls-cert-file "$tls/server.crt" --tls-key-file "$tls/server.key" \
    --tls-ca-cert-file "$tls/ca.crt" --tls-auth-clients no \
    --aclfile "$tls/users.acl"
  redis_wait tls redis-cli --tls --cacert "$tls/ca.crt" -h 127.0.0.1 -p "$port" \
    --user "$user" --pass "$pass" --no-auth-warning || { redis_stop; return 1; }
  export REDIS_TLS_ADDR="127.0.0.1:$port" REDIS_TLS_CA="$tls/ca.crt"
  export REDIS_TLS_USER="$user" REDIS_TLS_PASSWORD="$pass"
  export REDIS_TLS_ADMIN_USER="$admin" REDIS_TLS_ADMIN_PASSWORD="$adminpass"
  echo "== redis-server $version TLS-only on $REDIS_TLS_ADDR (ACL user $REDIS_TLS_USER, default user off)"
}

redis_stop() {
  if [ -n "${REDIS_CI_DIR:-}" ]; then
    local f pid i
    for f in "$REDIS_CI_DIR"/*/redis.pid; do
      [ -f "$f" ] || continue
      pid=$(cat "$f")
      kill "$pid" 2>/dev/null || true
      for i in $(seq 1 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
      done
      kill -9 "$pid" 2>/dev/null || true
    done
    rm -rf "$REDIS_CI_DIR"
  fi
  REDIS_CI_DIR=
  REDIS_CI_TAKEN=
  REDIS_CI_PORT=
  unset REDIS_ADDR REDIS_CLUSTER_ADDRS REDIS_TLS_ADDR REDIS_TLS_CA REDIS_TLS_USER REDIS_TLS_PASSWORD \
    REDIS_TLS_ADMIN_USER REDIS_TLS_ADMIN_PASSWORD
}

redis_start
