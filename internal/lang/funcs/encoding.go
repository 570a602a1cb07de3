package funcs

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/url"
	"unicode/utf8"

	ctyyaml "github.com/zclconf/go-cty-yaml"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/ianaindex"
)

// addEncoding adds the encoding functions. YAML is go-cty-yaml's, as
// OpenTofu's is: its emitter decides where long strings wrap, and a
// value stored in state must come out byte for byte the same.
func addEncoding(t map[string]function.Function) {
	t["base64decode"] = base64DecodeFunc()
	t["base64encode"] = base64EncodeFunc()
	t["base64gunzip"] = base64GunzipFunc()
	t["base64gzip"] = base64GzipFunc()
	t["csvdecode"] = stdlib.CSVDecodeFunc
	t["jsondecode"] = stdlib.JSONDecodeFunc
	t["jsonencode"] = stdlib.JSONEncodeFunc
	t["textdecodebase64"] = textDecodeBase64Func()
	t["textencodebase64"] = textEncodeBase64Func()
	t["urldecode"] = urlDecodeFunc()
	t["urlencode"] = urlEncodeFunc()
	t["yamldecode"] = ctyyaml.YAMLDecodeFunc
	t["yamlencode"] = ctyyaml.YAMLEncodeFunc
}

// stringFunc is a function of one string giving a string.
func stringFunc(param string, impl func(s string, ms cty.ValueMarks) (string, error)) function.Function {
	return function.New(&function.Spec{
		Params:       []function.Parameter{{Name: param, Type: cty.String, AllowMarked: true}},
		Type:         function.StaticReturnType(cty.String),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			v, ms := args[0].Unmark()
			out, err := impl(v.AsString(), ms)
			if err != nil {
				return cty.UnknownVal(cty.String), err
			}
			return cty.StringVal(out).WithMarks(ms), nil
		},
	})
}

func base64DecodeFunc() function.Function {
	return stringFunc("str", func(s string, ms cty.ValueMarks) (string, error) {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return "", fmt.Errorf("failed to decode base64 data %s", quoted(s, ms))
		}
		if !utf8.Valid(b) {
			return "", errors.New("the result of decoding the provided string is not valid UTF-8")
		}
		return string(b), nil
	})
}

func base64EncodeFunc() function.Function {
	return stringFunc("str", func(s string, _ cty.ValueMarks) (string, error) {
		return base64.StdEncoding.EncodeToString([]byte(s)), nil
	})
}

func base64GzipFunc() function.Function {
	return stringFunc("str", func(s string, _ cty.ValueMarks) (string, error) {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		if _, err := io.WriteString(w, s); err != nil {
			return "", fmt.Errorf("failed to write gzip raw data: %w", err)
		}
		// OpenTofu flushes before closing, which adds an empty block: the
		// same bytes keep a stored user_data unchanged.
		if err := w.Flush(); err != nil {
			return "", fmt.Errorf("failed to flush gzip writer: %w", err)
		}
		if err := w.Close(); err != nil {
			return "", fmt.Errorf("failed to close gzip writer: %w", err)
		}
		return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
	})
}

func base64GunzipFunc() function.Function {
	return stringFunc("str", func(s string, ms cty.ValueMarks) (string, error) {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return "", fmt.Errorf("failed to decode base64 data %s", quoted(s, ms))
		}
		r, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return "", fmt.Errorf("failed to gunzip bytestream: %w", err)
		}
		out, err := io.ReadAll(r)
		if err != nil {
			return "", fmt.Errorf("failed to read gunzip raw data: %w", err)
		}
		return string(out), nil
	})
}

// urlEncodeFunc escapes a string for a URL query: spaces become "+".
func urlEncodeFunc() function.Function {
	return stringFunc("str", func(s string, _ cty.ValueMarks) (string, error) {
		return url.QueryEscape(s), nil
	})
}

func urlDecodeFunc() function.Function {
	return stringFunc("str", func(s string, ms cty.ValueMarks) (string, error) {
		out, err := url.QueryUnescape(s)
		if err != nil {
			return "", fmt.Errorf("failed to decode URL %s: %v", quoted(s, ms), err)
		}
		return out, nil
	})
}

// ianaEncoding finds a character encoding by its IANA name or alias.
func ianaEncoding(name string) (encoding.Encoding, string, error) {
	enc, err := ianaindex.IANA.Encoding(name)
	if err != nil || enc == nil {
		return nil, "", function.NewArgErrorf(1, "%q is not a supported IANA encoding name or alias in this OpenTofu version", name)
	}
	if canonical, err := ianaindex.IANA.Name(enc); err == nil {
		name = canonical
	}
	return enc, name, nil
}

// textEncodeBase64Func encodes a string in a character encoding and the
// bytes as Base64.
func textEncodeBase64Func() function.Function {
	return function.New(&function.Spec{
		Params:       []function.Parameter{strParam("string"), strParam("encoding")},
		Type:         function.StaticReturnType(cty.String),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			enc, name, err := ianaEncoding(args[1].AsString())
			if err != nil {
				return cty.UnknownVal(cty.String), err
			}
			b, err := enc.NewEncoder().Bytes([]byte(args[0].AsString()))
			if err != nil {
				return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "the given string contains characters that cannot be represented in %s", name)
			}
			return cty.StringVal(base64.StdEncoding.EncodeToString(b)), nil
		},
	})
}

// textDecodeBase64Func decodes Base64 and reads the bytes in a
// character encoding.
func textDecodeBase64Func() function.Function {
	return function.New(&function.Spec{
		Params:       []function.Parameter{strParam("source"), strParam("encoding")},
		Type:         function.StaticReturnType(cty.String),
		RefineResult: notNull,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			enc, name, err := ianaEncoding(args[1].AsString())
			if err != nil {
				return cty.UnknownVal(cty.String), err
			}
			b, err := base64.StdEncoding.DecodeString(args[0].AsString())
			if err != nil {
				var corrupt base64.CorruptInputError
				if errors.As(err, &corrupt) {
					return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "the given value is has an invalid base64 symbol at offset %d", int(corrupt))
				}
				return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "invalid source string: %w", err)
			}
			out, err := enc.NewDecoder().Bytes(b)
			if err != nil || bytes.ContainsRune(out, utf8.RuneError) {
				return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "the given string contains symbols that are not defined for %s", name)
			}
			return cty.StringVal(string(out)), nil
		},
	})
}
