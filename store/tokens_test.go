package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
)

func TestTokensAuthenticateUntilRevoked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)

	tok, secret, err := s.CreateToken(ctx, "ci", store.TokenWriter, "movielens")
	require.NoError(t, err)
	require.Regexp(t, `^vdt_[0-9]+_[A-Za-z0-9_-]{43}$`, secret)
	got, err := s.Authenticate(ctx, secret)
	require.NoError(t, err)
	require.Equal(t, tok.ID, got.ID)
	require.Equal(t, store.TokenWriter, got.Role)
	require.Equal(t, "movielens", got.Experiment)

	// Only the hash is stored: the secret is nowhere in the table.
	_, enc, _ := strings.Cut(strings.TrimPrefix(secret, "vdt_"), "_")
	require.Zero(t, count(t, url, `SELECT count(*) FROM api_tokens WHERE position('`+enc+`' in encode(secret_sha256, 'escape')) > 0 OR name = '`+enc+`'`))

	other, otherSecret, err := s.CreateToken(ctx, "analyst", store.TokenReader, "")
	require.NoError(t, err)
	// A wrong secret, another token's secret under this ID, a malformed or
	// unknown token: all the same error.
	last := secret[len(secret)-1]
	flipped := secret[:len(secret)-1] + string(map[bool]byte{true: 'A', false: 'B'}[last != 'A'])
	_, otherEnc, _ := strings.Cut(strings.TrimPrefix(otherSecret, "vdt_"), "_")
	for _, bad := range []string{"", "vdt_", "Bearer " + secret, flipped, "vdt_" + strings.Split(strings.TrimPrefix(secret, "vdt_"), "_")[0] + "_" + otherEnc,
		"vdt_999999_" + enc, "vdt_-1_" + enc, "vdt_1_short", strings.ToUpper(secret)} {
		_, err := s.Authenticate(ctx, bad)
		require.ErrorIs(t, err, store.ErrUnauthorized, "%q", bad)
	}

	revoked, err := s.RevokeToken(ctx, tok.ID)
	require.NoError(t, err)
	require.NotNil(t, revoked.RevokedAt)
	_, err = s.Authenticate(ctx, secret)
	require.ErrorIs(t, err, store.ErrUnauthorized)
	_, err = s.Authenticate(ctx, otherSecret)
	require.NoError(t, err)
	_, err = s.RevokeToken(ctx, 424242)
	require.ErrorIs(t, err, store.ErrNotFound)

	list, err := s.ListTokens(ctx)
	require.NoError(t, err)
	require.Len(t, list, 2)
	require.Equal(t, "ci", list[0].Name)
	require.NotNil(t, list[0].RevokedAt)
	require.Equal(t, other.ID, list[1].ID)
	require.Nil(t, list[1].RevokedAt)

	for _, tc := range []struct {
		name, experiment string
		role             store.TokenRole
	}{{"", "", store.TokenReader}, {"x\x1b[2J", "", store.TokenReader}, {"x", "", "root"}, {"x", strings.Repeat("e", 300), store.TokenReader}} {
		_, _, err := s.CreateToken(ctx, tc.name, tc.role, tc.experiment)
		require.ErrorIs(t, err, store.ErrBadInput, "%+v", tc)
	}
}

func TestTokenRolesAllow(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		have, need store.TokenRole
		ok         bool
	}{
		{store.TokenReader, store.TokenReader, true}, {store.TokenReader, store.TokenWriter, false}, {store.TokenReader, store.TokenAdmin, false},
		{store.TokenWriter, store.TokenReader, true}, {store.TokenWriter, store.TokenWriter, true}, {store.TokenWriter, store.TokenAdmin, false},
		{store.TokenAdmin, store.TokenReader, true}, {store.TokenAdmin, store.TokenAdmin, true},
		{"", store.TokenReader, false}, {store.TokenAdmin, "", false}, {"root", store.TokenReader, false},
	} {
		require.Equal(t, tc.ok, tc.have.Allows(tc.need), "%s needs %s", tc.have, tc.need)
	}
}

func TestListExperiments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := setup(t)
	for _, run := range []string{"a", "b"} {
		_, err := s.LogEvaluation(ctx, newEval("movies", run), twoMetricRows())
		require.NoError(t, err)
	}
	_, err := s.LogEvaluation(ctx, newEval("books", "a"), twoMetricRows())
	require.NoError(t, err)
	all, err := s.ListExperiments(ctx, "")
	require.NoError(t, err)
	require.Len(t, all, 2)
	require.Equal(t, "books", all[0].Name)
	require.Equal(t, int64(2), all[1].Runs)
	require.Equal(t, int64(2), all[1].Evaluations)
	require.NotNil(t, all[1].LastLogged)
	one, err := s.ListExperiments(ctx, "movies")
	require.NoError(t, err)
	require.Len(t, one, 1)
	none, err := s.ListExperiments(ctx, "nope")
	require.NoError(t, err)
	require.Empty(t, none)
}
