package fastyaml

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Verify checks on yml the promise Parse rests on: the split parse and the
// fast parser, each run whatever yml's size and the number of cores,
// either decline yml or build the tree yaml.v3 builds for the whole text,
// comments aside. split and fast report which of them took yml; err
// describes the first difference found. It is for tests and fuzzing (see
// FuzzParse in statefile); Parse does not call it.
func Verify(yml []byte) (split, fast bool, err error) {
	if split, err = verifySplit(yml); err != nil {
		return split, false, err
	}
	fast, err = verifyFast(yml)
	return split, fast, err
}

// verifySplit is Verify for the split parse alone.
func verifySplit(yml []byte) (bool, error) { return verifyParser("parseSplit", parseSplit, yml) }

// verifyFast is Verify for the fast parser alone.
func verifyFast(yml []byte) (bool, error) { return verifyParser("fastParse", fastParse, yml) }

// verifyParser is Verify for the parser parse, called name in errors.
func verifyParser(name string, parse func([]byte) *yaml.Node, yml []byte) (bool, error) {
	tree := parse(yml)
	if tree == nil {
		return false, nil
	}
	whole, err := parseWhole(yml)
	if err != nil {
		return true, fmt.Errorf("%s accepted YAML that yaml.v3 rejects: %v", name, err)
	}
	if err := sameTree(tree, whole, "root"); err != nil {
		return true, fmt.Errorf("%s differs from yaml.v3: %v", name, err)
	}
	return true, nil
}

// sameTree reports where two node trees differ in anything but comments.
func sameTree(a, b *yaml.Node, path string) error {
	switch {
	case a == nil || b == nil:
		if a != b {
			return fmt.Errorf("%s: one tree is nil", path)
		}
		return nil
	case a.Kind != b.Kind || a.Style != b.Style || a.Tag != b.Tag || a.Value != b.Value || a.Anchor != b.Anchor ||
		a.Line != b.Line || a.Column != b.Column || len(a.Content) != len(b.Content):
		return fmt.Errorf("%s: %+v\n  vs %+v", path, *a, *b)
	case a.Kind == yaml.AliasNode:
		if a.Alias.Line != b.Alias.Line || a.Alias.Column != b.Alias.Column {
			return fmt.Errorf("%s: aliases point at different nodes", path)
		}
		return nil
	}
	for i := range a.Content {
		if err := sameTree(a.Content[i], b.Content[i], fmt.Sprintf("%s/%d", path, i)); err != nil {
			return err
		}
	}
	return nil
}
