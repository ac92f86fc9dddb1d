package looptools

import (
	"reflect"
	"testing"
)

// skipped's short way (the slices nil already) clears every other field
// by name: a field pyAtom gains later must be cleared there too. Every
// field but the slices is set to something other than zero first.
func TestSkippedClearsEveryField(t *testing.T) {
	var a pyAtom
	v := reflect.ValueOf(&a).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		f = reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem()
		switch f.Kind() {
		case reflect.Slice:
			// nil: the short way
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			f.SetInt(7)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			f.SetUint(7)
		default:
			t.Fatalf("pyAtom.%s is a %s: teach this test to set it", v.Type().Field(i).Name, f.Kind())
		}
	}
	prev := EntryRead(reusable | inAtoms)
	a.skipped(12, prev)
	if want := (pyAtom{start: 12, skip: true, entry: -1, counts: prev}); !reflect.DeepEqual(a, want) {
		t.Fatalf("skipped left %+v, want %+v", a, want)
	}
	b := pyAtom{id: []byte("A1"), status: []byte("pending"), hasStatus: true}
	b.skipped(3, prev)
	if want := (pyAtom{start: 3, skip: true, entry: -1, counts: prev}); !reflect.DeepEqual(b, want) {
		t.Fatalf("skipped with slices left %+v, want %+v", b, want)
	}
}
