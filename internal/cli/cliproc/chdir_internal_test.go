package cliproc

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestChdir: Terraform's global -chdir=DIR, before the command, makes DIR
// the working directory and is taken off the arguments; a directory that
// is not there is refused naming it; anything else is left as it is.
func TestChdir(t *testing.T) {
	t.Chdir(t.TempDir())
	dir := t.TempDir()
	args, err := chdir([]string{"-chdir=" + dir, "plan", "-c", "."})
	if err != nil || !slices.Equal(args, []string{"plan", "-c", "."}) {
		t.Fatalf("chdir = %q, %v", args, err)
	}
	wd, _ := os.Getwd()
	want, _ := filepath.EvalSymlinks(dir)
	if got, _ := filepath.EvalSymlinks(wd); got != want {
		t.Errorf("working directory %s, want %s", got, want)
	}
	if _, err := chdir([]string{"-chdir=" + filepath.Join(dir, "none"), "plan"}); err == nil || !strings.Contains(err.Error(), "-chdir="+filepath.Join(dir, "none")) {
		t.Errorf("a missing directory: %v", err)
	}
	if args, err := chdir([]string{"plan", "-chdir=x"}); err != nil || len(args) != 2 {
		t.Errorf("-chdir after the command is the command's: %q, %v", args, err)
	}
}
