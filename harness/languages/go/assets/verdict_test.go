package @package@

// The harness's verdict channel (languages/go/verdict.py): the exit code of the test run,
// written to a descriptor that only this file opens, with the run's token, which only this
// file reads. The candidate's code, kept by the screen from os, syscall, unsafe and
// runtime, can reach neither.

import (
	harnessfmt "fmt"
	harnessos "os"
	harnesstesting "testing"
)

func TestMain(m *harnesstesting.M) {
	token := harnessos.Getenv("HARNESS_GO_VERDICT")
	harnessos.Unsetenv("HARNESS_GO_VERDICT")
	channel := harnessos.NewFile(3, "harness-verdict")
	code := m.Run()
	harnessfmt.Fprintf(channel, "verdict %s %d\n", token, code)
	harnessos.Exit(code)
}
