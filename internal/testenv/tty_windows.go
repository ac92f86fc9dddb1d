package testenv

// ttyPath is the console, which go test does not capture.
const ttyPath = "CONOUT$"
