package command

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Prefix starts every command line.
const Prefix = "/kyku"

// Name is a /kyku subcommand.
type Name int

const (
	Unknown Name = iota // not a known subcommand (Err says which)
	Plan                // plan again and update the plan comment
	Apply               // apply the saved plan for the PR's head commit
	Help                // list the commands
)

var names = [...]string{"unknown", "plan", "apply", "help"}

func (n Name) String() string {
	if n >= 0 && int(n) < len(names) {
		return names[n]
	}
	return "unknown"
}

// Command is a parsed command line. When Err is set the line was meant as a
// command but is invalid; the caller should answer with Err and the help.
type Command struct {
	Name    Name
	Env     string   // -e/--env; empty: the caller's default
	Project string   // -p/--project; empty: the caller's default
	Args    []string // the words after /kyku, as typed
	Err     string
}

// String is the canonical form of c, e.g. "/kyku apply -e prod".
func (c Command) String() string {
	s := Prefix + " " + c.Name.String()
	if c.Env != "" {
		s += " -e " + c.Env
	}
	if c.Project != "" {
		s += " -p " + c.Project
	}
	return s
}

var (
	envRE     = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$`)
	projectRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_./-]{0,127}$`)
)

// MaxBody is the longest comment body Parse reads (GitHub caps comments at
// 65,536 characters, at most 4 bytes each); a longer one holds no command.
const MaxBody = 4 << 16

// Parse finds the command in a comment body. ok is false when the body has
// no command line; otherwise the Command is returned, with Err set when the
// line is invalid (unknown subcommand, unknown or repeated flag, missing or
// invalid value, unexpected argument). "/kyku" alone means help.
func Parse(body string) (Command, bool) {
	if len(body) > MaxBody {
		return Command{}, false
	}
	line, ok := commandLine(body)
	if !ok {
		return Command{}, false
	}
	return parseLine(line), true
}

// commandLine returns the words after /kyku on the first command line:
// a line of its own, outside code and quotes (see scanner).
func commandLine(body string) (string, bool) {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	body = strings.ReplaceAll(body, "\r", "\n")
	var s scanner
	for _, line := range strings.Split(body, "\n") {
		if rest, ok := s.command(line); ok {
			return rest, true
		}
	}
	return "", false
}

func parseLine(rest string) Command {
	words := strings.Fields(rest)
	c := Command{Name: Help}
	if len(words) == 0 {
		return c
	}
	c.Args = words
	switch words[0] {
	case "plan":
		c.Name = Plan
	case "apply":
		c.Name = Apply
	case "help":
		c.Name = Help
	default:
		c.Name = Unknown
		c.Err = "unknown command " + quote(words[0])
		return c
	}
	c.Err = parseFlags(&c, words[1:])
	return c
}

func parseFlags(c *Command, words []string) string {
	seen := map[string]bool{}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "-") {
			return "unexpected argument " + quote(w)
		}
		flag, val, hasVal := strings.Cut(w, "=")
		var dst *string
		var re *regexp.Regexp
		var what string
		switch flag {
		case "-e", "--env":
			dst, re, what, flag = &c.Env, envRE, "environment", "--env"
		case "-p", "--project":
			dst, re, what, flag = &c.Project, projectRE, "project", "--project"
		default:
			return "unknown flag " + quote(flag)
		}
		if seen[flag] {
			return "flag " + flag + " given twice"
		}
		seen[flag] = true
		if !hasVal {
			if i+1 >= len(words) || strings.HasPrefix(words[i+1], "-") {
				return "flag " + flag + " needs a" + article(what) + " name"
			}
			i++
			val = words[i]
		}
		if !re.MatchString(val) || strings.Contains(val, "..") {
			return "invalid " + what + " name " + quote(val)
		}
		*dst = val
	}
	return ""
}

func article(word string) string {
	if strings.ContainsRune("aeiou", rune(word[0])) {
		return "n " + word
	}
	return " " + word
}

// quote shows what the user typed, cut short and Go-quoted.
func quote(s string) string {
	if utf8.RuneCountInString(s) > 40 {
		s = string([]rune(s)[:39]) + "…"
	}
	return strconv.Quote(s)
}
