package hostcreds

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	hcljson "github.com/hashicorp/hcl/v2/json"
	"github.com/zclconf/go-cty/cty"
)

// configFiles are the CLI configuration files read, in order (a later
// file's block for a host replaces an earlier one's), as OpenTofu reads
// them: the main file (TF_CLI_CONFIG_FILE, or TERRAFORM_CONFIG, which
// must exist; else the default, which need not), then, without an
// override, the *.tfrc and *.tfrc.json files of the configuration
// directory in name order. missing says a named file that must exist
// does not.
func configFiles(getenv func(string) string, goos string) (files []string, missing string) {
	override := getenv("TF_CLI_CONFIG_FILE")
	if override == "" {
		override = getenv("TERRAFORM_CONFIG")
	}
	if override != "" {
		if !exists(override) {
			return nil, override
		}
		return []string{override}, ""
	}
	home := getenv("HOME")
	newName, legacyName, dirName := ".tofurc", ".terraformrc", ".terraform.d"
	if goos == "windows" {
		home = getenv("APPDATA")
		newName, legacyName, dirName = "tofu.rc", "terraform.rc", "terraform.d"
	}
	if home == "" {
		return nil, ""
	}
	xdg := ""
	if goos != "windows" {
		xdg = getenv("XDG_CONFIG_HOME")
	}
	newFile, legacyFile := filepath.Join(home, newName), filepath.Join(home, legacyName)
	switch {
	case exists(newFile):
		files = append(files, newFile)
	case exists(legacyFile):
		files = append(files, legacyFile)
	case xdg != "" && exists(filepath.Join(xdg, "opentofu", "tofurc")):
		files = append(files, filepath.Join(xdg, "opentofu", "tofurc"))
	}
	dir := filepath.Join(home, dirName)
	if xdg != "" && !exists(dir) {
		dir = filepath.Join(xdg, "opentofu")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return files, ""
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() && (strings.HasSuffix(n, ".tfrc") || strings.HasSuffix(n, ".tfrc.json")) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		files = append(files, filepath.Join(dir, n))
	}
	return files, ""
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// credentialsSchema picks the credentials blocks; everything else in the
// file is OpenTofu's to read, not Kyku's.
var credentialsSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{{Type: "credentials", LabelNames: []string{"host"}}},
}

// readConfigFile reads the credentials blocks of one CLI configuration
// file (HCL, or JSON for a name ending in .json) into into. A block
// without a string token records the host with no token, as OpenTofu's
// does (it then hides the files after it but not the environment). Its
// problems are returned, each naming the file and line; a file that
// cannot be parsed adds nothing.
func readConfigFile(path string, into map[string]string) hcl.Diagnostics {
	src, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: fmt.Sprintf("read the CLI configuration %s: %v", path, err)}}
	}
	f, diags := parseConfigFile(path, src)
	if diags.HasErrors() {
		return diags
	}
	content, _, cd := f.Body.PartialContent(credentialsSchema)
	diags = append(diags, cd...)
	for _, b := range content.Blocks {
		host, err := canonical(b.Labels[0])
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Invalid credentials host",
				Detail: fmt.Sprintf("credentials %q: %v; the block is ignored", b.Labels[0], err), Subject: b.LabelRanges[0].Ptr()})
			continue
		}
		attrs, ad := b.Body.JustAttributes()
		diags = append(diags, ad...)
		token := ""
		if a, ok := attrs["token"]; ok {
			v, vd := a.Expr.Value(nil)
			diags = append(diags, vd...)
			if !vd.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
				token = v.AsString()
			}
		}
		into[host] = token
	}
	return diags
}

// parseConfigFile parses src, the CLI configuration file path: HCL, or
// JSON for a name ending in .json.
func parseConfigFile(path string, src []byte) (*hcl.File, hcl.Diagnostics) {
	if strings.HasSuffix(path, ".json") {
		return hcljson.Parse(src, path)
	}
	return hclsyntax.ParseConfig(src, path, hcl.InitialPos)
}
