//go:build !unix

package main

import "os"

// maxRSS is not known here (0).
func maxRSS(*os.ProcessState) int64 { return 0 }
