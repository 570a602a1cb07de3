package httpstate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/tflayout"
	"github.com/kyku/action/internal/tfstate"
)

// NewTerraform returns a backend on the state at cfg.Address as OpenTofu's
// http backend keeps it: the document is the state itself (compact, as
// OpenTofu writes it), POSTed (UpdateMethod) with ?ID=<lock ID> while the
// lock is held; the lock is LOCK (LockMethod) on LockAddress with
// OpenTofu's lock body, answered 200 when taken and 409 or 423 with the
// holder's body when held, and UNLOCK (UnlockMethod) on UnlockAddress with
// the body. The protocol has one document and no workspaces (OpenTofu's
// http backend has none either), so Kyku's additions live in aside, which
// the caller places (a directory beside the root). Addresses are used as
// they are ({env} is Kyku's own backend's placeholder, not OpenTofu's).
func NewTerraform(cfg Config, workspace string, aside tflayout.Aside, lay tflayout.Options, opts Options) (*tflayout.Backend, error) {
	if workspace != "" && workspace != "default" {
		return nil, fmt.Errorf("http backend: workspace %q: the http backend has only the default workspace, as OpenTofu's", workspace)
	}
	if opts.Codec != nil {
		return nil, errors.New("http backend: kyku's state encryption is not for a Terraform state (OpenTofu could not read it); remove \"encryption:\"")
	}
	if aside == nil {
		return nil, errors.New("http backend: nowhere to keep kyku's additions beside the state")
	}
	for _, a := range []string{cfg.Address, cfg.LockAddress, cfg.UnlockAddress} {
		if strings.Contains(a, "{env}") {
			return nil, fmt.Errorf("http backend: %s: {env} is not replaced in an OpenTofu backend's addresses", redact(a))
		}
	}
	b, err := New(cfg, "", opts)
	if err != nil {
		return nil, err
	}
	lay.Workspace, lay.Name = "", "http"
	lay = lay.WithDefaults(b.opts.Now, b.opts.Hostname, b.opts.PID)
	return tflayout.New(&tfDocument{b: b}, aside, lay), nil
}

// tfDocument is the state at the address and its lock.
type tfDocument struct {
	b *Backend

	mu   sync.Mutex
	body []byte // the lock body this process holds, nil when none
}

var _ tflayout.Slot = (*tfDocument)(nil)

func (d *tfDocument) Form() tfstate.Form { return tfstate.Compact }
func (d *tfDocument) Where() string      { return redact(d.b.cfg.Address) }

// Identity names the document wholly (Backend.Identity).
func (d *tfDocument) Identity() string { return identity(d.b.cfg.Address) }

func (d *tfDocument) LockPath() string {
	if d.b.cfg.LockAddress == "" {
		return d.Where() + " (no lock_address: no lock)"
	}
	return redact(d.b.cfg.LockAddress)
}

func docVersion(data []byte) statemgr.Version {
	sum := sha256.Sum256(data)
	return statemgr.Version(hex.EncodeToString(sum[:]))
}

// Get reads the document; 404 and 204 (and an empty body) are no state.
func (d *tfDocument) Get(ctx context.Context) ([]byte, statemgr.Version, error) {
	resp, _, err := d.b.do(ctx, http.MethodGet, d.b.cfg.Address, nil)
	if err != nil {
		return nil, "", err
	}
	switch {
	case resp.status == http.StatusNotFound, resp.status == http.StatusNoContent,
		resp.status == http.StatusOK && len(resp.body) == 0:
		return nil, "", fmt.Errorf("%s: %w", d.Where(), statemgr.ErrNotFound)
	case resp.status != http.StatusOK:
		return nil, "", &StatusError{Method: http.MethodGet, URL: d.Where(), Status: resp.status, Body: snippet(resp.body)}
	}
	return resp.body, docVersion(resp.body), nil
}

// Put stores the document. The protocol has no conditional write: the
// document is read first and compared with the version Kyku read (under
// the lock, nobody else writes meanwhile). A POST whose every attempt
// failed in transit is read back: it counts as done when it landed.
func (d *tfDocument) Put(ctx context.Context, data []byte, v statemgr.Version, lockID string) (statemgr.Version, error) {
	if v != tflayout.Unconditional {
		_, nv, err := d.Get(ctx)
		if err != nil && !errors.Is(err, statemgr.ErrNotFound) {
			return "", err
		}
		if nv != v {
			return "", fmt.Errorf("the state changed since it was read: %w", statemgr.ErrConflict)
		}
	}
	addr := d.b.cfg.Address
	if lockID != "" {
		u, err := url.Parse(addr)
		if err != nil {
			return "", err
		}
		q := u.Query()
		q.Set("ID", lockID)
		u.RawQuery = q.Encode()
		addr = u.String()
	}
	resp, ambiguous, err := d.b.do(ctx, d.b.cfg.UpdateMethod, addr, data)
	if err != nil && ambiguous && ctx.Err() == nil {
		if now, _, gerr := d.Get(ctx); gerr == nil && bytes.Equal(now, data) {
			return docVersion(data), nil
		}
	}
	if err != nil {
		return "", err
	}
	switch resp.status {
	case http.StatusOK, http.StatusCreated, http.StatusNoContent:
		return docVersion(data), nil
	case http.StatusConflict, http.StatusLocked:
		return "", fmt.Errorf("the server refused the write (HTTP %d: locked by another): %w", resp.status, statemgr.ErrConflict)
	}
	return "", &StatusError{Method: d.b.cfg.UpdateMethod, URL: d.Where(), Status: resp.status, Body: snippet(resp.body)}
}

// TryLock sends LOCK with body. A 409 or 423 whose holder is this very
// body is our own earlier attempt, its answer lost.
func (d *tfDocument) TryLock(ctx context.Context, body tflayout.LockInfo) (tflayout.LockInfo, error) {
	if d.b.cfg.LockAddress == "" {
		return body, nil
	}
	body.Path = d.Where()
	data := body.Marshal()
	resp, _, err := d.b.do(ctx, d.b.cfg.LockMethod, d.b.cfg.LockAddress, data)
	if err != nil {
		return tflayout.LockInfo{}, err
	}
	switch resp.status {
	case http.StatusOK:
	case http.StatusConflict, http.StatusLocked:
		holder, ok := tflayout.ParseLockInfo(resp.body)
		switch {
		case ok && holder.ID == body.ID:
		case ok:
			return tflayout.LockInfo{}, &tflayout.HeldError{Holder: holder}
		default:
			return tflayout.LockInfo{}, &tflayout.HeldError{Err: fmt.Errorf("the server's answer is not lock info: %s", snippet(resp.body))}
		}
	default:
		return tflayout.LockInfo{}, &StatusError{Method: d.b.cfg.LockMethod, URL: d.LockPath(), Status: resp.status, Body: snippet(resp.body)}
	}
	d.mu.Lock()
	d.body = data
	d.mu.Unlock()
	return body, nil
}

// Unlock sends UNLOCK with the body the lock was taken with.
func (d *tfDocument) Unlock(ctx context.Context, id string) error {
	if d.b.cfg.LockAddress == "" {
		return nil
	}
	d.mu.Lock()
	data := d.body
	d.body = nil
	d.mu.Unlock()
	if l, ok := tflayout.ParseLockInfo(data); !ok || l.ID != id {
		data = tflayout.LockInfo{ID: id}.Marshal()
	}
	return d.unlock(ctx, data)
}

// ForceUnlock sends UNLOCK with a body holding id, as tofu force-unlock
// does; the server refuses another lock's ID.
func (d *tfDocument) ForceUnlock(ctx context.Context, id string) error {
	if d.b.cfg.LockAddress == "" {
		return errors.New("the backend has no lock_address: there is no lock")
	}
	return d.unlock(ctx, tflayout.LockInfo{ID: id}.Marshal())
}

func (d *tfDocument) unlock(ctx context.Context, data []byte) error {
	resp, _, err := d.b.do(ctx, d.b.cfg.UnlockMethod, d.b.cfg.UnlockAddress, data)
	if err != nil {
		return err
	}
	switch resp.status {
	case http.StatusOK:
		return nil
	case http.StatusConflict, http.StatusLocked:
		return fmt.Errorf("%w (the server holds another lock)", statemgr.ErrWrongToken)
	}
	return &StatusError{Method: d.b.cfg.UnlockMethod, URL: d.LockPath(), Status: resp.status, Body: snippet(resp.body)}
}
