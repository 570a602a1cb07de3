package command

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/kyku/action/internal/envname"
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
	Env     string // -e/--env; empty: the caller's default
	Project string // -p/--project; empty: the caller's default
	// AllowDestroyAll (--allow-destroy-all, apply only) is the explicit
	// word an apply of a plan that destroys every resource needs (its
	// configuration has none).
	AllowDestroyAll bool
	Args            []string // the words after /kyku, as typed
	Err             string
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
	if c.AllowDestroyAll {
		s += " " + AllowDestroyAllFlag
	}
	return s
}

// AllowDestroyAllFlag is the flag of Command.AllowDestroyAll.
const AllowDestroyAllFlag = "--allow-destroy-all"

var projectRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_./-]{0,127}$`)
})

// validEnv is an environment name's rule (package envname), non-empty.
func validEnv(s string) bool { return s != "" && envname.Valid(s) }

func validProject(s string) bool { return projectRE().MatchString(s) && !strings.Contains(s, "..") }

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
		var valid func(string) bool
		var what string
		switch flag {
		case "-e", "--env":
			dst, valid, what, flag = &c.Env, validEnv, "environment", "--env"
		case "-p", "--project":
			dst, valid, what, flag = &c.Project, validProject, "project", "--project"
		case AllowDestroyAllFlag:
		default:
			return "unknown flag " + quote(flag)
		}
		if seen[flag] {
			return "flag " + flag + " given twice"
		}
		seen[flag] = true
		if flag == AllowDestroyAllFlag {
			switch {
			case hasVal:
				return "flag " + flag + " takes no value"
			case c.Name != Apply:
				return "flag " + flag + " goes with " + Prefix + " apply only"
			}
			c.AllowDestroyAll = true
			continue
		}
		if !hasVal {
			if i+1 >= len(words) || strings.HasPrefix(words[i+1], "-") {
				return "flag " + flag + " needs a" + article(what) + " name"
			}
			i++
			val = words[i]
		}
		if !valid(val) {
			if what == "environment" {
				return "invalid environment name " + quote(val) + " (use " + envname.Rule + ")"
			}
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
