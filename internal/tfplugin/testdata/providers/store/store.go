// Package store is the "cloud" of Kyku's test providers: one JSON file
// per item in a directory the provider is configured with, so that what
// one provider process created the next one reads.
package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Item is one object of the test cloud.
type Item struct {
	ID       string            `json:"id"`
	Name     string            `json:"name"`
	Value    string            `json:"value,omitempty"`
	Secret   string            `json:"secret,omitempty"`
	Tags     map[string]string `json:"tags,omitempty"`
	Revision int64             `json:"revision"`
	Received string            `json:"received,omitempty"` // sha256 of a write-only value received
}

// ErrNotFound: no such item.
var ErrNotFound = errors.New("item not found")

// Store is a directory of items.
type Store struct {
	Dir string
	mu  sync.Mutex
}

func (s *Store) path(id string) string { return filepath.Join(s.Dir, id+".json") }

// Create stores a new item under a new ID ("<name>-<n>").
func (s *Store) Create(it Item) (Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.next()
	if err != nil {
		return Item{}, err
	}
	it.ID = fmt.Sprintf("%s-%d", it.Name, n)
	it.Revision = 1
	if it.Value == "chatty" {
		chatter(it.ID)
	}
	return it, s.write(it)
}

// chatter writes 32 KiB to os.Stdout and os.Stderr, which go-plugin has
// replaced with the pipes of its stdio stream while the provider serves:
// a client that does not read that stream blocks the provider once a
// pipe holds 64 KiB.
func chatter(id string) {
	line := strings.Repeat("chatter of "+id+" ", 8) + "\n"
	for n := 0; n < 32<<10; n += len(line) {
		fmt.Fprint(os.Stdout, line)
		fmt.Fprint(os.Stderr, line)
	}
}

// Update rewrites an item, bumping its revision.
func (s *Store) Update(it Item) (Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, err := s.read(it.ID)
	if err != nil {
		return Item{}, err
	}
	it.Revision = old.Revision + 1
	return it, s.write(it)
}

// Get reads an item by ID.
func (s *Store) Get(id string) (Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.read(id)
}

// ByName finds an item by name.
func (s *Store) ByName(name string) (Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		return Item{}, err
	}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		it, err := s.read(id)
		if err == nil && it.Name == name {
			return it, nil
		}
	}
	return Item{}, ErrNotFound
}

// Delete removes an item; one whose value is "undeletable" refuses (the
// test cloud's stand-in for an object the cloud will not delete yet).
func (s *Store) Delete(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if it, err := s.read(id); err == nil && it.Value == "undeletable" {
		return fmt.Errorf("item %s is undeletable", id)
	}
	err := os.Remove(s.path(id))
	if errors.Is(err, os.ErrNotExist) {
		return ErrNotFound
	}
	return err
}

func (s *Store) read(id string) (Item, error) {
	b, err := os.ReadFile(s.path(id))
	if errors.Is(err, os.ErrNotExist) {
		return Item{}, ErrNotFound
	}
	if err != nil {
		return Item{}, err
	}
	var it Item
	return it, json.Unmarshal(b, &it)
}

// write stores it whole or not at all (a temporary file renamed over
// it), as a cloud's API does: a provider killed mid-write leaves no
// half-written object.
func (s *Store) write(it Item) error {
	b, err := json.Marshal(it)
	if err != nil {
		return err
	}
	tmp := s.path(it.ID) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, s.path(it.ID))
}

func (s *Store) next() (int, error) {
	p := filepath.Join(s.Dir, "counter")
	b, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, err
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	n++
	return n, os.WriteFile(p, []byte(strconv.Itoa(n)), 0o600)
}

// CrashOnce reports whether the caller should crash now: true the first
// time for this store's directory (a marker file remembers it).
func (s *Store) CrashOnce() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := filepath.Join(s.Dir, "crashed")
	if _, err := os.Stat(p); err == nil {
		return false
	}
	_ = os.WriteFile(p, nil, 0o600)
	return true
}
