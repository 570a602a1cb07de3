package engine_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func simFile(t *testing.T, w *world, typ string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(w.simDir, typ, "*.json"))
	if err != nil || len(files) != 1 {
		t.Fatalf("want one %s in the sim, got %v (%v)", typ, files, err)
	}
	return files[0]
}

func deleteSimObject(t *testing.T, w *world, typ string) {
	t.Helper()
	if err := os.Remove(simFile(t, w, typ)); err != nil {
		t.Fatal(err)
	}
}

// editSimObject changes an object's properties behind Kyku's back (drift).
func editSimObject(t *testing.T, w *world, typ string, edit func(map[string]any)) {
	t.Helper()
	f := simFile(t, w, typ)
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	var o map[string]any
	if err := json.Unmarshal(data, &o); err != nil {
		t.Fatal(err)
	}
	edit(o["properties"].(map[string]any))
	data, err = json.MarshalIndent(o, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
