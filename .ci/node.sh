# shellcheck shell=bash
# Sourced by .ci/run from the repository root, before the tests. Installs
# the npm MCP servers the end-to-end tests in e2e/ run with node, exactly as
# pinned by e2e/node/package-lock.json, and exports
#
#   OCPGEN_E2E_NODE_MODULES  absolute path of e2e/node/node_modules
#
# for the tests. node and npm are installed with apt-get when missing. Any
# failure aborts .ci/run (it runs with set -e): under CI=true the e2e tests
# would fail without these packages anyway, and this says why sooner.
# Nothing else in the environment is changed; the helper function is removed.

ocpgen_ci_node() {
  local root="$PWD" sudo=""
  if [ ! -f "$root/e2e/node/package-lock.json" ]; then
    echo "node.sh: run from the repository root (no e2e/node/package-lock.json in $root)" >&2
    return 1
  fi

  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "== node/npm missing: apt-get install nodejs npm"
    if [ "$(id -u)" != 0 ]; then
      if ! command -v sudo >/dev/null 2>&1; then
        echo "node.sh: node/npm are missing and neither root nor sudo is available to install them" >&2
        return 1
      fi
      sudo="sudo"
    fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nodejs npm
  fi

  local major
  major=$(node -p 'process.versions.node.split(".")[0]')
  if [ "$major" -lt 18 ]; then
    echo "node.sh: node $(node --version) is too old; the pinned MCP servers need node 18 or later (20 or later recommended)" >&2
    return 1
  fi
  if [ "$major" -lt 20 ]; then
    echo "node.sh: warning: node $(node --version); some pinned dependencies declare node >= 20" >&2
  fi
  echo "== node $(node --version), npm $(npm --version)"

  echo "== npm ci --prefix e2e/node"
  # --ignore-scripts: no dependency needs an install script, and none runs.
  NPM_CONFIG_UPDATE_NOTIFIER=false npm ci --prefix "$root/e2e/node" \
    --no-audit --no-fund --ignore-scripts --loglevel=error

  local pkg
  for pkg in server-memory server-filesystem; do
    if [ ! -f "$root/e2e/node/node_modules/@modelcontextprotocol/$pkg/dist/index.js" ]; then
      echo "node.sh: npm ci did not install @modelcontextprotocol/$pkg" >&2
      return 1
    fi
  done
  export OCPGEN_E2E_NODE_MODULES="$root/e2e/node/node_modules"
}

ocpgen_ci_node
unset -f ocpgen_ci_node
