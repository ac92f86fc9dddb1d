package textfmt

import (
	"testing"
	"time"
)

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 checks", 1: "1 check", 2: "2 checks"} {
		if got := Plural(n, "check"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestAgo(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-time.Second: "0s", 0: "0s", 59 * time.Second: "59s", time.Minute: "1m", 59*time.Minute + 59*time.Second: "59m",
		time.Hour: "1h", 47 * time.Hour: "47h", 48 * time.Hour: "2d", 100 * time.Hour: "4d",
	} {
		if got := Ago(d); got != want {
			t.Errorf("Ago(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 950: "950", 9500: "9500", 12_345: "12.3k", 4_500_000: "4.5M"} {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestUSD(t *testing.T) {
	for usd, want := range map[float64]string{0: "$0.00", 0.004: "<$0.01", 0.006: "$0.01", 12.345: "$12.35", 999.99: "$999.99",
		999.996: "$1000", 1234.5: "$1234", 99999.4: "$99999", 150000: "$150k", 12_345_678: "$12346k"} {
		if got := USD(usd); got != want || len(got) > 8 {
			t.Errorf("USD(%v) = %q, want %q", usd, got, want)
		}
	}
}

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{"": "", " a\n b\r\n\tc  ": "a b c", "x": "x"} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}
