package cli

// Command is one declared command, for the CLI reference test.
type Command struct{ Name, Args, Summary string }

// Commands lists kyku's commands as declared (commands()).
func Commands() []Command {
	var out []Command
	for _, c := range commands() {
		out = append(out, Command{c.name, c.args, c.summary})
	}
	return out
}
