# shellcheck shell=bash
# .ci/s3-server.sh — start a real S3-compatible server (versitygw) on
# 127.0.0.1 for the integration tests. Meant to be sourced by .ci/run:
#
#   source .ci/s3-server.sh || exit 1   # starts it, exports KYKU_TEST_S3_*, stops it on EXIT
#
# Sourcing returns non-zero (after printing the server log) when it cannot
# start; the caller decides to stop (set -e does that too).
#
# Functions (usable on their own when sourced with KYKU_S3_NO_AUTOSTART=1):
#   kyku_s3_install   build versitygw into the cache dir if it is missing
#   kyku_s3_start     start it and export KYKU_TEST_S3_ENDPOINT/ACCESS_KEY/SECRET_KEY/REGION
#   kyku_s3_stop      stop it (by PID) and remove its temp dir
#
# Settings: KYKU_CI_CACHE (default ~/.cache/kyku-ci), KYKU_S3_VERSION (v1.8.0),
# KYKU_S3_WAIT (seconds to wait for it to answer, default 30).

KYKU_S3_VERSION=${KYKU_S3_VERSION:-v1.8.0}
KYKU_S3_BIN=${KYKU_CI_CACHE:-$HOME/.cache/kyku-ci}/bin/versitygw
KYKU_S3_PID=
KYKU_S3_DIR=

kyku_s3_install() {
	if [[ -x $KYKU_S3_BIN ]]; then
		return 0
	fi
	echo "s3-server: building versitygw $KYKU_S3_VERSION into $(dirname "$KYKU_S3_BIN") (a cold build takes minutes)" >&2
	mkdir -p "$(dirname "$KYKU_S3_BIN")" || return 1
	CGO_ENABLED=0 GOFLAGS=-trimpath GOBIN=$(dirname "$KYKU_S3_BIN") go install "github.com/versity/versitygw/cmd/versitygw@$KYKU_S3_VERSION" || {
		echo "s3-server: go install versitygw@$KYKU_S3_VERSION failed" >&2
		return 1
	}
}

# _kyku_s3_port_free PORT: true when nothing listens on 127.0.0.1:PORT.
_kyku_s3_port_free() {
	! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

_kyku_s3_answers() {
	# Any HTTP answer (an S3 error document for an anonymous request is fine).
	if command -v curl >/dev/null 2>&1; then
		curl -s -o /dev/null --max-time 2 "$KYKU_TEST_S3_ENDPOINT/"
	else
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
	fi
}

kyku_s3_start() {
	kyku_s3_install || return 1
	local wait=${KYKU_S3_WAIT:-30} port attempt i
	KYKU_S3_DIR=$(mktemp -d "${TMPDIR:-/tmp}/kyku-s3.XXXXXX") || return 1
	mkdir -p "$KYKU_S3_DIR/data" "$KYKU_S3_DIR/versions" || return 1
	export KYKU_TEST_S3_ACCESS_KEY=kykuci$RANDOM$RANDOM
	export KYKU_TEST_S3_SECRET_KEY=kykuci-secret-$RANDOM$RANDOM$RANDOM
	export KYKU_TEST_S3_REGION=us-east-1
	for attempt in 1 2 3 4 5; do
		port=
		for i in $(seq 1 50); do
			local p=$((20000 + RANDOM % 40000))
			if _kyku_s3_port_free "$p"; then port=$p; break; fi
		done
		if [[ -z $port ]]; then
			echo "s3-server: no free port found on 127.0.0.1" >&2
			return 1
		fi
		export KYKU_TEST_S3_ENDPOINT=http://127.0.0.1:$port
		"$KYKU_S3_BIN" --port "127.0.0.1:$port" --quiet \
			--access "$KYKU_TEST_S3_ACCESS_KEY" --secret "$KYKU_TEST_S3_SECRET_KEY" \
			--region "$KYKU_TEST_S3_REGION" \
			posix --versioning-dir "$KYKU_S3_DIR/versions" "$KYKU_S3_DIR/data" \
			>"$KYKU_S3_DIR/server.log" 2>&1 &
		KYKU_S3_PID=$!
		for ((i = 0; i < wait * 10; i++)); do
			if ! kill -0 "$KYKU_S3_PID" 2>/dev/null; then
				break # exited: port taken meanwhile, or a real failure
			fi
			if _kyku_s3_answers "$port"; then
				echo "s3-server: versitygw (pid $KYKU_S3_PID) answers at $KYKU_TEST_S3_ENDPOINT" >&2
				return 0
			fi
			sleep 0.1
		done
		if kill -0 "$KYKU_S3_PID" 2>/dev/null; then
			echo "s3-server: versitygw did not answer within ${wait}s; its log:" >&2
			cat "$KYKU_S3_DIR/server.log" >&2
			kyku_s3_stop
			return 1
		fi
		wait "$KYKU_S3_PID" 2>/dev/null || true
		KYKU_S3_PID=
		if ! grep -qi "address already in use" "$KYKU_S3_DIR/server.log"; then
			break
		fi
		echo "s3-server: port $port was taken, retrying (attempt $attempt)" >&2
	done
	echo "s3-server: versitygw failed to start; its log:" >&2
	cat "$KYKU_S3_DIR/server.log" >&2
	kyku_s3_stop
	return 1
}

kyku_s3_stop() {
	if [[ -n $KYKU_S3_PID ]]; then
		kill "$KYKU_S3_PID" 2>/dev/null || true
		wait "$KYKU_S3_PID" 2>/dev/null || true
		KYKU_S3_PID=
	fi
	if [[ -n $KYKU_S3_DIR && -d $KYKU_S3_DIR ]]; then
		rm -rf "$KYKU_S3_DIR" || true
	fi
	KYKU_S3_DIR=
}

if [[ -z ${KYKU_S3_NO_AUTOSTART:-} ]]; then
	# Chain onto any EXIT trap already installed by the caller.
	_kyku_s3_prev_trap=
	if [[ -n $(trap -p EXIT) ]]; then
		eval "_kyku_s3_trap_words=($(trap -p EXIT))" # trap -- 'cmd' EXIT
		_kyku_s3_prev_trap=${_kyku_s3_trap_words[2]}
	fi
	# shellcheck disable=SC2064 # expand now: the previous trap, verbatim
	trap "kyku_s3_stop${_kyku_s3_prev_trap:+; $_kyku_s3_prev_trap}" EXIT
	kyku_s3_start || { echo "s3-server: could not start the S3 test server" >&2; return 1 2>/dev/null || exit 1; }
fi
