package cli

import (
	"fmt"
	"runtime/debug"
)

var versionCommand = &Subcommand{
	Name:     "version",
	Synopsis: "version",
	Summary:  "print the program version",
	Run: func(env *Env, args []string) int {
		v := "(devel)"
		if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
			v = info.Main.Version
		}
		fmt.Fprintf(env.Stdout, "minikafka %s\n", v)
		return 0
	},
}
