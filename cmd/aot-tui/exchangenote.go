package main

import "github.com/aot-loop/aot-tui/statefile"

// exchangeNote ends the root command's --help: how a correction replaces
// the state file on this system, and what is weaker without an exchange.
var exchangeNote = statefile.ExchangeNote()
