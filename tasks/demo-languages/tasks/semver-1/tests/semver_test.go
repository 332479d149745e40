package semver

import "testing"

func TestParse(t *testing.T) {
	v, err := Parse("v1.4.2")
	if err != nil || v != (Version{1, 4, 2}) {
		t.Fatalf("Parse(v1.4.2) = %v, %v", v, err)
	}
}

func TestParseRejectsShortVersion(t *testing.T) {
	if _, err := Parse("1.4"); err == nil {
		t.Fatal("Parse(1.4) succeeded")
	}
}

func TestCompareEqual(t *testing.T) {
	if c, err := Compare("1.2.3", "v1.2.3"); err != nil || c != 0 {
		t.Fatalf("Compare = %d, %v", c, err)
	}
}

func TestCompareMajor(t *testing.T) {
	if c, err := Compare("1.9.9", "2.0.0"); err != nil || c != -1 {
		t.Fatalf("Compare = %d, %v", c, err)
	}
}

func TestCompareMultiDigitComponents(t *testing.T) {
	if c, err := Compare("1.10.0", "1.9.0"); err != nil || c != 1 {
		t.Fatalf("Compare(1.10.0, 1.9.0) = %d, %v; want 1", c, err)
	}
	if c, err := Compare("1.2.9", "1.2.10"); err != nil || c != -1 {
		t.Fatalf("Compare(1.2.9, 1.2.10) = %d, %v; want -1", c, err)
	}
}

func TestCompareNumericNotTextual(t *testing.T) {
	if c, err := Compare("10.0.0", "9.0.0"); err != nil || c != 1 {
		t.Fatalf("Compare(10.0.0, 9.0.0) = %d, %v; want 1", c, err)
	}
}
