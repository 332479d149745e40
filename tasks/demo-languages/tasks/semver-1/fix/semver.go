// Package semver parses and compares MAJOR.MINOR.PATCH version strings.
package semver

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a parsed MAJOR.MINOR.PATCH version.
type Version struct {
	Major, Minor, Patch int
}

// Parse reads a version such as "1.4.2"; a leading "v" is allowed.
func Parse(s string) (Version, error) {
	parts := strings.Split(strings.TrimPrefix(s, "v"), ".")
	if len(parts) != 3 {
		return Version{}, fmt.Errorf("semver: %q is not MAJOR.MINOR.PATCH", s)
	}
	var numbers [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return Version{}, fmt.Errorf("semver: %q has a bad component %q", s, p)
		}
		numbers[i] = n
	}
	return Version{numbers[0], numbers[1], numbers[2]}, nil
}

// String formats the version as MAJOR.MINOR.PATCH.
func (v Version) String() string {
	return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
}

// Compare returns -1, 0 or 1 as version a is lower than, equal to or higher than b.
func Compare(a, b string) (int, error) {
	va, err := Parse(a)
	if err != nil {
		return 0, err
	}
	vb, err := Parse(b)
	if err != nil {
		return 0, err
	}
	for _, d := range [3]int{va.Major - vb.Major, va.Minor - vb.Minor, va.Patch - vb.Patch} {
		switch {
		case d < 0:
			return -1, nil
		case d > 0:
			return 1, nil
		}
	}
	return 0, nil
}
