package review

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/render"
)

// A drift fingerprint says what drifted without saying the values: one
// entry per drifted property (resource, property, digest of the cloud
// value) or gone resource, each kept as the first 16 hex digits of the
// sha256 of its parts. A sensitive property's entry carries no value
// digest at all (a digest of a short secret can be guessed), so a
// sensitive value that drifts again to another value is not news.
//
// It is kept in the backend (DriftKey), where only Kyku writes, with the
// drift issue it belongs to and the digest of the body Kyku gave it —
// never read back from the issue, which any writer can edit: planting the
// next drift's fingerprint there would silence the alarm.

// DriftKey is the backend key of the drift record of an environment:
// drift/<env>.json (env "default" when empty), under the project's name
// when there is one.
func DriftKey(project, env string) string {
	if env == "" {
		env = "default"
	}
	if project != "" {
		env = project + "/" + env
	}
	return "drift/" + env + ".json"
}

// driftRecord is what Kyku last reported in the drift issue.
type driftRecord struct {
	Issue       int      `json:"issue"`
	Fingerprint string   `json:"fingerprint"`
	IDs         []string `json:"ids"`
	BodySHA256  string   `json:"bodySha256"`
}

func (r driftRecord) fingerprint() fingerprint {
	return fingerprint{digest: r.Fingerprint, ids: r.IDs}
}

// fingerprint is a drift report's fingerprint.
type fingerprint struct {
	digest string
	ids    []string          // sorted
	names  map[string]string // id -> what drifted, for people (only for a fresh one)
}

func newFingerprint(drift []engine.Drifted) fingerprint {
	fp := fingerprint{names: map[string]string{}}
	add := func(resource, property, valueDigest, name string) {
		sum := sha256.Sum256([]byte(resource + "\x00" + property + "\x00" + valueDigest))
		id := hex.EncodeToString(sum[:8])
		if _, dup := fp.names[id]; !dup {
			fp.ids = append(fp.ids, id)
		}
		fp.names[id] = name
	}
	for _, d := range drift {
		res := d.Type + " " + d.Name
		if d.Gone {
			add(res, "", "gone", code(res)+" is gone from the cloud")
			continue
		}
		for _, pc := range d.Properties {
			vd := "sensitive"
			if !pc.Sensitive {
				b, _ := json.Marshal(pc.New) // canonical values always marshal; map keys are sorted
				sum := sha256.Sum256(b)
				vd = hex.EncodeToString(sum[:])
			}
			add(res, pc.Path, vd, code(res)+": "+code(pc.Path))
		}
	}
	slices.Sort(fp.ids)
	sum := sha256.Sum256([]byte(strings.Join(fp.ids, ",")))
	fp.digest = hex.EncodeToString(sum[:])
	return fp
}

// names lists what drifted, sorted.
func (fp fingerprint) list() []string {
	var out []string
	for _, id := range fp.ids {
		out = append(out, fp.names[id])
	}
	slices.Sort(out)
	return out
}

// since lists what drifted that before did not show, and counts what
// before showed that no longer drifts.
func (fp fingerprint) since(before fingerprint) (news []string, gone int) {
	for _, id := range fp.ids {
		if !slices.Contains(before.ids, id) {
			news = append(news, fp.names[id])
		}
	}
	for _, id := range before.ids {
		if !slices.Contains(fp.ids, id) {
			gone++
		}
	}
	slices.Sort(news)
	return news, gone
}

// driftNewsComment is the one comment on a drift issue whose drift changed.
func driftNewsComment(news []string, gone int, noFingerprint bool, m render.Meta) string {
	var b strings.Builder
	b.WriteString("### The drift in " + code(envName(m.Environment)))
	if m.Project != "" {
		b.WriteString(" (project " + code(m.Project) + ")")
	}
	b.WriteString(" changed\n\n")
	switch {
	case noFingerprint:
		b.WriteString("This issue did not say what it showed (it was written by an older Kyku); it now shows the current drift.\n\n")
	case len(news) > 0:
		b.WriteString("New since the last report:\n\n")
		for i, n := range news {
			if i == 50 {
				b.WriteString("- …and " + itoa(len(news)-i) + " more\n")
				break
			}
			b.WriteString("- " + n + "\n")
		}
		b.WriteString("\n")
	}
	if gone > 0 {
		b.WriteString(plural(gone, "earlier drift") + " no longer found.\n\n")
	}
	b.WriteString("The issue above shows the current drift.\n\n")
	b.WriteString(footer("", m.RunURL))
	return b.String()
}

// driftEditedComment is the comment on a drift issue that someone edited:
// the drift is the same, and the issue says it again.
func driftEditedComment(m render.Meta) string {
	return "### This issue was edited\n\nSomeone changed what Kyku wrote here; it shows the current drift in " + code(envName(m.Environment)) +
		" again. What Kyku last reported is kept in the backend, not in this issue.\n\n" + footer("", m.RunURL)
}
