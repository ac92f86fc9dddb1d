package statefile

import "testing"

func TestSumNamesAVersionAsSha256sumDoes(t *testing.T) {
	// printf 'abc' | sha256sum
	if got, want := Sum([]byte("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; got != want {
		t.Fatalf("Sum(abc) = %s, want %s", got, want)
	}
	if got, want := Sum(nil), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"; got != want {
		t.Fatalf("Sum(nil) = %s, want %s", got, want)
	}
}
