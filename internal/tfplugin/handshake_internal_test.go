package tfplugin

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestHandshakeRefusals: a handshake line Kyku cannot speak to is refused
// with what is wrong with it, before anything is dialled.
func TestHandshakeRefusals(t *testing.T) {
	cert, _, err := clientCert()
	if err != nil {
		t.Fatal(err)
	}
	der := base64.RawStdEncoding.EncodeToString(cert.Certificate[0])
	for line, want := range map[string]string{
		"hello":                                    "not a plugin handshake",
		"2|6|unix|/tmp/p.sock|grpc|" + der:         "core protocol \"2\"",
		"1|4|unix|/tmp/p.sock|grpc|" + der:         "plugin protocol \"4\"",
		"1|5|udp|127.0.0.1:1|grpc|" + der:          "\"udp\" address",
		"1|5|tcp|127.0.0.1:1|netrpc":               "not grpc",
		"1|6|unix|/tmp/p.sock|grpc":                "automatic mutual TLS",
		"1|6|unix|/tmp/p.sock|grpc|":               "automatic mutual TLS",
		"1|6|unix|/tmp/p.sock|grpc|bm90IGEgY2VydA": "certificate",
	} {
		_, _, _, _, err := parseHandshake(line)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("handshake %.40q: %v, want an error saying %q", line, err, want)
		}
	}
	network, addr, protocol, c, err := parseHandshake("1|6|unix|/tmp/p.sock|grpc|" + der + "\n")
	if err != nil || network != "unix" || addr != "/tmp/p.sock" || protocol != 6 || c == nil {
		t.Errorf("a good handshake: %s %s %d %v %v", network, addr, protocol, c != nil, err)
	}
}

// TestHandshakeLineIsTheFirstOfStdout: the handshake may come in pieces;
// what follows it is the provider's output, forwarded.
func TestHandshakeLineIsTheFirstOfStdout(t *testing.T) {
	line := make(chan string, 1)
	var rest strings.Builder
	w := &handshakeWriter{line: line, rest: &rest}
	for _, part := range []string{"1|6|unix|", "/tmp/p.sock|grpc|AAA\nafter", " more\n"} {
		if _, err := w.Write([]byte(part)); err != nil {
			t.Fatal(err)
		}
	}
	if got := <-line; got != "1|6|unix|/tmp/p.sock|grpc|AAA" {
		t.Errorf("handshake line %q", got)
	}
	if rest.String() != "after more\n" {
		t.Errorf("forwarded %q", rest.String())
	}
}
