package main

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/aot-loop/aot-tui/correction"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/spf13/cobra"
)

// Apply only what was previewed: --expect-sha256 on every command that
// writes a correction (the redirect commands, redirect undo, stop). A
// preview made elsewhere — the TUI of another machine, on the bytes
// `aot-tui cat --follow` streamed to it — is applied here with the sha256
// of the version it was planned on, and --timestamp with its correction's
// time: on that version the write is exactly the preview's, on any other
// it is refused (exit 4) and nothing is written. See docs/stream.md.

// registerExpect adds --expect-sha256 and --timestamp to a command that
// writes a correction.
func registerExpect(cmd *cobra.Command, w *writeFlags) {
	cmd.Flags().StringVar(&w.expect, "expect-sha256", "",
		"write only if the file is still the version with this sha256 (64 hex digits: the version the correction was previewed on); otherwise refuse, exit 4, nothing written")
	cmd.Flags().StringVar(&w.stamp, "timestamp", "",
		"stamp the correction with this time (RFC 3339, as a preview's correction was stamped) instead of now; AOT_TUI_NOW does the same")
}

// expectOptions puts --expect-sha256 and --timestamp into o, refusing
// values that are not a sha256 or a time (exit 2).
func (w *writeFlags) expectOptions(o *correction.RunOptions) error {
	if w.expect != "" {
		sum, err := parseSHA256(w.expect)
		if err != nil {
			return err
		}
		o.ExpectSHA256 = &sum
	}
	if w.stamp != "" {
		at, err := time.Parse(time.RFC3339, w.stamp)
		if err != nil {
			return fail(exitUsage, "--timestamp %q is not an RFC 3339 time (such as 2026-01-02T15:04:05Z)", w.stamp)
		}
		o.Now = func() time.Time { return at }
	}
	return nil
}

// parseSHA256 reads a sha256 written as 64 hex digits (either case).
func parseSHA256(s string) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	b, err := hex.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b) != sha256.Size {
		return sum, fail(exitUsage, "--expect-sha256 %q is not a sha256: give its 64 hex digits (aot-tui cat --json PATH prints the file's)", s)
	}
	copy(sum[:], b)
	return sum, nil
}

// staleJSON is the error object of a correction refused by
// --expect-sha256 (exit 4): the CLI's error object ({error, exit_code,
// kind: "stale"}) with the path, the version expected and the version the
// file holds.
type staleJSON struct {
	Error          string `json:"error"`
	ExitCode       int    `json:"exit_code"`
	Kind           string `json:"kind"`
	Path           string `json:"path"`
	ExpectedSHA256 string `json:"expected_sha256"`
	SHA256         string `json:"sha256"`
}

// notPreviewed is the error of a correction refused because the file is
// no longer the version previewed: exit 4, and under --json the error
// object names both versions.
func notPreviewed(cmd *cobra.Command, w *writeFlags, target statefile.Target, np *correction.NotPreviewedError) error {
	msg := textfmt.OneLine(np.Error() + " (" + target.Path + ")")
	if w.json {
		writeJSON(cmd.OutOrStdout(), staleJSON{Error: msg, ExitCode: exitStale, Kind: errorKind(exitStale), Path: target.Path,
			ExpectedSHA256: hex.EncodeToString(np.Want[:]), SHA256: hex.EncodeToString(np.Got[:])})
	}
	return fail(exitStale, "%s", msg)
}
