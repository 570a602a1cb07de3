package tfstate_test

import (
	"testing"

	"github.com/kyku/action/internal/tfstate"
)

// TestSameButSerial: two Compact states are the same but for their
// serials only when every other byte is; a serial spelled inside the
// terraform_version string is not the serial.
func TestSameButSerial(t *testing.T) {
	state := func(version, serial, rest string) []byte {
		return []byte(`{"version":4,"terraform_version":"` + version + `","serial":` + serial + `,"lineage":"l","outputs":{},"resources":[` + rest + `],"check_results":null}` + "\n")
	}
	const one = `{"mode":"managed","type":"t","name":"a"}`
	tests := []struct {
		name string
		a, b []byte
		want bool
	}{
		{"same serial", state("1.12.6", "3", one), state("1.12.6", "3", one), true},
		{"serial differs only", state("1.12.6", "3", one), state("1.12.6", "40", one), true},
		{"a resource differs", state("1.12.6", "3", one), state("1.12.6", "4", ""), false},
		{"the version differs", state("1.12.6", "3", one), state("1.12.7", "3", one), false},
		{"a serial inside the version", state(`1,\"serial\":9`, "3", one), state(`1,\"serial\":8`, "3", one), false},
		{"no serial", []byte(`{}`), []byte(`{}`), false},
		{"a serial without digits", []byte(`{"version":4,"serial":,"x":1}`), []byte(`{"version":4,"serial":,"x":1}`), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tfstate.SameButSerial(tt.a, tt.b); got != tt.want {
				t.Errorf("SameButSerial = %v, want %v", got, tt.want)
			}
		})
	}
}
