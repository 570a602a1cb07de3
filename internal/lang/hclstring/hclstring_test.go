package hclstring

import "testing"

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"":                `""`,
		"plain":           `"plain"`,
		"a\"b\\c":         `"a\"b\\c"`,
		"l1\nl2\r\t":      `"l1\nl2\r\t"`,
		"${x} %{y} $ %":   `"$${x} %%{y} $ %"`,
		"é\x01\U000e0001": `"é\u0001\U000e0001"`,
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}
