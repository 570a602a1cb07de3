// Package jobstest holds a store for the bot's tests: jobs.Objects in
// memory, shared by the replicas of a test as a bucket is, that a test
// can cut one replica off from.
//
// Concurrency: a *Memory and a *Severable are safe for concurrent use.
package jobstest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/statemgr"
)

// Memory is jobs.Objects in memory: conditional writes whose versions
// count up, and a sorted listing.
type Memory struct {
	mu   sync.Mutex
	objs map[string]entry
	gen  int
}

type entry struct {
	data []byte
	v    statemgr.Version
}

var _ jobs.Objects = (*Memory)(nil)

// NewMemory returns an empty store.
func NewMemory() *Memory { return &Memory{objs: map[string]entry{}} }

func (m *Memory) put(key string, data []byte) statemgr.Version {
	m.gen++
	v := statemgr.Version(fmt.Sprint(m.gen))
	m.objs[key] = entry{data: append([]byte(nil), data...), v: v}
	return v
}

// CreateObject stores data at key unless an object is there.
func (m *Memory) CreateObject(_ context.Context, key string, data []byte) (statemgr.Version, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.objs[key]; ok {
		return "", fmt.Errorf("%s: %w", key, statemgr.ErrExists)
	}
	return m.put(key, data), nil
}

// ReadObject returns the data at key and its version.
func (m *Memory) ReadObject(_ context.Context, key string) ([]byte, statemgr.Version, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.objs[key]
	if !ok {
		return nil, "", fmt.Errorf("%s: %w", key, statemgr.ErrNotFound)
	}
	return append([]byte(nil), o.data...), o.v, nil
}

// ReplaceObject stores data at key while the object there is at version v.
func (m *Memory) ReplaceObject(_ context.Context, key string, data []byte, v statemgr.Version) (statemgr.Version, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if o, ok := m.objs[key]; !ok || o.v != v {
		return "", fmt.Errorf("%s: %w", key, statemgr.ErrConflict)
	}
	return m.put(key, data), nil
}

// DeleteObject removes key while its version is v.
func (m *Memory) DeleteObject(_ context.Context, key string, v statemgr.Version) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.objs[key]
	if !ok {
		return nil
	}
	if o.v != v {
		return fmt.Errorf("%s: %w", key, statemgr.ErrConflict)
	}
	delete(m.objs, key)
	return nil
}

// ListObjects lists the keys under prefix, sorted.
func (m *Memory) ListObjects(_ context.Context, prefix string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var keys []string
	for k := range m.objs {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys, nil
}

// ErrCut is what a Severable answers once cut.
var ErrCut = errors.New("the store is out of reach")

// Severable is a store a test can cut a replica off from: after Cut, every
// call fails, as for a process that died or lost its network.
type Severable struct {
	jobs.Objects
	cut atomic.Bool
}

// Cut makes every later call fail with ErrCut.
func (s *Severable) Cut() { s.cut.Store(true) }

// IsCut reports whether Cut was called.
func (s *Severable) IsCut() bool { return s.cut.Load() }

// CreateObject is the store's, until Cut.
func (s *Severable) CreateObject(ctx context.Context, key string, data []byte) (statemgr.Version, error) {
	if s.cut.Load() {
		return "", ErrCut
	}
	return s.Objects.CreateObject(ctx, key, data)
}

// ReadObject is the store's, until Cut.
func (s *Severable) ReadObject(ctx context.Context, key string) ([]byte, statemgr.Version, error) {
	if s.cut.Load() {
		return nil, "", ErrCut
	}
	return s.Objects.ReadObject(ctx, key)
}

// ReplaceObject is the store's, until Cut.
func (s *Severable) ReplaceObject(ctx context.Context, key string, data []byte, v statemgr.Version) (statemgr.Version, error) {
	if s.cut.Load() {
		return "", ErrCut
	}
	return s.Objects.ReplaceObject(ctx, key, data, v)
}

// DeleteObject is the store's, until Cut.
func (s *Severable) DeleteObject(ctx context.Context, key string, v statemgr.Version) error {
	if s.cut.Load() {
		return ErrCut
	}
	return s.Objects.DeleteObject(ctx, key, v)
}

// ListObjects is the store's, until Cut.
func (s *Severable) ListObjects(ctx context.Context, prefix string) ([]string, error) {
	if s.cut.Load() {
		return nil, ErrCut
	}
	return s.Objects.ListObjects(ctx, prefix)
}
