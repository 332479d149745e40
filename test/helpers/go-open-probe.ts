/**
 * A file of the Go demo package (semver-1) for hidden-tests-unreadable.test.ts: at the start of
 * each test binary, it tries every place the code under test could learn what the hidden tests
 * expect, and prints whether it could.
 */
export const OPEN_PROBE = `package semver

import (
	"fmt"
	"os"
	"path/filepath"
)

// Every place a test binary could learn what its tests expect, tried once per process.
func init() {
	tell := func(what string, err error) {
		if err != nil {
			fmt.Printf("swe-env-probe %s: denied\\n", what)
		} else {
			fmt.Printf("swe-env-probe %s: readable\\n", what)
		}
	}
	read := func(path string) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.Read(make([]byte, 1))
		return err
	}
	files, _ := filepath.Glob("*_test.go")
	for _, f := range files {
		tell("open "+f, read(f))
	}
	tell("open /proc/self/exe", read("/proc/self/exe"))
	tell("open os.Args[0]", read(os.Args[0]))
	tell("open /swe_env/grading/test.patch", read("/swe_env/grading/test.patch"))
	_, err := os.ReadDir("/root/.cache/go-build")
	tell("list /root/.cache/go-build", err)
	tell("open /proc/self/maps", read("/proc/self/maps"))
	fmt.Printf("swe-env-probe uid %d euid %d\\n", os.Getuid(), os.Geteuid())
}
`;
