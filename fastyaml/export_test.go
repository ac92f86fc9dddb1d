package fastyaml

// Internals for the tests of package fastyaml_test, which read state files
// through statefile (an import package fastyaml itself may not have).
var (
	CheckFast    = checkFast
	CheckSplit   = checkSplit
	FastParse    = fastParse
	FastParseWhy = fastParseWhy
	ParseSplit   = parseSplit
	ParseWhole   = parseWhole
)
