package main

import (
	"os"
	"time"

	"github.com/spf13/cobra"
)

// Duration flags whose default an environment variable sets: --guard
// (AOT_TUI_GUARD) and --idle-release (AOT_TUI_IDLE_RELEASE).

// envDuration is such a flag's default: the duration the variable env
// holds when it is one of 0 or more, else def (checkEnvDuration refuses
// any other value).
func envDuration(env string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(env)); err == nil && d >= 0 {
		return d
	}
	return def
}

// checkEnvDuration refuses env when it is set to anything but a duration
// of 0 or more and the flag it is the default of was not given: the value
// would be ignored. example shows what to give ("1s or 250ms").
func checkEnvDuration(cmd *cobra.Command, env, flag, example string) error {
	v := os.Getenv(env)
	if v == "" || cmd.Flags().Changed(flag) {
		return nil
	}
	if d, err := time.ParseDuration(v); err != nil || d < 0 {
		return fail(exitUsage, "%s=%q is not a duration of 0 or more (such as %s) — fix it, unset it, or give --%s", env, v, example, flag)
	}
	return nil
}
