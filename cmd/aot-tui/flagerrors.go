package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// flagErrorText words a flag's bad value for people: pflag's own message
// ('invalid argument "abc" for "--max-iterations" flag: strconv.ParseInt:
// parsing "abc": invalid syntax') names Go's parser rather than what the
// flag takes. Other flag errors (an unknown flag, a missing value) keep
// pflag's words.
func flagErrorText(err error) string {
	var ive *pflag.InvalidValueError
	if !errors.As(err, &ive) || ive.GetFlag() == nil {
		return err.Error()
	}
	f, val := ive.GetFlag(), ive.GetValue()
	name := "--" + f.Name
	typ := f.Value.Type()
	takes, lo, hi := flagTakes(typ)
	if takes == "" {
		return err.Error()
	}
	if errors.Is(err, strconv.ErrRange) && hi != "" {
		if strings.HasPrefix(strings.TrimSpace(val), "-") {
			return fmt.Sprintf("%s is out of range: %q is less than %s", name, val, lo)
		}
		return fmt.Sprintf("%s is out of range: %q is more than %s", name, val, hi)
	}
	return fmt.Sprintf("%s takes %s, not %q", name, takes, val)
}

// flagTakes is what a flag of pflag type typ takes, in words, and the
// bounds of a numeric type ("" for a type it does not know).
func flagTakes(typ string) (takes, lo, hi string) {
	const whole, natural = "a whole number", "a whole number, 0 or more"
	i := func(min, max int64) (string, string, string) {
		return whole, strconv.FormatInt(min, 10), strconv.FormatInt(max, 10)
	}
	u := func(max uint64) (string, string, string) {
		return natural, "0", strconv.FormatUint(max, 10)
	}
	fl := func(max float64) (string, string, string) {
		return "a number", strconv.FormatFloat(-max, 'g', -1, 64), strconv.FormatFloat(max, 'g', -1, 64)
	}
	switch typ {
	case "int", "count":
		return i(math.MinInt, math.MaxInt)
	case "int8":
		return i(math.MinInt8, math.MaxInt8)
	case "int16":
		return i(math.MinInt16, math.MaxInt16)
	case "int32":
		return i(math.MinInt32, math.MaxInt32)
	case "int64":
		return i(math.MinInt64, math.MaxInt64)
	case "uint":
		return u(math.MaxUint)
	case "uint8":
		return u(math.MaxUint8)
	case "uint16":
		return u(math.MaxUint16)
	case "uint32":
		return u(math.MaxUint32)
	case "uint64":
		return u(math.MaxUint64)
	case "float32":
		return fl(math.MaxFloat32)
	case "float64":
		return fl(math.MaxFloat64)
	case "bool":
		return "true or false", "", ""
	case "duration":
		return "a duration such as 90s, 5m or 1h30m", "", ""
	}
	return "", "", ""
}
