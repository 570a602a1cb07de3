package tfplugin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
)

// Handshake is Terraform's: providers built with HashiCorp's libraries
// refuse to serve a client that does not set this cookie.
var handshake = plugin.HandshakeConfig{
	MagicCookieKey:   "TF_PLUGIN_MAGIC_COOKIE",
	MagicCookieValue: "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2",
}

// Config says how to launch one provider process.
type Config struct {
	// Name is the provider's address, for messages
	// ("registry.opentofu.org/hashicorp/null").
	Name string
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
	// standard error (its logs). The last part of it is kept anyway for
	// the message of a crash.
	Stderr io.Writer
	// Logger receives go-plugin's own log; nil discards it.
	Logger hclog.Logger
	// StopGrace is how long ApplyResourceChange may still run once its
	// context is cancelled: the provider is asked to stop (StopProvider)
	// and its answer, with whatever it created, awaited that long, so
	// state keeps it. Zero means 30s.
	StopGrace time.Duration
	// StartTimeout bounds the launch and handshake; zero means 1 minute.
	StartTimeout time.Duration
}

// maxMessage bounds a message either way: a large provider's schema is
// tens of megabytes (Terraform allows 64 MiB too).
const maxMessage = 256 << 20

// grpcProvider is the go-plugin plugin of both protocol versions on the
// client's side: it hands back the connection, over which Kyku calls the
// protocol itself.
type grpcProvider struct{ plugin.NetRPCUnsupportedPlugin }

func (grpcProvider) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error {
	return errors.New("tfplugin: client only")
}

func (grpcProvider) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return c, nil
}

// Start launches the provider at cfg.Path, handshakes as Terraform does
// (go-plugin, its magic cookie, protocol 5 or 6, gRPC over automatic
// mutual TLS) and returns the client, which owns the process until
// Close. Cancelling ctx during the launch kills the process; after
// Start returns, the process lives until Close, whatever happens to ctx.
func Start(ctx context.Context, cfg Config) (*Provider, error) {
	if cfg.StopGrace == 0 {
		cfg.StopGrace = 30 * time.Second
	}
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = time.Minute
	}
	logger := cfg.Logger
	if logger == nil {
		// Off, not hclog's null logger (whose level is "none"): go-plugin
		// then skips parsing the provider's log lines, which are most of
		// a run's allocations otherwise.
		logger = hclog.New(&hclog.LoggerOptions{Level: hclog.Off, Output: io.Discard})
	}
	tail := &tailBuffer{max: 16 << 10, fwd: cfg.Stderr}

	// The command's context kills the process only while it starts: once
	// it has, the process lives until Close (an interrupted apply must be
	// able to finish and report, see StopGrace).
	startCtx, cancelStart := context.WithCancel(context.Background())
	cmd := exec.CommandContext(startCtx, cfg.Path)
	cmd.Dir = cfg.Dir
	cmd.Env = providerEnv(cfg.Env)
	cmd.WaitDelay = 5 * time.Second

	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig: handshake,
		VersionedPlugins: map[int]plugin.PluginSet{
			5: {"provider": grpcProvider{}},
			6: {"provider": grpcProvider{}},
		},
		Cmd:              cmd,
		SkipHostEnv:      true,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
		Managed:          false,
		Logger:           logger,
		Stderr:           tail,
		StartTimeout:     cfg.StartTimeout,
		GRPCDialOptions: []grpc.DialOption{grpc.WithDefaultCallOptions(
			grpc.MaxCallRecvMsgSize(maxMessage), grpc.MaxCallSendMsgSize(maxMessage))},
	})
	p := &Provider{cfg: cfg, client: client, tail: tail, cancelStart: cancelStart}

	stop := context.AfterFunc(ctx, cancelStart)
	conn, err := p.connect()
	if !stop() || ctx.Err() != nil {
		p.Close()
		return nil, fmt.Errorf("start provider %s: %w", cfg.Name, context.Cause(ctx))
	}
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("start provider %s: %w%s", cfg.Name, err, tail.excerpt())
	}
	p.conn = conn
	p.protocol = client.NegotiatedVersion()
	p.names = &methods5
	if p.protocol == 6 {
		p.names = &methods6
	}
	return p, nil
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

// connect starts the process and dispenses the gRPC connection.
func (p *Provider) connect() (*grpc.ClientConn, error) {
	rpc, err := p.client.Client()
	if err != nil {
		return nil, err
	}
	raw, err := rpc.Dispense("provider")
	if err != nil {
		return nil, err
	}
	conn, ok := raw.(*grpc.ClientConn)
	if !ok {
		return nil, fmt.Errorf("unexpected plugin client %T", raw)
	}
	if v := p.client.NegotiatedVersion(); v != 5 && v != 6 {
		return nil, fmt.Errorf("unsupported plugin protocol %d", v)
	}
	return conn, nil
}

// Close shuts the provider down: go-plugin asks the process to exit and
// kills it if it has not within two seconds. It waits until the process
// and every goroutine serving it are gone. Safe to call more than once.
func (p *Provider) Close() error {
	p.closeOnce.Do(func() {
		p.client.Kill()
		p.cancelStart()
	})
	return nil
}

// Pid is the provider process's ID (0 when it is not running), for tests
// and logs.
func (p *Provider) Pid() int {
	if rc := p.client.ReattachConfig(); rc != nil {
		return rc.Pid
	}
	return 0
}

// Exited reports whether the provider process has ended.
func (p *Provider) Exited() bool { return p.client.Exited() }

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
