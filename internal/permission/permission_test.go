package permission

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAtLeast(t *testing.T) {
	tests := []struct {
		level, required Level
		want            bool
	}{
		{"admin", "write", true},
		{"maintain", "write", true},
		{"write", "write", true},
		{"triage", "write", false},
		{"read", "write", false},
		{"none", "read", false},
		{"write", "maintain", false},
		{"maintain", "admin", false},
		{"triage", "read", true},
		{"Admin", "WRITE", true},
		{"superuser", "read", false}, // unknown level fails closed
		{"admin", "owner", false},    // unknown requirement fails closed
		{"", "none", false},
	}
	for _, tt := range tests {
		t.Run(string(tt.level)+">="+string(tt.required), func(t *testing.T) {
			if got := tt.level.AtLeast(tt.required); got != tt.want {
				t.Errorf("%q.AtLeast(%q) = %v, want %v", tt.level, tt.required, got, tt.want)
			}
		})
	}
}

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in        string
		want      Level
		ok, reqOK bool
	}{
		{"write", Write, true, true},
		{"MAINTAIN", Maintain, true, true},
		{"none", None, true, false},
		{"owner", "", false, false},
		{"", "", false, false},
	} {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := Parse(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("Parse(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
			if _, ok := Required(tt.in); ok != tt.reqOK {
				t.Errorf("Required(%q) ok = %v, want %v", tt.in, ok, tt.reqOK)
			}
		})
	}
	if diff := cmp.Diff([]string{"read", "triage", "write", "maintain", "admin"}, Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
}
