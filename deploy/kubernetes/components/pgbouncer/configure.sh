#!/bin/sh
# Run by leadgen-pgbouncer's init container (busybox sh and awk; test/deploy-pgbouncer.test.ts runs it too, before
# the real pgbouncer): writes into PGBOUNCER_RUN_DIR, an in-memory emptyDir, what pgbouncer.ini includes from the
# Secret leadgen-secrets, so no password is in a ConfigMap or in the repository:
#   databases.ini   the [databases] entry: DATABASE_URL's database at its host and port
#   server-tls.ini  server_tls_sslmode from DATABASE_URL's sslmode (`prefer`, libpq's default, when it names none)
#   userlist.txt    DATABASE_URL's user and password: PgBouncer checks the processes' logins against it
#                   (scram-sha-256) and logs in to PostgreSQL with it
# DATABASE_PGBOUNCER_URL (what the API and the workers are given) must name the same user, password and database,
# or this refuses: the two keys of the Secret cannot drift apart unseen. Nothing printed holds a password.
set -eu
run_dir="${PGBOUNCER_RUN_DIR:-/run/pgbouncer}"
umask 077
mkdir -p "$run_dir"
RUN_DIR="$run_dir" LC_ALL=C awk '
function fail(message) { print "configure.sh: " message > "/dev/stderr"; failed = 1; exit 1 }
function hex(c) { return index("0123456789abcdef", tolower(c)) - 1 }
# Percent-decoding, byte by byte (LC_ALL=C), as libpq reads a URL.
function decode(s,   out, i, c, hi, lo) {
  out = ""
  for (i = 1; i <= length(s); i++) {
    c = substr(s, i, 1)
    if (c == "%") {
      hi = hex(substr(s, i + 1, 1)); lo = hex(substr(s, i + 2, 1))
      if (hi < 0 || lo < 0) fail("a malformed %-escape in " name)
      c = sprintf("%c", hi * 16 + lo); i += 2
    }
    out = out c
  }
  return out
}
# Splits a postgres URL into U[prefix "user"], "password", "host", "port", "db", "sslmode".
function parse(url, prefix,   rest, at, auth, colon, slash, hostport, query, n, params, k, kv, key) {
  name = prefix
  if (url !~ /^postgres(ql)?:\/\//) fail(prefix " is not a postgresql:// URL")
  rest = url; sub(/^postgres(ql)?:\/\//, "", rest)
  U[prefix "sslmode"] = ""
  query = ""
  if (index(rest, "?") > 0) { query = substr(rest, index(rest, "?") + 1); rest = substr(rest, 1, index(rest, "?") - 1) }
  slash = index(rest, "/")
  if (slash == 0) fail(prefix " names no database")
  U[prefix "db"] = decode(substr(rest, slash + 1))
  hostport = substr(rest, 1, slash - 1)
  at = 0
  for (k = length(hostport); k > 0; k--) if (substr(hostport, k, 1) == "@") { at = k; break }
  auth = at ? substr(hostport, 1, at - 1) : ""
  hostport = substr(hostport, at + 1)
  colon = index(auth, ":")
  U[prefix "user"] = decode(colon ? substr(auth, 1, colon - 1) : auth)
  U[prefix "password"] = colon ? decode(substr(auth, colon + 1)) : ""
  if (index(hostport, ",") > 0) fail(prefix " names several hosts: PgBouncer follows one (decision 045: one host per PgBouncer, or a proxy that follows the primary)")
  if (hostport ~ /^\[/) { U[prefix "host"] = substr(hostport, 2, index(hostport, "]") - 2); hostport = substr(hostport, index(hostport, "]") + 1) }
  else { U[prefix "host"] = hostport; sub(/:.*/, "", U[prefix "host"]); hostport = (index(hostport, ":") ? substr(hostport, index(hostport, ":")) : "") }
  U[prefix "port"] = (hostport ~ /^:[0-9]+$/) ? substr(hostport, 2) : (hostport == "" ? "5432" : "")
  if (U[prefix "port"] == "") fail(prefix " has a malformed port")
  n = split(query, params, "&")
  for (k = 1; k <= n; k++) {
    if (params[k] == "") continue
    key = params[k]; sub(/=.*/, "", key)
    kv = substr(params[k], length(key) + 2)
    if (key == "sslmode") U[prefix "sslmode"] = decode(kv)
    else if (key == "target_session_attrs") fail(prefix " asks for target_session_attrs: PgBouncer follows one host")
    else print "configure.sh: " prefix "'"'"'s parameter " key " is not carried to PgBouncer" > "/dev/stderr"
  }
}
BEGIN {
  if (ENVIRON["DATABASE_URL"] == "") fail("DATABASE_URL is not set")
  if (ENVIRON["DATABASE_PGBOUNCER_URL"] == "") fail("DATABASE_PGBOUNCER_URL is not set")
  parse(ENVIRON["DATABASE_URL"], "DATABASE_URL")
  parse(ENVIRON["DATABASE_PGBOUNCER_URL"], "DATABASE_PGBOUNCER_URL")
  if (U["DATABASE_URLuser"] == "") fail("DATABASE_URL names no user")
  if (U["DATABASE_URLpassword"] == "") fail("DATABASE_URL has no password: PgBouncer checks the processes'"'"' logins with it")
  split("user password db", same, " ")
  for (k = 1; k <= 3; k++)
    if (U["DATABASE_URL" same[k]] != U["DATABASE_PGBOUNCER_URL" same[k]])
      fail("DATABASE_PGBOUNCER_URL and DATABASE_URL name different " (same[k] == "db" ? "databases" : same[k] "s") ": they must be one role on one database")
  if (U["DATABASE_URLdb"] !~ /^[A-Za-z0-9_.-]+$/) fail("the database name has characters this script does not quote: use letters, digits, _ . -")
  if (U["DATABASE_URLhost"] !~ /^[A-Za-z0-9_.:-]+$/) fail("DATABASE_URL has a host this script does not quote")
  if (U["DATABASE_URLuser"] ~ /[\n\r"]/ || U["DATABASE_URLpassword"] ~ /[\n\r]/) fail("the user or password holds a quote or a line break PgBouncer'"'"'s userlist cannot carry")
  mode = U["DATABASE_URLsslmode"] == "" ? "prefer" : U["DATABASE_URLsslmode"]
  if (mode !~ /^(disable|allow|prefer|require|verify-ca|verify-full)$/) fail("DATABASE_URL has an sslmode libpq does not know")
  dir = ENVIRON["RUN_DIR"]
  db = U["DATABASE_URLdb"]
  printf "%s = host=%s port=%s dbname=%s\n", db, U["DATABASE_URLhost"], U["DATABASE_URLport"], db > (dir "/databases.ini")
  printf "server_tls_sslmode = %s\n", mode > (dir "/server-tls.ini")
  if (mode ~ /^verify-/) printf "server_tls_ca_file = /etc/ssl/certs/ca-certificates.crt\n" > (dir "/server-tls.ini")
  password = U["DATABASE_URLpassword"]; gsub(/"/, "\"\"", password)
  printf "\"%s\" \"%s\"\n", U["DATABASE_URLuser"], password > (dir "/userlist.txt")
  print "configure.sh: PgBouncer pools database " db " at " U["DATABASE_URLhost"] ":" U["DATABASE_URLport"] " (sslmode " mode ") for user " U["DATABASE_URLuser"] > "/dev/stderr"
}
END { if (failed) exit 1 }
' </dev/null
