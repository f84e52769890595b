#!/bin/sh
# A launch agent that hands the daemon a secret other than the job's (the wrong-secret test):
#   wrong_secret_agent.sh TESTHOSTS_SH DIR HOST COMMAND...
# It reads the job's secret from its stdin and gives the daemon the same line with every hex
# digit shifted by one, through scripts/testhosts.sh exec.
testhosts=$1 dir=$2 host=$3
shift 3
read -r secret
printf '%s\n' "$secret" | tr '0-9a-f' '1-9a-f0' | exec "$testhosts" exec "$dir" "$host" "$@"
