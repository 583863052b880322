package input_test

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/input"
)

func unsafeStringData(s string) *byte { return unsafe.StringData(s) }

func TestIDs(t *testing.T) {
	t.Parallel()
	var ids input.IDs
	buf := []byte("u1")
	a := ids.FromBytes(buf)
	buf[1] = '2' // the reader's buffer is reused
	require.Equal(t, "u1", a, "a copy")
	b := ids.From("u1")
	require.Same(t, unsafeStringData(a), unsafeStringData(b), "a run of equal IDs shares one string")
	require.Equal(t, "u2", ids.FromBytes(buf))
}
