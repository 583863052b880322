package profiling_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/profiling"
)

// TestStartWritesBothProfiles checks that the files the environment names
// hold profiles when the returned function has run (a gzipped protocol
// buffer, which starts with the gzip magic), and that nothing is written
// to the report.
func TestStartWritesBothProfiles(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
	t.Setenv("VERDICT_CPUPROFILE", cpu)
	t.Setenv("VERDICT_MEMPROFILE", mem)
	var report bytes.Buffer
	stop := profiling.Start(&report)
	sink := 0
	for i := range 1_000_000 {
		sink += i % 7
	}
	_ = sink
	stop()
	require.Empty(t, report.String())
	for _, path := range []string{cpu, mem} {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Greater(t, len(data), 2, path)
		require.Equal(t, []byte{0x1f, 0x8b}, data[:2], path)
	}
}

// TestStartNamesAFileItCannotWrite checks the report of a profile that
// cannot be written, and that without the variables nothing happens.
func TestStartNamesAFileItCannotWrite(t *testing.T) {
	t.Setenv("VERDICT_CPUPROFILE", "/nonexistent/folder/cpu.prof")
	t.Setenv("VERDICT_MEMPROFILE", "/nonexistent/folder/mem.prof")
	var report bytes.Buffer
	profiling.Start(&report)()
	require.Contains(t, report.String(), "VERDICT_CPUPROFILE: open /nonexistent/folder/cpu.prof")
	require.Contains(t, report.String(), "VERDICT_MEMPROFILE: open /nonexistent/folder/mem.prof")

	t.Setenv("VERDICT_CPUPROFILE", "")
	t.Setenv("VERDICT_MEMPROFILE", "")
	report.Reset()
	profiling.Start(&report)()
	require.Empty(t, report.String())
}
