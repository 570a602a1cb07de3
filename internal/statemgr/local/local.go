package local

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/kyku/action/internal/durable"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
)

var (
	_ statemgr.Backend        = (*Backend)(nil)
	_ statemgr.BackupRewriter = (*Backend)(nil)
)

// Options tune a Backend. Zero values get the defaults named on each field.
type Options struct {
	// LockTimeout is how long Lock waits for a held lock (default 30s). A
	// negative value means try once and do not wait.
	LockTimeout time.Duration
	// StaleAfter is the age of a lock's heartbeat past which the lock is
	// considered abandoned and broken (default 5m).
	StaleAfter time.Duration
	// Heartbeat is how often a held lock refreshes its heartbeat (default
	// 60s). It is capped at StaleAfter/3: a slower heartbeat could not keep a
	// live lock from looking stale.
	Heartbeat time.Duration
	// PollInterval is how often a waiting Lock looks at the lock again
	// (default 250ms).
	PollInterval time.Duration
	// BackupRetention is how many backups to keep; 0 keeps all.
	BackupRetention int
	// Codec seals the state, journal entries, backups and objects before
	// they are written (nil: clear; sealed data then fails to read).
	Codec statemgr.Codec
	// Now is the clock for lock timestamps and backup names (default time.Now).
	Now func() time.Time
	// Hostname and PID are recorded in the lock (default os.Hostname, os.Getpid).
	Hostname string
	PID      int
	// Proc is the host's process table, /proc (the default) or a test's
	// fake: a lock records the identity of the process that took it, and
	// a lock whose process is gone from this host is taken over at once.
	Proc fs.FS
	// GitIgnore keeps the directory out of git: before the first state,
	// journal, backup or object this Backend writes, it writes a
	// .gitignore ignoring everything there, unless one exists.
	GitIgnore bool
}

// Backend keeps state in a directory. Build it with New.
type Backend struct {
	dir  string
	env  string
	opts Options
	proc *procTable

	storeMu     sync.Mutex     // guards fingerprint, serializes Read/Write
	fingerprint string         // of the state last read or written; "absent" when none
	meta        state.Metadata // of that state when it decoded; zero otherwise

	journalMu sync.Mutex // guards journal and the journal file
	journal   *os.File   // open for appending, nil until the first Append
	// where journal's lines end, and its size (zeroed past the end:
	// growJournal)
	journalEnd, journalSize int64
	syncs                   int    // journal syncs so far (group commit makes it < appends)
	batchBuf                []byte // writeBatch's buffer, kept between commits

	pendMu   sync.Mutex    // guards pending, spare and flushing
	pending  []pendingLine // lines waiting for the next group commit
	spare    []pendingLine // the batch before, emptied: the next pending list
	flushing bool          // a goroutine is committing batches
	backupMu sync.Mutex

	ignoreOnce sync.Once // keepIgnored
	ignoreErr  error
}

// fingerprintAbsent is the fingerprint of a state file that does not exist.
const fingerprintAbsent = "absent"

// New returns a backend for environment env ("" for the default) in dir.
// The directory is created on first write.
func New(dir, env string, opts Options) *Backend {
	if opts.LockTimeout == 0 {
		opts.LockTimeout = 30 * time.Second
	}
	if opts.StaleAfter <= 0 {
		opts.StaleAfter = 5 * time.Minute
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = 60 * time.Second
	}
	if opts.Heartbeat > opts.StaleAfter/3 {
		opts.Heartbeat = opts.StaleAfter / 3
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 250 * time.Millisecond
	}
	if opts.BackupRetention < 0 {
		opts.BackupRetention = 0
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Hostname == "" {
		opts.Hostname, _ = os.Hostname()
	}
	if opts.PID == 0 {
		opts.PID = os.Getpid()
	}
	if opts.Proc == nil {
		opts.Proc = os.DirFS("/proc")
	}
	return &Backend{dir: dir, env: env, opts: opts, proc: &procTable{fsys: opts.Proc}, fingerprint: fingerprintAbsent}
}

// Describe names the backend and its state file ("local .kyku-state/state.prod.json").
func (b *Backend) Describe() string { return "local " + b.statePath() }

// stem is "state.<env>" or "state" when env is empty.
func (b *Backend) stem() string {
	if b.env == "" {
		return "state"
	}
	return "state." + b.env
}

func (b *Backend) statePath() string   { return filepath.Join(b.dir, b.stem()+".json") }
func (b *Backend) journalPath() string { return filepath.Join(b.dir, b.stem()+".journal") }
func (b *Backend) lockPath() string    { return filepath.Join(b.dir, ".kyku.lock") }

// writeFileAtomic replaces path with data so that a crash leaves either the
// old or the new content: temp file in the same directory, write, fsync,
// rename, fsync the directory. Parent directories are created.
func writeFileAtomic(path string, data []byte) error {
	return writeFileAtomicFunc(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeFileAtomicFunc is writeFileAtomic with the content written by write.
func writeFileAtomicFunc(path string, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("create temp file: %w", err)
	}
	tmpName := tmp.Name()
	cleanup := func() { _ = os.Remove(tmpName) }
	if err := write(tmp); err != nil {
		_ = tmp.Close()
		cleanup()
		return fmt.Errorf("write %s: %w", tmpName, err)
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		cleanup()
		return fmt.Errorf("sync %s: %w", tmpName, err)
	}
	if err := tmp.Close(); err != nil {
		cleanup()
		return fmt.Errorf("close %s: %w", tmpName, err)
	}
	if err := os.Rename(tmpName, path); err != nil {
		cleanup()
		return fmt.Errorf("rename into %s: %w", path, err)
	}
	return durable.SyncDir(dir)
}

// randomHex returns n random bytes as hex.
func randomHex(n int) string {
	buf := make([]byte, n)
	_, _ = rand.Read(buf) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(buf)
}
