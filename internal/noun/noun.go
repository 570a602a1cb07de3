package noun

import (
	"strconv"
	"strings"
)

// Count is n and word, the word plural unless n is 1: "1 resource",
// "0 resources", "2 entries", "2 keys", "3 auto-subnets". A phrase is
// made plural by its last word ("2 policy files").
func Count(n int, word string) string {
	if n == 1 || n == -1 {
		return strconv.Itoa(n) + " " + word
	}
	return strconv.Itoa(n) + " " + Plural(word)
}

// Plural is the plural of an English noun as Kyku's messages use them:
// a consonant and y becomes ies (entry, entries), s, x, z, ch and sh take
// es (address, addresses), anything else takes s (key, keys).
func Plural(word string) string {
	switch {
	case strings.HasSuffix(word, "y") && len(word) > 1 && !strings.ContainsRune("aeiou", rune(word[len(word)-2])):
		return word[:len(word)-1] + "ies"
	case strings.HasSuffix(word, "s"), strings.HasSuffix(word, "x"), strings.HasSuffix(word, "z"),
		strings.HasSuffix(word, "ch"), strings.HasSuffix(word, "sh"):
		return word + "es"
	}
	return word + "s"
}
