//go:build !unix

package main

import "errors"

// noHangup is why hangupSelf cannot work here.
const noHangup = "no SIGHUP to send on this system (Windows: a closed console sends CTRL_CLOSE_EVENT, which Go delivers as SIGTERM)"

func hangupSelf() error { return errors.New(noHangup) }
