#!/usr/bin/env bash
# The image's runtime stage, proven without Docker (CI has no daemon): assembles it in a temporary
# directory with the same docker/runtime-stage.sh the Dockerfile runs (production dependencies from
# the lockfile, the build output only), then uses it as a platform team would: an API and a worker
# with plain node through the image's entrypoint, /readyz refusing the database until the migrate
# command has run, an account from the admin CLI, and a sandbox job through to COMPLETE.
#
#   npm run build && docker/try-runtime-stage.sh     (with the Node the image has on PATH: 24)
#
# Its database is TEST_DATABASE_URL's name + `_runtime` (dropped before and after); its Redis keys
# have a prefix of their own.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
started=$(date +%s)
say() { echo "try-runtime-stage: $*"; }
fail() { echo "try-runtime-stage: FAILED: $*" >&2; exit 1; }

test_url="${TEST_DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/leadgen_test}"
database_url="${test_url%%\?*}_runtime"
database_name="${database_url##*/}"
admin_url="${database_url%/*}/postgres"
redis_url="${REDIS_URL:-redis://127.0.0.1:6379}"
prefix="leadgen-runtime-$$"
export PGOPTIONS="-c client_min_messages=warning"

work="$(mktemp -d)"
app="$work/app"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  psql -q "$admin_url" -c "DROP DATABASE IF EXISTS \"$database_name\" WITH (FORCE)" >/dev/null 2>&1 || true
  redis-cli -u "$redis_url" --scan --pattern "$prefix:*" 2>/dev/null | xargs -r redis-cli -u "$redis_url" del >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

[ -f "$ROOT/dist/api.js" ] || fail "no build output: run npm run build first"
say "node $(node --version); assembling the runtime stage in $app"
sh "$ROOT/docker/runtime-stage.sh" deps "$ROOT" "$app"
sh "$ROOT/docker/runtime-stage.sh" app "$ROOT" "$app"
# What the image must not hold.
stray="$(find "$app" -path "$app/node_modules" -prune -o \( -name '*.ts' -o -name '*.test.*' -o -name src \) -print)"
[ -z "$stray" ] || fail "sources in the runtime stage: $stray"
for dev in tsx typescript jest esbuild prisma @swc/core; do
  [ ! -e "$app/node_modules/$dev" ] || fail "dev dependency $dev in the runtime stage"
done
compilers="$(cd "$app/node_modules/@prisma/client/runtime" && ls query_compiler_* | grep -v '\.postgresql\.' || true)"
[ -z "$compilers" ] || fail "Prisma query compilers for other databases in the runtime stage: $compilers"
say "runtime stage: $(du -sh "$app" | cut -f1), node_modules $(du -sm "$app/node_modules" | cut -f1) MB ($(ls "$app/node_modules" | wc -l) top-level packages)"

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
api_port="$(free_port)"; api_ops="$(free_port)"; worker_ops="$(free_port)"
export NODE_ENV=production PUBLIC_BASE_URL=http://127.0.0.1 SANDBOX_IN_PRODUCTION=1 SECRETS_ENCRYPTION_KEY="$(head -c 32 /dev/urandom | base64)" DATABASE_URL="$database_url" REDIS_URL="$redis_url" QUEUE_PREFIX="$prefix" \
  PORT="$api_port" OPS_HOST=127.0.0.1 SANDBOX_PAGE_DELAY_MS=5 SHUTDOWN_GRACE_MS=5000 LOG_LEVEL=warn

psql -q "$admin_url" -c "DROP DATABASE IF EXISTS \"$database_name\" WITH (FORCE)" -c "CREATE DATABASE \"$database_name\"" >/dev/null
OPS_PORT="$api_ops" "$app/docker/entrypoint.sh" api >"$work/api.log" 2>&1 &
pids+=($!)
OPS_PORT="$worker_ops" "$app/docker/entrypoint.sh" worker >"$work/worker.log" 2>&1 &
pids+=($!)

# curl-free probes: the image has node, not curl.
probe() { node -e '
  fetch(process.argv[1], { signal: AbortSignal.timeout(3000) })
    .then(async (r) => { console.log(r.status, await r.text()); })
    .catch(() => { console.log("000"); });' "$1"; }
wait_for() { # url status [text the body must hold: a process that is still starting answers 503 "starting" first]
  for _ in $(seq 1 100); do
    answer="$(probe "$1")"
    [ "${answer%% *}" = "$2" ] && [[ "$answer" == *"${3:-}"* ]] && { echo "$answer"; return 0; }
    sleep 0.2
  done
  echo "$answer"; return 1
}
logs() { echo "--- api.log"; tail -20 "$work/api.log"; echo "--- worker.log"; tail -20 "$work/worker.log"; }

for name in api worker; do
  port=$([ $name = api ] && echo "$api_ops" || echo "$worker_ops")
  wait_for "http://127.0.0.1:$port/healthz" 200 >/dev/null || { logs; fail "$name /healthz"; }
  answer="$(wait_for "http://127.0.0.1:$port/readyz" 503 schema_behind)" || { logs; fail "$name /readyz on an unmigrated database did not say the schema is behind: $answer"; }
  say "$name on an unmigrated database: /healthz 200, /readyz $answer"
done

"$app/docker/entrypoint.sh" migrate || fail "migrate"
for name in api worker; do
  port=$([ $name = api ] && echo "$api_ops" || echo "$worker_ops")
  answer="$(wait_for "http://127.0.0.1:$port/readyz" 200)" || { logs; fail "$name not ready after migrating: $answer"; }
  say "$name after migrating: /readyz $answer"
done
wait_for "http://127.0.0.1:$api_port/readyz" 200 >/dev/null || { logs; fail "the API's public /readyz"; }
# The image's HEALTHCHECK command, as Docker runs it in each container.
OPS_PORT="$api_ops" node "$app/docker/healthcheck.js" >/dev/null || fail "docker/healthcheck.js against the API"
OPS_PORT="$worker_ops" node "$app/docker/healthcheck.js" >/dev/null || fail "docker/healthcheck.js against the worker"
say "docker/healthcheck.js: API and worker healthy"

account="$("$app/docker/entrypoint.sh" admin account:create --name runtime-check --credits 1000)" || fail "admin account:create"
api_key="$(node -p 'JSON.parse(process.argv[1]).apiKey' "$account")"
say "admin CLI created account $(node -p 'JSON.parse(process.argv[1]).accountId' "$account")"

status="$(node -e '
  const [base, key] = process.argv.slice(1);
  (async () => {
    const res = await fetch(`${base}/api/v1/leads/generate`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", "Idempotency-Key": "runtime-check", Prefer: "wait=30" },
      body: JSON.stringify({ category: "dentist", state: "US", city: "Austin", maxResults: 5 }),
    });
    const body = await res.json();
    console.log(res.status, body.status, body.progress?.deliveredCount ?? "-", body.provider ?? "-");
  })().catch((e) => console.log("error", e.message));' "http://127.0.0.1:$api_port" "$api_key")"
say "POST /api/v1/leads/generate: $status"
[[ "$status" == "200 COMPLETE 5 sandbox" ]] || { logs; fail "the job did not complete: $status"; }

for pid in "${pids[@]}"; do kill -TERM "$pid"; done
for pid in "${pids[@]}"; do wait "$pid" || { logs; fail "a process did not exit 0 on SIGTERM"; }; done
pids=()
say "API and worker stopped on SIGTERM with exit 0; passed in $(( $(date +%s) - started )) s"
