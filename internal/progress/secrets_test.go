package progress

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/plan"
)

const secret = "hunter2-secret"

func TestSecretsScrub(t *testing.T) {
	jsonOf := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b)
	}
	tests := []struct {
		name    string
		secrets []string
		text    string
		want    string
	}{
		{"nothing secret", nil, `property engine: "x"`, `property engine: "x"`},
		{"once", []string{secret}, `property engine: "hunter2-secret" is not one of postgres`, `property engine: "(sensitive)" is not one of postgres`},
		{"twice", []string{secret}, "hunter2-secret, hunter2-secret again", "(sensitive), (sensitive) again"},
		{"glued to other text", []string{secret}, "xhunter2-secrety", "x(sensitive)y"},
		{"longest first", []string{"hunter2", secret}, "hunter2-secret then hunter2", "(sensitive) then (sensitive)"},
		{"the marker is not scrubbed again", []string{"sens", secret}, "hunter2-secret", "(sensitive)"},
		{"multi-line error", []string{secret}, "sim: Database \"db\":\n  property engine:\n    hunter2-secret\n", "sim: Database \"db\":\n  property engine:\n    (sensitive)\n"},
		{"multi-line secret quoted by %q", []string{"line one\nline \"two\""}, fmt.Sprintf("bad value %q", "line one\nline \"two\""), `bad value "(sensitive)"`},
		{"non-ASCII secret quoted by %+q", []string{"pässwörd-1"}, fmt.Sprintf("bad value %+q", "pässwörd-1"), `bad value "(sensitive)"`},
		{"secret quoted by JSON", []string{"a<b>&\"c\"\td"}, "body: {\"pw\":" + jsonOf("a<b>&\"c\"\td") + "}", `body: {"pw":"(sensitive)"}`},
		// As config.SecretValues: shorter texts would garble every text.
		{"one and two characters are left", []string{"1", "on"}, "port 1 is on", "port 1 is on"},
		{"three characters are scrubbed", []string{"abc"}, "abc-abc", "(sensitive)-(sensitive)"},
		{"blank is left", []string{"   "}, "a   b", "a   b"},
		{"masks are no secrets", []string{plan.Masked, "(known after apply)"}, "(sensitive) and (known after apply)", "(sensitive) and (known after apply)"},
		{"known parts of a value known in part", []string{"db-prod-(known after apply)"}, "db-prod-17 failed", "(sensitive)17 failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NewSecrets(tt.secrets...).Scrub(tt.text); got != tt.want {
				t.Errorf("Scrub(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestSecretsAddAndZero(t *testing.T) {
	var zero Secrets
	if got := zero.Scrub(secret); got != secret || zero.Len() != 0 {
		t.Errorf("the zero Secrets scrubbed %q to %q", secret, got)
	}
	s := NewSecrets("first-secret").Add(NewSecrets("second-secret", "first-secret"))
	if got, want := s.Scrub("first-secret second-secret"), "(sensitive) (sensitive)"; got != want || s.Len() != 2 {
		t.Errorf("Add: %q (%d secrets), want %q (2)", got, s.Len(), want)
	}
	if got := zero.Add(s).Scrub("second-secret"); got != plan.Masked {
		t.Errorf("zero.Add(s) scrubbed to %q", got)
	}
}

var errSentinel = errors.New("sentinel")

func TestSecretsError(t *testing.T) {
	s := NewSecrets(secret)
	if s.Error(nil) != nil {
		t.Error("Error(nil) is not nil")
	}
	clean := fmt.Errorf("apply: %w", errSentinel)
	if got := s.Error(clean); got != clean {
		t.Errorf("an error without a secret was replaced: %v", got)
	}

	// Wrapped twice, the secret twice, on several lines.
	inner := fmt.Errorf("sim: Database \"db\": property engine: %q is not one of postgres\n(you gave %s): %w", secret, secret, errSentinel)
	err := s.Error(fmt.Errorf("apply prod: %w", fmt.Errorf("create Database \"db\": %w", inner)))
	if strings.Contains(err.Error(), "hunter2") || strings.Count(err.Error(), plan.Masked) != 2 {
		t.Errorf("scrubbed error: %v", err)
	}
	if !errors.Is(err, errSentinel) {
		t.Error("the scrubbed error does not match the sentinel the original did")
	}
	for e := error(err); e != nil; e = errors.Unwrap(e) {
		if strings.Contains(e.Error(), "hunter2") {
			t.Errorf("the secret is reachable by unwrapping: %v", e)
		}
	}

	// Diagnostics keep their positions, scrubbed.
	ds := diag.Diagnostics{
		{Pos: diag.Pos{File: "kyku.yaml", Line: 5, Col: 34}, Message: `property "image": not "hunter2-secret"`},
		{Pos: diag.Pos{File: "kyku.yaml", Line: 7, Col: 1}, Message: "fine"},
	}
	err = s.Error(fmt.Errorf("plan prod: %w", ds))
	var got diag.Diagnostics
	if !errors.As(err, &got) {
		t.Fatalf("the scrubbed error lost its diagnostics: %v", err)
	}
	want := diag.Diagnostics{
		{Pos: diag.Pos{File: "kyku.yaml", Line: 5, Col: 34}, Message: `property "image": not "(sensitive)"`},
		{Pos: diag.Pos{File: "kyku.yaml", Line: 7, Col: 1}, Message: "fine"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("diagnostics (-want +got):\n%s", d)
	}
	if ds[0].Message != `property "image": not "hunter2-secret"` {
		t.Error("Error changed the original diagnostics")
	}
	var ctxErr interface{ Timeout() bool }
	if errors.As(s.Error(fmt.Errorf("%s: %w", secret, context.DeadlineExceeded)), &ctxErr) {
		t.Error("a typed error of the original chain is reachable from the scrubbed one")
	}
}

func TestSecretsOf(t *testing.T) {
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(`provider: sim
variables:
  pw: { type: string, sensitive: true, default: var-secret-1 }
  region: { type: string, default: eu-west-1 }
resources:
  web: { type: Vm, properties: { image: debian-12, userData: user-data-secret, tags: { pw: "${var.pw}" } } }
`)}})
	if err != nil {
		t.Fatal(err)
	}
	p := &plan.Plan{Config: cfg, Changes: []plan.Change{
		{Action: plan.Update, ResourceID: "item", Type: "fw_item", Properties: []plan.PropChange{
			{Path: "secret", Sensitive: true, Old: "old-attribute-secret", New: map[string]any{"k": []any{"new-attribute-secret", 12345.0}}},
			{Path: "name", Old: "old-name", New: "new-name"},
			{Path: "token", Sensitive: true, Old: plan.Masked, New: "(known after apply)"},
		}},
	}}
	text := "var-secret-1 user-data-secret old-attribute-secret new-attribute-secret 12345 eu-west-1 debian-12 old-name new-name (sensitive) (known after apply)"
	want := "(sensitive) (sensitive) (sensitive) (sensitive) (sensitive) eu-west-1 debian-12 old-name new-name (sensitive) (known after apply)"
	if got := SecretsOf(nil, p).Scrub(text); got != want {
		t.Errorf("SecretsOf(nil, plan):\n got %s\nwant %s", got, want)
	}
	if got := SecretsOf(cfg, nil).Scrub("var-secret-1 user-data-secret old-attribute-secret"); got != "(sensitive) (sensitive) old-attribute-secret" {
		t.Errorf("SecretsOf(cfg, nil): %s", got)
	}
	if got := SecretsOf(nil, nil).Scrub(text); got != text {
		t.Errorf("SecretsOf(nil, nil) scrubbed %s", got)
	}
}

// TestViewsScrubSecrets: neither view shows a secret an event's error or
// a notice quotes: wrapped, twice, on several lines, in a failed destroy,
// a retry and a skip.
func TestViewsScrubSecrets(t *testing.T) {
	boom := fmt.Errorf("delete Vm \"web\": %w", fmt.Errorf("provider says:\n  user data %q is\n  still in use by %s", secret, secret))
	events := []Event{
		{Kind: Started, Action: plan.Destroy, Type: "Vm", Name: "web", Time: t0},
		{Kind: Retrying, Action: plan.Destroy, Type: "Vm", Name: "web", Attempt: 1, Err: boom, Time: t0},
		{Kind: Failed, Action: plan.Destroy, Type: "Vm", Name: "web", Err: boom, Time: t0, Elapsed: ms(1500)},
		{Kind: Skipped, Action: plan.Destroy, Type: "Vpc", Name: "net", Err: fmt.Errorf("dependency web failed: %w", boom), Time: t0},
	}
	opts := Options{Secrets: NewSecretBook(secret), Now: func() time.Time { return t0 }, NoColor: true, Interval: time.Hour}
	views := map[string]func(*bytes.Buffer) View{
		"plain":    func(b *bytes.Buffer) View { return NewPlain(b, opts) },
		"terminal": func(b *bytes.Buffer) View { return NewTerminal(b, opts) },
	}
	for name, newView := range views {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			v := newView(&buf)
			for _, e := range events {
				v.Event(e)
			}
			v.Notice("interrupted while deleting " + secret)
			v.Close()
			out := buf.String()
			if strings.Contains(out, "hunter2") {
				t.Errorf("the %s view shows the secret:\n%s", name, out)
			}
			if !strings.Contains(out, `user data "(sensitive)" is`) || !strings.Contains(out, "interrupted while deleting (sensitive)") {
				t.Errorf("the %s view does not say what it masked:\n%s", name, out)
			}
		})
	}
}

// TestViewsScrubWhatTheBookLearnsLater: a secret the run learns after the
// view started (a provider's generated password, made by the apply the
// view shows) is scrubbed from the events after it: views read the book
// when they print, not when they start.
func TestViewsScrubWhatTheBookLearnsLater(t *testing.T) {
	const made = "gen-pw-Zq9hunter2-s3cr3t"
	for name, newView := range map[string]func(*bytes.Buffer, Options) View{
		"plain":    func(b *bytes.Buffer, o Options) View { return NewPlain(b, o) },
		"terminal": func(b *bytes.Buffer, o Options) View { return NewTerminal(b, o) },
	} {
		t.Run(name, func(t *testing.T) {
			book := NewSecretBook(secret)
			var buf bytes.Buffer
			v := newView(&buf, Options{Secrets: book, Now: func() time.Time { return t0 }, NoColor: true, Interval: time.Hour})
			v.Event(Event{Kind: Started, Action: plan.Create, Type: "fwtest_echo", Name: "echo", Time: t0})
			book.Add(made) // the password's create, done meanwhile
			v.Event(Event{Kind: Failed, Action: plan.Create, Type: "fwtest_echo", Name: "echo", Time: t0,
				Err: fmt.Errorf("create: the test cloud refuses input %q (it echoes it: %s)", made, made)})
			v.Notice("interrupted after " + made)
			v.Close()
			out := buf.String()
			if strings.Contains(out, "hunter2") {
				t.Errorf("the %s view shows the secret learnt after it started:\n%s", name, out)
			}
			if !strings.Contains(out, `refuses input "(sensitive)" (it echoes it: (sensitive))`) {
				t.Errorf("the %s view does not say what it masked:\n%s", name, out)
			}
		})
	}
}

// TestSecretBookAddsLazily: what Add notes is known at the next Known,
// with what was learnt before; a nil book knows nothing and takes
// anything.
func TestSecretBookAddsLazily(t *testing.T) {
	b := NewSecretBook("first-secret")
	b.Add("second-secret", "x") // "x" is too short to scrub
	got := b.Known().Scrub("first-secret second-secret x")
	if want := "(sensitive) (sensitive) x"; got != want {
		t.Errorf("Scrub = %q, want %q", got, want)
	}
	var nilBook *SecretBook
	nilBook.Add("third-secret")
	if n := nilBook.Known().Len(); n != 0 {
		t.Errorf("a nil book knows %d secrets", n)
	}
}
