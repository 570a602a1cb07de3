package tfmodule

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	version "github.com/hashicorp/go-version"
)

// ModulesDir is where modules are installed, under the root module's
// directory, as OpenTofu has it.
const ModulesDir = ".terraform/modules"

// ManifestFile is the manifest's name in ModulesDir.
const ManifestFile = "modules.json"

// Record is what modules.json says of one installed module.
type Record struct {
	// Key is the module's path in the static tree, names joined by "."
	// ("net", "net.subnets"); "" is the root module.
	Key string `json:"Key"`
	// Source is the call's source, normalized (Source.String).
	Source string `json:"Source"`
	// Version is the version installed from a registry, else "".
	Version string `json:"Version,omitempty"`
	// Dir is the module's directory, slash-separated and relative to the
	// root module's directory (OpenTofu runs in it).
	Dir string `json:"Dir"`
}

// Manifest is modules.json: the installed modules by key.
type Manifest map[string]Record

// Key is the manifest key of the module at path.
func Key(path []string) string { return strings.Join(path, ".") }

// ManifestPath is the manifest of the root module in root.
func ManifestPath(root string) string {
	return filepath.Join(root, filepath.FromSlash(ModulesDir), ManifestFile)
}

// ReadManifest reads the manifest of the root module in root; none is an
// empty one.
func ReadManifest(root string) (Manifest, error) {
	b, err := os.ReadFile(ManifestPath(root))
	if errors.Is(err, fs.ErrNotExist) || err == nil && len(b) == 0 {
		return Manifest{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the modules manifest: %w", err)
	}
	var doc struct {
		Modules []Record `json:"Modules"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("read the modules manifest %s: %w", ManifestPath(root), err)
	}
	m := make(Manifest, len(doc.Modules))
	for _, r := range doc.Modules {
		if r.Version != "" {
			if _, err := version.NewVersion(r.Version); err != nil {
				return nil, fmt.Errorf("read the modules manifest %s: invalid version %q for %s: %w", ManifestPath(root), r.Version, r.Key, err)
			}
		}
		// Normalized again, as OpenTofu does, so that a manifest written
		// before a normalization changed does not ask for an init.
		if src, err := ParseSource(r.Source); r.Source != "" && err == nil {
			r.Source = src.String()
		}
		r.Dir = filepath.FromSlash(r.Dir)
		if _, dup := m[r.Key]; dup {
			return nil, fmt.Errorf("read the modules manifest %s: two records for %q", ManifestPath(root), r.Key)
		}
		m[r.Key] = r
	}
	return m, nil
}

// Marshal is the manifest as OpenTofu writes it: compact JSON, records
// sorted by key, no final newline.
func (m Manifest) Marshal() ([]byte, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	doc := struct {
		Modules []Record `json:"Modules"`
	}{Modules: make([]Record, 0, len(keys))}
	for _, k := range keys {
		r := m[k]
		r.Dir = filepath.ToSlash(r.Dir)
		doc.Modules = append(doc.Modules, r)
	}
	return json.Marshal(doc)
}

// write replaces the manifest of the root module in root.
func (m Manifest) write(root string) error {
	b, err := m.Marshal()
	if err != nil {
		return fmt.Errorf("write the modules manifest: %w", err)
	}
	p := ManifestPath(root)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("write the modules manifest: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".modules-*.json")
	if err != nil {
		return fmt.Errorf("write the modules manifest: %w", err)
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write the modules manifest: %w", err)
	}
	return nil
}
