package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTerraformUnsupportedBlockType: a block the resource type has no
// block type for (written out or dynamic) is refused as OpenTofu refuses
// it ("Unsupported block type"), not as an argument; an argument the type
// lacks is still "Unsupported argument".
func TestTerraformUnsupportedBlockType(t *testing.T) {
	k := newKyku(t, "")
	tf := filepath.Join(k.dir, "tf")
	writeFiles(t, tf, map[string]string{"main.tf": `resource "terraform_data" "r" {
  dynamic "x" {
    for_each = []
    content {}
  }
}
resource "terraform_data" "s" {
  y {}
  z = 1
}
`})
	code, out, errOut := k.run("", "plan", "-c", tf)
	all := out + errOut
	for _, want := range []string{
		`main.tf:2:3: Unsupported block type: Blocks of type "x" are not expected here.`,
		`main.tf:8:3: Unsupported block type: Blocks of type "y" are not expected here.`,
		`main.tf:9:3: Unsupported argument: An argument named "z" is not expected here.`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("plan: exit %d, lacks %s\n%s", code, want, all)
		}
	}
}
