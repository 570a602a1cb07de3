package tfplugin

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// The handshake is go-plugin's (github.com/hashicorp/go-plugin, the
// library every provider serves with), as Terraform and OpenTofu make it:
// the client sets the magic cookie, the protocol versions it speaks, a
// port range and its own certificate (automatic mutual TLS); the provider
// answers one line on its standard output,
// CORE|PROTOCOL|NETWORK|ADDRESS|grpc|SERVER-CERT, and serves gRPC there
// over TLS that trusts that certificate only. Kyku implements the client
// side itself (rpc.go says why the library is not linked).
const (
	cookieKey   = "TF_PLUGIN_MAGIC_COOKIE"
	cookieValue = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2"
	// coreVersion is go-plugin's own protocol version, the handshake's
	// first field.
	coreVersion = "1"
)

// Config says how to launch one provider process.
type Config struct {
	// Name is the provider's address, for messages
	// ("registry.opentofu.org/hashicorp/null").
	Name string
	// LocalName, when set, is the name the caller's configuration gives
	// the provider, the prefix of its types there. When the provider's
	// own types share another prefix, every type is renamed between the
	// two: a second configuration of hashicorp/aws called west (Terraform
	// would say alias) has west_s3_bucket for the provider's
	// aws_s3_bucket, in the schema Schema returns, in every request and
	// in every answer.
	LocalName string
	// Path is the provider's executable (installed and checked by
	// package tfinstall).
	Path string
	// Dir is its working directory (empty: Kyku's).
	Dir string
	// Env is the provider process's whole environment, injected (Kyku's
	// own is not passed on unless the caller puts it here): credentials
	// for its cloud, TF_LOG.
	Env []string
	// Stderr, when set, receives what the provider writes to its
	// standard error and output (its logs). The last part of it is kept
	// anyway for the message of a crash.
	Stderr io.Writer
	// StopGrace is how long ApplyResourceChange may still run once its
	// context is cancelled: the provider is asked to stop (StopProvider)
	// and its answer, with whatever it created, awaited that long, so
	// state keeps it. Zero means 30s.
	StopGrace time.Duration
	// StartTimeout bounds the launch and handshake; zero means 1 minute.
	StartTimeout time.Duration
	// Sandbox, when set, confines the process (sandbox.go); nil: it runs
	// as Kyku's own child, with Kyku's user, files and network.
	Sandbox *Sandbox
	// Keeper, when set and Sandbox is not, is the command of the journal
	// keeper (keeper.go; kyku-engine with KeeperArg), which launches the
	// provider in a session of its own and keeps the answers of the
	// creates sent with ApplyRequest.AnswerTo; nil: the provider is
	// Kyku's own child, and what it answers while Kyku dies is lost.
	Keeper []string
	// Notice, when set, is told in one line what the user should know of
	// a launch: a keeper not spoken to (nil: the line goes to Stderr).
	Notice func(line string)
}

// KeepsAnswers reports whether a provider launched with c goes through
// its journal keeper: Keeper set and no Sandbox (launch starts one
// exactly then), so the answers of its journaled creates are kept.
func (c Config) KeepsAnswers() bool { return len(c.Keeper) > 0 && c.Sandbox == nil }

// maxMessage bounds a message either way: a large provider's schema is
// tens of megabytes (Terraform allows 64 MiB too).
const maxMessage = 256 << 20

// shutdownGrace is how long Close waits for the process to exit once
// asked, before it kills it (go-plugin's two seconds).
const shutdownGrace = 2 * time.Second

// Start launches the provider at cfg.Path, handshakes as Terraform does
// (go-plugin's magic cookie, protocol 5 or 6, gRPC over automatic mutual
// TLS) and returns the client, which owns the process until Close.
// Cancelling ctx during the launch kills the process; after Start
// returns, the process lives until Close, whatever happens to ctx.
func Start(ctx context.Context, cfg Config) (*Provider, error) {
	if cfg.StopGrace == 0 {
		cfg.StopGrace = 30 * time.Second
	}
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = defaultStartTimeout
	}
	p, err := launch(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("start provider %s: %w", cfg.Name, err)
	}
	return p, nil
}

func launch(ctx context.Context, cfg Config) (*Provider, error) {
	cert, certPEM, err := clientCert()
	if err != nil {
		return nil, err
	}
	tail := &tailBuffer{max: 16 << 10, fwd: cfg.Stderr}
	line := make(chan string, 1)
	env := append(providerEnv(cfg.Env),
		cookieKey+"="+cookieValue,
		"PLUGIN_MIN_PORT=10000", "PLUGIN_MAX_PORT=25000",
		"PLUGIN_PROTOCOL_VERSIONS=5,6",
		"PLUGIN_CLIENT_CERT="+certPEM)
	var (
		cmd *exec.Cmd
		j   *jail
		k   *keeperConn
	)
	switch {
	case cfg.Sandbox != nil:
		if cmd, j, err = cfg.Sandbox.command(cfg, env); err != nil {
			return nil, err
		}
	case cfg.KeepsAnswers():
		if cmd, k, err = startKeeper(cfg, env, cert, tail, line); err != nil {
			return nil, err
		}
	default:
		cmd = exec.Command(cfg.Path)
		cmd.Dir = cfg.Dir
		cmd.Env = env
	}
	if k == nil {
		cmd.Stdout = &handshakeWriter{line: line, rest: tail}
		cmd.Stderr = tail
		cmd.WaitDelay = 5 * time.Second // a provider's own children keeping its pipes open
		if err := cmd.Start(); err != nil {
			if j != nil {
				j.close()
			}
			return nil, err
		}
	}
	p := &Provider{cfg: cfg, cmd: cmd, jail: j, keeper: k, tail: tail, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	if j != nil {
		sctx, cancel := context.WithTimeout(ctx, cfg.StartTimeout)
		err := j.started(sctx)
		cancel()
		if err != nil {
			p.kill()
			return nil, fmt.Errorf("%w%s", err, tail.excerpt())
		}
	}

	hs, err := awaitHandshake(ctx, line, p.done, cfg.StartTimeout)
	switch {
	case errors.Is(err, errExitedBeforeHandshake):
		p.release()
		if k != nil {
			if why := k.speaks(); why != nil {
				// Its frames are not Kyku's: the provider runs as Kyku's
				// own child, as without a keeper, said in one line.
				line := fmt.Sprintf("kyku: provider %s runs without its journal keeper (the answers of its creates are not kept): %v", cfg.Name, why)
				if cfg.Notice != nil {
					cfg.Notice(line)
				} else {
					fmt.Fprintln(tail, line)
				}
				cfg.Keeper = nil
				return launch(ctx, cfg)
			}
		}
		return nil, fmt.Errorf("%w (%v)%s", err, p.waitErr, tail.excerpt())
	case err != nil && ctx.Err() != nil:
		p.kill()
		return nil, err
	case err != nil:
		p.kill()
		return nil, fmt.Errorf("%w%s", err, tail.excerpt())
	}
	network, addr, protocol, serverCert, err := parseHandshake(hs)
	if err != nil {
		p.kill()
		return nil, fmt.Errorf("%w%s", err, tail.excerpt())
	}
	var dial func(ctx context.Context, network, addr string) (net.Conn, error)
	switch {
	case j != nil && network == "unix":
		if addr, err = j.socketPath(addr); err != nil {
			p.kill()
			return nil, fmt.Errorf("%w%s", err, tail.excerpt())
		}
	case j != nil && j.net == NetworkProxied:
		dial = func(_ context.Context, network, addr string) (net.Conn, error) { return dialIn(j.pid, network, addr) }
	}
	p.rpc = dialRPC(network, addr, providerTLS(cert, serverCert), dial)
	p.protocol = protocol
	p.names = &methods5
	if protocol == 6 {
		p.names = &methods6
	}
	p.startStdio()
	return p, nil
}

// parseHandshake reads the provider's handshake line.
func parseHandshake(line string) (network, addr string, protocol int, cert *x509.Certificate, err error) {
	f := strings.Split(strings.TrimSpace(line), "|")
	if len(f) < 5 {
		return "", "", 0, nil, fmt.Errorf("the provider's first line is not a plugin handshake: %.200q", line)
	}
	if f[0] != coreVersion {
		return "", "", 0, nil, fmt.Errorf("the provider speaks plugin core protocol %q, Kyku %s", f[0], coreVersion)
	}
	protocol, err = strconv.Atoi(f[1])
	if err != nil || protocol != 5 && protocol != 6 {
		return "", "", 0, nil, fmt.Errorf("the provider offers plugin protocol %q; Kyku speaks 5 and 6", f[1])
	}
	network, addr = f[2], f[3]
	if network != "unix" && network != "tcp" {
		return "", "", 0, nil, fmt.Errorf("the provider listens on a %q address, not unix or tcp", network)
	}
	if f[4] != "grpc" {
		return "", "", 0, nil, fmt.Errorf("the provider serves %q, not grpc (net/rpc providers predate Terraform 0.12)", f[4])
	}
	if len(f) < 6 || f[5] == "" {
		return "", "", 0, nil, errors.New("the provider did not answer with its certificate: it does not do automatic mutual TLS")
	}
	der, err := base64.RawStdEncoding.DecodeString(f[5])
	if err != nil {
		return "", "", 0, nil, fmt.Errorf("the provider's certificate: %w", err)
	}
	cert, err = x509.ParseCertificate(der)
	if err != nil {
		return "", "", 0, nil, fmt.Errorf("the provider's certificate: %w", err)
	}
	return network, addr, protocol, cert, nil
}

// clientCert is a new self-signed certificate for one provider process,
// which trusts it alone (go-plugin's automatic mutual TLS).
func clientCert() (tls.Certificate, string, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, "", fmt.Errorf("client certificate: %w", err)
	}
	sn, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return tls.Certificate{}, "", fmt.Errorf("client certificate: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          sn,
		Subject:               pkix.Name{CommonName: "localhost", Organization: []string{"Kyku"}},
		DNSNames:              []string{"localhost"},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(30 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true, // the provider's pool trusts it as its own root
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, "", fmt.Errorf("client certificate: %w", err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, string(certPEM), nil
}

// handshakeWriter is the provider's standard output: its first line is
// the handshake (sent on line), the rest goes to rest.
type handshakeWriter struct {
	mu   sync.Mutex
	buf  []byte
	line chan<- string
	sent bool
	rest io.Writer
}

func (w *handshakeWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sent {
		return w.rest.Write(b)
	}
	w.buf = append(w.buf, b...)
	i := bytes.IndexByte(w.buf, '\n')
	if i < 0 {
		if len(w.buf) > 64<<10 {
			w.sent = true // no handshake: Start times out, and says so
			_, _ = w.rest.Write(w.buf)
		}
		return len(b), nil
	}
	w.sent = true
	w.line <- string(w.buf[:i])
	if rest := w.buf[i+1:]; len(rest) > 0 {
		_, _ = w.rest.Write(rest)
	}
	w.buf = nil
	return len(b), nil
}

// quiet are the settings of HashiCorp's provider libraries that keep a
// provider from writing its trace log: written by default, a log line for
// every step of every call, which the client then discards (as OpenTofu
// does with TF_LOG unset), costs the provider a large share of its CPU.
// The SDK's subsystems (the protocol's request log, the framework's, the
// SDK's helpers, the mux) take their level from their own setting, not
// TF_LOG_SDK's.
var quiet = [...]string{"TF_LOG_SDK", "TF_LOG_PROVIDER", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK",
	"TF_LOG_SDK_HELPER_SCHEMA", "TF_LOG_SDK_HELPER_RESOURCE", "TF_LOG_SDK_MUX"}

// providerEnv is the provider's environment: env, and unless env asks
// for provider logs (TF_LOG) or sets them itself, quiet's settings off.
func providerEnv(env []string) []string {
	out := append(make([]string, 0, len(env)+len(quiet)), env...)
	set := func(key string) bool {
		for _, kv := range env {
			if strings.HasPrefix(kv, key+"=") {
				return true
			}
		}
		return false
	}
	if set("TF_LOG") {
		return out
	}
	for _, key := range quiet {
		if !set(key) {
			out = append(out, key+"=OFF")
		}
	}
	return out
}

// startStdio consumes go-plugin's stdio stream (what the provider's
// libraries write to os.Stdout and os.Stderr once serving), as go-plugin's
// client does: unread, it would block the provider once its pipe fills.
func (p *Provider) startStdio() {
	ctx, cancel := context.WithCancel(context.Background())
	p.stopStdio = cancel
	p.stdio.Add(1)
	go func() {
		defer p.stdio.Done()
		_ = p.rpc.call(ctx, "/plugin.GRPCStdio/StreamStdio", empty{}, func(b []byte) error {
			var data []byte
			err := eachField(b, func(f field) error {
				if f.isBytes(stdioData) && f.typ == protowire.BytesType {
					data = f.bytes
				}
				return nil
			})
			if err == nil && len(data) > 0 {
				_, _ = p.tail.Write(data)
			}
			return nil
		})
	}()
}

// Close shuts the provider down as go-plugin does: it asks the process to
// exit (GRPCController.Shutdown) and kills it if it has not within two
// seconds. It returns once the process and every goroutine serving it are
// gone. Safe to call more than once.
func (p *Provider) Close() error {
	p.closeOnce.Do(func() {
		if !p.Exited() {
			ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
			_ = p.rpc.invoke(ctx, "/plugin.GRPCController/Shutdown", empty{}, discard{})
			cancel()
			grace := time.NewTimer(shutdownGrace)
			select {
			case <-p.done:
			case <-grace.C:
				p.kill()
			}
			grace.Stop()
		}
		<-p.done
		p.stopStdio()
		p.rpc.close()
		p.stdio.Wait()
		p.release()
	})
	return nil
}

// kill ends the process at once (the provider, then its keeper when it
// has one), waits for it and releases its sandbox.
func (p *Provider) kill() {
	if pid := p.keeperChild(); pid > 0 && !p.Exited() {
		// The keeper has not reaped it: the ID is still the provider's.
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	_ = p.cmd.Process.Kill()
	<-p.done
	p.release()
}

// release ends what the process's sandbox holds, once it has ended, and
// its keeper's pipe.
func (p *Provider) release() {
	p.statm.close()
	if p.jail != nil {
		p.jail.close()
	}
	if p.keeper != nil {
		p.keeper.close()
	}
}

// Pid is the provider process's ID (0 once it has ended), for tests and
// logs; in a sandbox, the provider's own, not bubblewrap's.
func (p *Provider) Pid() int {
	if p.Exited() {
		return 0
	}
	if p.jail != nil {
		return p.jail.pid
	}
	if p.keeper != nil {
		return p.keeperChild()
	}
	return p.cmd.Process.Pid
}

// Exited reports whether the provider process has ended.
func (p *Provider) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// tailBuffer keeps the last max bytes written to it (a crashed provider's
// panic and stack trace) and forwards everything to fwd.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
	fwd io.Writer
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	if t.fwd != nil {
		_, _ = t.fwd.Write(b)
	}
	return len(b), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// excerpt is the provider's last output, for an error message.
func (t *tailBuffer) excerpt() string {
	if s := t.String(); s != "" {
		return "\nthe provider's last output:\n" + s
	}
	return ""
}
