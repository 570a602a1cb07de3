package store

import (
	"os"
	"sort"
	"strings"
)

// Named lists the items whose name starts with prefix, by name.
func (s *Store) Named(prefix string) ([]Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		return nil, err
	}
	var out []Item
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		if it, err := s.read(id); err == nil && strings.HasPrefix(it.Name, prefix) {
			out = append(out, it)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
