# shellcheck shell=bash
# .ci/gcs-server.sh — start a real GCS emulator (fsouza/fake-gcs-server,
# memory backend) on 127.0.0.1 for the gcs backend's tests. Meant to be
# sourced by .ci/run, after .ci/s3-server.sh:
#
#   source .ci/gcs-server.sh   # installs and starts it, exports KYKU_TEST_GCS_HOST, stops it on EXIT
#
# Functions (usable on their own when sourced with KYKU_GCS_NO_AUTOSTART=1):
#   kyku_gcs_install   go install the pinned emulator into the cache dir if missing
#   kyku_gcs_start     start it and export KYKU_TEST_GCS_HOST (host:port)
#   kyku_gcs_stop      stop it (by PID)
#
# Settings: KYKU_CI_CACHE (default ~/.cache/kyku-ci), KYKU_GCS_VERSION
# (v1.56.1), KYKU_GCS_WAIT (seconds to wait for it to answer, default 30).

KYKU_GCS_VERSION=${KYKU_GCS_VERSION:-v1.56.1}
KYKU_GCS_BIN=${KYKU_CI_CACHE:-$HOME/.cache/kyku-ci}/bin/fake-gcs-server
KYKU_GCS_PID=
KYKU_GCS_LOG=

kyku_gcs_install() {
	# The version is recorded beside the binary: a bump reinstalls.
	if [[ -x $KYKU_GCS_BIN && $(cat "$KYKU_GCS_BIN.version" 2>/dev/null) == "$KYKU_GCS_VERSION" ]]; then
		return 0
	fi
	echo "gcs-server: building fake-gcs-server $KYKU_GCS_VERSION into $(dirname "$KYKU_GCS_BIN")" >&2
	mkdir -p "$(dirname "$KYKU_GCS_BIN")" || return 1
	CGO_ENABLED=0 GOFLAGS=-trimpath GOBIN=$(dirname "$KYKU_GCS_BIN") go install "github.com/fsouza/fake-gcs-server@$KYKU_GCS_VERSION" || {
		echo "gcs-server: go install fake-gcs-server@$KYKU_GCS_VERSION failed" >&2
		return 1
	}
	echo "$KYKU_GCS_VERSION" >"$KYKU_GCS_BIN.version"
}

kyku_gcs_start() {
	kyku_gcs_install || return 1
	local wait=${KYKU_GCS_WAIT:-30} port attempt i
	KYKU_GCS_LOG=$(mktemp "${TMPDIR:-/tmp}/kyku-gcs.XXXXXX.log") || return 1
	for attempt in 1 2 3 4 5; do
		port=$((20000 + RANDOM % 40000))
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			continue # taken
		fi
		"$KYKU_GCS_BIN" -scheme http -host 127.0.0.1 -port "$port" -backend memory \
			-public-host "127.0.0.1:$port" -external-url "http://127.0.0.1:$port" -log-level error \
			>"$KYKU_GCS_LOG" 2>&1 &
		KYKU_GCS_PID=$!
		for ((i = 0; i < wait * 10; i++)); do
			if ! kill -0 "$KYKU_GCS_PID" 2>/dev/null; then
				break
			fi
			if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
				export KYKU_TEST_GCS_HOST=127.0.0.1:$port
				echo "gcs-server: fake-gcs-server (pid $KYKU_GCS_PID) answers at $KYKU_TEST_GCS_HOST" >&2
				return 0
			fi
			sleep 0.1
		done
		kyku_gcs_stop
		echo "gcs-server: attempt $attempt on port $port failed; its log:" >&2
		cat "$KYKU_GCS_LOG" >&2
	done
	return 1
}

kyku_gcs_stop() {
	if [[ -n $KYKU_GCS_PID ]]; then
		kill "$KYKU_GCS_PID" 2>/dev/null || true
		wait "$KYKU_GCS_PID" 2>/dev/null || true
		KYKU_GCS_PID=
	fi
}

if [[ -z ${KYKU_GCS_NO_AUTOSTART:-} ]]; then
	_kyku_gcs_prev_trap=
	if [[ -n $(trap -p EXIT) ]]; then
		eval "_kyku_gcs_trap_words=($(trap -p EXIT))"
		_kyku_gcs_prev_trap=${_kyku_gcs_trap_words[2]}
	fi
	# shellcheck disable=SC2064 # expand now: the previous trap, verbatim
	trap "kyku_gcs_stop${_kyku_gcs_prev_trap:+; $_kyku_gcs_prev_trap}" EXIT
	kyku_gcs_start || { echo "gcs-server: could not start the GCS emulator" >&2; return 1 2>/dev/null || exit 1; }
fi
