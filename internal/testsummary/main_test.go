package main

import (
	"bytes"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRunOnARealStream runs `go test -json` on the sample module in
// testdata, whose tests pass, skip, skip in a subtest and fail, and one of
// whose packages does not build, and checks what the summary says of each.
func TestRunOnARealStream(t *testing.T) {
	stream, err := sampleStream("./bad", "./broken", "./empty", "./good")
	require.Error(t, err, "the sample's TestFails fails, so go test exits 1")
	failed, text := summarize(t, stream)
	require.True(t, failed)

	// The failing test's own lines are printed, the passing test's are not.
	require.Contains(t, text, "want 1, got 2")
	require.Contains(t, text, "a clue")
	require.NotContains(t, text, "quiet when it passes")
	require.NotContains(t, text, "=== RUN")
	require.Regexp(t, `--- FAIL: TestFails \([0-9.]+s\)\n    bad_test.go:8: a clue\n`, text)
	// One row a package with tests, none for a package without, counting
	// subtests: good runs TestPasses, TestSkips, TestSubtests and its two.
	require.Regexp(t, `(?m)^bad +2 +1 +0 +1  fail$`, text)
	require.Regexp(t, `(?m)^good +5 +3 +2 +0  pass$`, text)
	require.Regexp(t, `(?m)^total +7 +4 +2 +1  $`, text)
	require.NotRegexp(t, `(?m)^empty `, text)
	// Each skip with its reason, each failure with its message.
	require.Contains(t, text, "2 skipped:\n  sample/good TestSkips\n      good_test.go:7: needs the moon\n  sample/good TestSubtests/two\n      good_test.go:11: needs 2 suns\n")
	require.Contains(t, text, "1 failed:\n  sample/bad TestFails\n      bad_test.go:8: a clue\n      bad_test.go:9: want 1, got 2\n")
	// The compiler's message, and the package named at the end.
	require.Contains(t, text, `cannot use "not a number"`)
	require.Regexp(t, `(?m)^broken +0 +0 +0 +0  fail$`, text)
	require.Contains(t, text, "\nbuild failed: sample/broken [sample/broken.test]\n")
}

// TestRunPassesWhenNothingFails: the good package alone passes, and a
// stream cut off before a package's result fails.
func TestRunPassesWhenNothingFails(t *testing.T) {
	stream, err := sampleStream("./good")
	require.NoError(t, err)
	failed, text := summarize(t, stream)
	require.False(t, failed, text)

	cut := stream[:bytes.LastIndex(stream, []byte(`"Action":"pass","Package":"sample/good","Elapsed"`))]
	cut = cut[:bytes.LastIndexByte(cut, '\n')+1]
	failed, text = summarize(t, cut)
	require.True(t, failed)
	require.Contains(t, text, "no result: sample/good (its test binary ended without reporting)")
}

// TestRunNamesTestsATimeoutEnded: a test still running when its binary's
// -timeout panics has no result event; it counts as failed, with the
// panic's lines.
func TestRunNamesTestsATimeoutEnded(t *testing.T) {
	stream, err := sampleStream("-timeout=1s", "./slow")
	require.Error(t, err)
	failed, text := summarize(t, stream)
	require.True(t, failed)
	require.Contains(t, text, "--- UNFINISHED: TestNeverEnds\n")
	require.Contains(t, text, "panic: test timed out after 1s")
	require.Regexp(t, `(?m)^sample/slow +1 +0 +0 +1  fail$`, text)
	require.Contains(t, text, "1 failed:\n  sample/slow TestNeverEnds\n      (did not finish)\n      slow_test.go:7: started\n")
}

// sampleStream is the output of `go test -json` on the sample module in
// testdata, with args, and its error.
func sampleStream(args ...string) ([]byte, error) {
	cmd := exec.Command("go", append([]string{"test", "-json", "-count=1"}, args...)...)
	cmd.Dir = "testdata/sample"
	cmd.Env = append(cmd.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	return cmd.Output()
}

// summarize runs the summary on stream and returns whether it failed and
// what it printed.
func summarize(t *testing.T, stream []byte) (bool, string) {
	t.Helper()
	require.NotEmpty(t, stream)
	var out bytes.Buffer
	failed, err := run(bytes.NewReader(stream), &out)
	require.NoError(t, err)
	return failed, out.String()
}
