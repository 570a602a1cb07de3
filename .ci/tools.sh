#!/usr/bin/env bash
# .ci/tools.sh — build the pinned tools .ci/run needs into $KYKU_CI_CACHE
# (default ~/.cache/kyku-ci), each only when missing: staticcheck,
# actionlint, nektos/act, the S3-compatible server (versitygw) and the GCS
# emulator (fake-gcs-server). Each tool's pin lives in the script that uses
# it. .ci/run runs this in the background while go vet runs.
set -euo pipefail
cd "$(dirname "$0")/.."

bash .ci/staticcheck.sh --install
bash .ci/lint-workflows.sh --install
bash .ci/act-e2e.sh
# shellcheck source=.ci/s3-server.sh
KYKU_S3_NO_AUTOSTART=1 source .ci/s3-server.sh
kyku_s3_install
# shellcheck source=.ci/gcs-server.sh
KYKU_GCS_NO_AUTOSTART=1 source .ci/gcs-server.sh
kyku_gcs_install
echo "pinned tools ready in ${KYKU_CI_CACHE:-$HOME/.cache/kyku-ci}/bin"
