package settings

import (
	"strings"
	"testing"
)

// TestParseTerraformRoots: terraform-new-roots is read (refuse by
// default), and what a Terraform root cannot honour is refused at load in
// one line at its key: execution: actions and promotion beside
// terraform-roots: true, and terraform-new-roots without it.
func TestParseTerraformRoots(t *testing.T) {
	tests := []struct {
		name, data string
		newRoots   bool
		want       string // "" accepted; else the whole refusal's start
	}{
		{name: "new roots refused by default", data: "terraform-roots: true\n"},
		{name: "new roots allowed", data: "terraform-roots: true\nterraform-new-roots: allow\n", newRoots: true},
		{name: "new roots refused", data: "terraform-roots: true\nterraform-new-roots: refuse\n"},
		{name: "a word not known", data: "terraform-roots: true\nterraform-new-roots: yes\n", want: Path + ":2:22: terraform-new-roots must be one of"},
		{name: "new roots without roots", data: "terraform-new-roots: allow\n", want: Path + ":1:1: terraform-new-roots: allow needs terraform-roots: true"},
		{name: "execution: actions", data: "terraform-roots: true\nexecution: actions\n", want: Path + ":2:1: execution: actions cannot go with terraform-roots: true"},
		{name: "promotion", data: "terraform-roots: true\npromotion: [staging, prod]\n", want: Path + ":2:1: promotion cannot go with terraform-roots: true"},
		{name: "promotion without roots", data: "promotion: [staging, prod]\nexecution: actions\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(Path, []byte(tt.data))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if s.NewRoots != tt.newRoots {
					t.Errorf("NewRoots = %v, want %v", s.NewRoots, tt.newRoots)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) || strings.Count(err.Error(), "\n") != 0 {
				t.Errorf("error = %v; want one line starting %q", err, tt.want)
			}
		})
	}
}
