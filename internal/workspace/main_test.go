package workspace_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/kyku/action/internal/statemgr/gcs/gcstest"
	"github.com/kyku/action/internal/statemgr/s3/s3test"
)

func TestMain(m *testing.M) {
	stopS3, err := s3test.Setup()
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	stopGCS, err := gcstest.Setup()
	if err != nil {
		stopS3()
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	code := m.Run()
	stopGCS()
	stopS3()
	os.Exit(code)
}
