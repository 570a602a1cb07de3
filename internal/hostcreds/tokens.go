package hostcreds

import (
	"fmt"
	"net/http"
	"runtime"
	"sync"

	"github.com/hashicorp/hcl/v2"
)

// Sources say where tokens are found: the process's environment, given
// (nothing here reads the process's own).
type Sources struct {
	// Environ lists the environment ("k=v"), for its TF_TOKEN_ variables.
	Environ []string
	// Getenv reads TF_CLI_CONFIG_FILE, HOME and the other variables that
	// locate the CLI configuration; nil: no CLI configuration is read.
	Getenv func(string) string
	// GOOS decides the default file names ("": runtime.GOOS).
	GOOS string
	// Warn hears each problem of the CLI configuration (a file named
	// but missing, a block that cannot be read), one line each naming
	// the file and line; nil: they are dropped. As in OpenTofu, they do
	// not stop the run.
	Warn func(string)
}

// Tokens are the tokens of registry hosts. The zero value and nil have
// none.
type Tokens struct {
	src  Sources
	once sync.Once
	env  map[string]string // from TF_TOKEN_ variables, by host
	file map[string]string // from credentials blocks, by host
}

// New returns the tokens src holds, read on first use.
func New(src Sources) *Tokens { return &Tokens{src: src} }

func (t *Tokens) load() {
	t.env = fromEnviron(t.src.Environ)
	t.file = map[string]string{}
	if t.src.Getenv == nil {
		return
	}
	goos := t.src.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	files, missing := configFiles(t.src.Getenv, goos)
	if missing != "" {
		t.warn(fmt.Sprintf("the CLI configuration file %s (TF_CLI_CONFIG_FILE) does not exist; no registry credentials are read from it", missing))
	}
	for _, f := range files {
		for _, d := range readConfigFile(f, t.file) {
			t.warn(describe(d))
		}
	}
}

func (t *Tokens) warn(line string) {
	if t.src.Warn != nil {
		t.src.Warn(line)
	}
}

// describe is a diagnostic's one line: where, what; never the source
// text (a token could be on that line).
func describe(d *hcl.Diagnostic) string {
	where := ""
	if d.Subject != nil {
		where = fmt.Sprintf("%s:%d: ", d.Subject.Filename, d.Subject.Start.Line)
	}
	return fmt.Sprintf("CLI configuration: %s%s; its registry credentials are not read", where, d.Summary)
}

// Token is host's token ("" none): its TF_TOKEN_ variable's when there is
// one, else its credentials block's, as OpenTofu chooses.
func (t *Tokens) Token(host string) string {
	if t == nil {
		return ""
	}
	h, err := tolerant(host)
	if err != nil {
		return ""
	}
	t.once.Do(t.load)
	if v, ok := t.env[h]; ok {
		return v
	}
	return t.file[h]
}

// Authorize adds the token of host to req as "Authorization: Bearer",
// only when req goes to host itself (the same name and port): a request
// to any other host gets no token, whatever named it. It says whether it
// added one.
func (t *Tokens) Authorize(req *http.Request, host string) bool {
	if t == nil || !SameHost(req.URL.Host, host) {
		return false
	}
	tok := t.Token(host)
	if tok == "" {
		return false
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	return true
}

// SameHost says whether a and b ("name" or "name:port") name the same
// host: the same comparison form, port 443 being no port.
func SameHost(a, b string) bool {
	ca, err := tolerant(a)
	if err != nil {
		return false
	}
	cb, err := tolerant(b)
	return err == nil && ca == cb
}
