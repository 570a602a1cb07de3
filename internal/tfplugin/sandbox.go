package tfplugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Sandbox confines a provider process (Config.Sandbox) with bubblewrap
// (bwrap, Debian's package bubblewrap, 0.8 or later): namespaces of its
// own for mounts, processes, IPC and the hostname, for the network unless
// Network says otherwise, and for users when Kyku is not root. The
// process sees:
//
//   - the system's programs and libraries (/usr, /bin, /lib…) and, from
//     /etc, only what name resolution and TLS need (resolv.conf, hosts,
//     nsswitch.conf, the CA certificates…), read-only;
//   - its own executable, read-only, and Files, each copied in read-only
//     at its own path;
//   - Config.Dir, when set, read-only and as its working directory, with
//     its .git, .kyku-state and .kyku hidden (a checkout's token, Kyku's
//     state, and where an older kyku kept it);
//   - a directory of its own at /tmp (TMPDIR, and HOME unless its
//     environment sets one), the only place it can write, removed when
//     it ends;
//   - a /proc of its own (itself, as process 1), and a minimal /dev.
//
// When Kyku runs as root, the process runs as a user of its own (an
// unused ID from 2000000000 up, one per process, owning nothing);
// otherwise as Kyku's user, inside a user namespace.
type Sandbox struct {
	// Bwrap is the bubblewrap program ("": bwrap, found in PATH).
	Bwrap string
	// Files are host files the provider may read, each copied into the
	// sandbox read-only at its own path (credentials granted to it).
	Files []string
	// Network is how it reaches the network.
	Network Network
	// Deny are the addresses the egress proxy refuses (NetworkProxied);
	// nil: DefaultDeny.
	Deny []netip.Prefix
	// TempDir is where the process's own directory is made ("": the
	// system's temporary directory).
	TempDir string
}

// Network is how a sandboxed provider reaches the network.
type Network int

const (
	// NetworkProxied gives the provider a network namespace of its own,
	// with nothing but its loopback: it reaches out only through Kyku's
	// HTTP proxy there (HTTPS_PROXY and HTTP_PROXY name it), which
	// connects for it unless the address, once resolved, is in Deny.
	// Kyku must run as root.
	NetworkProxied Network = iota
	// NetworkHost leaves the provider on the host's network as it is,
	// cloud metadata addresses included.
	NetworkHost
	// NetworkBest is NetworkProxied when Kyku runs as root, NetworkHost
	// otherwise.
	NetworkBest
)

func (n Network) String() string {
	switch n {
	case NetworkProxied:
		return "proxied"
	case NetworkHost:
		return "host"
	case NetworkBest:
		return "best"
	}
	return "Network(" + strconv.Itoa(int(n)) + ")"
}

// MetadataNets are the cloud instance metadata services' addresses: IPv4
// link-local (169.254.169.254 of AWS, GCP, Azure and Oracle, ECS's
// 169.254.170.2), the same through NAT64, IPv6 link-local, AWS's
// fd00:ec2::254 and Alibaba's 100.100.100.200.
func MetadataNets() []netip.Prefix {
	return prefixes("169.254.0.0/16", "64:ff9b::a9fe:0/112", "fe80::/10", "fd00:ec2::254/128", "100.100.100.200/32")
}

// HostNets are the addresses that reach the host itself: loopback and
// the unspecified addresses.
func HostNets() []netip.Prefix {
	return prefixes("127.0.0.0/8", "::1/128", "0.0.0.0/8", "::/128")
}

// DefaultDeny is what a proxied provider may not reach: MetadataNets and
// HostNets.
func DefaultDeny() []netip.Prefix { return append(MetadataNets(), HostNets()...) }

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// A sandboxed provider's user, when Kyku runs as root: one ID per process
// from this range, which no account uses.
const (
	sandboxUIDBase = 2_000_000_000
	sandboxUIDs    = 1 << 24
)

// proxyAddr is the egress proxy's address inside a provider's own network
// namespace (nothing else listens there).
const proxyAddr = "127.0.0.1:3128"

// ErrNoSandbox is wrapped by every error saying a sandbox cannot be had.
var ErrNoSandbox = errors.New("no sandbox available")

// CheckSandbox starts sb around a program that exits at once (bwrap's own
// --version), with everything a provider's launch does, and reports why
// it failed (wrapping ErrNoSandbox): bubblewrap missing, user namespaces
// refused, a proxied network without root.
func CheckSandbox(ctx context.Context, sb *Sandbox) error {
	bwrap, err := sb.bwrap()
	if err != nil {
		return err
	}
	cmd, j, err := sb.command(Config{Path: bwrap}, nil, "--version")
	if err != nil {
		return err
	}
	defer j.close()
	tail := &tailBuffer{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = tail, tail
	if err := cmd.Start(); err != nil {
		j.abandon()
		return fmt.Errorf("%w: start %s: %v", ErrNoSandbox, bwrap, err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	serr := j.started(ctx)
	if serr != nil {
		_ = cmd.Process.Kill()
	}
	werr := cmd.Wait()
	if err := errors.Join(serr, werr); err != nil {
		return fmt.Errorf("%w: %v%s", ErrNoSandbox, err, oneLine(tail.String()))
	}
	return nil
}

// oneLine is bwrap's message, for an error.
func oneLine(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\n", "; "))
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

func (sb *Sandbox) bwrap() (string, error) {
	name := sb.Bwrap
	if name == "" {
		name = "bwrap"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%w: bubblewrap (%s) is not installed: %v", ErrNoSandbox, name, err)
	}
	return path, nil
}

// network is the network sb gives, NetworkBest decided.
func (sb *Sandbox) network() (Network, error) {
	root := os.Geteuid() == 0
	switch {
	case sb.Network == NetworkBest && root:
		return NetworkProxied, nil
	case sb.Network == NetworkBest:
		return NetworkHost, nil
	case sb.Network == NetworkProxied && !root:
		return 0, fmt.Errorf("%w: a network of the provider's own, reached through Kyku's proxy, needs Kyku to run as root (it runs as uid %d)", ErrNoSandbox, os.Geteuid())
	}
	return sb.Network, nil
}

// jail is what one sandboxed process has of its own: its directory, its
// user and its egress proxy.
type jail struct {
	net     Network
	deny    []netip.Prefix
	dir     string     // its own directory, /tmp inside
	uid     int        // -1: Kyku's own
	handed  []*os.File // the child's descriptors (pipes' ends, files copied in, the filter), closed once it started
	info    *os.File   // bwrap's --info-fd, read for the process's ID
	unblock *os.File   // bwrap's --block-fd: written once the proxy listens (NetworkProxied)
	pid     int        // the provider's process ID, as the host sees it
	proxy   *egress

	closeOnce sync.Once
}

// command is bwrap running cfg.Path with args in sb, with env (plus what
// the sandbox sets), not yet started.
func (sb *Sandbox) command(cfg Config, env []string, args ...string) (*exec.Cmd, *jail, error) {
	bwrap, err := sb.bwrap()
	if err != nil {
		return nil, nil, err
	}
	network, err := sb.network()
	if err != nil {
		return nil, nil, err
	}
	j := &jail{net: network, deny: sb.Deny, uid: -1}
	if j.deny == nil {
		j.deny = DefaultDeny()
	}
	if os.Geteuid() == 0 {
		j.uid = sandboxUIDBase + rand.IntN(sandboxUIDs)
	}
	if j.dir, err = os.MkdirTemp(jailParent(sb.TempDir), "kyku-provider-"); err != nil {
		return nil, nil, fmt.Errorf("sandbox directory: %w", err)
	}
	cmd, err := j.command(bwrap, sb, cfg, env, args)
	if err != nil {
		j.abandon()
		j.close()
		return nil, nil, err
	}
	return cmd, j, nil
}

func (j *jail) command(bwrap string, sb *Sandbox, cfg Config, env, extra []string) (*exec.Cmd, error) {
	exe, err := filepath.Abs(cfg.Path)
	if err != nil {
		return nil, err
	}
	a := &bwrapArgs{}
	fd := func(f *os.File) string { // its number in the child: ExtraFiles start at 3
		j.handed = append(j.handed, f)
		return strconv.Itoa(2 + len(j.handed))
	}
	var setpriv string
	if j.uid >= 0 {
		// As root, bubblewrap reaches every path with root's rights and
		// makes the namespaces itself; setpriv then becomes the user of
		// its own, with no capability, before the provider runs. A user
		// namespace of the provider's making is refused (the filter).
		if err := os.Chown(j.dir, j.uid, j.uid); err != nil {
			return nil, fmt.Errorf("sandbox directory: %w", err)
		}
		if setpriv, err = exec.LookPath("setpriv"); err != nil {
			return nil, fmt.Errorf("%w: setpriv (util-linux) is not installed: %v", ErrNoSandbox, err)
		}
		filter, err := userNamespaceFilter()
		if err != nil {
			return nil, err
		}
		a.add("--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try",
			"--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--seccomp", fd(filter))
		if j.net == NetworkProxied {
			a.add("--unshare-net")
		}
	} else {
		// Otherwise bubblewrap makes a user namespace (Kyku's user inside
		// and out) and the rest within it.
		a.add("--unshare-all", "--unshare-user", "--disable-userns")
		if j.net == NetworkHost {
			a.add("--share-net")
		}
	}
	a.add("--die-with-parent", "--new-session", "--as-pid-1")
	a.bind("--ro-bind-try", "/usr", "/usr")
	for _, d := range []string{"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"} {
		if target, err := os.Readlink(d); err == nil {
			a.add("--symlink", target, d)
		} else {
			a.bind("--ro-bind-try", d, d)
		}
	}
	for _, f := range []string{"resolv.conf", "hosts", "host.conf", "gai.conf", "nsswitch.conf", "services", "protocols",
		"localtime", "ssl", "ca-certificates", "pki", "crypto-policies"} {
		a.bind("--ro-bind-try", "/etc/"+f, "/etc/"+f)
	}
	a.add("--proc", "/proc", "--dev", "/dev")
	a.bind("--bind", j.dir, "/tmp")
	cwd := "/tmp"
	if cfg.Dir != "" {
		dir, err := filepath.Abs(cfg.Dir)
		if err != nil {
			return nil, err
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("the provider's working directory %s: not a directory (%v)", dir, err)
		}
		a.bind("--ro-bind", dir, dir)
		for _, hide := range []string{".git", ".kyku-state", ".kyku"} {
			p := filepath.Join(dir, hide)
			switch fi, err := os.Lstat(p); {
			case err != nil:
			case fi.IsDir():
				a.add("--tmpfs", p)
			default:
				a.add("--ro-bind", os.DevNull, p)
			}
		}
		cwd = dir
	}
	a.bind("--ro-bind", exe, exe)
	if setpriv != "" {
		a.bind("--ro-bind", setpriv, setpriv)
	}
	for _, name := range sb.Files {
		if !filepath.IsAbs(name) {
			return nil, fmt.Errorf("sandbox file %q: not an absolute path", name)
		}
		// Kyku reads it (with its rights) and bubblewrap copies it in.
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("sandbox file: %w", err)
		}
		name = filepath.Clean(name)
		a.parents(name)
		a.add("--perms", "0444", "--ro-bind-data", fd(f), name)
	}
	a.add("--chdir", cwd, "--remount-ro", "/")

	infoR, infoW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	j.info = infoR
	a.add("--info-fd", fd(infoW))
	if j.net == NetworkProxied {
		blockR, blockW, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		j.unblock = blockW
		a.add("--block-fd", fd(blockR))
	}
	a.add("--")
	if setpriv != "" {
		id := strconv.Itoa(j.uid)
		a.add(setpriv, "--reuid="+id, "--regid="+id, "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--")
	}
	a.add(exe)
	a.add(extra...)

	cmd := exec.Command(bwrap, a.args...)
	cmd.Env = j.env(env)
	cmd.ExtraFiles = j.handed
	return cmd, nil
}

// bwrapArgs are bubblewrap's arguments, with the directories above every
// place something is bound made first, searchable by everyone (as root,
// bubblewrap would make them for root only). Making one that exists (in
// what is bound already) does nothing.
type bwrapArgs struct {
	args []string
	made map[string]bool
}

func (a *bwrapArgs) add(args ...string) { a.args = append(a.args, args...) }

// bind binds src at dest (op: --bind, --ro-bind, …).
func (a *bwrapArgs) bind(op, src, dest string) {
	a.parents(dest)
	a.add(op, src, dest)
}

// parents makes the directories above dest.
func (a *bwrapArgs) parents(dest string) {
	if a.made == nil {
		a.made = map[string]bool{"/": true}
	}
	var up []string
	for d := filepath.Dir(dest); !a.made[d]; d = filepath.Dir(d) {
		up = append(up, d)
	}
	for i := len(up) - 1; i >= 0; i-- {
		a.made[up[i]] = true
		a.add("--perms", "0755", "--dir", up[i])
	}
}

// env is the provider's environment in the sandbox: its own, with TMPDIR
// (where go-plugin puts its socket) its own directory, HOME too unless it
// has one, and the proxy when it has no network of its own.
func (j *jail) env(env []string) []string {
	out := make([]string, 0, len(env)+8)
	home := false
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(k) {
		case "TMPDIR", "PLUGIN_UNIX_SOCKET_DIR":
			continue
		case "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY":
			if j.net == NetworkProxied {
				continue
			}
		case "HOME":
			home = true
		}
		out = append(out, kv)
	}
	out = append(out, "TMPDIR=/tmp", "PLUGIN_UNIX_SOCKET_DIR=/tmp")
	if !home {
		out = append(out, "HOME=/tmp")
	}
	if j.net == NetworkProxied {
		proxy := "http://" + proxyAddr
		out = append(out, "HTTPS_PROXY="+proxy, "HTTP_PROXY="+proxy, "https_proxy="+proxy, "http_proxy="+proxy)
	}
	return out
}

// started finishes the launch once bwrap runs: it learns the provider's
// process ID and, with a network of its own, starts the proxy there and
// lets the provider run.
func (j *jail) started(ctx context.Context) error {
	j.abandon()
	if dl, ok := ctx.Deadline(); ok {
		_ = j.info.SetReadDeadline(dl)
	}
	var info struct {
		Pid int `json:"child-pid"`
	}
	if err := json.NewDecoder(j.info).Decode(&info); err != nil {
		return fmt.Errorf("the sandbox did not start (%v)", err)
	}
	if info.Pid <= 0 {
		return errors.New("the sandbox did not say its process's ID")
	}
	j.pid = info.Pid
	if j.net != NetworkProxied {
		return nil
	}
	l, err := listenIn(info.Pid, proxyAddr)
	if err != nil {
		return fmt.Errorf("the sandbox's proxy: %w", err)
	}
	j.proxy = serveEgress(l, j.deny)
	if _, err := j.unblock.Write([]byte{1}); err != nil {
		return fmt.Errorf("the sandbox did not start: %w", err)
	}
	_ = j.unblock.Close()
	j.unblock = nil
	return nil
}

// maxSocketPath is the longest path of a unix socket Kyku can connect
// to: sun_path's 108 bytes on Linux, less the terminating NUL.
const maxSocketPath = 107

// jailSocketRoom is what a jail's directory adds to its parent's path up
// to a provider's socket in it: "/kyku-provider-" and MkdirTemp's up to
// 10 digits, then go-plugin's "/plugin" and its up to 10 digits.
const jailSocketRoom = len("/kyku-provider-1234567890/plugin1234567890")

// jailParent is where a jail's directory is made: dir ("" the system's
// temporary directory), or /tmp when dir is so long that the provider's
// socket in the jail would be beyond maxSocketPath (a connect to it
// fails with "invalid argument"; a long TMPDIR does that).
func jailParent(dir string) string {
	if dir == "" {
		dir = os.TempDir()
	}
	if len(dir)+jailSocketRoom > maxSocketPath {
		if fi, err := os.Stat("/tmp"); err == nil && fi.IsDir() {
			return "/tmp"
		}
	}
	return dir
}

// socketPath is where the unix socket a sandboxed provider's handshake
// names is on the host: it must be a socket in its own directory (/tmp
// inside), not a link to one of the host's.
func (j *jail) socketPath(p string) (string, error) {
	rest, ok := strings.CutPrefix(p, "/tmp/")
	if !ok || strings.Contains(rest, "/") {
		return "", fmt.Errorf("the sandboxed provider listens on %q, outside its own directory /tmp", p)
	}
	host := filepath.Join(j.dir, rest)
	if fi, err := os.Lstat(host); err != nil || fi.Mode().Type() != os.ModeSocket {
		return "", fmt.Errorf("the sandboxed provider's %s is not a socket", p)
	}
	if len(host) > maxSocketPath {
		return "", fmt.Errorf("the sandboxed provider's socket %s is longer than a unix socket's path may be (%d bytes): make the sandbox's directory in a shorter one (TMPDIR)", host, maxSocketPath)
	}
	return host, nil
}

// abandon closes what was handed to the child (its copies live on).
func (j *jail) abandon() {
	closeAll(j.handed)
	j.handed = nil
}

// close ends what the jail holds once its process has: the proxy and
// the directory. Safe to call more than once.
func (j *jail) close() {
	j.closeOnce.Do(j.closeNow)
}

func (j *jail) closeNow() {
	j.abandon()
	if j.info != nil {
		_ = j.info.Close()
	}
	if j.unblock != nil {
		_ = j.unblock.Close()
	}
	if j.proxy != nil {
		j.proxy.close()
	}
	_ = os.RemoveAll(j.dir)
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}
