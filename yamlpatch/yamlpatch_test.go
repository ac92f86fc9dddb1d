package yamlpatch

import "testing"

// The words logs and dry runs show for paths and edits.
func TestString(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{P().String(), "(root)"},
		{P("atoms", 3, "status").String(), "atoms[3].status"},
		{P(0, "a").String(), "[0].a"},
		{Replace(P("control", "status"), "stopped").String(), "replace control.status"},
		{Remove(P("atoms", 2)).String(), "remove atoms[2]"},
		{AddKey(P("bindings"), "A1", Map{}).String(), "add bindings.A1"},
		{Append(P("atoms", 0, "depends_on"), "A2").String(), "append to atoms[0].depends_on"},
		{EditOp(9).String(), "edit(9)"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// Child extends a copy: two children of one path do not share steps.
func TestChildCopies(t *testing.T) {
	base := make(Path, 1, 4)
	base[0] = Step{Key: "atoms"}
	a, b := base.Child(1), base.Child(2)
	if a.String() != "atoms[1]" || b.String() != "atoms[2]" || len(base) != 1 {
		t.Errorf("base %v, children %v and %v", base, a, b)
	}
}

func TestPRefusesOtherElements(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("P(1.5) did not panic")
		}
	}()
	P(1.5)
}
