package progress

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// FormatElapsed renders a duration for humans: milliseconds under a second
// ("340ms"), tenths of a second under a minute ("1.2s"), whole seconds above
// ("2m05s", "1h02m03s").
func FormatElapsed(d time.Duration) string {
	var b [24]byte
	return string(appendElapsed(b[:0], d))
}

// appendElapsed appends FormatElapsed(d) to b.
func appendElapsed(b []byte, d time.Duration) []byte {
	if d < 0 {
		d = 0
	}
	if r := d.Round(time.Millisecond); r < time.Second {
		return append(strconv.AppendInt(b, r.Milliseconds(), 10), "ms"...)
	}
	if r := d.Round(100 * time.Millisecond); r < time.Minute {
		tenths := r.Milliseconds() / 100
		b = strconv.AppendInt(b, tenths/10, 10)
		b = append(b, '.')
		b = strconv.AppendInt(b, tenths%10, 10)
		return append(b, 's')
	}
	s := int64(d.Round(time.Second).Seconds())
	if s >= 3600 {
		b = strconv.AppendInt(b, s/3600, 10)
		b = append(b, 'h')
		b = twoDigits(b, s/60%60)
	} else {
		b = strconv.AppendInt(b, s/60, 10)
	}
	b = append(b, 'm')
	b = twoDigits(b, s%60)
	return append(b, 's')
}

// twoDigits appends n (0 to 99) as two digits.
func twoDigits(b []byte, n int64) []byte {
	return append(b, byte('0'+n/10), byte('0'+n%10))
}

// subject is `create Vpc "main-vpc"`; an instance is named by its address
// as written (`create Vm web[0]`, `create SecurityGroup edge["a"]`).
func subject(e Event) string {
	return string(appendSubject(nil, e))
}

// appendSubject appends subject(e) to b (%q without fmt: one line per
// event of thousands).
func appendSubject(b []byte, e Event) []byte {
	b = append(b, e.Action.String()...)
	b = append(b, ' ')
	b = append(b, e.Type...)
	b = append(b, ' ')
	if instanceAddress(e.Name) {
		return append(b, e.Name...)
	}
	return strconv.AppendQuote(b, e.Name)
}

// instanceAddress reports whether name is name[index] or name["key"] in
// the characters addresses are made of, safe to print as it is.
func instanceAddress(name string) bool {
	open := strings.IndexByte(name, '[')
	if open <= 0 || name[len(name)-1] != ']' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(`_-[]"*`, c) >= 0) {
			return false
		}
	}
	return true
}

// errText is the one-line text of err, or "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// oneLine replaces each run of control characters (newlines, tabs, escapes)
// with one space so that every rendered event is exactly one line and cannot
// carry terminal escape sequences from provider error messages.
func oneLine(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	var b strings.Builder
	inControl := false
	for _, r := range s {
		if unicode.IsControl(r) {
			if !inControl {
				b.WriteByte(' ')
			}
			inControl = true
			continue
		}
		inControl = false
		b.WriteRune(r)
	}
	return b.String()
}

// describe is the outcome of a finished or retrying event, without the
// subject: "done in 1.2s (id 1001)", "FAILED after 3.0s: boom".
func describe(e Event, failedWord string) string {
	switch e.Kind {
	case Started:
		return "started"
	case Retrying:
		s := fmt.Sprintf("retrying after attempt %d", e.Attempt)
		if msg := errText(e.Err); msg != "" {
			s += ": " + msg
		}
		return s
	case Done:
		return string(appendDone(nil, e))
	case Failed:
		s := failedWord + " after " + FormatElapsed(e.Elapsed)
		if msg := errText(e.Err); msg != "" {
			s += ": " + msg
		}
		return s
	case Skipped:
		if msg := errText(e.Err); msg != "" {
			return "skipped (" + msg + ")"
		}
		return "skipped"
	}
	return e.Kind.String()
}

// appendDone appends describe(e, …) of a Done event to b: "done in 1.2s
// (id 1001)".
func appendDone(b []byte, e Event) []byte {
	b = appendElapsed(append(b, "done in "...), e.Elapsed)
	if e.ID != "" {
		b = append(append(append(b, " (id "...), e.ID...), ')')
	}
	return b
}
