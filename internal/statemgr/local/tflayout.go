package local

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/tflayout"
	"github.com/kyku/action/internal/tfstate"
)

// TerraformConfig is OpenTofu's local backend: its "path" and
// "workspace_dir" arguments, relative to Dir (the root's directory).
type TerraformConfig struct {
	Dir          string
	Path         string // default terraform.tfstate
	WorkspaceDir string // default terraform.tfstate.d
}

// StatePath is where workspace's state is: Path for the default
// workspace, WorkspaceDir/<workspace>/terraform.tfstate for another, as
// OpenTofu's local backend has it.
func (c TerraformConfig) StatePath(workspace string) string {
	return filepath.Join(c.Dir, c.relPath(workspace))
}

// relPath is the state's path as OpenTofu names it, from the root's
// directory.
func (c TerraformConfig) relPath(workspace string) string {
	if workspace == "" || workspace == "default" {
		return cmp.Or(c.Path, "terraform.tfstate")
	}
	return filepath.Join(cmp.Or(c.WorkspaceDir, "terraform.tfstate.d"), workspace, "terraform.tfstate")
}

// NewTerraform returns a backend on workspace's state in OpenTofu's local
// layout: the state at StatePath (indented, as OpenTofu writes it), its
// previous version in <state>.backup when a write changes it, the lock an
// fcntl lock on the state file with its body in .<state>.lock.info, and
// Kyku's additions in the directory <state>.kyku (a Backend of this
// package there, with opts).
func NewTerraform(cfg TerraformConfig, workspace string, lay tflayout.Options, opts Options) (*tflayout.Backend, error) {
	if workspace == "default" {
		workspace = ""
	}
	if err := checkWorkspace(workspace); err != nil {
		return nil, err
	}
	path := cfg.StatePath(workspace)
	if opts.Codec != nil {
		return nil, fmt.Errorf("local backend %s: kyku's state encryption is not for a Terraform state (OpenTofu could not read it); remove \"encryption:\"", path)
	}
	aside := New(path+".kyku", workspace, opts)
	lay.Workspace, lay.Name = workspace, "local"
	lay = lay.WithDefaults(opts.Now, "", 0)
	return tflayout.New(&tfFile{path: path, rel: cfg.relPath(workspace), now: lay.Now}, aside, lay), nil
}

// checkWorkspace refuses a workspace name that is not one directory.
func checkWorkspace(ws string) error {
	if ws != "" && (ws == "." || ws == ".." || filepath.Base(ws) != ws || filepath.IsAbs(ws)) {
		return fmt.Errorf("workspace name %q is not a plain name", ws)
	}
	return nil
}

// tfFile is the state file and its lock, as OpenTofu's local backend keeps
// them.
type tfFile struct {
	path string
	rel  string // path as OpenTofu names it in the lock's body
	now  func() time.Time

	mu      sync.Mutex
	held    *os.File // the state file, open and locked, while the lock is held
	lockID  string
	created bool // the lock created the state file
}

var _ tflayout.LocalSlot = (*tfFile)(nil)

// OnThisMachine: the state file is on this machine (tflayout.LocalSlot).
func (s *tfFile) OnThisMachine() {}

func (s *tfFile) Form() tfstate.Form { return tfstate.Indented }
func (s *tfFile) Where() string      { return s.path }
func (s *tfFile) LockPath() string   { return s.path }

// infoPath is where OpenTofu keeps the lock's body: .terraform.tfstate.lock.info.
func (s *tfFile) infoPath() string {
	dir, name := filepath.Split(s.path)
	if name != "" && name[0] == '.' {
		name = name[1:]
	}
	return filepath.Join(dir, "."+name+".lock.info")
}

func versionOf(data []byte) statemgr.Version {
	sum := sha256.Sum256(data)
	return statemgr.Version(hex.EncodeToString(sum[:]))
}

// Get reads the state, through the locked descriptor while the lock is
// held (as OpenTofu does).
func (s *tfFile) Get(ctx context.Context) ([]byte, statemgr.Version, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var data []byte
	var err error
	if s.held != nil {
		data, err = readAll(s.held)
	} else {
		data, err = os.ReadFile(s.path)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, "", fmt.Errorf("%s: %w", s.path, statemgr.ErrNotFound)
	case err != nil:
		return nil, "", err
	case len(data) == 0:
		return nil, "", fmt.Errorf("%s is empty: %w", s.path, statemgr.ErrNotFound)
	}
	return data, versionOf(data), nil
}

// readAll reads f from its start, into a buffer of f's size (a state of
// some MB read by io.ReadAll is copied a dozen times as it grows).
func readAll(f *os.File) ([]byte, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 && fi.Size() < 1<<30 {
		buf.Grow(int(fi.Size()) + bytes.MinRead) // room for the read that sees EOF
	}
	_, err := buf.ReadFrom(f)
	return buf.Bytes(), err
}

// Put writes the state in place, as OpenTofu does (a new file would not
// carry the lock OpenTofu takes on the file), after keeping what it
// replaces in <state>.backup. Without the lock held it takes it for the
// write.
func (s *tfFile) Put(ctx context.Context, data []byte, v statemgr.Version, lockID string) (statemgr.Version, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.held
	if f == nil {
		var err error
		if f, _, err = s.openLocked(); err != nil {
			return "", err
		}
		defer f.Close() // releases the lock
	}
	old, err := readAll(f)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", s.path, err)
	}
	switch {
	case v == tflayout.Unconditional:
	case v == "" && len(old) > 0, v != "" && versionOf(old) != v:
		return "", fmt.Errorf("the state changed since it was read: %w", statemgr.ErrConflict)
	}
	if len(old) > 0 {
		if err := s.backup(old); err != nil {
			return "", err
		}
	}
	if err := f.Truncate(0); err != nil {
		return "", err
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		return "", err
	}
	if err := f.Sync(); err != nil {
		return "", err
	}
	return versionOf(data), nil
}

// backup writes old to <state>.backup, in the compact form OpenTofu writes
// backups in (as it is when it does not decode).
func (s *tfFile) backup(old []byte) error {
	if f, err := tfstate.Decode(s.path, old); err == nil {
		if b, err := tfstate.Encode(f, tfstate.Compact); err == nil {
			old = b
		}
	}
	if err := writeFileAtomic(s.path+".backup", old); err != nil {
		return fmt.Errorf("back up %s: %w", s.path, err)
	}
	return nil
}

// openLocked opens (creating) the state file and takes its lock without
// waiting: an error wrapping tflayout.ErrHeld when another holds it.
func (s *tfFile) openLocked() (*os.File, bool, error) {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		return nil, false, err
	}
	_, statErr := os.Stat(s.path)
	f, err := os.OpenFile(s.path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, false, err
	}
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}
	if err := unix.FcntlFlock(f.Fd(), tfSetLock, &lk); err != nil {
		pid := lockHolderPID(f)
		f.Close()
		if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EACCES) {
			return nil, false, s.heldError(pid)
		}
		return nil, false, fmt.Errorf("lock %s: %w", s.path, err)
	}
	return f, errors.Is(statErr, fs.ErrNotExist), nil
}

// lockHolderPID is the process holding f's lock, when the system says (0: it
// does not, as for another Kyku's open file description lock).
func lockHolderPID(f *os.File) int {
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}
	if unix.FcntlFlock(f.Fd(), tfGetLock, &lk) != nil || lk.Type == unix.F_UNLCK || lk.Pid <= 0 {
		return 0
	}
	return int(lk.Pid)
}

func (s *tfFile) heldError(pid int) error {
	data, err := os.ReadFile(s.infoPath())
	he := &tflayout.HeldError{PID: pid}
	switch body, ok := tflayout.ParseLockInfo(data); {
	case err != nil:
		he.Err = fmt.Errorf("no lock info in %s: %w", s.infoPath(), err)
	case !ok:
		he.Err = fmt.Errorf("%s is not lock info", s.infoPath())
	default:
		he.Holder = body
	}
	return he
}

// TryLock takes the fcntl lock on the state file and writes its body to
// .<state>.lock.info (Path the state's, Created now), as OpenTofu does.
func (s *tfFile) TryLock(ctx context.Context, body tflayout.LockInfo) (tflayout.LockInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held != nil {
		return tflayout.LockInfo{}, fmt.Errorf("%s is locked by this backend already", s.path)
	}
	f, created, err := s.openLocked()
	if err != nil {
		return tflayout.LockInfo{}, err
	}
	body.Path, body.Created = s.rel, s.now().UTC()
	if body.ID == "" {
		body.ID = statemgr.NewLockID()
	}
	if err := os.WriteFile(s.infoPath(), body.Marshal(), 0o600); err != nil {
		f.Close()
		return tflayout.LockInfo{}, fmt.Errorf("write lock info %s: %w", s.infoPath(), err)
	}
	s.held, s.lockID, s.created = f, body.ID, created
	return body, nil
}

// Unlock removes the lock's body and releases the lock; a state file the
// lock created and nothing wrote is removed, as OpenTofu does.
func (s *tfFile) Unlock(ctx context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held == nil || s.lockID != id {
		return fmt.Errorf("%s is not locked as %s here: %w", s.path, id, statemgr.ErrLockLost)
	}
	rmErr := os.Remove(s.infoPath())
	if errors.Is(rmErr, fs.ErrNotExist) {
		rmErr = nil
	}
	st, statErr := s.held.Stat()
	closeErr := s.held.Close() // releases the lock
	if s.created && statErr == nil && st.Size() == 0 {
		_ = os.Remove(s.path)
	}
	s.held, s.lockID, s.created = nil, "", false
	return errors.Join(rmErr, closeErr)
}

// ForceUnlock removes a lock body left behind by a process that is gone
// (the fcntl lock went with it). A lock a running process holds cannot be
// taken from it: it ends with that process.
func (s *tfFile) ForceUnlock(ctx context.Context, id string) error {
	s.mu.Lock()
	if s.held != nil && s.lockID == id {
		s.mu.Unlock()
		return s.Unlock(ctx, id)
	}
	s.mu.Unlock()
	data, err := os.ReadFile(s.infoPath())
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no lock is held on %s", s.path)
	}
	if err != nil {
		return err
	}
	if body, ok := tflayout.ParseLockInfo(data); !ok || body.ID != id {
		return fmt.Errorf("%w (%s holds another)", statemgr.ErrWrongToken, s.infoPath())
	}
	f, err := os.OpenFile(s.path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}
	if err := unix.FcntlFlock(f.Fd(), tfSetLock, &lk); err != nil {
		who := "a running process"
		if pid := lockHolderPID(f); pid > 0 {
			who = fmt.Sprintf("process %d", pid)
		}
		return fmt.Errorf("%s holds the lock on %s; it is released when that process ends: stop it rather than force-unlock", who, s.path)
	}
	if err := os.Remove(s.infoPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
