package fastyaml

import "testing"

// checkFast and checkSplit assert that when fastParse (parseSplit) takes
// yml, its tree is the tree yaml.v3 builds for the whole text, and report
// whether it took yml. checkFast also asserts that the Reader takes yml
// exactly when fastParse does, and then reads that tree's values.
func checkFast(t *testing.T, yml []byte) bool {
	t.Helper()
	taken := checked(t, verifyFast, yml)
	checked(t, verifyReader, yml)
	return taken
}
func checkSplit(t *testing.T, yml []byte) bool { t.Helper(); return checked(t, verifySplit, yml) }

// checked runs verify (verifyFast or verifySplit) on yml, fails the test
// on a difference from yaml.v3 and reports whether the parser took yml.
func checked(t *testing.T, verify func([]byte) (bool, error), yml []byte) bool {
	t.Helper()
	taken, err := verify(yml)
	if err != nil {
		if len(yml) > 4000 {
			yml = append(yml[:4000:4000], "…"...)
		}
		t.Fatalf("%v\n%s", err, yml)
	}
	return taken
}
