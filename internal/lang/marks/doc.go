// Package marks names the go-cty value marks the HCL language gives
// meaning to: Sensitive (a value that must never be shown) and Ephemeral
// (a value that must never be stored). A mark rides on a cty.Value and
// survives every operator and built-in function that reads the value, so
// a result derived from a sensitive value is sensitive too.
//
// It is a leaf package: it imports go-cty only. Its values are constants,
// safe to share between goroutines; nothing runs at package init.
package marks
