#!/usr/bin/env bash
# Starts Debian's PostgreSQL cluster and makes the console tests' database:
# role core (password core) owning core_test. Safe to run again.
set -euo pipefail
version=$(ls /usr/lib/postgresql | sort -n | tail -1)
if ! pg_lsclusters -h | awk '{print $1" "$2}' | grep -qx "$version main"; then
	pg_createcluster "$version" main >/dev/null
fi
pg_ctlcluster "$version" main start >/dev/null 2>&1 || pg_ctlcluster "$version" main status >/dev/null
psql_as() { su postgres -c "psql -qtAX -c \"$1\""; }
[ "$(psql_as "SELECT 1 FROM pg_roles WHERE rolname = 'core'")" = 1 ] ||
	psql_as "CREATE ROLE core LOGIN PASSWORD 'core'"
[ "$(psql_as "SELECT 1 FROM pg_database WHERE datname = 'core_test'")" = 1 ] ||
	psql_as "CREATE DATABASE core_test OWNER core"
