package input_test

import (
	"encoding/binary"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/input"
	"github.com/verdict-ml/verdict/internal/input/inputtest"
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

func TestTextProblem(t *testing.T) {
	t.Parallel()
	require.Empty(t, input.TextProblem("sample ID", "café ü5"))
	require.Equal(t, "the sample ID is not valid UTF-8; convert the file to UTF-8 (was it written as Latin-1 or Windows-1252?)",
		input.TextProblem("sample ID", "caf\xe9"))
	require.Equal(t, "the metric name contains a NUL byte", input.TextProblem("metric name", "a\x00b"))

	// A 'U' element that is no Unicode text becomes invalid UTF-8, so that
	// the same check refuses it.
	u := input.NPYType{Order: binary.LittleEndian, Kind: 'U', Size: 12}
	for _, r := range []uint32{0xd800, 0xdfff, 0x110000, 0xffffffff} {
		elem := binary.LittleEndian.AppendUint32(inputtest.Strings(1, "a"), r)
		elem = append(elem, 0, 0, 0, 0)
		text := string(u.AppendText(nil, elem, 0))
		require.Equal(t, "a\xff", text, "code point %#x", r)
		require.NotEmpty(t, input.TextProblem("sample ID", text))
	}
}
