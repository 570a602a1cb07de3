package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestTofuRoundTripScript runs .ci/tofu-roundtrip with this binary: tofu
// and kyku take turns on one state through the CLI (apply, plan no-op,
// pull, push) and race for its lock both ways, on the local backend and
// on s3 and gcs when their test servers run (KYKU_TEST_S3_ENDPOINT,
// KYKU_TEST_GCS_HOST, as .ci/run starts them). It needs KYKU_TEST_TOFU (a
// tofu 1.12 binary) and KYKU_TEST_TOFU_MIRROR (a mirror with
// hashicorp/null and hashicorp/time); skipped without.
func TestTofuRoundTripScript(t *testing.T) {
	tofu, mirror := os.Getenv("KYKU_TEST_TOFU"), os.Getenv("KYKU_TEST_TOFU_MIRROR")
	if tofu == "" || mirror == "" || testing.Short() {
		t.Skip("no tofu: set KYKU_TEST_TOFU (a tofu 1.12 binary) and KYKU_TEST_TOFU_MIRROR (hashicorp/null and time)")
	}
	backends := []string{"local"}
	if os.Getenv("KYKU_TEST_S3_ENDPOINT") != "" {
		backends = append(backends, "s3")
	}
	if os.Getenv("KYKU_TEST_GCS_HOST") != "" {
		backends = append(backends, "gcs")
	}
	script, err := filepath.Abs(filepath.Join("..", "..", ".ci", "tofu-roundtrip"))
	if err != nil {
		t.Fatal(err)
	}
	c := exec.CommandContext(t.Context(), "bash", append([]string{script}, backends...)...)
	c.Env = append(os.Environ(), "TOFU="+tofu, "MIRROR="+mirror, "KYKU="+kykuBin, "TMPDIR="+t.TempDir())
	out, err := c.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Errorf(".ci/tofu-roundtrip %v: %v", backends, err)
	}
}
