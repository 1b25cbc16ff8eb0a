#!/bin/sh
# The runtime stage's file steps, shared by docker/Dockerfile and docker/try-runtime-stage.sh so that
# what CI proves without Docker is what the image holds.
#
#   runtime-stage.sh deps SRC DEST   production dependencies of every workspace, from SRC's lockfile
#   runtime-stage.sh app  SRC DEST   the build output (dist/), the migrations and function files, entrypoint and health check
#
# Nothing else reaches the image: no TypeScript, no tests, no dev dependencies.
set -eu
step=$1 src=$2 dest=$3
mkdir -p "$dest"

case "$step" in
  deps)
    cp "$src/package.json" "$src/package-lock.json" "$src/.npmrc" "$dest/"
    # Every workspace's manifest: npm installs the dependencies they declare (docs/decisions/008).
    for manifest in "$src"/apps/*/package.json "$src"/packages/*/package.json; do
      relative=${manifest#"$src"/}
      mkdir -p "$dest/$(dirname "$relative")"
      cp "$manifest" "$dest/$relative"
    done
    cd "$dest"
    cp package-lock.json .locked.json
    # Not `npm ci`, which wants other platforms' optional binaries in the lockfile (see .ci/run): the
    # locked versions, and a refusal if the lockfile would change. No install scripts: the Prisma
    # client is generated at build time and bundled, nothing here compiles. No optional packages:
    # @prisma/client's optional peers would otherwise bring the Prisma CLI and TypeScript (npm marks
    # them devOptional), and the only other ones are msgpackr's native accelerator (BullMQ runs on
    # its JavaScript path) and pg's Cloudflare socket.
    npm install --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund --loglevel=error
    if ! cmp -s package-lock.json .locked.json; then
      echo "runtime-stage: package-lock.json does not match package.json; run npm install and commit it" >&2
      exit 1
    fi
    # The bundles resolve every package from node_modules/; workspaces are inside them, so their
    # links (and the manifests they point at) go.
    rm -rf node_modules/@leadgen apps packages package-lock.json .locked.json .npmrc
    # Prisma ships a query compiler per database, each twice (fast, small) and twice again (CommonJS, ESM):
    # ~66 MB. The bundles are CommonJS on PostgreSQL: every other one goes (docs/operations.md: the image).
    find node_modules/@prisma/client/runtime -name 'query_compiler_*' \
      ! -name 'query_compiler_*_bg.postgresql.js' ! -name 'query_compiler_*_bg.postgresql.wasm-base64.js' -delete
    ;;
  app)
    [ -f "$src/dist/api.js" ] || { echo "runtime-stage: no build output in $src/dist; run npm run build" >&2; exit 1; }
    mkdir -p "$dest/dist" "$dest/prisma" "$dest/docker"
    cp "$src"/dist/*.js "$src"/dist/*.js.map "$dest/dist/"
    # The migrate command applies these, and readiness compares the database with them.
    cp -R "$src/prisma/migrations" "$src/prisma/functions" "$dest/prisma/"
    # The Markdown docs the served OpenAPI document links to, served at /docs/*.md (decision 036).
    cp -R "$src/docs" "$dest/"
    cp "$src/docker/entrypoint.sh" "$src/docker/healthcheck.js" "$dest/docker/"
    chmod 0755 "$dest/docker/entrypoint.sh"
    ;;
  *)
    echo "usage: runtime-stage.sh deps|app SRC DEST" >&2
    exit 64
    ;;
esac
