// Package noun writes counts of things for people: "1 resource", "2
// resources", "3 entries". Every message that prints a count of something
// names it through Count, so that one rule says when a word is plural.
// Pure; safe for concurrent use.
package noun
