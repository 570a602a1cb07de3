package cli

import (
	"errors"
	"fmt"
	"strings"
)

// OpenTofu reads more arguments from its environment: TF_CLI_ARGS for
// every command and TF_CLI_ARGS_<command> (state_list for state list)
// for one, each split as a shell splits words and placed right after the
// command's name, the command's own first. A pipeline that sets
// TF_CLI_ARGS_plan="-var-file=prod.tfvars" plans with those variables
// with Kyku too (ignored, they would plan another estate's values).

// envArgs is args (a command's name first) with those of TF_CLI_ARGS and
// TF_CLI_ARGS_<command> placed after the name, and the names of the
// variables that gave some.
func envArgs(getenv func(string) string, args []string) ([]string, []string, error) {
	if len(args) == 0 {
		return args, nil, nil
	}
	at := 1 // after the command's name
	name := args[0]
	if (name == "state" || name == "providers") && len(args) > 1 && !strings.HasPrefix(args[1], "-") {
		at, name = 2, name+"_"+args[1]
	}
	var from []string
	for _, v := range []string{"TF_CLI_ARGS", "TF_CLI_ARGS_" + strings.ReplaceAll(name, "-", "_")} {
		text := getenv(v)
		if text == "" {
			continue
		}
		extra, err := shellWords(text)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", v, err)
		}
		args = append(args[:at:at], append(extra, args[at:]...)...)
		from = append(from, v)
	}
	return args, from, nil
}

// shellWords splits s into words as a POSIX shell does, without
// expanding anything: blanks separate words, single quotes keep what is
// between them, double quotes keep it but for \" \\ \$ and \`, a
// backslash outside quotes keeps the next character.
func shellWords(s string) ([]string, error) {
	var out []string
	var word strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				out = append(out, word.String())
				word.Reset()
				inWord = false
			}
		case c == '\\':
			if i+1 == len(s) {
				return nil, errors.New("a backslash ends the text")
			}
			i++
			word.WriteByte(s[i])
			inWord = true
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("a single quote is not closed")
			}
			word.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				word.WriteByte(s[i])
			}
			if i == len(s) {
				return nil, errors.New("a double quote is not closed")
			}
			inWord = true
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, word.String())
	}
	return out, nil
}
