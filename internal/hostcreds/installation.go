package hostcreds

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Installation is how the CLI configuration's provider_installation
// block says to install providers, as far as Kyku follows it: from one
// filesystem mirror (Mirror), or from their registries (Mirror empty).
// Where says where the block is ("": no block: the registries).
type Installation struct {
	Mirror string
	Where  string
}

// installationSchema picks the provider_installation blocks.
var installationSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "provider_installation"}}}

// ProviderInstallation reads the provider_installation block of the CLI
// configuration src locates (the files OpenTofu reads, in its order).
// Kyku follows a block of one filesystem_mirror, or of direct alone,
// neither with include or exclude: any other is refused, in one line
// naming the file, the line and what Kyku does not follow, rather than
// installing from elsewhere than it says (a network mirror passed by
// for the public registry). Without a block, the registries. A file that
// cannot be read or parsed is a warning (Sources.Warn), as for the
// credentials.
func ProviderInstallation(src Sources) (Installation, error) {
	if src.Getenv == nil {
		return Installation{}, nil
	}
	goos := src.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	files, _ := configFiles(src.Getenv, goos)
	var blocks []*hcl.Block
	for _, f := range files {
		bs, diags := installationBlocks(f)
		for _, d := range diags {
			if src.Warn != nil {
				src.Warn(fmt.Sprintf("CLI configuration: %s; its provider_installation is not read", strings.TrimSuffix(d.Error(), ".")))
			}
		}
		blocks = append(blocks, bs...)
	}
	switch len(blocks) {
	case 0:
		return Installation{}, nil
	case 1:
	default:
		return Installation{}, fmt.Errorf("%s:%d: a second provider_installation block (the first at %s:%d): the CLI configuration may have one", blocks[1].DefRange.Filename, blocks[1].DefRange.Start.Line, blocks[0].DefRange.Filename, blocks[0].DefRange.Start.Line)
	}
	b := blocks[0]
	where := fmt.Sprintf("%s:%d", b.DefRange.Filename, b.DefRange.Start.Line)
	refuse := func(what string) error {
		return fmt.Errorf("%s: provider_installation %s: Kyku installs providers from one filesystem_mirror, or from their registries (direct), with neither include nor exclude; set KYKU_PLUGIN_MIRROR (or --plugin-mirror) to a filesystem mirror of the providers (kyku providers mirror DIR makes one)", where, what)
	}
	body, ok := b.Body.(*hclsyntax.Body)
	if !ok {
		return Installation{}, refuse("written in JSON")
	}
	for name := range body.Attributes {
		return Installation{}, refuse("has an argument " + name)
	}
	if len(body.Blocks) != 1 {
		return Installation{}, refuse(fmt.Sprintf("has %d installation methods", len(body.Blocks)))
	}
	m := body.Blocks[0]
	for _, name := range []string{"include", "exclude"} {
		if _, ok := m.Body.Attributes[name]; ok {
			return Installation{}, refuse(m.Type + " has " + name)
		}
	}
	switch m.Type {
	case "direct":
		if len(m.Body.Attributes) > 0 || len(m.Body.Blocks) > 0 {
			return Installation{}, refuse("direct takes no arguments")
		}
		return Installation{Where: where}, nil
	case "filesystem_mirror":
		a, ok := m.Body.Attributes["path"]
		if !ok || len(m.Body.Attributes) != 1 || len(m.Body.Blocks) > 0 {
			return Installation{}, refuse("filesystem_mirror takes path alone")
		}
		v, diags := a.Expr.Value(nil)
		if diags.HasErrors() || !v.IsKnown() || v.IsNull() || v.Type() != cty.String || v.AsString() == "" {
			return Installation{}, fmt.Errorf("%s: filesystem_mirror's path must be a directory's name", a.SrcRange)
		}
		return Installation{Mirror: v.AsString(), Where: where}, nil
	}
	return Installation{}, refuse(m.Type)
}

// installationBlocks are the provider_installation blocks of the CLI
// configuration file path (HCL, or JSON for a name ending in .json).
func installationBlocks(path string) ([]*hcl.Block, hcl.Diagnostics) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: fmt.Sprintf("read %s: %v", path, err)}}
	}
	f, diags := parseConfigFile(path, data)
	if diags.HasErrors() {
		return nil, diags
	}
	content, _, diags := f.Body.PartialContent(installationSchema)
	return content.Blocks, diags
}
