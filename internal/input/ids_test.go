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

func TestTrimID(t *testing.T) {
	t.Parallel()
	tests := []struct{ id, want string }{
		{id: "u1", want: "u1"},
		{id: " u1", want: "u1"},
		{id: "u1 ", want: "u1"},
		{id: "\tu 1\r\n", want: "u 1"},
		{id: "\u00a0u1\u3000", want: "u1"},
		{id: "ü5", want: "ü5"},
		{id: "   ", want: ""},
		{id: "", want: ""},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, input.TrimID(tt.id), "%q", tt.id)
		var ids input.IDs
		require.Equal(t, tt.want, ids.From(tt.id), "From(%q)", tt.id)
		require.Equal(t, tt.want, ids.FromBytes([]byte(tt.id)), "FromBytes(%q)", tt.id)
	}
}
